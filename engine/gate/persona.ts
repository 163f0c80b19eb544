/**
 * Persona files: Markdown with a YAML frontmatter (agents/<name>.md). The
 * frontmatter is checked against schemas/persona.schema.json, and every
 * problem names the file and the line:col of the offending key or value.
 * Unknown keys are errors: a misspelled `disallowed_tools` must never hand
 * a reviewer every tool by being silently ignored.
 */
import { decodeUtf8 } from '../format/utf8.js';
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvModules } from '../format/ajv.js';
import { parseDocument } from 'yaml';
import { CountersignError } from '../errors.js';
import { LineIndex, locateInYaml, pointerSegments, type Position } from '../format/positions.js';
import { suggest } from '../format/suggest.js';
import type { Finding } from '../nodes/node-type.js';
// Imported, not read from disk: the schema travels with the code into any bundle.
import personaSchemaJson from '../../schemas/persona.schema.json' with { type: 'json' };

/** The name the gate looks its reviewer persona up by (B17, F13). */
export const DefaultReviewerAgent = 'reviewer';

export type PermissionMode = 'read-only' | 'read-write';

/** A loaded persona: the frontmatter with defaults filled in, and the body. */
export interface Persona {
  file: string;
  name: string;
  description: string;
  permission_mode: PermissionMode;
  /** null when the frontmatter has none (persona lint reports that). */
  max_turns: number | null;
  /** Exactly as written: the gate passes it to its driver with no fallback (B7, F9). */
  model: string;
  background: boolean;
  tools: string[];
  disallowed_tools: string[];
  critical_reminder: string | null;
  /** The Markdown after the frontmatter, leading blank lines removed. */
  body: string;
}

/** A persona file split and parsed, before the schema check. */
export interface PersonaSource {
  file: string;
  text: string;
  /** The frontmatter as plain data (any shape: the schema check judges it). */
  frontmatter: unknown;
  body: string;
  /** The file line where the body begins: the one after the closing "---". */
  bodyLine: number;
  /** The file position of a JSON pointer into the frontmatter; with {key:true} the position of the key. */
  locate(pointer: string, opts?: { key?: boolean }): Position;
}

/** A problem with its fix kept apart (CountersignError wants them apart; findings join them). */
export interface PersonaProblem extends Finding {
  fix: string;
  /** About the body, not the frontmatter: located where the body begins. */
  inBody?: true;
}

const FRONTMATTER_FIX = 'start the file with a line "---", then the frontmatter (name, description, permission_mode, model, …), then a line "---", then the persona body';

export function readPersonaSource(path: string): PersonaSource {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? `persona file not found: ${path}` : code === 'EISDIR' ? `${path} is a directory, not a persona file` : `cannot read persona file ${path}: ${(e as Error).message}`;
    const fix = code === 'ENOENT' ? `check the path (personas live in agents/<name>.md); relative paths are resolved against ${process.cwd()}` : 'name a readable .md persona file';
    throw new CountersignError('E_FILE_NOT_FOUND', what, { file: path, fix, cause: e });
  }
  const decoded = decodeUtf8(bytes);
  if ('problem' in decoded) {
    const { message, line, col, fix } = decoded.problem;
    throw new CountersignError('E_PARSE', `the persona file ${message}`, { file: path, line, col, fix });
  }
  return parsePersonaSource(decoded.text, path);
}

