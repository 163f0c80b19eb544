/**
 * Strict JSON workflow files: plain data plus positions for findings, and
 * syntax errors worded for people, with the line:col and a fix.
 *
 * JSON is parsed with JSON.parse (fast) and only re-parsed into a
 * jsonc-parser tree when something needs positions: a syntax error, a
 * duplicate key, or the first `locate` call. Duplicate keys, which
 * JSON.parse silently collapses, are detected by comparing the number of
 * `:` outside strings with the number of properties in the parsed data.
 */
import { parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { CountersignError } from '../errors.js';
import { LineIndex, locateInJsonTree, pointerSegments, type Position } from './positions.js';
import type { SourceDocument } from './source.js';
import { valueEndingBefore, type ValueBefore } from './json-missing-comma.js';
import { bracketProblem, strayBom } from './json-brackets.js';

const STRICT = { allowTrailingComma: false, disallowComments: true } as const;

class JsonSource implements SourceDocument {
  readonly format = 'json' as const;
  private tree?: JsonNode;
  private lines?: LineIndex;

  constructor(readonly file: string, readonly text: string, readonly data: unknown) {}

  locate(pointer: string, opts?: { key?: boolean; atAlias?: boolean }): Position {
    this.tree ??= parseTree(this.text, [], STRICT);
    this.lines ??= new LineIndex(this.text);
    const offset = this.tree ? locateInJsonTree(this.tree, pointerSegments(pointer), opts?.key === true) : 0;
    return this.lines.position(offset);
  }
}

export function parseJson(text: string, file: string): SourceDocument {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw jsonSyntaxError(text, file, (e as Error).message);
  }
  const dup = repeatedKey(text, data);
  if (dup) {
    const lines = new LineIndex(text);
    const at = lines.position(dup.offset);
    const first = lines.position(dup.firstOffset);
    throw new CountersignError('E_PARSE', `duplicate key "${dup.key}"`, {
      file, line: at.line, col: at.col,
      fix: `remove or rename one of the two "${dup.key}" keys (the first is at ${first.line}:${first.col}); JSON keeps only the last one`,
    });
  }
  const huge = hugeNumber(text);
  if (huge) {
    const at = new LineIndex(text).position(huge.offset);
    const shown = huge.text.length > 30 ? `${huge.text.slice(0, 27)}...` : huge.text;
    if (huge.inexact !== undefined) {
      throw new CountersignError('E_PARSE', `the integer ${shown} is beyond the integers a JSON number keeps exactly (±9007199254740991): it would be read as ${huge.inexact}`, {
        file, line: at.line, col: at.col,
        fix: 'write it as a string ("…") if the digits matter, or as a smaller number',
      });
    }
    throw new CountersignError('E_PARSE', `the number ${shown} is beyond the range of JSON numbers: it would be read as Infinity and stored as null`, {
      file, line: at.line, col: at.col,
      fix: 'write a number within ±1.7976931348623157e308 (or a string, if the digits themselves matter)',
    });
  }
  return new JsonSource(file, text, data);
}

/**
 * A number literal JSON.parse turns into ±Infinity, which JSON.stringify
 * then writes as null, or an integer literal past 2^53 - 1, which it
 * rounds: either way the value would change without a word. Only a literal
 * with a 3-digit exponent, or 16 digits in a row, can be one, so the tree
 * is built only for those.
 */
/**
 * What a number in parsed JSON text lost, said as a sentence: an integer past
 * 2^53 rounded, or a literal past the largest double. Undefined when none did.
 */
export function lostNumber(text: string): { offset: number; said: string } | undefined {
  const huge = hugeNumber(text);
  if (!huge) return undefined;
  const shown = huge.text.length > 30 ? `${huge.text.slice(0, 27)}...` : huge.text;
  return {
    offset: huge.offset,
    said: huge.inexact !== undefined
      ? `the integer ${shown} is beyond the integers a JSON number keeps exactly (±9007199254740991): it would be read as ${huge.inexact}`
      : `the number ${shown} is beyond the range of JSON numbers: it would be read as Infinity and stored as null`,
  };
}

