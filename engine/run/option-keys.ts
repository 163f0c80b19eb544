/**
 * The keys each options object of the library takes. A misspelt key
 * (`{inputs}` for `{input}`) would otherwise be read as the option left
 * out: the run would go on without it. Each list sits beside its options
 * type and is written as a record of that type's keys, so the compiler
 * refuses a list that misses a key of the type or names one it has not.
 */
import { CountersignError } from '../errors.js';
import { suggest } from '../format/suggest.js';

/** Every key of an options type, each `true`: a key missing or extra fails to compile. */
export type KeysOf<T> = { readonly [K in keyof T]-?: true };

/** The key list of an options type, from a record the compiler checks against the type both ways. */
export function keysOf<T>(keys: KeysOf<T>): readonly string[] {
  return Object.freeze(Object.keys(keys));
}

/**
 * An unknown key in `opts` is E_INPUT naming it, with a did-you-mean;
 * `call` names the options in messages (`start()`, `createEngine`).
 */
export function checkOptionKeys(opts: object, known: readonly string[], call: string): void {
  for (const key of Object.keys(opts)) {
    if (known.includes(key)) continue;
    const near = suggest(key, known);
    throw new CountersignError('E_INPUT', `${call} has no option ${JSON.stringify(key)}${near ? ` — did you mean "${near}"?` : ''}`, {
      fix: `${near ? `rename it to "${near}"` : 'remove it'}: ${call} takes ${known.join(', ')}, and an option it does not know is never read as left out`,
    });
  }
}

/** What a value is, for messages: `5`, `"x"`, NaN, 5n, null, a list, an object. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  return said(value);
}

/**
 * A value as a message names it: JSON for JSON data, and the source form
 * wherever JSON would misstate the value or throw: NaN and Infinity (JSON
 * says null, itself a wrong value of its own), 5n (JSON throws on a
 * BigInt), Symbol(x), a function and undefined (JSON says nothing), an
 * invalid Date (JSON says null) and a value holding itself (JSON throws).
 */
export function said(value: unknown): string {
  try {
    return sourceForm(value, new Set());
  } catch {
    // Only an object can throw here (a getter or toJSON that throws): the message must still be made.
    return 'an object';
  }
}

function sourceForm(value: unknown, parents: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    case 'function':
      return 'a function';
    case 'undefined':
      return 'undefined';
  }
  if (value === null) return 'null';
  const object = value as object;
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'an invalid Date' : JSON.stringify(object.toISOString());
  if (parents.has(object)) return '(itself)';
  parents.add(object);
  try {
    // What JSON would write for it (a URL, a class's own form), shown the same way.
    const toJson = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return sourceForm(toJson.call(object), parents);
    if (Array.isArray(object)) return `[${Array.from(object, (item) => sourceForm(item, parents)).join(',')}]`;
    return `{${Object.entries(object).map(([key, item]) => `${JSON.stringify(key)}:${sourceForm(item, parents)}`).join(',')}}`;
  } finally {
    parents.delete(object);
  }
}
