/**
 * Which connections a routing condition takes while a review reports
 * issues, and where the issues go from there. The condition node's own
 * runtime step is run, so any condition shape the engine evaluates is
 * understood the same way here, on contexts where:
 * - the review's count is each of 1, 2, 3 and the whole numbers around
 *   every positive number the condition names (`eq 1` passes 2 issues, `lt
 *   5` passes 5: seed 003 G16, the truth table 0 / 1 / n):
 *   `<review-id>.issues_count`, and the bare `issues_count` when no other
 *   review sits between the review and the condition (past one, the bare
 *   name is that other review's count);
 * - every global the document gives a start value (registry default, then
 *   initialData value) and that no node writes holds that value;
 * - every other value the condition reads (a global with no start value or
 *   one an expression or answer changes, another node's answer, a builtin,
 *   a bare count past another review) takes each sample value in turn:
 *   true, false, 0, 1, "", "sample", null and the numbers around each
 *   number the condition names, in every combination.
 * A connection taken under any of these contexts carries issues. With more
 * than MAX_UNKNOWNS such values, or an unknown value indexed by another
 * variable (`items[idx]`), or a condition the evaluator refuses under every
 * context, nothing is returned.
 *
 * From a connection that carries issues the walk goes on through transient
 * nodes to the first waiting or final nodes; a further condition on the way
 * is run the same way, so a fix budget (`fix_rounds < 3` → fix, else a
 * person) is seen as sending the issues both ways. A further condition on
 * this review's count is a routing condition of its own, judged on its own.
 */
import type { ConditionNode, JsonObject, JsonValue, Workflow } from '../format/model.js';
import { BUILTIN_VARIABLES } from '../format/model.js';
import { formatPath, parsePath, type Segment } from '../format/path.js';
import { condition } from '../nodes/condition.js';
import type { RunContext } from '../nodes/node-type.js';
import type { KindOf, LoopNode } from '../review/loop.js';
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

export const COUNT = 'issues_count';

/** One value of each JSON kind a flag or switch is usually compared with. */
export const SAMPLES: readonly JsonValue[] = Object.freeze([true, false, 0, 1, '', 'sample', null]);

/** Two unknown values are tried in every combination; three are not analysed. */
export const MAX_UNKNOWNS = 2;

/** Numbers taken from one condition for samples: enough for any threshold a person writes. */
const MAX_NUMBERS = 8;

const BUILTINS: ReadonlySet<string> = new Set(BUILTIN_VARIABLES);

export interface BranchScope {
  reviewId: string;
  /** Whether a bare `issues_count` read by the condition is this review's count. */
  bareIsOurs: boolean;
  nodeIds: ReadonlySet<string>;
  /** Globals whose start value the document fixes. */
  seeded: ReadonlyMap<string, unknown>;
  /** Stand-in workflow holding the node ids, for the evaluator. */
  workflow: Workflow;
}

/**
 * The connections `cond` takes per issue count (count → connections), or an
 * empty map when it cannot be told.
 */
export function issuesBranches(cond: NodeEntry, scope: BranchScope): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const count of countSamples(cond)) {
    const taken = takenConnections(cond, scope, count);
    if (taken === undefined) return new Map();
    out.set(count, taken);
  }
  return out;
}

/** 1, 2, 3 and the whole numbers around each positive number in the condition, ascending. */
export function countSamples(cond: NodeEntry): number[] {
  const counts = new Set([1, 2, 3]);
  for (const n of numbersIn(cond.raw.condition)) {
    for (const near of [Math.floor(n) - 1, Math.floor(n), Math.ceil(n), Math.ceil(n) + 1]) if (near >= 1) counts.add(near);
  }
  return [...counts].sort((a, b) => a - b);
}

/**
 * The connections `cond` takes with the review's count at `count`, under
 * every sample of what the document does not fix; undefined when that
 * cannot be told.
 */
export function takenConnections(cond: NodeEntry, scope: BranchScope, count: number): Set<string> | undefined {
  const out = new Set<string>();
  let unknown: Segment[][];
  try {
    const reads = condition.reads(cond.raw as unknown as ConditionNode, cond.pointer).map(({ path }) => parsePath(path));
    const found = unknownReads(reads, scope);
    if (found === undefined) return undefined;
    unknown = found;
  } catch {
    return undefined;
  }
  if (unknown.length > MAX_UNKNOWNS) return undefined;
  const samples = samplesFor(cond);
  for (const values of combinations(unknown.length, samples)) {
    const ctx = baseContext(scope, count);
    unknown.forEach((segments, i) => setSample(ctx, segments, values[i], scope));
    try {
      const outcome = condition.step(cond.raw as unknown as ConditionNode, ctx, scope.workflow);
      if (!outcome.error) out.add(outcome.via);
    } catch {
      // This context is one the evaluator refuses; the others still count.
    }
  }
  return out.size > 0 ? out : undefined;
}

/** Where issues go from a connection: the first waiting and final nodes, and whether a later count condition takes over. */
export interface IssuesReach {
  firsts: string[];
  /** A condition on this review's count was met on the way: it routes the issues from there. */
  handedOn: boolean;
}