function hugeNumber(text: string): { offset: number; text: string; inexact?: string } | undefined {
  // 16 digits in a row: an integer past 2^53 - 1 may be there, which JSON.parse would round without a word.
  if (!/[0-9](?:[eE]\+?[0-9]{3}|[0-9]{300})/.test(text) && !/[0-9]{16}/.test(text)) return undefined;
  const stack: Array<JsonNode | undefined> = [parseTree(text, [], STRICT)];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) continue;
    if (node.type === 'number' && !Number.isFinite(node.value)) return { offset: node.offset, text: text.slice(node.offset, node.offset + node.length) };
    if (node.type === 'number') {
      const literal = text.slice(node.offset, node.offset + node.length);
      // Only one the double cannot hold exactly (1e16 written out is fine; 9007199254740993 is not).
      if (/^-?[0-9]+$/.test(literal) && !Number.isSafeInteger(node.value) && BigInt(literal) !== BigInt(node.value)) return { offset: node.offset, text: literal, inexact: String(node.value) };
    }
    if (node.children) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return undefined;
}

/**
 * The first key an object in `text` repeats, in document order, with the
 * offsets of the repeat and of the first one: JSON.parse keeps only the
 * last value without a word. `data` is JSON.parse(text); the text is
 * scanned again only when it holds more `:` than `data` has properties.
 */
export function repeatedKey(text: string, data: unknown): { key: string; offset: number; firstOffset: number } | undefined {
  if (countColons(text) === countProperties(data)) return undefined;
  return findDuplicateKey(text);
}

/**
 * A repeated key said as a sentence: `repeats the key "n" in one object
 * (line 1, column 10; the first at line 1, column 2): JSON would keep only
 * the last value`. `columns`: the places as "column N" when the text is one
 * line (an agent's answer line). `at`: the repeat's position, for an
 * error's line:col.
 */
export function repeatedKeySaid(text: string, data: unknown, columns = false): { said: string; at: Position } | undefined {
  const dup = repeatedKey(text, data);
  if (!dup) return undefined;
  const lines = new LineIndex(text);
  const oneLine = columns && !text.trimEnd().includes('\n');
  const place = (p: Position) => (oneLine ? `column ${p.col}` : `line ${p.line}, column ${p.col}`);
  const at = lines.position(dup.offset);
  return { at, said: `repeats the key ${JSON.stringify(dup.key)} in one object (${place(at)}; the first at ${place(lines.position(dup.firstOffset))}): JSON would keep only the last value` };
}

/** `:` outside strings; in valid JSON each one is exactly one property. */
function countColons(text: string): number {
  let count = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const quote = text.indexOf('"', i);
    const end = quote < 0 ? n : quote;
    let colon = text.indexOf(':', i);
    while (colon >= 0 && colon < end) {
      count++;
      colon = text.indexOf(':', colon + 1);
    }
    if (quote < 0) break;
    // Skip the string: a quote closes it unless an odd number of backslashes precede it.
    let j = quote + 1;
    for (;;) {
      const close = text.indexOf('"', j);
      if (close < 0) return count;
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes++;
      if (backslashes % 2 === 0) {
        i = close + 1;
        break;
      }
      j = close + 1;
    }
  }
  return count;
}

/** Iterative: a document may nest too deeply to recurse into (the validator reports that). */
function countProperties(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    for (const key in value) {
      count++;
      stack.push((value as Record<string, unknown>)[key]);
    }
  }
  return count;
}

/**
 * The earliest second occurrence of a key in document order, found by one
 * scan of `text` (valid JSON) without recursion or a tree: an answer may
 * nest too deeply for either. Keys are compared decoded ("\u006e" is "n").
 */
function findDuplicateKey(text: string): { key: string; offset: number; firstOffset: number } | undefined {
  // One entry per open container: an object's keys seen so far (with their offsets), or null for an array.
  const open: Array<Map<string, number> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      open.push(new Map());
      expectKey = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
    } else if (c === ',') {
      expectKey = open[open.length - 1] != null;
    } else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const keys = open[open.length - 1];
      if (!expectKey || !keys) continue;
      expectKey = false;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      const first = keys.get(key);
      if (first !== undefined) return { key, offset: start, firstOffset: first };
      keys.set(key, start);
    }
  }
  return undefined;
}

