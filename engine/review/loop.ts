/**
 * The shape around each delegate-review node, read from the graph alone:
 * which waiting nodes produce or fix its artifacts. Used by the validator
 * (self-review and loop lints) and by the runtime (who may not review,
 * which answers must name an identity).
 *
 * A waiting node produces (or fixes) a review's artifacts when its
 * `success` connection reaches the review through transient nodes only
 * (conditions, expressions): the artifact it hands over is the one the
 * review reads. Seed 003: `[do-work] → [delegate-review]`, `fix → review`.
 */

/** How the loop analysis sees a node: enough of the model, or of a not-yet-valid document. */
export interface LoopNode {
  id: string;
  type: string;
  connections: ReadonlyArray<readonly [name: string, target: string]>;
}

/** 'transient' for nodes that never wait (start, condition, expression). */
export type KindOf = (type: string) => 'start' | 'waiting' | 'transient' | 'final' | undefined;

export const REVIEW_TYPE = 'delegate-review';
/**
 * A decision review (`contract: "decision"`) is an ordinary waiting node to
 * the loop analysis: it has no report, no producers and no fix loop.
 */
export const DECISION_LOOP_TYPE = 'delegate-review#decision';

/** The type a node takes part in the loop analysis as. */
export function loopTypeOf(node: { type?: unknown; contract?: unknown }): string {
  return node.type === REVIEW_TYPE && node.contract === 'decision' ? DECISION_LOOP_TYPE : typeof node.type === 'string' ? node.type : '';
}

/** Wraps a kind lookup so decision reviews count as waiting nodes. */
export function withDecisionReviews(kindOf: KindOf): KindOf {
  return (type) => (type === DECISION_LOOP_TYPE ? 'waiting' : kindOf(type));
}

export interface ReviewLoop {
  reviewId: string;
  /** Waiting non-review nodes whose `success` reaches the review through transient nodes only. */
  producers: string[];
  /**
   * Every waiting non-review node whose work flows into the review: its
   * `success` reaches the review through transient nodes and other
   * waiting nodes' `success` (write → polish → review: both), other
   * reviews included, since a review leaves the artifact as it found it
   * (write → review A → review B: write feeds both). Whoever answered one
   * of them may not review.
   */
  upstream: string[];
}

/** What the walk makes of a node: keep it as a result, and the targets to go on to. */
interface Visit {
  keep?: boolean;
  next?: readonly string[];
}

/** Walks the graph from `from`, each node once, collecting the nodes `step` keeps. */
function walk(from: string, byId: ReadonlyMap<string, LoopNode>, step: (node: LoopNode) => Visit): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = byId.get(id);
    if (!node) continue;
    const { keep, next } = step(node);
    if (keep) out.add(id);
    if (next) queue.push(...next);
  }
  return out;
}

const targets = (node: LoopNode) => node.connections.map(([, target]) => target);
const passes = (kind: ReturnType<KindOf>) => kind === 'transient' || kind === 'start';

/**
 * The waiting and final nodes first met from `from` when passing through
 * transient nodes only (`from` itself included when it waits).
 */
export function firstWaiting(from: string, byId: ReadonlyMap<string, LoopNode>, kindOf: KindOf): Set<string> {
  return walk(from, byId, (node) => {
    const kind = kindOf(node.type);
    return passes(kind) ? { next: targets(node) } : { keep: kind !== undefined };
  });
}

export function successOf(node: LoopNode): string | undefined {
  return node.connections.find(([name]) => name === 'success')?.[1];
}

/** Every delegate-review node with its producers, in document order. */
export function reviewLoops(nodes: readonly LoopNode[], kindOf: KindOf): ReviewLoop[] {
  const byId = new Map<string, LoopNode>();
  for (const n of nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const loops = new Map<string, string[]>();
  for (const n of byId.values()) if (n.type === REVIEW_TYPE) loops.set(n.id, []);
  if (loops.size === 0) return [];
  const upstream = new Map<string, string[]>([...loops.keys()].map((id) => [id, []]));
  for (const n of byId.values()) {
    if (n.type === REVIEW_TYPE || kindOf(n.type) !== 'waiting') continue;
    const success = successOf(n);
    if (success === undefined) continue;
    for (const reached of firstWaiting(success, byId, kindOf)) loops.get(reached)?.push(n.id);
    for (const reached of reviewsDownstream(success, byId, kindOf)) upstream.get(reached)?.push(n.id);
  }
  return [...loops].map(([reviewId, producers]) => ({ reviewId, producers, upstream: upstream.get(reviewId) ?? [] }));
}

/**
 * The reviews reached from `from` through transient nodes and waiting
 * nodes' `success`. A review is kept and passed through: it never changes
 * the artifact (G13), so work that passed one review flows on into the
 * next (write → review A → review B: the writer may review neither).
 */
function reviewsDownstream(from: string, byId: ReadonlyMap<string, LoopNode>, kindOf: KindOf): Set<string> {
  return walk(from, byId, (node) => {
    const kind = kindOf(node.type);
    if (passes(kind)) return { next: targets(node) };
    const success = kind === 'waiting' || node.type === REVIEW_TYPE ? successOf(node) : undefined;
    return { keep: node.type === REVIEW_TYPE, next: success === undefined ? [] : [success] };
  });
}
