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
 * synchronous, so the step the engine vouches for is the very next one the
 * store checks, and marking every step's objects in a WeakSet cost more in
 * garbage collection than the check it saved. What is vouched for is the
 * record and each event, as the engine made them: a store wrapper that
 * passes them on with anything of its own (another event, another record)
 * gets the whole check. The events are deep-frozen (they are small), so a
 * wrapper that edits one in place gets a TypeError; the record is not (a
 * walk of the whole record every step is what vouching saves), so a
 * wrapper that edits the engine's record in place is not checked again —
 * a limit README states.
 */
import type { JournalEvent } from '../run/contract.js';
import { deepFreeze } from '../format/freeze.js';
import type { Mutation, RunRecord } from './store.js';

interface Vouched {
  record: unknown;
  events: readonly unknown[];
}

let vouched: Vouched | undefined;

/** Vouches for a record to create and its first events, as the engine made them. */
export function vouchCreate(record: RunRecord, events: readonly JournalEvent[]): void {
  vouched = { record, events: events.map(deepFreeze) };
}

/** A mutate whose record and events are vouched for, as it returned them. */
export function vouchedMutate<T>(mutate: (current: RunRecord) => Mutation<T>): (current: RunRecord) => Mutation<T> {
  return (current) => {
    const mutation = mutate(current);
    vouched = { record: mutation.record, events: (mutation.events ?? []).map(deepFreeze) };
    return mutation;
  };
}

/**
 * Whether `record` and `events` are exactly what the engine just vouched
 * for: the same objects, the same events in the same order, nothing added.
 * Taken either way: a vouch covers one call.
 */
export function takeVouched(record: unknown, events: readonly unknown[] | undefined): boolean {
  const v = vouched;
  vouched = undefined;
  if (v === undefined || v.record !== record) return false;
  const given = events ?? [];
  return given.length === v.events.length && given.every((e, i) => e === v.events[i]);
}