function jsonSyntaxError(text: string, file: string, nativeMessage: string): CountersignError {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, STRICT);
  const lines = new LineIndex(text);
  const first = errors[0];
  if (!first) {
    // jsonc-parser and JSON.parse disagreed; fall back to the native message and its offset.
    const m = /position (\d+)/.exec(nativeMessage);
    const at = lines.position(m ? Number(m[1]) : 0);
    return new CountersignError('E_PARSE', `invalid JSON: ${nativeMessage}`, { file, line: at.line, col: at.col, fix: 'correct the JSON syntax at this position' });
  }
  // Where a complete root value ends (an object or array must have closed): text after it is extra.
  const end = root ? root.offset + root.length : 0;
  const closed = root !== undefined && (root.type === 'object' ? text[end - 1] === '}' : root.type === 'array' ? text[end - 1] === ']' : true);
  const rootEnd = closed ? end : Infinity;
  const { message, fix, offset } = strayBom(text, first.offset) ?? numberProblem(text, first.offset)
    ?? bracketProblem(text, first.offset, printParseErrorCode(first.error)) ?? describeJsonError(text, first, errors[1], rootEnd);
  const at = lines.position(offset);
  return new CountersignError('E_PARSE', message, { file, line: at.line, col: at.col, fix });
}

interface Described { message: string; fix: string; offset: number }

/**
 * A number JSON does not allow, which the tokenizer splits into a 0 and
 * something after it (`01` reads as 0 then 1, a "missing comma"): said as
 * the number it is.
 */
function numberProblem(text: string, offset: number): Described | undefined {
  const before = /(?<![\w.])-?0$/.exec(text.slice(Math.max(0, offset - 2), offset));
  if (!before || !/[0-9a-zA-Z]/.test(text[offset] ?? '')) return undefined;
  const start = offset - before[0].length;
  const written = /^-?[0-9a-zA-Z.+]+/.exec(text.slice(start))![0];
  if (/^-?0[xXoObB]/.test(written)) {
    return { offset: start, message: `${showToken(written)} is a hexadecimal, octal or binary number, which JSON does not have`, fix: 'write the number in decimal, e.g. 16 for 0x10' };
  }
  if (/^-?0\d/.test(written)) {
    return { offset: start, message: `number ${showToken(written)} has a leading zero, which JSON does not allow`, fix: `drop the leading zero (${written.replace(/^(-?)0+(?=\d)/, '$1')}), or quote it if it is an identifier like a zip code` };
  }
  return undefined;
}

function describeJsonError(text: string, error: ParseError, next: ParseError | undefined, rootEnd: number): Described {
  const { offset, length } = error;
  const token = text.slice(offset, offset + Math.max(length, 1));
  const found = offset >= text.length ? 'the end of the file' : showToken(token);
  const container = containerAt(text, offset);
  const closer = container === '[' ? 'closing bracket "]"' : 'closing brace "}"';
  const trailing = trailingCommaBefore(text, offset);
  switch (printParseErrorCode(error.error)) {
    case 'InvalidSymbol':
      // A complete document with text after it: no value is expected there.
      if (offset >= rootEnd) {
        return { offset, message: `unexpected ${found} after the end of the JSON document`, fix: 'a JSON file holds exactly one value; remove the extra text' };
      }
      if (next && printParseErrorCode(next.error) === 'PropertyNameExpected') {
        return { offset, message: `expected a double-quoted property name, found ${found}`, fix: 'JSON property names must be in double quotes, e.g. "name": …' };
      }
      // Right after a complete value, the parser wants a comma or the closing bracket, not another value.
      const before = container === undefined ? undefined : valueEndingBefore(text, offset);
      if (before !== undefined) return missingComma(text, offset, found, container === '[' ? '[' : '{', before);
      return { offset, message: `unexpected ${found}: expected a value`, fix: 'a JSON value is a "double-quoted string", a number, an object, an array, true, false or null' };
    case 'InvalidNumberFormat':
      return { offset, message: `invalid number ${found}`, fix: 'write numbers without leading zeros, e.g. 0.5 or 12' };
    case 'PropertyNameExpected':
    case 'ValueExpected':
      if (trailing >= 0) {
        return { offset: trailing, message: `trailing comma before ${found}`, fix: 'remove the comma after the last item; JSON does not allow trailing commas' };
      }
      if (offset >= text.length) return { offset, message: 'unexpected end of the file: expected a value', fix: 'the file is cut short; complete the JSON document' };
      return printParseErrorCode(error.error) === 'PropertyNameExpected'
        ? { offset, message: `expected a double-quoted property name, found ${found}`, fix: 'JSON property names must be in double quotes, e.g. "name": …' }
        : { offset, message: `expected a value, found ${found}`, fix: 'a JSON value is a "double-quoted string", a number, an object, an array, true, false or null' };
    case 'ColonExpected':
      return { offset, message: `expected a colon after the property name, found ${found}`, fix: 'write "name": value' };
    case 'CommaExpected':
      return { offset, message: `expected a comma or ${closer}, found ${found}`, fix: container === '[' ? 'separate array items with commas' : 'separate properties with commas' };
    case 'CloseBraceExpected':
      return { offset, message: `expected a comma or closing brace "}", found ${found}`, fix: 'close every object with "}"' };
    case 'CloseBracketExpected':
      return { offset, message: `expected a comma or closing bracket "]", found ${found}`, fix: 'close every array with "]"' };
    case 'EndOfFileExpected':
      return { offset, message: `unexpected ${found} after the end of the JSON document`, fix: 'a JSON file holds exactly one value; remove the extra text' };
    case 'InvalidCommentToken':
    case 'UnexpectedEndOfComment':
      return { offset, message: 'comments are not allowed in JSON', fix: 'remove the comment, or write the workflow in YAML, which allows # comments' };
    case 'UnexpectedEndOfString':
      return { offset, message: 'unterminated string', fix: 'close the string with a double quote on the same line; write \\n for a line break' };
    case 'UnexpectedEndOfNumber':
      return { offset, message: `incomplete number ${found}`, fix: 'write digits after the "." or exponent' };
    case 'InvalidUnicode':
      return { offset: firstBadEscape(text, offset, length), message: 'invalid unicode escape in string', fix: '\\u must be followed by four hex digits, e.g. \\u00e9' };
    case 'InvalidEscapeCharacter':
      return { offset: firstBadEscape(text, offset, length), message: 'invalid escape sequence in string', fix: 'valid escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX; write \\\\ for a literal backslash' };
    case 'InvalidCharacter': {
      const at = firstControlChar(text, offset, length);
      const code = text.charCodeAt(at).toString(16).padStart(4, '0').toUpperCase();
      return { offset: at, message: `control character U+${code} inside a string`, fix: 'escape it: write \\n for a newline and \\t for a tab' };
    }
    default:
      return { offset, message: `invalid JSON at ${found}`, fix: 'correct the JSON syntax at this position' };
  }
}

