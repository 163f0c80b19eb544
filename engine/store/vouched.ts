/**
 * A step the engine built itself: its record and events come from answers
 * and inputs the engine has already copied as JSON, and a machine it
 * compiled. The store methods' argument checks (store-errors.ts) exist for
 * a host that calls a store directly, and would otherwise walk every
 * record of every step a second and third time (the whole context, every
 * answer in it). A vouched step is still checked for its shape; what JSON
 * would change in it is not looked for again.
 *
 * One slot, matched by identity, not a WeakSet: a store call is
 * synchronous, so the mutation (or created record) the engine vouches for
 * is the very next one the store checks, and marking every step's objects
 * in a WeakSet cost more in garbage collection than the check it saved.
 */
import type { Mutation, RunRecord } from './store.js';

let vouched: object | undefined;

/** Marks `value` (a record to create, or a step's mutation) as the engine's own. */
export function vouch<T>(value: T): T {
  if (value !== null && typeof value === 'object') vouched = value as object;
  return value;
}

/** Whether `value` is what the engine just vouched for (taken: it vouches once). */
export function takeVouched(value: unknown): boolean {
  if (value === undefined || value !== vouched) return false;
  vouched = undefined;
  return true;
}

/** A mutate whose mutations are vouched for. */
export function vouchedMutate<T>(mutate: (current: RunRecord) => Mutation<T>): (current: RunRecord) => Mutation<T> {
  return (current) => vouch(mutate(current));
}
