/**
 * Where a finding is in the file. Keys are located for findings about a key
 * (an unknown key, an unknown connection name); everything else at its
 * value. A finding that points into a string (a template variable) is
 * placed on the offending text itself, for JSON and every YAML scalar
 * style, and always inside the string as written: in the anchored scalar
 * for a YAML alias, and at the string's start when the text cannot be
 * found in it (e.g. written with escapes).
 */
import type { SourceDocument } from '../format/source.js';
import { lineStartsOf } from '../format/offsets.js';
import type { Finding } from '../nodes/node-type.js';
import { valueAt } from './pointer.js';
import { MAX_NESTING } from './depth.js';
import { scalarRange, type ScalarRange } from './scalar-range.js';

export interface Position {
  line: number;
  col: number;
  /** The text sits at an anchor another place reuses: where that alias (the finding's own place) is written. */
  via?: { line: number; col: number };
  /** Every alias on the way, outermost first, when there is more than one. */
  through?: Array<{ line: number; col: number }>;
}

/** Findings about a key itself (its spelling), located at the key rather than its value. */
const KEY_CODES: ReadonlySet<string> = new Set(['E_UNKNOWN_KEY', 'E_UNKNOWN_CONNECTION', 'E_VARIABLE_NEVER_WRITTEN', 'E_TIMEOUT_ROUTE_UNUSED']);

/**
 * Findings a repeat itself causes (a node reused through a YAML alias is a
 * second node with the same id, a second start): the alias is their place.
 * Any other finding inside reused text is about that text, written once at
 * its anchor: placed there, naming the alias.
 */
const REPEAT_CODES: ReadonlySet<string> = new Set(['E_DUPLICATE_ID', 'E_START_COUNT']);