/** A word after a complete value: the comma (or closer) is what is missing; a string that took the word's opening quote is named. */
function missingComma(text: string, offset: number, found: string, container: '{' | '[', before: ValueBefore): Described {
  const closer = container === '[' ? 'closing bracket "]"' : 'closing brace "}"';
  const separate = container === '[' ? 'separate array items with commas' : 'separate properties with commas';
  const open = before.openString;
  if (!open) return { offset, message: `expected a comma or ${closer}, found ${found}`, fix: separate };
  const at = new LineIndex(text).position(open.start);
  return {
    offset,
    message: `expected a comma or ${closer}, found ${found}: the string ${showToken(open.text)} that opens at ${at.line}:${at.col} is likely missing its closing quote, so the quote meant to open ${found} closed it instead`,
    fix: `close the string that opens at ${at.line}:${at.col} with a double quote where its text ends; otherwise ${separate}`,
  };
}

/** A token for a message: strings as written, anything else quoted; long tokens shortened. */
function showToken(token: string): string {
  const short = token.length > 30 ? `${token.slice(0, 27)}...` : token;
  // Invisible characters (a zero-width space, a byte-order mark) as \uXXXX, or the quotes would seem to hold nothing.
  const shown = short.startsWith('"') ? short : JSON.stringify(short);
  return shown.replace(/\p{Cf}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`);
}

/** The innermost open `{` or `[` at an offset (strings skipped). */
function containerAt(text: string, offset: number): '{' | '[' | undefined {
  const stack: string[] = [];
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < offset && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') stack.push(c);
    else if (c === '}' || c === ']') stack.pop();
  }
  return stack[stack.length - 1] as '{' | '[' | undefined;
}

/** Offset of a `,` directly (whitespace aside) before a closing `}`/`]` at `offset`, else -1. */
function trailingCommaBefore(text: string, offset: number): number {
  const c = text[offset];
  if (c !== '}' && c !== ']') return -1;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i])) i--;
  return text[i] === ',' ? i : -1;
}

function firstBadEscape(text: string, offset: number, length: number): number {
  for (let i = offset; i < offset + length - 1; i++) {
    if (text[i] !== '\\') continue;
    const e = text[i + 1];
    if (e === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return i;
      i += 5;
    } else if ('"\\/bfnrt'.includes(e)) i++;
    else return i;
  }
  return offset;
}

function firstControlChar(text: string, offset: number, length: number): number {
  for (let i = offset; i < offset + length; i++) if (text.charCodeAt(i) < 0x20) return i;
  return offset;
}
