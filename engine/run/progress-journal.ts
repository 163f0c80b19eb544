/**
 * What a driven run reports between the items it hands out, read from the
 * journal as it grows: the condition and expression nodes the run passed
 * (and where each led), the tool nodes the engine ran, a review refused on
 * entry that the run went on from, and a node's deadline firing. Only
 * read when someone listens (onProgress), and only the events appended
 * since the last read.
 */
import type { JournalEvent, RunState } from './contract.js';
import type { Engine } from './engine.js';
import type { ProgressEvent } from './driver.js';

export interface JournalProgress {
  /**
   * Reports the events appended since the last call; `answered` names the
   * node whose answer was just submitted, `state` is where the run stands.
   */
  report(state: RunState, answered?: string, unused?: 'replayed' | 'late'): Promise<void>;
}

/** `from`: the event index to start at (0 for a run this drive started; the journal's length before a resumed one was touched). */
export function journalProgress(engine: Engine, runId: string, from: number, emit: (e: ProgressEvent) => void): JournalProgress {
  let at = from;
  return {
    async report(state, answered, unused) {
      const { events } = await engine.trace(runId, { from: at });
      at += events.length;
      // "Late" for an answer taken in time and refused behind the tool nodes it led to, which ran past the
      // node's deadline (step.ts fired it instead of asking again): said as the rejection it was, then the timeout.
      const unusedNow = unused === 'late' && answered !== undefined && refusedBehindTools(events, answered) ? undefined : unused;
      // An unused answer: the events since are another answerer's (or the deadline's), shown as the nodes they passed.
      if (answered !== undefined && unusedNow) emit({ type: 'answered', state, nodeId: answered, verdict: unusedNow });
      const verdict = answered !== undefined && !unusedNow ? answeredEvent(events, answered, state) : undefined;
      for (const e of progressOf(events, state, verdict)) emit(e);
    },
  };
}

/** Whether an answer to `nodeId` was accepted and then refused by a review behind tool nodes (same attempt and identity). */
function refusedBehindTools(events: readonly JournalEvent[], nodeId: string): boolean {
  const accepted = events.find((e) => e.type === 'answer.accepted' && e.nodeId === nodeId);
  return accepted !== undefined && events.some((e) => e.type === 'answer.rejected' && e.nodeId === nodeId && e.attempt === accepted.attempt && e.userId === accepted.userId);
}

/**
 * How the answer to `nodeId` fared, from the events its submit appended,
 * and where in them its fate was sealed: an answer accepted and then
 * refused by a review behind the tool nodes it led through (its
 * `answer.rejected` journaled after theirs) was rejected, said there.
 */
function answeredEvent(events: readonly JournalEvent[], nodeId: string, state: RunState): { at: number; event: ProgressEvent } {
  let at = events.findIndex((e) => e.nodeId === nodeId && e.type.startsWith('answer.'));
  const first = events[at];
  if (first?.type === 'answer.accepted') {
    const vetoed = events.findIndex((e, i) => i > at && e.type === 'answer.rejected' && e.nodeId === nodeId && e.attempt === first.attempt && e.userId === first.userId);
    if (vetoed >= 0) at = vetoed;
  }
  const judged = events[at];
  const base = { type: 'answered' as const, state, nodeId };
  if (!judged || judged.type === 'answer.accepted') return { at, event: { ...base, verdict: 'accepted' } };
  // Refused behind tool nodes that ran past the node's deadline: the deadline, not the refusal, moved the run on (its
  // `timeout` event says where), so the refusal has no route of its own and no failure to say.
  if (judged.type === 'answer.rejected' && events.some((e, i) => i > at && e.type === 'timeout' && e.nodeId === nodeId)) {
    return { at, event: { ...base, verdict: 'rejected', errors: stringsOf(judged.errors), deadlineFired: true } };
  }
  // The route out of the node after the refusal (maxRetriesExceeded, error), not the one the accepted answer took before it.
  const route = events.find((e, i) => i > at && e.type === 'route' && e.from === nodeId);
  const where = route && typeof route.via === 'string' && typeof route.to === 'string' ? { via: route.via, to: route.to } : {};
  if (judged.type === 'answer.discarded') return { at, event: { ...base, verdict: 'discarded', errors: [typeof judged.message === 'string' ? judged.message : 'no message'], ...where } };
  if (judged.type === 'answer.error') return { at, event: { ...base, verdict: 'error', errors: [typeof judged.message === 'string' ? judged.message : 'no message'], ...where } };
  return { at, event: { ...base, verdict: 'rejected', errors: stringsOf(judged.errors), ...where } };
}

function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * The progress events a stretch of journal holds, in order; `state` is where
 * the run stands after it. `answered` is said where its event sealed it.
 */
export function progressOf(events: readonly JournalEvent[], state: RunState, answered?: { at: number; event: ProgressEvent }): ProgressEvent[] {
  const out: ProgressEvent[] = [];
  // Nodes evaluated without an answer: their routes are the run's own decisions.
  const passed = new Map<string, 'condition' | 'expression'>();
  // An answer whose fate the events do not hold is said first.
  if (answered && answered.at < 0) out.push(answered.event);
  for (const [i, e] of events.entries()) {
    if (i === answered?.at) out.push(answered.event);
    if (e.type === 'timeout' && typeof e.nodeId === 'string') {
      // A deadline that fired (in a drive, or when a resumed run was read): where its timeout route led, if it had one.
      const at = e.nodeId;
      const route = events.find((r) => r.seq >= e.seq && r.type === 'route' && r.from === at && r.via === 'timeout');
      out.push({ type: 'timeout', nodeId: at, state, ...(typeof route?.to === 'string' ? { to: route.to } : {}) });
    } else if (e.type === 'review.refused' && typeof e.nodeId === 'string') {
      // Refused on entry and gone on by a route: said with why, never a bare route. A run failed there says it by its failure.
      const at = e.nodeId;
      const route = events.find((r, j) => j > i && r.type === 'route' && r.from === at);
      if (typeof route?.via === 'string' && typeof route.to === 'string') {
        out.push({ type: 'refused', nodeId: at, code: String(e.code), message: String(e.message), via: route.via, to: route.to });
      }
    } else if (e.type === 'condition.evaluated' && typeof e.nodeId === 'string') passed.set(e.nodeId, 'condition');
    else if (e.type === 'expression.evaluated' && typeof e.nodeId === 'string') passed.set(e.nodeId, 'expression');
    else if (e.type === 'route' && typeof e.from === 'string' && typeof e.to === 'string' && typeof e.via === 'string' && passed.has(e.from)) {
      out.push({ type: 'route', from: e.from, to: e.to, via: e.via, kind: passed.get(e.from)! });
      passed.delete(e.from);
    } else if (e.type === 'tool.succeeded' || e.type === 'tool.failed') {
      out.push({
        type: 'tool',
        nodeId: String(e.nodeId),
        tool: String(e.tool),
        ok: e.type === 'tool.succeeded',
        ...(typeof e.code === 'string' ? { code: e.code } : {}),
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
      });
    }
  }
  return out;
}
