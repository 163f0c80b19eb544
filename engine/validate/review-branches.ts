/**
 * Which connections a routing condition takes while a review reports
 * issues. The condition node's own runtime step is run, so any condition
 * shape the engine evaluates is understood the same way here, on contexts
 * where:
 * - the review's count is 1: `<review-id>.issues_count`, and the bare
 *   `issues_count` when no other review sits between the review and the
 *   condition (past one, the bare name is that other review's count);
 * - every global the document gives a start value (registry default, then
 *   initialData value) holds that value;
 * - every other value the condition reads (a global with no start value,
 *   another node's answer, a builtin, a bare count past another review)
 *   takes each sample value in turn: true, false, 0, 1, "", "sample" and
 *   null, in every combination.
 * A connection taken under any of these contexts carries issues. With more
 * than MAX_COMBINATIONS combinations (three or more such values), or an
 * unknown value indexed by another variable (`items[idx]`), or a condition
 * the evaluator refuses under every context, nothing is returned.
 */
import type { ConditionNode, JsonObject, JsonValue, Workflow } from '../format/model.js';
import { BUILTIN_VARIABLES } from '../format/model.js';
import { formatPath, parsePath, type Segment } from '../format/path.js';
import { condition } from '../nodes/condition.js';
import type { RunContext } from '../nodes/node-type.js';
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

export const COUNT = 'issues_count';

/** One value of each JSON kind a flag or switch is usually compared with. */
export const SAMPLES: readonly JsonValue[] = Object.freeze([true, false, 0, 1, '', 'sample', null]);

/** 7² = 49 fits; three unknown values (343) do not. */
export const MAX_COMBINATIONS = 64;

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

/** The connections `cond` takes while the review reports issues (empty when it cannot be told). */
export function issuesBranches(cond: NodeEntry, scope: BranchScope): Set<string> {
  const out = new Set<string>();
  let unknown: Segment[][];
  try {
    const reads = condition.reads(cond.raw as unknown as ConditionNode, cond.pointer).map(({ path }) => parsePath(path));
    const found = unknownReads(reads, scope);
    if (found === undefined) return out;
    unknown = found;
  } catch {
    return out;
  }
  if (SAMPLES.length ** unknown.length > MAX_COMBINATIONS) return out;
  for (const values of combinations(unknown.length)) {
    const ctx = baseContext(scope);
    unknown.forEach((segments, i) => setSample(ctx, segments, values[i], scope));
    try {
      const outcome = condition.step(cond.raw as unknown as ConditionNode, ctx, scope.workflow);
      if (!outcome.error) out.add(outcome.via);
    } catch {
      // This context is one the evaluator refuses; the others still count.
    }
  }
  return out;
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

function baseContext(scope: BranchScope): RunContext {
  const vars = Object.fromEntries(scope.seeded) as Record<string, JsonValue>;
  if (scope.bareIsOurs) vars[COUNT] = 1;
  return {
    vars,
    nodes: { [scope.reviewId]: { [COUNT]: 1 } },
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

/** Every tuple of `n` sample values (one empty tuple when n is 0). */
function* combinations(n: number): Generator<JsonValue[]> {
  const index = new Array<number>(n).fill(0);
  for (;;) {
    yield index.map((i) => SAMPLES[i]);
    let k = n - 1;
    while (k >= 0 && index[k] === SAMPLES.length - 1) index[k--] = 0;
    if (k < 0) return;
    index[k]++;
  }
}
