/**
 * Reading the one review report file (seed 003 G8, G15, G17; decision 12).
 * A report is a flat list of strings, each one a mandatory issue:
 * JSON `{"issues": ["…"]}` or Markdown top-level list items. The engine
 * compares the number of items with the reviewer's `issues_count`, so the
 * reader is strict about shape (tiers, objects, nesting are refused) and
 * never looks at what the issue texts say.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { CountersignError } from '../errors.js';
import { LineIndex } from '../format/offsets.js';

// Imported, not read from disk: the schema travels with the code into any bundle.
import reportSchema from '../../schemas/review-report.schema.json' with { type: 'json' };

export type ReportFormat = 'json' | 'markdown';

export interface Report {
  issues: string[];
  format: ReportFormat;
}

/** Top-level keys that would split the list into severity tiers (G15). Compared case-insensitively. */
const TIER_KEYS = new Set(['blocking', 'major', 'minor', 'severity', 'critical', 'high', 'medium', 'low', 'tiers']);
const STRICT = { allowTrailingComma: false, disallowComments: true } as const;
const JSON_FIX =
  'write the report as {"issues": ["first issue", "second issue"]}: one plain string per issue, all in one flat list ({"issues": []} when there are none)';

let validator: ValidateFunction | undefined;

/** The report schema, compiled once per process. */
function reportValidator(): ValidateFunction {
  validator ??= new Ajv({ allErrors: true, strict: true, logger: false }).compile(reportSchema);
  return validator;
}

/**
 * The format a report path asks for by its extension alone (`.md` and
 * `.markdown` are Markdown, anything else JSON). The prompt uses this to tell
 * the reviewer what to write.
 */
export function reportFormatByExtension(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  return ext === '.md' || ext === '.markdown' ? 'markdown' : 'json';
}

/** `.json` is JSON, `.md`/`.markdown` Markdown; otherwise JSON when the text starts with `{`. */
export function reportFormatOf(path: string, text: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  return text.trimStart().startsWith('{') ? 'json' : 'markdown';
}

/** The issues in the report at `path`. Throws E_REPORT_MISSING or E_REPORT_FORMAT. */
export function readReport(path: string): Report {
  const text = readReportText(path);
  const format = reportFormatOf(path, text);
  return { issues: format === 'json' ? jsonIssues(text, path) : markdownIssues(text, path), format };
}

function readReportText(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ENOTDIR' ? 'the file does not exist'
      : code === 'EISDIR' ? 'a directory is there, not a file'
      : `it cannot be read (${code ?? String(e)})`;
    throw new CountersignError('E_REPORT_MISSING', `no review report at ${path}: ${why}`, {
      file: path,
      fix: `the reviewer must write every finding to ${path} before answering — {"issues": []} when there are none (Markdown list items for a .md report)`,
    });
  }
  // A byte-order mark is invisible in editors; it must not turn `{` into "not JSON".
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function jsonIssues(text: string, file: string): string[] {
  const lines = new LineIndex(text);
  const fail = (offset: number, message: string, pointer?: string): CountersignError => {
    const { line, col } = lines.position(offset);
    return new CountersignError('E_REPORT_FORMAT', `${file}:${line}:${col}: ${message}`, { file, line, col, pointer, fix: JSON_FIX });
  };

  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, STRICT);
  if (errors.length > 0 || tree === undefined) {
    const first = errors[0];
    throw fail(first?.offset ?? 0, `the report is not valid JSON (${first ? words(printParseErrorCode(first.error)) : 'no value'})`);
  }
  if (tree.type !== 'object') throw fail(tree.offset, `the report must be a JSON object {"issues": [...]}, not ${jsonKind(tree.type)}`, '');

  const seen = new Set<string>();
  for (const property of tree.children ?? []) {
    const keyNode = property.children?.[0];
    const key = String(keyNode?.value);
    const pointer = `/${escapePointer(key)}`;
    if (seen.has(key)) throw fail(keyNode?.offset ?? property.offset, `duplicate key "${key}": JSON keeps only the last one`, pointer);
    seen.add(key);
    if (TIER_KEYS.has(key.toLowerCase())) {
      throw fail(
        keyNode?.offset ?? property.offset,
        `the key "${key}" is a severity tier, and severity tiers are not allowed: every issue goes into one flat "issues" list and every issue is mandatory`,
        pointer,
      );
    }
  }

  // JSON.parse, not the tree's values: it keeps a "__proto__" key as data, so the schema sees it.
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw fail(0, `the report is not valid JSON (${(e as Error).message})`);
  }
  const validate = reportValidator();
  if (validate(data)) return (data as { issues: string[] }).issues;
  const problems = (validate.errors ?? []).map((e) => describe(e, data));
  const first = problems[0];
  throw fail(at(tree, first.pointer, first.atKey), problems.map((p) => p.message).join('; '), first.pointer);
}

