/**
 * Loading a workflow file: strict JSON (json-source.ts) or YAML
 * (yaml-source.ts) into plain data, with a `locate(pointer)` that maps any
 * JSON pointer to a line:col in the file.
 */
import { readFileSync } from 'node:fs';
import { CountersignError } from '../errors.js';
import { parseJson } from './json-source.js';
import type { Position } from './positions.js';
import { emptyFile, notUtf8 } from './source-errors.js';
import { decodeUtf8 } from './utf8.js';
import { parseYaml } from './yaml-source.js';
import { shown } from './said.js';

export { offsetToPosition, type Position } from './positions.js';

export type SourceFormat = 'json' | 'yaml';

export interface SourceDocument {
  file: string;
  format: SourceFormat;
  text: string;
  data: unknown;
  /** Position of the value at a JSON pointer; with {key:true} the position of the property KEY itself
   *  (for "unknown key" findings). A pointer that does not exist resolves to its nearest existing ancestor.
   *  A YAML pointer that runs on through an alias is placed in the anchored text, the alias as `via`;
   *  with {atAlias:true} it stops at the alias (a finding about the repeated place itself). */
  locate(pointer: string, opts?: { key?: boolean; atAlias?: boolean }): Position;
}

export function detectFormat(file: string, text: string): SourceFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

export function readSource(path: string): SourceDocument {
  // A number would be read as a file descriptor (0 is stdin): a workflow is named by its path.
  if (typeof path !== 'string' || path.trim() === '') {
    throw new CountersignError('E_INPUT', `a workflow file is named by its path (a non-empty string), got ${shown(path)}`, { fix: 'pass the path of a .json, .yaml or .yml file' });
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what =
      code === 'ENOENT' ? `file not found: ${path}`
      : code === 'EISDIR' ? `${path} is a directory, not a workflow file`
      : code === 'EACCES' ? `cannot read ${path}: permission denied`
      : `cannot read ${path}: ${(e as Error).message}`;
    const fix =
      code === 'ENOENT' ? `check the path; relative paths are resolved against ${process.cwd()}`
      : code === 'EISDIR' ? 'name a .json, .yaml or .yml workflow file inside the directory'
      : 'check that the file exists and is readable';
    throw new CountersignError('E_FILE_NOT_FOUND', what, { file: path, fix, cause: e });
  }
  const decoded = decodeUtf8(bytes);
  if ('problem' in decoded) throw notUtf8(path, decoded.problem);
  return parseSource(decoded.text, path);
}

export function parseSource(text: string, file: string, format?: SourceFormat): SourceDocument {
  if (typeof text !== 'string' || typeof file !== 'string') {
    throw new CountersignError('E_INPUT', 'parseSource needs the text of a workflow and the name of its file (strings)', { fix: 'call parseSource(text, "workflow.yaml")' });
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const fmt = format ?? detectFormat(file, body);
  if (body.trim() === '') throw emptyFile(file);
  return fmt === 'json' ? parseJson(body, file) : parseYaml(body, file);
}