export interface IssuesWalk {
  byId: ReadonlyMap<string, LoopNode>;
  entries: ReadonlyMap<string, NodeEntry>;
  kindOf: KindOf;
  /** Whether a condition reads this review's count (a routing condition of its own). */
  readsCount: (entry: NodeEntry) => boolean;
}

/**
 * The nodes issues reach from `target`: transient nodes are passed (a
 * condition only along the connections it can take, see takenConnections),
 * and the walk stops at the first waiting or final nodes.
 */
export function issuesReach(target: string, scope: BranchScope, walk: IssuesWalk): IssuesReach {
  const firsts: string[] = [];
  let handedOn = false;
  const seen = new Set<string>();
  const queue = [target];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = walk.byId.get(id);
    if (!node) continue;
    const kind = walk.kindOf(node.type);
    if (kind === 'waiting' || kind === 'final') {
      firsts.push(id);
      continue;
    }
    if (kind === undefined) continue;
    const entry = walk.entries.get(id);
    if (entry && entry.type === 'condition') {
      if (walk.readsCount(entry)) {
        handedOn = true;
        continue;
      }
      const taken = takenConnections(entry, scope, 1);
      queue.push(...node.connections.filter(([name]) => taken === undefined || taken.has(name)).map(([, to]) => to));
    } else {
      queue.push(...node.connections.map(([, to]) => to));
    }
  }
  return { firsts, handedOn };
}

/**
 * The distinct reads whose value the document does not fix, shortest
 * first (so a deeper sample nests inside a shorter one's object), or
 * undefined when one cannot be sampled.
 */
function unknownReads(reads: readonly Segment[][], scope: BranchScope): Segment[][] | undefined {
  const byText = new Map<string, Segment[]>();
  for (const segments of reads) {
    if (isKnown(segments, scope)) continue;
    if (segments.some((s) => typeof s === 'object')) return undefined;
    byText.set(formatPath(segments), segments);
  }
  return [...byText.values()].sort((a, b) => a.length - b.length);
}

/** Whether a path reads only the count or globals with a start value (index refs included). */
function isKnown(segments: readonly Segment[], scope: BranchScope): boolean {
  const [root, field] = segments;
  if (typeof root !== 'string') return false;
  if (!segments.every((s) => typeof s !== 'object' || isKnown(s.ref, scope))) return false;
  // The resolver's rule: two or more segments under a node id read that node's answer.
  if (segments.length >= 2 && scope.nodeIds.has(root)) return root === scope.reviewId && field === COUNT;
  if (BUILTINS.has(root)) return false;
  return (root === COUNT && scope.bareIsOurs) || scope.seeded.has(root);
}

function baseContext(scope: BranchScope, count: number): RunContext {
  const vars = Object.fromEntries(scope.seeded) as Record<string, JsonValue>;
  if (scope.bareIsOurs) vars[COUNT] = count;
  return {
    vars,
    nodes: { [scope.reviewId]: { [COUNT]: count } },
    meta: { executionId: 'validate', workflowId: 'validate', userId: 'validate' },
    attempt: 0,
  };
}

/** Writes `value` at the path, creating objects on the way (the context is fresh for each combination). */
function setSample(ctx: RunContext, segments: readonly Segment[], value: JsonValue, scope: BranchScope): void {
  const root = String(segments[0]);
  let holder: Record<string, unknown>;
  let from: number;
  if (segments.length >= 2 && scope.nodeIds.has(root)) {
    holder = ctx.nodes[root] = { ...(ctx.nodes[root] ?? {}) };
    from = 1;
  } else {
    holder = BUILTINS.has(root) ? (ctx.meta as unknown as Record<string, unknown>) : ctx.vars;
    from = 0;
  }
  for (let i = from; i < segments.length - 1; i++) {
    const key = String(segments[i]);
    const next = holder[key];
    holder = holder[key] = isPlainObject(next) ? { ...next } : ({} as JsonObject);
  }
  holder[String(segments[segments.length - 1])] = value;
}

/** The sample values, plus the numbers around each number the condition names (`fix_rounds >= 3` needs a 3). */
function samplesFor(cond: NodeEntry): JsonValue[] {
  const out: JsonValue[] = [...SAMPLES];
  for (const n of numbersIn(cond.raw.condition)) {
    for (const near of [n - 1, n, n + 1]) if (!out.includes(near)) out.push(near);
  }
  return out;
}

/** The distinct finite numbers in a condition's JSON, at most MAX_NUMBERS of them. */
function numbersIn(value: unknown, out: number[] = []): number[] {
  if (out.length >= MAX_NUMBERS) return out;
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (!out.includes(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) numbersIn(v, out);
  } else if (isPlainObject(value)) {
    for (const v of Object.values(value)) numbersIn(v, out);
  }
  return out;
}

/** Every tuple of `n` sample values (one empty tuple when n is 0). */
function* combinations(n: number, samples: readonly JsonValue[]): Generator<JsonValue[]> {
  const index = new Array<number>(n).fill(0);
  for (;;) {
    yield index.map((i) => samples[i]);
    let k = n - 1;
    while (k >= 0 && index[k] === samples.length - 1) index[k--] = 0;
    if (k < 0) return;
    index[k]++;
  }
}
