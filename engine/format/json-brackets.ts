/**
 * JSON bracket slips said as what they are: an extra `]` or `}`, a closer
 * of the wrong kind, and a `{` or `[` never closed, reported where it
 * opens. jsonc-parser reports each where it gave up ("expected a comma or
 * closing bracket", "expected a property name", the end of the file), so
 * its fix, to add commas, fixes nothing. The brackets open at the fault
 * are counted, and the one repair that makes the whole text parse (remove
 * the closer, write the right one, or close the open bracket) says which
 * slip it is.
 */
import { parseTree, type ParseError } from 'jsonc-parser';
import { LineIndex } from './positions.js';

export interface BracketProblem { message: string; fix: string; offset: number }

interface Open { char: '{' | '['; offset: number }

const CLOSER = { '{': '}', '[': ']' } as const;
const KIND = { '{': 'object', '[': 'list' } as const;

/** A bracket slip at `offset` (where the parser gave up); undefined when the fault is something else. */
export function bracketProblem(text: string, offset: number, code: string): BracketProblem | undefined {
  const open = openBrackets(text, offset);
  const top = open[open.length - 1];
  if (!top) return undefined;
  const lines = new LineIndex(text);
  const where = (at: number) => { const p = lines.position(at); return `${p.line}:${p.col}`; };
  const need = CLOSER[top.char];
  /** `before`: where the missing closer belongs, said in the message and the fix ("" at the end of the file). */
  const unclosed = (why: string, before: string, around = 0): BracketProblem => ({
    offset: top.offset,
    message: `the ${KIND[top.char]} "${top.char}" that opens at ${where(top.offset)} is never closed: ${why}`,
    fix: `close it with "${need}" where its ${top.char === '{' ? 'properties end' : 'items end'}${before}${around > 0 ? `, then the ${around} still open around it (${open.slice(0, -1).reverse().map((o) => `"${CLOSER[o.char]}"`).join(' ')})` : ''}`,
  });
  const found = text[offset];
  if (found === '}' || found === ']') {
    if (found === need) return undefined;
    const opener = found === '}' ? '{' : '[';
    if (parses(text.slice(0, offset) + text.slice(offset + 1))) {
      return { offset, message: `an extra "${found}": no "${opener}" is open here for it to close (the innermost open bracket is the "${top.char}" at ${where(top.offset)})`, fix: `remove this "${found}"` };
    }
    if (parses(text.slice(0, offset) + need + text.slice(offset + 1))) {
      return { offset, message: `"${found}" closes the "${top.char}" that opens at ${where(top.offset)}, which needs "${need}"`, fix: `write "${need}" here instead of "${found}"` };
    }
    if (parses(text.slice(0, offset) + need + text.slice(offset))) return unclosed(`"${found}" at ${where(offset)} comes before its "${need}"`, ` (before the "${found}" at ${where(offset)})`);
    return {
      offset,
      message: `"${found}" where "${need}" belongs: the innermost open bracket is the "${top.char}" that opens at ${where(top.offset)}`,
      fix: `close that "${top.char}" with "${need}" before this "${found}", or remove this "${found}" if it is extra`,
    };
  }
  if (text.slice(offset).trim() === '') {
    // Cut short after a key or a comma is a value missing, said as such by the caller.
    return /^(?:CloseBraceExpected|CloseBracketExpected|CommaExpected)$/.test(code) ? unclosed('the file ends first', '', open.length - 1) : undefined;
  }
  const key = top.char === '[' ? keyInList(text, offset) : undefined;
  if (key) {
    // `"b":` inside a list: the list was never closed before the object's next key; a comma cannot fix it.
    const lists = open.length - 1 - open.map((o) => o.char).lastIndexOf('{');
    const closers = ']'.repeat(lists);
    const before = text.slice(0, key.start).trimEnd();
    const comma = before.endsWith(',') ? before.length - 1 : -1;
    const repaired = comma >= 0 ? text.slice(0, comma) + closers + text.slice(comma) : `${text.slice(0, key.start)}${closers}, ${text.slice(key.start)}`;
    if (lists > 0 && parses(repaired)) {
      const name = text.slice(key.start, key.end + 1);
      const place = comma >= 0 ? `the "," at ${where(comma)}` : `${name} at ${where(key.start)}`;
      const also = lists > 1 ? `, then the ${lists - 1} list${lists > 2 ? 's' : ''} still open around it (${closers.slice(1).split('').map((c) => `"${c}"`).join(' ')})` : '';
      return {
        offset: top.offset,
        message: `the list "[" that opens at ${where(top.offset)} is never closed: ${name} at ${where(key.start)} is a property name (a ":" follows it), which belongs to the object around the list`,
        fix: `close it with "]"${comma >= 0 ? '' : ' and a comma after it'} where its items end (before ${place})${also}`,
      };
    }
  }
  if (!/^(?:PropertyNameExpected|ValueExpected|InvalidSymbol|CommaExpected)$/.test(code)) return undefined;
  // A value or key where the open bracket should have closed (`{"a": 1}, {"b": 2}` with the first "}" missing): close it before the comma.
  const comma = text.slice(0, offset).trimEnd();
  const at = comma.endsWith(',') ? comma.length - 1 : offset;
  if (parses(text.slice(0, at) + need + text.slice(at))) {
    const place = at === offset ? `${showAt(text, offset)} at ${where(offset)}` : `the "," at ${where(at)}`;
    return unclosed(`its "${need}" is missing before ${place}`, ` (before ${place})`);
  }
  return undefined;
}

