/**
 * Reading the one review report file (seed 003 G8, G15, G17; decision 12).
 * A report is a flat list of strings, each one a mandatory issue:
 * JSON `{"issues": ["…"]}` or Markdown top-level list items. The engine
 * compares the number of items with the reviewer's `issues_count`, so the
 * reader is strict about shape (tiers, objects, nesting are refused) and
 * never looks at what the issue texts say.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvModules } from '../format/ajv.js';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { CountersignError } from '../errors.js';
import { markdownIssues } from './report-markdown.js';
import { NotRegularFile, readRegularFile } from './report-file.js';
import { LineIndex } from '../format/offsets.js';

// Imported, not read from disk: the schema travels with the code into any bundle.
import reportSchema from '../../schemas/review-report.schema.json' with { type: 'json' };
import { withoutBom } from '../format/bom.js';

export type ReportFormat = 'json' | 'markdown';

export interface Report {
  issues: string[];
  format: ReportFormat;
  /** sha256 of the file's text: tells whether a later step edited the report. */
  digest: string;
}

/** Top-level keys that would split the list into severity tiers (G15). Compared case-insensitively. */
const TIER_KEYS = new Set(['blocking', 'major', 'minor', 'severity', 'critical', 'high', 'medium', 'low', 'tiers']);
const STRICT = { allowTrailingComma: false, disallowComments: true } as const;
const JSON_FIX =
  'write the report as {"issues": ["first issue", "second issue"]}: one plain string per issue, all in one flat list ({"issues": []} when there are none)';

let validator: ValidateFunction | undefined;

/** The report schema, compiled once per process. */
function reportValidator(): ValidateFunction {
  validator ??= new (ajvModules().Ajv)({ allErrors: true, strict: true, logger: false }).compile(reportSchema);
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
  // Blank is JSON here, as the prompt asked for JSON: an empty file must not pass as a Markdown report of no issues.
  return text.trimStart().startsWith('{') || text.trim() === '' ? 'json' : 'markdown';
}

/** The issues in the report at `path`. Throws E_REPORT_MISSING or E_REPORT_FORMAT. */
export function readReport(path: string): Report {
  const text = readReportText(path);
  const format = reportFormatOf(path, text);
  return { issues: format === 'json' ? jsonIssues(text, path) : markdownIssues(text, path), format, digest: reportDigest(text) };
}

export function reportDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A report holding `issues`, written the way the reader reads it back. */
export function reportText(issues: readonly string[], format: ReportFormat): string {
  if (format === 'json') return `${JSON.stringify({ issues }, null, 2)}\n`;
  return issues.map(markdownItem).join('');
}

/**
 * One issue as a "- " item that reads back as exactly that issue: its
 * further lines indented under the marker, or — when an indented line
 * would read as a nested item or a block of its own — in the first of the
 * other layouts that reads back (lazy lines, text on the marker's next
 * line, a wider marker, indented code).
 */
function markdownItem(issue: string): string {
  const lines = issue.split(/\r?\n/);
  const candidates = [
    `- ${lines.join('\n  ')}\n`,
    `- ${lines.join('\n')}\n`,
    // A first line that opens a block (a fence) opens it only on a line of its own.
    `-\n  ${lines.join('\n  ')}\n`,
    // Lazy lines indented 4 under text that starts at column 5: a line that,
    // indented as the item's own, would open a nested item ("- deep").
    `-    ${lines.join('\n    ')}\n`,
    // Text that is itself indented code inside the item ("- tt" written as code).
    `-\n      ${lines.join('\n      ')}\n`,
  ];
  const same = (text: string): boolean => {
    try {
      const back = markdownIssues(text, 'report');
      return back.length === 1 && back[0] === lines.join('\n');
    } catch {
      return false;
    }
  };
  return candidates.find(same) ?? candidates[0];
}

function readReportText(path: string): string {
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ENOTDIR' ? 'the file does not exist'
      : e instanceof NotRegularFile ? `${e.kind} is there, not a file (it is never read)`
      : code === 'EISDIR' ? 'a directory is there, not a file'
      : `it cannot be read (${code ?? String(e)})`;
    // The fix names the one form this path takes: JSON advice for a .md
    // report would only lead to E_REPORT_FORMAT.
    const none = reportFormatByExtension(path) === 'markdown'
      ? 'as Markdown "- " list items, or an empty file when there are none'
      : 'as {"issues": ["…"]}, or {"issues": []} when there are none';
    throw new CountersignError('E_REPORT_MISSING', `no review report at ${path}: ${why}`, {
      file: path,
      fix: `the reviewer must write every finding to ${path} before answering, ${none}`,
    });
  }
  return withoutBom(text);
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
      return { pointer: e.instancePath, atKey: false, message: `the item at ${e.instancePath} is blank (white space or invisible characters only): each issue must say what is wrong` };
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
