/**
 * Whether a review's fix step hands the artifact back to that same review
 * (seed 003 G7, G11), read from the graph alone.
 *
 * The way back may pass through any steps that come after the review: a
 * test run, a summary, a second reviewer. What it may not do is hand the
 * artifact to a producer that precedes the review (one a run reaches from
 * the start without passing the review): that step produces the artifact
 * anew, which is the seed's own `fix-issues → do-work` anti-pattern, and
 * the fix is never re-reviewed as a fix.
 */
import { nodeType } from '../nodes/index.js';
import { REVIEW_TYPE, successOf, withDecisionReviews, type KindOf, type LoopNode } from '../review/loop.js';

/** delegate-review waits for an answer whether or not the registry knows it yet. */
export const reviewKindOf: KindOf = withDecisionReviews((type) => (type === REVIEW_TYPE ? 'waiting' : nodeType(type)?.kind));

export interface ReviewShape {
  id: string;
  /** Waiting non-review nodes whose success reaches the review through transient nodes only. */
  producers: readonly string[];
  /** The producers a run can reach before this review. */
  preceding: ReadonlySet<string>;
}

export interface WayBack {
  reached: boolean;
  /** Preceding producers the way back hands the artifact to. */
  producersMet: string[];
  /** End nodes the way back runs into. */
  endsMet: string[];
  /**
   * The steps on the way (the fix step included) whose answer brings the
   * artifact into the review: the runtime reads `unchanged_reason` from it.
   */
  enterers: string[];
}

/**
 * Where the fix step's success `back` leads. The walk follows every
 * connection of transient nodes and the success of waiting ones (other
 * reviews included), and stops at the review (reached), at an end, and at
 * a preceding producer.
 */
export function wayBack(fixId: string, back: string, review: ReviewShape, byId: ReadonlyMap<string, LoopNode>): WayBack {
  const seen = new Set<string>([fixId]);
  const queue = [back];
  const passed = [fixId];
  const producersMet: string[] = [];
  const endsMet: string[] = [];
  let reached = false;
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    if (id === review.id) {
      reached = true;
      continue;
    }
    const node = byId.get(id);
    if (!node) continue;
    const kind = reviewKindOf(node.type);
    if (review.preceding.has(id)) producersMet.push(id);
    else if (kind === 'final') endsMet.push(id);
    else if (kind === 'waiting') {
      passed.push(id);
      const next = successOf(node);
      if (next !== undefined) queue.push(next);
    } else {
      for (const [, target] of node.connections) queue.push(target);
    }
  }
  return { reached, producersMet, endsMet, enterers: passed.filter((id) => review.producers.includes(id)) };
}

/**
 * The producers a run reaches from a start node without passing the
 * review (following every connection). With no start node every producer
 * counts, so only a way back that avoids them all is accepted.
 */
export function precedingProducers(reviewId: string, producers: readonly string[], byId: ReadonlyMap<string, LoopNode>): Set<string> {
  const starts = [...byId.values()].filter((n) => reviewKindOf(n.type) === 'start').map((n) => n.id);
  if (starts.length === 0) return new Set(producers);
  const seen = new Set<string>();
  const queue = starts;
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id) || id === reviewId) continue;
    seen.add(id);
    for (const [, target] of byId.get(id)?.connections ?? []) queue.push(target);
  }
  return new Set(producers.filter((id) => seen.has(id)));
}
