/**
 * `delegate-review` has two answer contracts, chosen by the node's
 * `contract` field: `issues` (the default: a report file and a count, seed
 * 003) and `decision` (a persona's approve/reject reply, seed 000). Each is
 * its own node-type implementation; this routes every hook to the one the
 * node names, so report checks, `exhausted`, `issues_count` and the review
 * lints never touch a decision review.
 */
import type { DecisionReviewNode, DelegateReviewNode } from '../format/model.js';
import { delegateReview } from './delegate-review.js';
import type { WaitingType } from './node-type.js';
import { decisionReview } from './review-decision.js';

type ReviewNode = DelegateReviewNode | DecisionReviewNode;

const impl = (node: { contract?: unknown } | undefined): WaitingType<any> =>
  node !== null && typeof node === 'object' && node.contract === 'decision' ? decisionReview : delegateReview;

export function isDecisionReview(node: { type?: unknown; contract?: unknown }): boolean {
  return node.type === 'delegate-review' && node.contract === 'decision';
}

export const reviewByContract: WaitingType<ReviewNode> = {
  type: 'delegate-review',
  kind: 'waiting',
  // The issues contract's, for tools that list a type's connections without a node.
  connections: delegateReview.connections,
  connectionsOf: (node) => impl(node).connections,
  declares: (node) => impl(node).declares(node),
  reads: (node, pointer) => impl(node).reads(node, pointer),
  check: (node, ctx) => impl(node).check(node, ctx),
  lint: (raw, pointer) => impl(raw).lint?.(raw, pointer) ?? [],
  maxRetries: (node) => impl(node).maxRetries(node),
  pending: (node, ctx, workflow) => impl(node).pending(node, ctx, workflow),
  answer: (node, ctx, submission, workflow) => impl(node).answer(node, ctx, submission, workflow),
  enter: (node, ctx, workflow, env, cause) => impl(node).enter!(node, ctx, workflow, env, cause),
  afterRejected: (node, ctx, code) => impl(node).afterRejected?.(node, ctx, code),
  onTimeout: (node, ctx, observed) => impl(node).onTimeout?.(node, ctx, observed),
  observe: (node, ctx, workflow, env) => impl(node).observe?.(node, ctx, workflow, env) ?? null,
  onMaxRetries: (node, last) => impl(node).onMaxRetries?.(node, last) ?? { via: 'maxRetriesExceeded', code: 'E_MAX_RETRIES' },
};
