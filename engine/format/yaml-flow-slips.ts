/**
 * YAML slips inside [ ] and { } and double-quoted strings, said where they
 * are with a fix that works. The parser reports a closer of the wrong kind
 * (`[1}`) as the list never closed, whose fix (add "]") leaves the wrong
 * closer in place; two mapping entries with no comma between them as
 * "block collections are not allowed within flow collections"; and an
 * invalid escape with no word on what escapes there are.
 */
import { LineIndex } from './positions.js';

export interface FlowSlip { message: string; fix: string; offset: number }

const CLOSER = { '{': '}', '[': ']' } as const;
const KIND = { '{': 'mapping', '[': 'list' } as const;

/**
 * `at` holds a `]` or `}` that does not close the flow collection opening
 * at `opened`. The one repair that makes the file parse says which slip it
 * is: an extra closer, a closer of the wrong kind, or the inner bracket
 * left open before it. Undefined when the character at `at` is no closer
 * (the collection runs on to a later line or the end of the file).
 */
export function wrongCloser(text: string, opened: number, at: number, parses: (text: string) => boolean): FlowSlip | undefined {
  const found = text[at];
  const open = text[opened];
  if ((found !== ']' && found !== '}') || (open !== '[' && open !== '{')) return undefined;
  const need = CLOSER[open];
  if (found === need) return undefined;
  const lines = new LineIndex(text);
  const where = (offset: number) => { const p = lines.position(offset); return `${p.line}:${p.col}`; };
  const opener = found === '}' ? '{' : '[';
  if (parses(text.slice(0, at) + text.slice(at + 1))) {
    return { offset: at, message: `an extra "${found}": no "${opener}" is open here for it to close (the innermost open bracket is the "${open}" at ${where(opened)})`, fix: `remove this "${found}"` };
  }
  if (parses(text.slice(0, at) + need + text.slice(at + 1))) {
    return { offset: at, message: `"${found}" closes the "${open}" that opens at ${where(opened)}, which needs "${need}"`, fix: `write "${need}" here instead of "${found}"` };
  }
  if (parses(text.slice(0, at) + need + text.slice(at))) {
    return {
      offset: opened,
      message: `the ${KIND[open]} "${open}" that opens at ${where(opened)} is never closed: its "${need}" is missing before the "${found}" at ${where(at)}`,
      fix: `close it with "${need}" where its ${open === '{' ? 'entries end' : 'items end'} (before the "${found}" at ${where(at)})`,
    };
  }
  return {
    offset: at,
    message: `"${found}" where "${need}" belongs: the innermost open bracket is the "${open}" that opens at ${where(opened)}`,
    fix: `close that "${open}" with "${need}" before this "${found}", or remove this "${found}" if it is extra`,
  };
}

/** An invalid escape, or two { } entries with no comma between them (read by the parser as a block mapping); `text` as the parser reads it. */
export function flowSlip(text: string, code: string, pos: [number, number]): FlowSlip | undefined {
  if (code === 'BAD_DQ_ESCAPE' && text[pos[0]] === '\\') return badEscape(text, pos[0]);
  if (code !== 'BLOCK_IN_FLOW') return undefined;
  const inside = innermostFlow(text, pos[0]);
  return inside === undefined ? undefined : entryWithoutComma(text, pos, inside === '{');
}

/**
 * A BLOCK_IN_FLOW error over `range` inside { }: the parser read `1 c: 2`
 * as one key spanning "1 c", when the comma before `c` is what is missing.
 * Said at the word the next entry starts with; undefined when the range
 * holds no such word (no space before a key's ":").
 */
export function entryWithoutComma(text: string, range: [number, number], inMapping: boolean): FlowSlip | undefined {
  const span = text.slice(range[0], range[1]).split('\n')[0];
  const colon = /:(?=[\s,\]}]|$)/.exec(span);
  if (!colon) return undefined;
  const key = /\s(\S+)\s*$/.exec(span.slice(0, colon.index));
  if (!key) return undefined;
  const offset = range[0] + key.index + 1;
  const entry = inMapping ? 'entry' : 'item';
  return {
    offset,
    message: `another ${entry} starts here (${JSON.stringify(key[1])}), with no comma between it and the ${entry} before it`,
    fix: `put a comma between the two ${inMapping ? 'entries' : 'items'} (${inMapping ? '{a: 1, b: 2}' : '[a, b: 2]'}), or quote the text if it is one value`,
  };
}

/** The escapes a double-quoted YAML 1.2 string has, and the two ways to write a backslash as text. */
const ESCAPE_FIX = 'the escapes in a double-quoted string are \\" \\\\ \\/ \\0 \\a \\b \\e \\f \\n \\r \\t \\v \\N \\_ \\L \\P \\xXX \\uXXXX and \\UXXXXXXXX; write \\\\ for a literal backslash, or use single quotes, where a backslash is plain text';

/** How many hex digits each numeric escape takes. */
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** A BAD_DQ_ESCAPE at `at` (its backslash), named as written: the parser's message runs on into the closing quote (`\u12"`). */
export function badEscape(text: string, at: number): FlowSlip {
  const letter = text[at + 1] ?? '';
  const digits = HEX_DIGITS[letter];
  const written = digits === undefined ? `\\${letter}` : `\\${letter}${/^[0-9a-fA-F]*/.exec(text.slice(at + 2, at + 2 + digits))![0]}`;
  const why = digits === undefined ? '' : `: \\${letter} takes ${digits === 2 ? 'two' : digits === 4 ? 'four' : 'eight'} hex digits`;
  return { offset: at, message: `invalid escape sequence ${written} in a double-quoted string${why}`, fix: ESCAPE_FIX };
}

/** The innermost `[` or `{` open at `offset` (quoted text and comments skipped); undefined outside [ ] and { }. */
export function innermostFlow(text: string, offset: number): '[' | '{' | undefined {
  const open: Array<'[' | '{'> = [];
  let prev = '\n';
  for (let i = 0; i < offset; i++) {
    const c = text[i];
    if ((c === '"' || c === "'") && /[\s:,[{\-]/.test(prev)) {
      // A quote opens a string only where a value may start (not the ' in it's).
      for (i++; i < offset; i++) {
        if (c === '"' && text[i] === '\\') i++;
        else if (text[i] === c) {
          if (c === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
    } else if (c === '#' && /\s/.test(prev)) {
      while (i < offset && text[i] !== '\n') i++;
    } else if ((c === '[' || c === '{') && (open.length > 0 || /[\s:,[{\-]/.test(prev))) open.push(c);
    else if ((c === ']' || c === '}') && open.length > 0) open.pop();
    prev = text[i] ?? '';
  }
  return open[open.length - 1];
}
