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
 * Inside a double-quoted string (all JSON strings, YAML "…" scalars), walk
 * the source decoding escapes until `offset` decoded characters are behind:
 * exact even right after `\n` or `\u00e9`. A YAML escaped line break
 * (`\` at the end of a line) decodes to nothing, together with the next
 * line's indentation. Other scalar styles, and quoted strings folded over
 * an unescaped line break, return undefined.
 */
function positionInQuoted(doc: SourceDocument, start: Position, offset: number): Position | undefined {
  const text = doc.text;
  let i = indexOf(doc, start);
  if (text[i] !== '"') return undefined;
  i++;
  let decoded = 0;
  for (;;) {
    i = pastEscapedLineBreaks(text, i);
    if (decoded === offset) break;
    const c = text[i];
    if (c === undefined || c === '"' || c === '\n' || c === '\r') return undefined;
    if (c !== '\\') i++;
    else {
      const kind = text[i + 1];
      i += kind === 'u' ? 6 : kind === 'x' ? 4 : kind === 'U' ? 10 : 2;
    }
    decoded++;
  }
  return positionOfIndex(doc, i);
}

/** Past any `\` + line break and the indentation after it, which a YAML double-quoted scalar drops. */
function pastEscapedLineBreaks(text: string, i: number): number {
  for (;;) {
    const breakAt = text[i] === '\\' ? i + 1 : -1;
    const width = breakAt < 0 ? 0 : text[breakAt] === '\n' ? 1 : text[breakAt] === '\r' ? (text[breakAt + 1] === '\n' ? 2 : 1) : 0;
    if (width === 0) return i;
    i = breakAt + width;
    while (text[i] === ' ' || text[i] === '\t') i++;
  }
}

/**
 * A YAML block scalar (`|`, `>`, with optional properties and a comment on
 * the header line) starts its content on the next line: searching from the
 * header would find the text in the header's comment first.
 */
const BLOCK_HEADER = /^(?:[!&][^\s]*[ \t]+)*[|>][-+1-9]*[ \t]*(?:#[^\n]*)?(?:\r?\n|$)/;

function contentStart(doc: SourceDocument, start: Position): number {
  const i = indexOf(doc, start);
  const header = BLOCK_HEADER.exec(doc.text.slice(i, doc.text.indexOf('\n', i) + 1 || undefined));
  return header ? i + header[0].length : i;
}

function indexOf(doc: SourceDocument, at: Position): number {
  return (lineStarts(doc)[at.line - 1] ?? 0) + at.col - 1;
}

/** The 1-based line and column of a character index (binary search over line starts). */
function positionOfIndex(doc: SourceDocument, index: number): Position {
  const starts = lineStarts(doc);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: index - starts[lo] + 1 };
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
  const text = doc.text;
  let found = text.indexOf(needle, contentStart(doc, start));
  for (; found >= 0 && occurrence > 0; occurrence--) found = text.indexOf(needle, found + 1);
  if (found < 0) return undefined;
  return positionOfIndex(doc, found);
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
      if (++depth > limit + 1) return positionOfIndex(doc, i); // the root value is depth 0 in deeperThan()
    } else if (c === '}' || c === ']') depth--;
  }
  return { line: 1, col: 1 };
}
