/**
 * One typo, one finding. A misspelt key or node type whose did-you-mean is
 * known (`inputSchem`, `variableRegistery`, `di` for `id`, `tpye`, `strat`)
 * is reported once, and the rest of the document is checked as if it were
 * written as meant — the way a compiler recovers from a syntax error — so
 * the declarations, nodes and connections behind the misspelt name do not
 * come back as undeclared variables, dangling connections or missing fields.
 */
import { suggest } from '../format/suggest.js';
import type { Finding } from '../nodes/node-type.js';
import { childPointer, describePointer, isPlainObject, pointerSegments, valueAt } from './pointer.js';

interface Correction {
  /** The pointer of the object holding the misspelt key (or the node type's pointer, for a type). */
  parent: string;
  written: string;
  meant: string;
  /** A key is renamed; a node type's value, or a name in a list of names (globalInputs), is replaced. */
  kind: 'key' | 'type' | 'item';
  finding: Finding;
}

/** Typos inside typos (`propertis` inside `inputSchem`) come to light one round at a time. */
const MAX_ROUNDS = 5;

export function withTyposRecovered(data: unknown, findingsOf: (data: unknown) => Finding[]): Finding[] {
  let current = data;
  const applied: Correction[] = [];
  const typos: Finding[] = [];
  for (let round = 0; ; round++) {
    const found = findingsOf(current);
    const next = round < MAX_ROUNDS ? corrections(found, current) : [];
    if (next.length === 0) return [...typos, ...found.map((f) => asWritten(f, applied))];
    for (const c of next) typos.push(asWritten(c.finding, applied));
    for (const c of next) current = corrected(current, c);
    applied.push(...next);
  }
}

/**
 * A required field reported missing where the object holds a near miss of
 * it (a node's `tpye`, which leaves the schema no type to choose the node's
 * shape by, so it never calls the key unknown): the misspelt key is the
 * finding, at the key, with its did-you-mean.
 */
export function missingAsMisspelt(findings: Finding[], data: unknown): Finding[] {
  return findings.map((f) => {
    if (f.code !== 'E_SCHEMA' || !f.missingField || f.missing?.length !== 1) return f;
    const holder = valueAt(data, f.pointer);
    if (!isPlainObject(holder)) return f;
    const wanted = f.missing[0];
    const written = Object.keys(holder).find((k) => k !== wanted && suggest(k, [wanted]) === wanted);
    if (written === undefined) return f;
    return {
      code: 'E_UNKNOWN_KEY',
      pointer: childPointer(f.pointer, written),
      key: true,
      message: `unknown key "${written}" in ${describePointer(data, f.pointer)}: remove it or check its spelling — did you mean "${wanted}"?`,
      severity: 'error',
      meant: wanted,
    };
  });
}

function corrections(findings: Finding[], data: unknown): Correction[] {
  const out: Correction[] = [];
  const taken = new Set<string>();
  for (const f of findings) {
    if (f.meant === undefined || f.severity !== 'error') continue;
    const kind = f.code === 'E_UNKNOWN_NODE_TYPE' ? 'type' : f.code === 'E_GLOBAL_INPUT_UNDECLARED' ? 'item' : f.code === 'E_UNKNOWN_KEY' || f.code === 'E_UNKNOWN_CONNECTION' || f.key === true ? 'key' : undefined;
    if (kind === undefined) continue;
    const cut = f.pointer.lastIndexOf('/');
    if (cut < 0) continue;
    const parent = f.pointer.slice(0, cut);
    const written = pointerSegments(f.pointer.slice(cut)).join('');
    if (!applies(kind, valueAt(data, parent), written, f.meant)) continue;
    if (kind === 'key') {
      // Two typos of one key: the first is read as meant, the second stays a plain unknown key.
      if (taken.has(`${parent}/${f.meant}`)) continue;
      taken.add(`${parent}/${f.meant}`);
    }
    out.push({ parent, written, meant: f.meant, kind, finding: f });
  }
  return out;
}

function applies(kind: Correction['kind'], holder: unknown, written: string, meant: string): boolean {
  if (kind === 'item') return Array.isArray(holder) && typeof holder[Number(written)] === 'string' && !holder.includes(meant);
  if (!isPlainObject(holder) || !Object.hasOwn(holder, written)) return false;
  // A key already there under the meant name: renaming would hide it, so the typo stays a plain unknown key.
  if (kind === 'key') return !Object.hasOwn(holder, meant);
  return written === 'type' && typeof holder.type === 'string';
}

/** A copy of `data` with the correction made; only the containers on its path are copied. */
function corrected(data: unknown, c: Correction): unknown {
  const segments = pointerSegments(c.parent);
  const rebuild = (value: unknown, depth: number): unknown => {
    if (depth === segments.length) {
      if (c.kind === 'item') return (value as unknown[]).map((v, i) => (String(i) === c.written ? c.meant : v));
      const holder = value as Record<string, unknown>;
      if (c.kind === 'type') return copyWith(holder, (k, v) => [k, k === 'type' ? c.meant : v]);
      return copyWith(holder, (k, v) => [k === c.written ? c.meant : k, v]);
    }
    const key = segments[depth];
    if (Array.isArray(value)) return value.map((v, i) => (String(i) === key ? rebuild(v, depth + 1) : v));
    return copyWith(value as Record<string, unknown>, (k, v) => [k, k === key ? rebuild(v, depth + 1) : v]);
  };
  return rebuild(data, 0);
}

function copyWith(source: Record<string, unknown>, entry: (key: string, value: unknown) => [string, unknown]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(source)) {
    const [key, value] = entry(k, v);
    // An own data property: a plain assignment of `__proto__` would set the copy's prototype instead.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A finding about the corrected document, pointed at the text as written (latest correction first). */
function asWritten(f: Finding, applied: readonly Correction[]): Finding {
  let pointer = f.pointer;
  for (let i = applied.length - 1; i >= 0; i--) {
    const c = applied[i];
    if (c.kind !== 'key') continue;
    const renamed = childPointer(c.parent, c.meant);
    if (pointer === renamed || pointer.startsWith(`${renamed}/`)) pointer = `${childPointer(c.parent, c.written)}${pointer.slice(renamed.length)}`;
  }
  return pointer === f.pointer ? f : { ...f, pointer };
}
