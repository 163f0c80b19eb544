/**
 * The review loops of a workflow at run time: which answers feed which
 * delegate-review node. Derived once per workflow object from the graph
 * (engine/review/loop.ts) and used to enforce independence: whoever
 * produced or fixed a review's artifacts may not review them, and every
 * answer inside a loop must say who gave it.
 */
import type { Workflow } from '../format/model.js';
import { loopTypeOf, REVIEW_TYPE, reviewLoops, withDecisionReviews, type LoopNode } from '../review/loop.js';
import { nodeType } from './index.js';
import type { RunContext } from './node-type.js';

export interface LoopFacts {
  /** Review node id → the nodes producing or fixing its artifacts. */
  producers: ReadonlyMap<string, readonly string[]>;
  /** Producer node id → the reviews it feeds. */
  feeds: ReadonlyMap<string, readonly string[]>;
  /** Review nodes and their producers: answers there must carry an identity. */
  members: ReadonlySet<string>;
}

const cache = new WeakMap<Workflow, LoopFacts>();

export function loopFacts(workflow: Workflow): LoopFacts {
  let facts = cache.get(workflow);
  if (facts) return facts;
  const nodes: LoopNode[] = workflow.nodes.map((n) => ({ id: n.id, type: loopTypeOf(n), connections: Object.entries(n.connections ?? {}) }));
  const producers = new Map<string, string[]>();
  const feeds = new Map<string, string[]>();
  const members = new Set<string>();
  for (const loop of reviewLoops(nodes, withDecisionReviews((type) => nodeType(type)?.kind))) {
    producers.set(loop.reviewId, loop.upstream);
    members.add(loop.reviewId);
    for (const p of loop.upstream) {
      members.add(p);
      feeds.set(p, [...(feeds.get(p) ?? []), loop.reviewId]);
    }
  }
  facts = { producers, feeds, members };
  cache.set(workflow, facts);
  return facts;
}

export function hasReviewNodes(workflow: Workflow): boolean {
  return workflow.nodes.some((n) => loopTypeOf(n) === REVIEW_TYPE);
}

/** The review states with `userId` recorded as an author of every review `nodeId` feeds; undefined when it feeds none. */
export function withAuthor(
  reviews: RunContext['reviews'],
  nodeId: string,
  userId: string,
  workflow: Workflow,
): RunContext['reviews'] | undefined {
  const fed = loopFacts(workflow).feeds.get(nodeId);
  if (!fed) return undefined;
  const out = { ...reviews };
  for (const reviewId of fed) {
    // Own keys only: a node id may be `constructor` or `toString`.
    const state = (Object.hasOwn(out, reviewId) ? out[reviewId] : undefined) ?? { accepted: 0, authors: [] };
    if (!state.authors.includes(userId)) out[reviewId] = { ...state, authors: [...state.authors, userId] };
  }
  return out;
}