export function parsePersonaSource(raw: string, file: string): PersonaSource {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const lines = text.split('\n');
  const fence = (line: string | undefined) => line !== undefined && line.replace(/\r$/, '').trimEnd() === '---';
  if (!fence(lines[0])) {
    throw new CountersignError('E_PERSONA', 'the persona file has no YAML frontmatter: its first line is not "---"', { file, line: 1, col: 1, fix: FRONTMATTER_FIX });
  }
  let close = 1;
  while (close < lines.length && !fence(lines[close])) close++;
  if (close === lines.length) {
    throw new CountersignError('E_PERSONA', 'the frontmatter opened by "---" on line 1 is never closed', { file, line: 1, col: 1, fix: 'add a line "---" after the last frontmatter key, before the persona body' });
  }
  // One empty line stands in for the opening fence, so offsets into this
  // text are offsets into the file's lines: positions need no shifting.
  // CR of CRLF files is dropped: it sits at line ends, so no column moves.
  const frontLines = lines.slice(1, close).map((l) => l.replace(/\r$/, ''));
  const yamlText = '\n' + frontLines.join('\n');
  if (frontLines.every((l) => /^\s*(#.*)?$/.test(l))) {
    throw new CountersignError('E_PERSONA', 'the persona frontmatter is empty', { file, line: 2, col: 1, fix: 'write the frontmatter keys between the two "---" lines: name, description, permission_mode, model, max_turns, tools, disallowed_tools' });
  }
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false });
  const lineIndex = new LineIndex(yamlText);
  const error = doc.errors[0];
  if (error) {
    const at = lineIndex.position(error.pos[0]);
    const duplicate = error.code === 'DUPLICATE_KEY' ? keyOnLine(lines[at.line - 1]) : undefined;
    const message = duplicate !== undefined ? `duplicate key "${duplicate}" in the persona frontmatter` : `the frontmatter is not valid YAML: ${lowerFirst(error.message)}`;
    const fix = duplicate !== undefined ? `keep one "${duplicate}" key` : 'correct the YAML at this position (indent with spaces; quote values that contain ": " or start with "*")';
    throw new CountersignError('E_PARSE', message, { file, line: at.line, col: at.col, fix });
  }
  let frontmatter: unknown;
  try {
    frontmatter = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const alias = /unresolved alias[^:]*:\s*(\S+)/i.exec((e as Error).message);
    // The unquoted occurrence, not a quoted "*_skill" earlier in the file.
    const offset = alias ? yamlText.search(new RegExp(`(?<=^|[\\s\\[,{:])\\*${alias[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm')) : 0;
    const at = lineIndex.position(Math.max(0, offset));
    throw new CountersignError('E_PARSE', alias ? `"*${alias[1]}" reads as a YAML alias, not as text` : `the frontmatter cannot be read: ${lowerFirst((e as Error).message)}`, {
      file, line: at.line, col: at.col,
      fix: alias ? `quote it: - "*${alias[1]}"` : 'remove the YAML anchors and aliases (&name, *name) from the frontmatter',
    });
  }
  // A one-line description written as a block scalar ("description: >" or
  // "|", then the text) is one line: YAML only adds the final line break.
  if (isRecord(frontmatter) && typeof frontmatter.description === 'string' && /^[^\r\n]*\S[^\r\n]*(?:\r?\n)+$/.test(frontmatter.description)) {
    frontmatter.description = frontmatter.description.replace(/(?:\r?\n)+$/, '');
  }
  const body = lines.slice(close + 1).join('\n').replace(/^(?:[ \t]*\r?\n)+/, '');
  return {
    file, text, frontmatter, body,
    bodyLine: close + 2,
    locate: (pointer, opts) => lineIndex.position(locateInYaml(doc, pointerSegments(pointer), opts?.key === true)),
  };
}

/** Reads, parses and schema-checks a persona; throws the first problem (all of them in `data.problems`). */
export function loadPersona(path: string, opts: { name?: string } = {}): Persona {
  return toPersona(readPersonaSource(path), opts);
}

/** As loadPersona, from text already in hand. */
export function parsePersona(text: string, file: string, opts: { name?: string } = {}): Persona {
  return toPersona(parsePersonaSource(text, file), opts);
}

function toPersona(source: PersonaSource, opts: { name?: string }): Persona {
  const problems = personaSchemaProblems(source.frontmatter);
  const fm = source.frontmatter as Record<string, unknown>;
  // Listed with the schema's problems (every problem, by position), unless the name itself is already one of them
  // (no name, or one that is no string, is the schema's finding: never also "named undefined").
  const nameFaulted = problems.some((p) => p.pointer === '/name');
  if (!nameFaulted && opts.name !== undefined && fm !== null && typeof fm === 'object' && typeof fm.name === 'string' && fm.name !== opts.name) {
    problems.push({
      code: 'E_PERSONA_NAME', pointer: '/name', severity: 'error',
      message: `the persona is named "${String(fm.name)}", not "${opts.name}"`,
      fix: `the gate looks the persona up by name: write name: ${opts.name} (or configure the gate with "${String(fm.name)}")`,
    });
  }
  if (problems.length > 0) throw problemError(source, problems);
  return {
    file: source.file,
    name: fm.name as string,
    description: fm.description as string,
    permission_mode: fm.permission_mode as PermissionMode,
    max_turns: typeof fm.max_turns === 'number' ? fm.max_turns : null,
    model: fm.model as string,
    background: fm.background === true,
    tools: [...((fm.tools as string[] | undefined) ?? [])],
    disallowed_tools: [...((fm.disallowed_tools as string[] | undefined) ?? [])],
    critical_reminder: typeof fm.critical_reminder === 'string' ? fm.critical_reminder : null,
    body: source.body,
  };
}

/**
 * One error for a persona's problems: the first by position, with the file,
 * its JSON pointer and line:col, and every problem in `data.problems`.
 * `lead` goes before the message (the gate says the persona cannot review).
 */
export function personaProblemError(source: PersonaSource, problems: PersonaProblem[], lead = ''): CountersignError {
  return problemError(source, problems, lead);
}

function problemError(source: PersonaSource, problems: PersonaProblem[], lead = ''): CountersignError {
  const located = problems
    .map((p) => ({ p, at: source.locate(p.pointer, { key: p.key === true }) }))
    .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col);
  const { p, at } = located[0];
  const more = located.length > 1 ? `; ${located.length - 1} more problem(s) in this file: run countersign validate ${source.file}` : '';
  return new CountersignError(p.code, `${lead}${p.message}`, {
    file: source.file, pointer: p.pointer, line: at.line, col: at.col, fix: `${p.fix}${more}`,
    data: { problems: located.map(({ p: q, at: where }) => ({ code: q.code, message: q.message, fix: q.fix, pointer: q.pointer, line: where.line, col: where.col })) },
  });
}

// ---- the schema check ------------------------------------------------------

interface PropertySchema {
  description?: string;
  enum?: string[];
}

const personaSchema = personaSchemaJson as { properties: Record<string, PropertySchema & { pattern?: string }>; required: string[] };

/** What a persona name may be: the schema's pattern, the one definition the gate and validate share. */
export const PERSONA_NAME_PATTERN = new RegExp(personaSchema.properties.name.pattern!);
let validator: ValidateFunction | undefined;

function personaValidator(): ValidateFunction {
  // strict: the schema is ours, so a sloppy keyword in it should fail here; verbose: errors carry parentSchema.
  validator ??= new (ajvModules().Ajv)({ allErrors: true, verbose: true, strict: true, logger: false }).compile(personaSchemaJson);
  return validator;
}

/** Every schema problem of a frontmatter, in ajv's order. */
export function personaSchemaProblems(frontmatter: unknown): PersonaProblem[] {
  const validate = personaValidator();
  if (validate(frontmatter)) return [];
  const errors = validate.errors ?? [];
  // An empty value breaks both minLength and the not-blank pattern: "is empty" says it once.
  const empty = new Set(errors.filter((e) => e.keyword === 'minLength').map((e) => e.instancePath));
  return errors.filter((e) => !(e.keyword === 'pattern' && empty.has(e.instancePath))).map((e) => toProblem(e));
}

const KEYS = Object.keys(personaSchema.properties);

function toProblem(e: ErrorObject): PersonaProblem {
  const at = e.instancePath;
  const what = label(at);
  const params = e.params as Record<string, unknown>;
  const description = (e.parentSchema as PropertySchema | undefined)?.description;
  const problem = (message: string, fix: string, pointer = at, code = 'E_PERSONA'): PersonaProblem => ({ code, pointer, message, fix, severity: 'error' });
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const guess = suggest(key, KEYS);
      return {
        ...problem(
          `unknown key "${key}" in the persona frontmatter${guess ? ` — did you mean "${guess}"?` : ''}`,
          `correct its spelling or remove it: a key countersign does not know is never ignored (keys: ${KEYS.join(', ')})`,
          `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          'E_UNKNOWN_KEY',
        ),
        key: true,
      };
    }
    case 'required': {
      const missing = String(params.missingProperty);
      return problem(`the persona frontmatter has no "${missing}"`, `add "${missing}:" (${personaSchema.properties[missing]?.description ?? 'see schemas/persona.schema.json'})`);
    }
    case 'type':
      if (at === '') return problem(`the persona frontmatter must be a mapping of keys, not ${jsonType(e.data)}`, 'write one "key: value" per line, e.g. name: reviewer');
      return problem(`${what} must be ${article(String(params.type))}, not ${jsonType(e.data)}`, fixFrom(description, 'correct the value'));
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const guess = typeof e.data === 'string' ? suggest(e.data, allowed) : undefined;
      return problem(`${what} is ${JSON.stringify(e.data)}${guess ? ` — did you mean "${guess}"?` : ''}`, `use one of ${allowed.join(', ')}`);
    }
    case 'pattern':
      if (params.pattern === '\\S') return problem(`${what} is blank (only whitespace)`, fixFrom(description, 'write a value'));
      if (at === '/description' && params.pattern !== '\\S') {
        return /[\r\n]/.test(String(e.data))
          ? problem(`${what} holds a line break; it is one line`, 'write the description on one line (the body below the frontmatter holds the rest)')
          : problem(`${what} is blank (only whitespace)`, fixFrom(description, 'write a value'));
      }
      return problem(`${what} ${JSON.stringify(e.data)} is not a valid ${at.startsWith('/name') ? 'persona name' : 'tool name or pattern'}`, at.startsWith('/name') ? 'use only letters, digits, "_" and "-" (it is also the file name, agents/<name>.md)' : 'use only letters, digits, "_", "." and "-" (as tool names do) and the wildcard "*"');
    case 'uniqueItems': {
      const [later, earlier] = [Number(params.i), Number(params.j)].sort((a, b) => b - a);
      return problem(`${label(`${at}/${later}`)} repeats ${label(`${at}/${earlier}`)}`, 'remove the repeated entry', `${at}/${later}`);
    }
    case 'minimum':
      return problem(`${what} is ${JSON.stringify(e.data)}; it must be at least ${String(params.limit)}`, fixFrom(description, 'raise it'));
    case 'minLength':
      return problem(`${what} is empty`, fixFrom(description, 'write a value'));
    default:
      return problem(`${what} ${e.message ?? `fails "${e.keyword}"`}`, fixFrom(description, 'see schemas/persona.schema.json'));
  }
}

/** `/tools/2` → `tools[2]`. */
function label(pointer: string): string {
  let out = '';
  for (const seg of pointerSegments(pointer)) out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out === '' ? 'the persona frontmatter' : out;
}

function fixFrom(description: string | undefined, fallback: string): string {
  return description ? `${fallback}: ${lowerFirst(description)}` : fallback;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${article(typeof value)} (${JSON.stringify(value)})`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function keyOnLine(line: string | undefined): string | undefined {
  return line === undefined ? undefined : /^\s*(?:-\s+)?["']?([^"':#]+?)["']?\s*:/.exec(line)?.[1];
}

function lowerFirst(message: string): string {
  const trimmed = message.replace(/\.\s*$/, '');
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