interface Problem {
  pointer: string;
  /** Point at the key rather than the value (an unknown key). */
  atKey: boolean;
  message: string;
}

function describe(e: ErrorObject, data: unknown): Problem {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { pointer: '', atKey: false, message: `the report has no "issues" list` };
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return { pointer: `/${escapePointer(key)}`, atKey: true, message: `unknown key "${key}": the report holds only "issues"` };
    }
    case 'type':
      return e.instancePath === '/issues'
        ? { pointer: e.instancePath, atKey: false, message: `"issues" must be a list of strings, not ${valueKind(valueAt(data, e.instancePath))}` }
        : {
            pointer: e.instancePath,
            atKey: false,
            message: `the item at ${e.instancePath} is ${valueKind(valueAt(data, e.instancePath))}, not a string: each issue is one plain string, with no nesting or fields`,
          };
    case 'pattern':
      return { pointer: e.instancePath, atKey: false, message: `the item at ${e.instancePath} is blank: each issue must say what is wrong` };
    default:
      return { pointer: e.instancePath, atKey: false, message: `${e.instancePath || 'the report'} ${e.message ?? `fails "${e.keyword}"`}` };
  }
}

/** Offset of a pointer's value (or key) in the parse tree. */
function at(tree: JsonNode, pointer: string, atKey: boolean): number {
  let node: JsonNode | undefined = tree;
  for (const segment of pointer.split('/').slice(1).map(unescapePointer)) {
    node = node?.type === 'array' ? findNodeAtLocation(node, [Number(segment)]) : node && findNodeAtLocation(node, [segment]);
  }
  if (!node) return tree.offset;
  return atKey && node.parent?.type === 'property' ? (node.parent.children?.[0]?.offset ?? node.offset) : node.offset;
}

function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const segment of pointer.split('/').slice(1).map(unescapePointer)) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

function valueKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function jsonKind(type: JsonNode['type']): string {
  return type === 'array' ? 'a list' : type === 'null' ? 'null' : `a ${type}`;
}

