/**
 * What a JavaScript module makes public, read from its source text: every
 * `export function` / `export class` / `export const` with its parameters and
 * the JSDoc comment right above it. Both example agents use it: the reviewer
 * to check the document against the code, the producer to write sections.
 * A small scanner, not a full parser: it handles the declarations a module
 * like workspace/lib/text.mjs uses (defaults, nested brackets, strings).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const MODULE_EXTENSIONS = new Set(['.mjs', '.js', '.cjs']);
/** Never part of the project under study: dependencies, history, countersign's own files. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.countersign']);

/** Every module file under the given files or directories, sorted. */
export function moduleFiles(paths) {
  const out = [];
  const visit = (path) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!SKIPPED_DIRS.has(name)) visit(join(path, name));
    } else if (MODULE_EXTENSIONS.has(extname(path))) {
      out.push(path);
    }
  };
  for (const p of paths) visit(p);
  return out;
}

/**
 * The exports of one module: `{ name, kind, params, signature, doc }`, where
 * `params` holds parameter names without defaults and `signature` reads
 * `name(a, b)` for functions and `name` otherwise.
 */
export function readExports(file) {
  const source = readFileSync(file, 'utf8');
  const out = [];
  const declaration = /^export\s+(?:(async\s+)?function\s*\*?|class|const|let|var)\s*([A-Za-z_$][\w$]*)/gm;
  for (const match of source.matchAll(declaration)) {
    const name = match[2];
    const isFunction = /function/.test(match[0]);
    const params = isFunction ? paramNames(source, match.index + match[0].length) : [];
    out.push({
      name,
      kind: isFunction ? 'function' : 'value',
      params,
      signature: isFunction ? `${name}(${params.join(', ')})` : name,
      doc: docAbove(source, match.index),
    });
  }
  return out;
}

/** Parameter names from the list that opens at or after `from`, defaults dropped. */
export function paramNames(source, from) {
  const open = source.indexOf('(', from);
  if (open < 0) return [];
  const list = splitTopLevel(source, open + 1);
  return list.map((p) => p.split('=')[0].trim()).filter((p) => p !== '');
}

/** The text up to the matching `)`, split on commas that are not nested. */
function splitTopLevel(source, start) {
  const parts = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') {
        current += c + source[++i];
        continue;
      }
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') {
      quote = c;
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}

/** The JSDoc block ending right before `index` (blank lines allowed), as plain lines. */
function docAbove(source, index) {
  const before = source.slice(0, index).trimEnd();
  if (!before.endsWith('*/')) return '';
  const open = before.lastIndexOf('/**');
  if (open < 0) return '';
  return before
    .slice(open + 3, -2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trimEnd())
    .join('\n')
    .trim();
}