export function locateFinding(doc: SourceDocument, finding: Finding): Position {
  let at: Position;
  try {
    at = doc.locate(finding.pointer, { key: finding.key === true || KEY_CODES.has(finding.code), atAlias: REPEAT_CODES.has(finding.code) });
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
  const range = scalarRange(doc, finding.pointer, indexOf(doc, at));
  if (!range) return at;
  const inText = positionInQuoted(doc, range.start, finding.offset) ?? positionInString(doc, range, value, finding.offset) ?? at;
  // Pointed into the anchored text, which two places share: say which place this finding is about.
  return range.alias !== undefined ? { ...inText, via: positionOfIndex(doc, range.alias) } : inText;
}

/**
 * Inside a double-quoted string (all JSON strings, YAML "…" scalars), walk
 * the source decoding escapes until `offset` decoded characters are behind:
 * exact even right after `\n` or `\u00e9`. A YAML escaped line break
 * (`\` at the end of a line) decodes to nothing, together with the next
 * line's indentation; an unescaped one folds, with the white space around
 * it, into one space (or one `\n` per empty line). Other scalar styles
 * return undefined, and so does an offset past the closing quote.
 */
function positionInQuoted(doc: SourceDocument, start: number, offset: number): Position | undefined {
  const text = doc.text;
  let i = start;
  if (text[i] !== '"') return undefined;
  i++;
  let decoded = 0;
  for (;;) {
    i = pastEscapedLineBreaks(text, i);
    if (decoded === offset) break;
    const c = text[i];
    if (c === undefined || c === '"') return undefined;
    const fold = lineFold(text, i);
    if (fold) {
      // Inside the fold the value holds a space or line breaks the source writes as white space: point at the fold.
      if (offset < decoded + fold.decoded) return positionOfIndex(doc, i);
      decoded += fold.decoded;
      i = fold.end;
      continue;
    }
    if (c !== '\\') {
      i++;
      decoded++;
      continue;
    }
    const kind = text[i + 1];
    // Offsets count UTF-16 units: `\U` beyond U+FFFF decodes to a surrogate pair, two of them.
    const units = kind === 'U' && parseInt(text.slice(i + 2, i + 10), 16) > 0xffff ? 2 : 1;
    if (offset < decoded + units) return positionOfIndex(doc, i);
    i += kind === 'u' ? 6 : kind === 'x' ? 4 : kind === 'U' ? 10 : 2;
    decoded += units;
  }
  return positionOfIndex(doc, i);
}

/**
 * A YAML line fold starting at `i`: white space, a line break, any empty
 * lines and the next line's indentation. It decodes to one space, or to
 * one line break per empty line. undefined when no line break follows.
 */
function lineFold(text: string, i: number): { end: number; decoded: number } | undefined {
  let j = i;
  while (text[j] === ' ' || text[j] === '\t') j++;
  if (text[j] !== '\n' && text[j] !== '\r') return undefined;
  let breaks = 0;
  for (;;) {
    if (text[j] === '\r') j += text[j + 1] === '\n' ? 2 : 1;
    else if (text[j] === '\n') j++;
    else break;
    breaks++;
    while (text[j] === ' ' || text[j] === '\t') j++;
  }
  return { end: j, decoded: breaks === 1 ? 1 : breaks - 1 };
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

function contentStart(doc: SourceDocument, i: number): number {
  const header = BLOCK_HEADER.exec(doc.text.slice(i, doc.text.indexOf('\n', i) + 1 || undefined));
  return header ? i + header[0].length : i;
}

/** The character index of a 1-based line and column in the document's text. */
export function indexOf(doc: SourceDocument, at: Position): number {
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
    starts = lineStartsOf(doc.text);
    lineStartsCache.set(doc, starts);
  }
  return starts;
}

/**
 * The source position of `value[offset]`, given where the string is
 * written. A run of characters with no white space and none a scalar style
 * may rewrite (escapes, quotes) appears verbatim in the source even when
 * the scalar is folded over several lines, so the n-th occurrence of such
 * a run in the value is its n-th occurrence in the scalar. The run starts
 * at `offset`; when white space is there, the run that ends at `offset` is
 * found instead and the position just past it returned. When the run is
 * not found inside the scalar (e.g. the offending text itself is written
 * with escapes) the caller falls back to the string's start.
 */
function positionInString(doc: SourceDocument, range: ScalarRange, value: string, offset: number): Position | undefined {
  // Prefer a run of path characters (what template and contextPath offsets
  // point at): no scalar style escapes or folds them. Other text falls back
  // to a longer run that still stops at white space.
  const rest = value.slice(offset);
  const after = PATH_RUN.exec(rest)?.[0] ?? VERBATIM_RUN.exec(rest)?.[0];
  if (after) {
    const found = nthInScalar(doc, range, after, occurrencesBefore(value, after, offset));
    return found === undefined ? undefined : positionOfIndex(doc, found);
  }
  const before = VERBATIM_RUN_END.exec(value.slice(0, offset))?.[0];
  if (!before) return undefined;
  const found = nthInScalar(doc, range, before, occurrencesBefore(value, before, offset - before.length));
  return found === undefined ? undefined : positionOfIndex(doc, found + before.length);
}

const VERBATIM_RUN = /^[^\s\\"']{1,40}/;
const VERBATIM_RUN_END = /[^\s\\"']{1,40}$/;

/** How many times `needle` starts in `value` before `offset`. */
function occurrencesBefore(value: string, needle: string, offset: number): number {
  let n = 0;
  for (let i = value.indexOf(needle); i >= 0 && i < offset; i = value.indexOf(needle, i + 1)) n++;
  return n;
}

/** The source index of the n-th (0-based) occurrence of `needle` in the scalar's content, if it lies inside the scalar. */
function nthInScalar(doc: SourceDocument, range: ScalarRange, needle: string, n: number): number | undefined {
  const text = doc.text;
  let found = text.indexOf(needle, contentStart(doc, range.start));
  for (let k = n; found >= 0 && k > 0; k--) found = text.indexOf(needle, found + 1);
  return found < 0 || found + needle.length > range.end ? undefined : found;
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