/** `CloseBraceExpected` → "close brace expected". */
function words(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

// ---- Markdown -------------------------------------------------------------

/** `- `, `* `, `+ `, `1. `, `1) ` at column 0 (or the bare marker: an empty item). */
const TOP_ITEM = /^([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
/** A list marker after indentation: a nested (or misaligned) item, which breaks the flat list. */
const INDENTED_ITEM = /^[ \t]+(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const TIER = '(?:blocking|major|minor|critical|high|medium|low|nice to have|optional)';
/** A whole heading that names a severity tier, after normalising (see tierLabel). */
const TIER_LABEL = new RegExp(`^(?:severity(?: ${TIER})?|${TIER}(?: (?:severity|priority))?)(?: (?:issues?|findings?|problems?))?$`);
const MARKDOWN_FIX =
  'write one top-level list item per issue ("- …" or "1. …" at the start of the line), with no sub-items and no severity headings; every issue is mandatory';

interface OpenItem {
  line: number;
  /** Width of the marker and its space: continuation lines lose up to this much indentation. */
  indent: number;
  lines: string[];
  /** A blank line followed the item's last content line. */
  blankAfter: boolean;
}

/**
 * Every top-level list item is one issue; continuation lines (indented, or a
 * lazy line right after the item) belong to it. Other headings and
 * paragraphs are allowed and are not issues; fenced code is not parsed.
 */
function markdownIssues(text: string, file: string): string[] {
  const fail = (line: number, message: string): CountersignError =>
    new CountersignError('E_REPORT_FORMAT', `${file}:${line}: ${message}`, { file, line, col: 1, fix: MARKDOWN_FIX });
  const issues: string[] = [];
  let item: OpenItem | undefined;
  let fence: { marker: string; inItem: boolean } | undefined;
  let paragraph: { text: string; line: number } | undefined;

  const close = (): void => {
    if (!item) return;
    const body = item.lines.map((l, i) => (i === 0 ? l : stripIndent(l, item!.indent))).join('\n').trim();
    if (body === '') throw fail(item.line, 'this list item is empty: each item is one issue and must say what is wrong');
    issues.push(body);
    item = undefined;
  };
  const checkTier = (label: string, line: number): void => {
    if (TIER_LABEL.test(tierLabel(label))) {
      throw fail(line, `the heading "${label.trim()}" is a severity tier, and severity tiers are not allowed: every issue is one top-level item of one flat list and every issue is mandatory`);
    }
  };

  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const n = i + 1;
    if (fence) {
      if (fence.inItem && item) item.lines.push(raw);
      if (closesFence(raw, fence.marker)) fence = undefined;
      continue;
    }
    if (raw.trim() === '') {
      if (item) item.blankAfter = true;
      paragraph = undefined;
      continue;
    }
    const indented = /^[ \t]/.test(raw);
    const opening = FENCE.exec(raw);
    if (opening) {
      const inItem = item !== undefined && indented;
      if (item && inItem) {
        if (item.blankAfter) item.lines.push('');
        item.lines.push(raw);
        item.blankAfter = false;
      } else {
        close();
      }
      fence = { marker: opening[1], inItem };
      paragraph = undefined;
      continue;
    }
    if (paragraph && SETEXT_UNDERLINE.test(raw)) {
      checkTier(paragraph.text, paragraph.line);
      paragraph = undefined;
      continue;
    }
    if (THEMATIC_BREAK.test(raw)) {
      close();
      continue;
    }
    const heading = item && indented ? null : HEADING.exec(raw);
    if (heading) {
      close();
      checkTier(heading[1] ?? '', n);
      paragraph = undefined;
      continue;
    }
    if (INDENTED_ITEM.test(raw)) {
      throw fail(n, 'this list item is indented (nested): a report is a flat list, so every issue is a top-level item at the start of the line');
    }
    const top = TOP_ITEM.exec(raw);
    if (top) {
      close();
      item = { line: n, indent: top[1].length + 1, lines: [top[2] ?? ''], blankAfter: false };
      paragraph = undefined;
      continue;
    }
    if (item && (indented || !item.blankAfter)) {
      if (item.blankAfter) item.lines.push('');
      item.lines.push(raw);
      item.blankAfter = false;
      continue;
    }
    close();
    if (indented) continue;
    // A line on its own that is only a tier word ("**Major:**") is a tier heading written as a paragraph.
    if (!paragraph) checkTier(raw, n);
    paragraph = paragraph ? { text: `${paragraph.text} ${raw.trim()}`, line: paragraph.line } : { text: raw, line: n };
  }
  close();
  return issues;
}

/** A closing fence: the same character, at least as long, nothing after it. */
function closesFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed.startsWith(marker) && new RegExp(`^\\${marker[0]}+$`).test(trimmed);
}

function stripIndent(line: string, width: number): string {
  let i = 0;
  while (i < width && (line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(i);
}

/** "**Major issues (3):**" → "major issues": emphasis, trailing colon and count removed, separators collapsed. */
function tierLabel(text: string): string {
  return text
    .replace(/[*_`]/g, '')
    .trim()
    .replace(/\s*:?\s*(?:\(\s*\d+\s*\)|[-–—]?\s*\d+)?\s*:?\s*$/, '')
    .toLowerCase()
    .replace(/[\s:=-]+/g, ' ')
    .trim();
}
