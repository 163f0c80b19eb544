/**
 * Node-local answers in a run context (`node-id.field`). Contexts are
 * immutable, and copying the whole `nodes` map on every answer made a step
 * cost O(answered nodes): about 4 µs for 100 of them, since V8 copies a
 * large object key by key. New answers go to `recent`, a short list of
 * [nodeId, answer] pairs (cheap to copy), and are folded into `nodes` once
 * it holds RECENT_MAX of them, so the map is copied once every RECENT_MAX
 * answers. Reads look in `recent` first. Runs stored before `recent`
 * existed read the same.
 */
export type RecentAnswers<V> = ReadonlyArray<readonly [string, V]>;

export interface NodeAnswers<V = Record<string, unknown>> {
  nodes: Record<string, V>;
  recent?: RecentAnswers<V>;
}

export const RECENT_MAX = 32;

const hasOwn = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

/** The answer stored for `nodeId`, if any. */
export function nodeAnswer<V>(data: NodeAnswers<V>, nodeId: string): V | undefined {
  const { recent, nodes } = data;
  if (recent !== undefined) {
    for (let i = 0; i < recent.length; i++) if (recent[i][0] === nodeId) return recent[i][1];
  }
  return hasOwn(nodes, nodeId) ? nodes[nodeId] : undefined;
}

/** The context fields that store `answer` as `nodeId`'s, replacing what it had. */
export function withNodeAnswer<V>(data: NodeAnswers<V>, nodeId: string, answer: V): { nodes: Record<string, V>; recent: RecentAnswers<V> | undefined } {
  const recent = data.recent ?? [];
  const at = recent.findIndex((pair) => pair[0] === nodeId);
  if (at >= 0) {
    const copy = recent.slice();
    copy[at] = [nodeId, answer];
    return { nodes: data.nodes, recent: copy };
  }
  if (recent.length < RECENT_MAX) return { nodes: data.nodes, recent: [...recent, [nodeId, answer]] };
  // Key by key into a copy: `{ ...nodes, [id]: v }` is a slow path in V8 when `id` is new.
  const nodes = { ...data.nodes };
  for (const [id, value] of recent) nodes[id] = value;
  nodes[nodeId] = answer;
  return { nodes, recent: undefined };
}
