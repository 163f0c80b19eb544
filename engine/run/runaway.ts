/**
 * A step that would never come to rest fails its run with E_RUNAWAY. A loop
 * through waiting nodes' entries (a node whose entry keeps routing back to
 * it) keeps what the step did up to that node's first entry in the journal
 * (the accepted answer, its routes) and names the node; so does one that
 * comes back to the node through tool nodes (stopped at its first repeated
 * entry, before the tools run again); a transient loop, which validation
 * rules out, names the node the step began at.
 */
import { deepFreeze } from '../format/freeze.js';
import type { LedgerRow, RunRecord } from '../store/store.js';
import type { JournalEvent, RunFailure } from './contract.js';
import { journalOf, type Actions } from './step-journal.js';
import type { Settled } from './step.js';
import type { Rerouted } from '../nodes/node-type.js';

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

/**
 * A waiting node entered again, behind tool nodes, whose entry routes the
 * run on by the same connection with the same code as when it was last
 * entered (`carried`, since the run last rested at a node someone
 * answers): nothing but the tools' side effects happened in between, and
 * the loop would only run them again (a posted comment cannot be taken
 * back). The run stops here, before the tools run a second time.
 */
export function repeatedEntry(
  carried: Rerouted | undefined,
  nodeId: string,
  outcome: { via: string; code: string; message: string },
  actions: Actions,
): Runaway | undefined {
  if (!carried?.routes.some((r) => r.nodeId === nodeId && r.via === outcome.via && r.code === outcome.code)) return undefined;
  const tools = `tool node${carried.tools.length === 1 ? '' : 's'} ${carried.tools.map((t) => `"${t}"`).join(', ')}`;
  return new Runaway(
    `node "${nodeId}" kept routing on entry without the run resting anywhere: entered again through ${tools} with no answer on the way, it routed by "${outcome.via}" again (${outcome.code}: ${outcome.message}); the tool nodes are not run again`,
    nodeId,
    actions,
    // The entry's own fix speaks of the route it took, which is the loop: the repair is to route elsewhere.
    `route node "${nodeId}"'s "${outcome.via}" connection somewhere other than back to it through ${tools} (to a step an agent answers, which can supply what its entry lacks, or to an end)${outcome.code === 'E_MAX_ITERATIONS' ? ', or raise its maxIterations' : ''}, so that entering it again can come to rest; then start a new run`,
  );
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
