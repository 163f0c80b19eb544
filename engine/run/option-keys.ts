/**
 * The keys each options object of the library takes. A misspelt key
 * (`{inputs}` for `{input}`) would otherwise be read as the option left
 * out: the run would go on without it. Each list sits beside its options
 * type and is written as a record of that type's keys, so the compiler
 * refuses a list that misses a key of the type or names one it has not.
 */
import { CountersignError } from '../errors.js';
import { suggest } from '../format/suggest.js';
import { shown } from '../format/said.js';

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

/**
 * Arguments past the ones a call takes are E_INPUT naming them: a second
 * object (`createSqliteStore(dir, { readonly: true })`) would otherwise be
 * read as nothing asked, and the caller handed a store it did not ask for.
 * `extra` are the arguments after the `takes` the call has; trailing
 * `undefined`s are arguments left out.
 */
export function refuseExtraArguments(call: string, takes: string, extra: readonly unknown[], fix: string): void {
  const given = [...extra];
  while (given.length > 0 && given[given.length - 1] === undefined) given.pop();
  if (given.length === 0) return;
  throw new CountersignError('E_INPUT', `${call} takes ${takes}, and was also given ${given.map(described).join(', ')}, which it does not read: refused rather than ignored`, { fix });
}

/** An argument as a message names it: an object by its keys (what the caller meant to ask for). */
function described(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 ? 'an empty object' : `an object with ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
  }
  return shown(value);
}
