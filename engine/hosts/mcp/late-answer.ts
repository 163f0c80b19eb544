/**
 * An answer that came after its item's deadline. The engine fires an
 * overdue deadline on the first step after it, whatever that step carries,
 * and drops the answer: `submit` returns the state the deadline left (the
 * node's `timeout` route, or E_TIMEOUT), which reads like any other. The
 * CLI's JSON stays that state; over MCP the text must also tell the model
 * that its answer was not taken, or it believes its work moved the run on.
 *
 * The engine's result does not say which way it went, so this reads the
 * item before the step (without firing its deadline, as `status` would) and
 * the journal after it. The journal is read only when the item had a
 * deadline that has passed, so an ordinary step costs one record read.
 */
import type { JournalEvent, RunState } from '../../run/contract.js';
import type { Store } from '../../store/store.js';

/** The item a step is about to answer, when it has a deadline. */
export interface ItemWithDeadline {
  runId: string;
  seq: number;
  nodeId: string;
  deadline: string;
}

/** What the text tells the model about an answer the deadline beat. */
export interface LateAnswer {
  nodeId: string;
  /** The seq of the item the answer was meant for. */
  seq: number;
  deadline: string;
  /** The node the `timeout` route led to; absent when the node has none (the run failed with E_TIMEOUT). */
  timeoutRouteTo?: string;
  /**
   * Set when the answer came in time but was refused behind tool nodes (a
   * review found the artifacts unchanged) and the deadline passed while
   * they ran: the engine's own account of the refusal (`late.errors`).
   */
  refusedBehindTools?: readonly string[];
}

export type RunReader = Pick<Store, 'get' | 'events'>;

/**
 * The waiting item `step` will answer, read as it is (an overdue deadline
 * is not fired here); undefined when it has no deadline or the step names
 * another seq (a replay or an E_SEQ, whose results already say so).
 */
export function itemWithDeadline(runs: RunReader, runId: string, seq: number | undefined): ItemWithDeadline | undefined {
  // A blank id is the engine's own E_INPUT (with its fix), not the store's.
  if (runId.trim() === '') return undefined;
  const rec = runs.get(runId);
  if (!rec) return undefined;
  if (rec.status === 'waiting' && rec.pending && rec.deadline !== undefined && (seq === undefined || seq === rec.seq)) {
    return { runId, seq: rec.seq, nodeId: rec.pending.nodeId, deadline: rec.deadline };
  }
  // The item's deadline already fired (at a status call, another client, the
  // CLI): the answer to it is late all the same, and the journal says when.
  // Without a timeout route the run failed there, at that same seq.
  if (seq === undefined || seq > rec.seq || (seq === rec.seq && rec.status === 'waiting')) return undefined;
  const fired = runs.events(runId).find((e) => e.type === 'timeout' && e.seq === seq);
  const issued = runs.events(runId).find((e) => e.seq === seq && typeof e.deadline === 'string');
  if (!fired || typeof fired.nodeId !== 'string') return undefined;
  return { runId, seq, nodeId: fired.nodeId, deadline: typeof issued?.deadline === 'string' ? issued.deadline : fired.at };
}

/**
 * Whether the item's deadline fired instead of the answer being taken:
 * the engine said so (`late`), or the journal holds the item's `timeout`
 * event and no answer was judged at its seq or later (an answer given
 * without seq, after another client fired the deadline, goes to the next
 * item and is taken there).
 */
export function lateAnswer(runs: RunReader, item: ItemWithDeadline, state: RunState, now: Date = new Date()): LateAnswer | undefined {
  const refused = refusedThenFired(runs, item, state);
  if (refused) return refused;
  if (now < new Date(item.deadline)) return undefined;
  if (state.status === 'waiting' && state.rejected) return undefined;
  const events = runs.events(item.runId);
  const fired = events.findIndex((e) => e.type === 'timeout' && e.seq === item.seq && e.nodeId === item.nodeId);
  if (fired < 0) return undefined;
  const after = events.slice(fired + 1);
  // The engine says itself when it dropped the answer (state.late): then a later answer in the
  // journal is another client's, to the item the timeout route led to, not this one taken elsewhere.
  if (!state.late && after.some((e) => e.seq >= item.seq && isJudgedAnswer(e))) return undefined;
  const route = after.find((e) => e.type === 'route' && e.from === item.nodeId && e.via === 'timeout');
  return {
    nodeId: item.nodeId,
    seq: item.seq,
    deadline: item.deadline,
    ...(typeof route?.to === 'string' ? { timeoutRouteTo: route.to } : {}),
  };
}

/**
 * The answer was taken in time, then refused by what the tool nodes behind
 * it led to, and the node's deadline fired instead of asking again. The
 * engine journals that firing under the tool step's seq, not the item's,
 * so it is found as the node's first `timeout` after a refusal of its
 * answer at the item's seq or later; the engine says so itself (`late`).
 */
function refusedThenFired(runs: RunReader, item: ItemWithDeadline, state: RunState): LateAnswer | undefined {
  if (!state.late) return undefined;
  const events = runs.events(item.runId);
  const refused = events.findIndex((e) => e.type === 'answer.rejected' && e.nodeId === item.nodeId && e.seq > item.seq);
  if (refused < 0) return undefined;
  const fired = events.findIndex((e, i) => i > refused && e.type === 'timeout' && e.nodeId === item.nodeId);
  if (fired < 0) return undefined;
  const route = events.slice(fired + 1).find((e) => e.type === 'route' && e.from === item.nodeId && e.via === 'timeout');
  return {
    nodeId: item.nodeId,
    seq: item.seq,
    deadline: item.deadline,
    ...(typeof route?.to === 'string' ? { timeoutRouteTo: route.to } : {}),
    refusedBehindTools: state.late.errors,
  };
}

/** An answer the engine took and judged: accepted, rejected or declared failed (`answer.accepted`, `answer.rejected`, `answer.error`). */
function isJudgedAnswer(e: JournalEvent): boolean {
  return e.type.startsWith('answer.');
}
