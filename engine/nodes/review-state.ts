/**
 * What a run's review nodes keep between visits (ReviewState, in the run's
 * context) and what it says about a report path: whether this run has been
 * there, and which visit was the last one there.
 */
import type { ReviewState, RunContext } from './node-type.js';

/** A review node's state, or a fresh one before its first visit. */
export function stateOf(ctx: RunContext, id: string): ReviewState {
  // Own keys only: a node id may be `constructor` or `toString`.
  return (ctx.reviews && Object.hasOwn(ctx.reviews, id) ? ctx.reviews[id] : undefined) ?? { accepted: 0, authors: [] };
}

/**
 * The review state whose visit was the run's last at `report`, or undefined
 * when no visit is there now. States from before visits were ordered count
 * as the oldest; on a tie the asking node's own state wins.
 */
export function lastVisitAt(ctx: RunContext, report: string, ownId: string): ReviewState | undefined {
  let best: [string, ReviewState] | undefined;
  for (const entry of Object.entries(ctx.reviews ?? {})) {
    if (entry[1].visit?.report !== report) continue;
    const order = entry[1].visitOrder ?? 0;
    const bestOrder = best?.[1].visitOrder ?? 0;
    if (!best || order > bestOrder || (order === bestOrder && entry[0] === ownId)) best = entry;
  }
  return best?.[1];
}

/** Every report path a node has issued its review at (older states knew only their current visit). */
export function slotsOf(state: ReviewState): string[] {
  return state.slots ?? (state.visit ? [state.visit.report] : []);
}

/**
 * Whether no review node of this run has held a review at `report` — a
 * templated path may come back to one, and two nodes may share one: what
 * lies there then is this run's own, not a file to keep aside.
 */
export function firstVisitAt(ctx: RunContext, report: string): boolean {
  return !Object.values(ctx.reviews ?? {}).some((r) => slotsOf(r).includes(report));
}

/** The order of a visit issued now: one past the run's latest. */
export function nextVisitOrder(ctx: RunContext): number {
  return Math.max(0, ...Object.values(ctx.reviews ?? {}).map((r) => r.visitOrder ?? 0)) + 1;
}