/** A stray byte-order mark at `offset` (only one, at the very start, is dropped as the file is read). */
export function strayBom(text: string, offset: number): BracketProblem | undefined {
  if (text.charCodeAt(offset) !== 0xfeff) return undefined;
  const where = offset === 0 ? 'at the start of the file, after the one allowed there' : 'inside the file';
  return { offset, message: `a stray byte-order mark (U+FEFF) ${where}: an invisible character that is no JSON`, fix: 'remove this invisible character (an editor set to show invisible characters shows it)' };
}

/** The character at `offset` for a message: `"x"`, or `"{"`. */
function showAt(text: string, offset: number): string {
  return JSON.stringify(text[offset] ?? '');
}

/**
 * The string at `offset` (where the parser gave up) read as a property name:
 * the `":"` after it, or the string it starts, followed by a colon. Its
 * opening and closing quotes' offsets; undefined when there is none.
 */
function keyInList(text: string, offset: number): { start: number; end: number } | undefined {
  if (text[offset] === '"') {
    const end = stringEnd(text, offset);
    return end !== undefined && /^\s*:/.test(text.slice(end + 1)) ? { start: offset, end } : undefined;
  }
  if (text[offset] !== ':') return undefined;
  const before = text.slice(0, offset).trimEnd();
  if (!before.endsWith('"')) return undefined;
  // The string that closes there: scanned from the start of its line, which a JSON string never crosses.
  const lineStart = text.lastIndexOf('\n', before.length - 1) + 1;
  for (let i = lineStart; i < before.length; i++) {
    if (text[i] !== '"') continue;
    const end = stringEnd(text, i);
    if (end === undefined) return undefined;
    if (end === before.length - 1) return { start: i, end };
    i = end;
  }
  return undefined;
}

/** The closing quote of the string opening at `start`, on its own line. */
function stringEnd(text: string, start: number): number | undefined {
  for (let i = start + 1; i < text.length && text[i] !== '\n'; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return undefined;
}

/** The `{` and `[` open at `offset`, outermost first (strings skipped; a closer pops whatever is open). */
function openBrackets(text: string, offset: number): Open[] {
  const stack: Open[] = [];
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < offset && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') stack.push({ char: c, offset: i });
    else if (c === '}' || c === ']') stack.pop();
  }
  return stack;
}

function parses(text: string): boolean {
  const errors: ParseError[] = [];
  parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  return errors.length === 0;
}
