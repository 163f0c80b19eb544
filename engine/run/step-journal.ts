/**
 * A step's journal: the events its machine actions carry, stamped with the
 * step's seq and time, and the ledger rows its `record` nodes wrote (stored
 * in their tables; the journal only names them).
 */
import type { JsonObject } from '../format/model.js';
import { deepFreeze } from '../format/freeze.js';
import type { LedgerRow, RunRecord } from '../store/store.js';
import type { JournalEvent, Rejection, RetriesSpent, RunState } from './contract.js';

/** What a pure xstate evaluation collected instead of executing. */
export type Actions = ReadonlyArray<{ type: string; params?: unknown }>;

/** The journal events `actions` carry; ledger rows go to `rows`. `rejected` is the answer the step refused, if any. */
export function journalOf(actions: Actions, rec: RunRecord, at: string, rows: LedgerRow[]): { events: JournalEvent[]; rejected?: Rejection } {
  const events: JournalEvent[] = [];
  let rejected: Rejection | undefined;
  for (const a of actions) {
    if (a.type !== 'journal') continue;
    for (let e of (a.params as { events: JsonObject[] }).events) {
      if (e.type === 'record.written') e = ledgerRow(e, rec.runId, at, rows);
      // Object.assign, not a spread after fixed keys: V8 takes a slow path for those.
      events.push(Object.assign({ seq: rec.seq, at }, e) as JournalEvent);
      // Read-only like the rest of a state: its errors are the journal event's own array.
      if (e.type === 'answer.rejected') rejected = deepFreeze({ code: e.code as string, errors: e.errors as string[] });
    }
  }
  return rejected ? { events, rejected } : { events };
}

/** Moves a `record.written` event's row into `rows`; returns the event as journaled (table and rowId only). */
function ledgerRow(e: JsonObject, runId: string, at: string, rows: LedgerRow[]): JsonObject {
  const { row, key, ...journaled } = e;
  const id = e.rowId as string;
  const entry: LedgerRow = { id, table: e.table as string, at, runId, row: { id, at, ...(row as JsonObject) } };
  if (typeof key === 'string') entry.key = key;
  rows.push(entry);
  return journaled;
}

/**
 * An answer to `nodeId` that a step rejected and then routed past (the
 * node's retries were spent: its maxRetriesExceeded or error route), so the
 * submitter learns its answer was refused although the run moved on.
 */
export function retriesSpentOf(events: readonly JournalEvent[], nodeId: string): RetriesSpent | undefined {
  const refused = events.find((e) => e.type === 'answer.rejected' && e.nodeId === nodeId);
  const route = refused && events.find((e) => e.type === 'route' && e.from === nodeId);
  if (!refused || !route || typeof route.via !== 'string' || typeof route.to !== 'string') return undefined;
  return deepFreeze({ nodeId, code: String(refused.code), errors: (refused.errors as string[]) ?? [], via: route.via, to: route.to });
}

/**
 * An answer to `nodeId` accepted by a step that issued item `seq` (a tool
 * node), then refused by what the tool nodes led to (a review that found
 * the artifacts unchanged): `rejected` when its node asks again,
 * `retriesSpent` when that refusal spent its last retry and the run went on,
 * or `late` (E_TIMEOUT) when the tools ran past the node's deadline, which
 * then fired instead of asking again.
 */
export function vetoedBehindTools(events: readonly JournalEvent[], nodeId: string, seq: number, userId: string, after: RunState): { rejected: Rejection } | { retriesSpent: RetriesSpent } | { late: Rejection } | undefined {
  const later = events.filter((e) => typeof e.seq === 'number' && e.seq >= seq);
  const refused = later.find((e) => e.type === 'answer.rejected' && e.nodeId === nodeId && e.userId === userId);
  if (!refused) return undefined;
  // The tools ran past the node's deadline: it fired instead of asking again (step.ts), so no retry is open to answer.
  const fired = later.find((e) => e.type === 'timeout' && e.nodeId === nodeId && e.seq >= refused.seq);
  if (fired) {
    const issued = events.filter((e) => e.nodeId === nodeId && (e.type === 'directive.issued' || e.type === 'review.issued') && typeof e.deadline === 'string').at(-1);
    const errors = (refused.errors as string[] | undefined) ?? [];
    return {
      late: deepFreeze({
        code: 'E_TIMEOUT',
        errors: [`the answer to node "${nodeId}" was refused behind tool nodes (${String(refused.code)}${errors.length ? `: ${errors.join('; ')}` : ''}), and its deadline${issued ? ` (${String(issued.deadline)})` : ''} passed while they ran: the deadline fired instead of asking again`],
      }),
    };
  }
  if (after.status === 'waiting' && after.pending.kind !== 'tool' && after.pending.nodeId === nodeId) {
    return { rejected: deepFreeze({ code: String(refused.code), errors: (refused.errors as string[]) ?? [] }) };
  }
  const spent = retriesSpentOf(later, nodeId);
  return spent ? { retriesSpent: spent } : undefined;
}
