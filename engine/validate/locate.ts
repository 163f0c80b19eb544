/**
 * Where a finding is in the file. Keys are located for findings about a key
 * (an unknown key, an unknown connection name); everything else at its
 * value. A finding that points into a string (a template variable) is
 * placed on the offending text itself, for JSON and every YAML scalar
 * style, by finding the same text in the source after the string's start.
 */
import type { SourceDocument } from '../format/source.js';
import type { Finding } from '../nodes/node-type.js';
import { valueAt } from './pointer.js';
import { MAX_NESTING } from './depth.js';

export interface Position {
  line: number;
  col: number;
}

/** Findings about a key itself (its spelling), located at the key rather than its value. */
const KEY_CODES: ReadonlySet<string> = new Set(['E_UNKNOWN_KEY', 'E_UNKNOWN_CONNECTION', 'E_VARIABLE_NEVER_WRITTEN']);

export function locateFinding(doc: SourceDocument, finding: Finding): Position {
  let at: Position;
  try {
    at = doc.locate(finding.pointer, { key: finding.key === true || KEY_CODES.has(finding.code) });
  } catch (e) {
    // A document too deep for the position parser to recurse into: the
    // nesting finding says where by pointer; place it where the nesting
    // crosses the limit in the text.
    if (!(e instanceof RangeError)) throw e;
    return positionOfDepth(doc, MAX_NESTING);
  }
  if (finding.offset === undefined || finding.offset < 0) return at;
  const value = valueAt(doc.data, finding.pointer);
  if (typeof value !== 'string') return at;
  return positionInQuoted(doc, at, finding.offset) ?? positionInString(doc, at, value, finding.offset) ?? at;
}

/**
 * Inside a double-quoted string on one line (all JSON strings, YAML "…"
 * scalars), walk the source decoding escapes until `offset` decoded
 * characters are behind: exact even right after `\n` or `\u00e9`. Other
 * scalar styles (and quoted strings folded over lines) return undefined.
 */
function positionInQuoted(doc: SourceDocument, start: Position, offset: number): Position | undefined {
  const starts = lineStarts(doc);
  const text = doc.text;
  let i = (starts[start.line - 1] ?? 0) + start.col - 1;
  if (text[i] !== '"') return undefined;
  i++;
  for (let decoded = 0; decoded < offset; decoded++) {
    const c = text[i];
    if (c === undefined || c === '"' || c === '\n' || c === '\r') return undefined;
    if (c !== '\\') {
      i++;
      continue;
    }
    const kind = text[i + 1];
    i += kind === 'u' ? 6 : kind === 'x' ? 4 : kind === 'U' ? 10 : 2;
  }
  return { line: start.line, col: start.col + (i - ((starts[start.line - 1] ?? 0) + start.col - 1)) };
}

const PATH_RUN = /^[A-Za-z0-9_$@.[\]-]{1,80}/;

const lineStartsCache = new WeakMap<SourceDocument, number[]>();

function lineStarts(doc: SourceDocument): number[] {
  let starts = lineStartsCache.get(doc);
  if (!starts) {
    starts = [0];
    const text = doc.text;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) starts.push(nl + 1);
    lineStartsCache.set(doc, starts);
  }
  return starts;
}

/**
 * The source position of `value[offset]`, given where the string starts.
 * The characters from `offset` up to the first one a scalar style may
 * rewrite (escapes, quotes, line breaks) appear verbatim in the source, so
 * the n-th occurrence of that run in the value is the n-th occurrence in
 * the source after the start. When the run cannot be found (e.g. the
 * offending text itself is written with \u escapes) the caller falls back
 * to the string's start.
 */
function positionInString(doc: SourceDocument, start: Position, value: string, offset: number): Position | undefined {
  // Prefer a run of path characters (what template and contextPath offsets
  // point at): no scalar style escapes or folds them, so the run appears
  // verbatim in the source. Other text falls back to the longer run.
  const rest = value.slice(offset);
  const needle = PATH_RUN.exec(rest)?.[0] ?? /^[^\\"'\u0000-\u001f]{1,40}/.exec(rest)?.[0];
  if (!needle) return undefined;
  let occurrence = 0;
  for (let i = value.indexOf(needle); i >= 0 && i < offset; i = value.indexOf(needle, i + 1)) occurrence++;
  const starts = lineStarts(doc);
  const text = doc.text;
  let found = text.indexOf(needle, (starts[start.line - 1] ?? 0) + start.col - 1);
  for (; found >= 0 && occurrence > 0; occurrence--) found = text.indexOf(needle, found + 1);
  if (found < 0) return undefined;
  let line = start.line;
  while (line < starts.length && starts[line] <= found) line++;
  return { line, col: found - starts[line - 1] + 1 };
}

/** Where brackets outside strings first nest deeper than `limit` (1:1 if they never do). */
function positionOfDepth(doc: SourceDocument, limit: number): Position {
  const text = doc.text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > limit + 1) { // the root value is depth 0 in deeperThan()
        const starts = lineStarts(doc);
        let line = 1;
        while (line < starts.length && starts[line] <= i) line++;
        return { line, col: i - starts[line - 1] + 1 };
      }
    } else if (c === '}' || c === ']') depth--;
  }
  return { line: 1, col: 1 };
}
