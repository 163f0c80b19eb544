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

export interface ReviewLoop {
  reviewId: string;
  /** Waiting non-review nodes whose `success` reaches the review through transient nodes only. */
  producers: string[];
  /**
   * Every waiting non-review node whose work flows into the review: its
   * `success` reaches the review through transient nodes and other
   * waiting nodes' `success`, without passing another review (write →
   * polish → review: both). Whoever answered one of them may not review.
   */
  upstream: string[];
}

/**
 * Walks the graph from `from`, each node once. `step` says what a node is:
 * a result to keep (`'keep'`), a dead end (`'stop'`), or the targets to go
 * on to.
 */
function walk(from: string, byId: ReadonlyMap<string, LoopNode>, step: (node: LoopNode) => 'keep' | 'stop' | readonly string[]): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = byId.get(id);
    if (!node) continue;
    const next = step(node);
    if (next === 'keep') out.add(id);
    else if (next !== 'stop') queue.push(...next);
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
    return passes(kind) ? targets(node) : kind === undefined ? 'stop' : 'keep';
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

/** The reviews reached from `from` through transient nodes and waiting nodes' `success`, stopping at each review. */
function reviewsDownstream(from: string, byId: ReadonlyMap<string, LoopNode>, kindOf: KindOf): Set<string> {
  return walk(from, byId, (node) => {
    if (node.type === REVIEW_TYPE) return 'keep';
    const kind = kindOf(node.type);
    if (passes(kind)) return targets(node);
    const success = kind === 'waiting' ? successOf(node) : undefined;
    return success === undefined ? 'stop' : [success];
  });
}
