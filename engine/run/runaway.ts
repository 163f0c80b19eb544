/**
 * A step that would never come to rest fails its run with E_RUNAWAY. A loop
 * through waiting nodes' entries (a node whose entry keeps routing back to
 * it) keeps what the step did up to that node's first entry in the journal
 * (the accepted answer, its routes) and names the node; a transient loop,
 * which validation rules out, names the node the step began at.
 */
import { deepFreeze } from '../format/freeze.js';
import type { LedgerRow, RunRecord } from '../store/store.js';
import type { JournalEvent, RunFailure } from './contract.js';
import { journalOf, type Actions } from './step-journal.js';
import type { Settled } from './step.js';

/** Thrown out of a step's entry loop: the node it kept returning to, and the actions to journal. */
export class Runaway extends Error {
  constructor(
    message: string,
    readonly nodeId: string | undefined,
    readonly actions: Actions,
    /** How to repair the workflow, when the loop's cause is known. */
    readonly fix?: string,
  ) {
    super(message);
  }
}

/** `from`: the node the step began at (the pending item's, or the start node on a run's first step). */
export function runaway(rec: RunRecord, at: string, from: string | undefined, loop?: Runaway): Settled {
  const rows: LedgerRow[] = [];
  const { events } = loop ? journalOf(loop.actions, rec, at, rows) : { events: [] as JournalEvent[] };
  const nodeId = loop ? loop.nodeId : from;
  const message = loop?.message ?? `transient nodes kept transitioning without reaching a waiting or end node${from !== undefined ? `, from node "${from}"` : ''}`;
  const error: RunFailure = deepFreeze({ code: 'E_RUNAWAY', message, ...(nodeId !== undefined ? { nodeId } : {}), ...(loop?.fix ? { fix: loop.fix } : {}) });
  events.push({ seq: rec.seq, at, type: 'run.failed', ...(nodeId !== undefined ? { nodeId } : {}), code: error.code, message: error.message });
  return {
    record: { ...rec, status: 'failed', pending: undefined, deadline: undefined, error, updatedAt: at },
    events,
    rows,
  };
}
