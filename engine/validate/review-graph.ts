/**
 * Graph lints around each delegate-review node (issue 3 §3, §5, §7):
 * - E_SELF_REVIEW: the review's reviewer role is the `agent` of a node that
 *   produces or fixes its artifacts (seed 003 G1, G2, G36);
 * - E_REVIEW_UNROUTED: nothing routes on its issues_count (§4.9);
 * - E_REVIEW_LOOP: when issues remain, the fix step does not hand the
 *   artifact back to this same review (G7, G11) — e.g. the seed's own
 *   `fix-issues → do-work` edge, which restarts the work instead;
 * - E_UNCHANGED_REASON_UNDECLARED (warning): a fix step cannot explain an
 *   unchanged artifact because it does not declare `unchanged_reason` (G12).
 *
 * The routing conditions are the conditions on the count reachable from
 * the review's success without passing another delegate-review (waiting
 * nodes such as a notification may sit in between). The branch "issues
 * remain" of each is found by running the condition node's own runtime step
 * on a context where the count is 1 and every other global holds its
 * registry default or initialData value, so any condition shape the engine
 * evaluates is understood the same way here. A condition that also reads a
 * value the document does not fix (a global without default, another
 * node's answer, a builtin) is not guessed at. The fix steps of a branch
 * are the waiting nodes first met on it through transient nodes; a count
 * condition met only past another condition's fix step routes that stale
 * count after the fix, not the review's result, and is not analysed.
 * The document may violate the schema: everything is read defensively and
 * nothing throws.
 */
import type { ConditionNode, Workflow } from '../format/model.js';
import { parsePath, type Segment } from '../format/path.js';
import { condition } from '../nodes/condition.js';
import { nodeType } from '../nodes/index.js';
import type { Finding, RunContext } from '../nodes/node-type.js';
import { REVIEW_TYPE, firstWaiting, reviewLoops, successOf, type KindOf, type LoopNode } from '../review/loop.js';
import type { GraphModel, NodeEntry } from './graph-model.js';
import { childPointer, isPlainObject } from './pointer.js';

const DEFAULT_REVIEWER = 'reviewer';
const COUNT = 'issues_count';
const UNCHANGED_REASON = 'unchanged_reason';

/** delegate-review waits for an answer whether or not the registry knows it yet. */
const kindOf: KindOf = (type) => (type === REVIEW_TYPE ? 'waiting' : nodeType(type)?.kind);

interface Graph {
  model: GraphModel;
  byId: Map<string, LoopNode>;
  /** Node ids only: enough for the resolver to tell `review.issues_count` from a global. */
  workflow: Workflow;
  /** Globals whose value at the start the document fixes: registry defaults, then initialData values. */
  seeded: Map<string, unknown>;
}

/**
 * The review lints of a document. `data` is the whole document, read for
 * the registry defaults and initialData values a routing condition may
 * also depend on; without it such a condition is not guessed at.
 */
export function reviewGraphFindings(model: GraphModel, data?: unknown): Finding[] {
  const nodes: LoopNode[] = [];
  for (const n of model.nodes) {
    if (n.id !== undefined) nodes.push({ id: n.id, type: n.type ?? '', connections: n.connections });
  }
  const byId = new Map<string, LoopNode>();
  for (const n of nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const graph: Graph = { model, byId, workflow: standInWorkflow(byId.keys()), seeded: seededGlobals(data, model) };
  const producersOf = new Map(reviewLoops(nodes, kindOf).map((l) => [l.reviewId, l.producers]));

  const out: Finding[] = [];
  for (const review of model.nodes) {
    // A later node with a duplicate id is reported by the structure check; the first one is the review.
    if (review.type !== REVIEW_TYPE || review.id === undefined || model.byId.get(review.id) !== review) continue;
    const producers = producersOf.get(review.id) ?? [];
    out.push(...selfReviewFindings(review, producers, model));
    out.push(...routingFindings(review, producers, graph));
  }
  return unique(out);
}

function selfReviewFindings(review: NodeEntry, producers: readonly string[], model: GraphModel): Finding[] {
  const written = review.raw.reviewer;
  if (written !== undefined && typeof written !== 'string') return [];
  const role = written ?? DEFAULT_REVIEWER;
  const pointer = written === undefined ? review.pointer : `${review.pointer}/reviewer`;
  const shown = written === undefined ? `the default reviewer role "${role}"` : `reviewer role "${role}"`;
  return producers
    .filter((id) => model.byId.get(id)?.raw.agent === role)
    .map((id) => ({
      code: 'E_SELF_REVIEW',
      message: `review "${review.id}" uses ${shown}, which is also the agent of node "${id}" that produces or fixes the artifacts it reviews; an agent cannot objectively assess its own work (seed 003 G1, G2) — give the review a reviewer role different from the agent of "${id}"`,
      pointer,
      severity: 'error' as const,
    }));
}

function routingFindings(review: NodeEntry, producers: readonly string[], graph: Graph): Finding[] {
  const reviewId = review.id as string;
  const success = review.connections.find(([name]) => name === 'success')?.[1];
  const successAt = success === undefined ? review.pointer : `${review.pointer}/connections/success`;
  const routing = success === undefined ? [] : reachableRoutingConditions(success, reviewId, graph, new Set());
  if (success === undefined || routing.length === 0) {
    return [{
      code: 'E_REVIEW_UNROUTED',
      message: `no condition on "${COUNT}" (or "${reviewId}.${COUNT}") is reachable from the success route of review "${reviewId}", so the run goes on whatever the reviewer found; route its success through a condition node such as {"operator":"eq","left":{"contextPath":"${COUNT}"},"right":0} whose false branch leads to the fix step`,
      pointer: successAt,
      severity: 'error',
    }];
  }
  const branches: IssuesBranch[] = [];
  for (const cond of routing) {
    const via = issuesBranch(cond, reviewId, graph);
    const target = via === undefined ? undefined : cond.connections.find(([name]) => name === via)?.[1];
    if (via === undefined || target === undefined) continue;
    const fixSteps = [...firstWaiting(target, graph.byId, kindOf)].filter((id) => isFixStep(graph.byId.get(id) as LoopNode));
    branches.push({ cond, via, target, fixSteps });
  }
  const out: Finding[] = [];
  for (const branch of branches) {
    const otherFixSteps = new Set(branches.filter((b) => b !== branch).flatMap((b) => b.fixSteps));
    if (!reachableRoutingConditions(success, reviewId, graph, otherFixSteps).includes(branch.cond)) continue;
    out.push(...loopFindings(branch, reviewId, producers, graph));
  }
  return out;
}

/** A routing condition with the connection it takes while issues remain. */
interface IssuesBranch {
  cond: NodeEntry;
  via: string;
  target: string;
  /** The waiting nodes first met on `via` that are neither a review nor an end. */
  fixSteps: string[];
}

const isFixStep = (node: LoopNode) => node.type !== REVIEW_TYPE && kindOf(node.type) !== 'final';

/**
 * Condition nodes reading this review's count, reachable from `from` along
 * any connection but never through a delegate-review node (past one, a
 * bare `issues_count` is that other review's count) nor through `avoid`.
 */
function reachableRoutingConditions(from: string, reviewId: string, graph: Graph, avoid: ReadonlySet<string>): NodeEntry[] {
  const out: NodeEntry[] = [];
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id) || avoid.has(id)) continue;
    seen.add(id);
    const node = graph.byId.get(id);
    if (!node || node.type === REVIEW_TYPE) continue;
    const entry = graph.model.byId.get(id);
    if (entry && readsCount(entry, reviewId)) out.push(entry);
    for (const [, target] of node.connections) queue.push(target);
  }
  return out;
}

function readsCount(entry: NodeEntry, reviewId: string): boolean {
  if (entry.type !== 'condition') return false;
  try {
    return condition.reads(entry.raw as unknown as ConditionNode, entry.pointer).some(({ path }) => {
      const segments = parsePath(path).map((s) => (typeof s === 'object' ? undefined : String(s)));
      return (segments.length === 1 && segments[0] === COUNT) || (segments.length === 2 && segments[0] === reviewId && segments[1] === COUNT);
    });
  } catch {
    return false;
  }
}

/**
 * The connection a routing condition takes while issues remain, by the
 * runtime evaluator; undefined when it cannot be evaluated or depends on a
 * value the document does not fix.
 */
function issuesBranch(cond: NodeEntry, reviewId: string, graph: Graph): string | undefined {
  try {
    const reads = condition.reads(cond.raw as unknown as ConditionNode, cond.pointer);
    if (!reads.every(({ path }) => isKnown(parsePath(path), reviewId, graph))) return undefined;
    const ctx: RunContext = {
      vars: { ...Object.fromEntries(graph.seeded), [COUNT]: 1 },
      nodes: { [reviewId]: { [COUNT]: 1 } },
      meta: { executionId: 'validate', workflowId: 'validate', userId: 'validate' },
      attempt: 0,
    };
    const outcome = condition.step(cond.raw as unknown as ConditionNode, ctx, graph.workflow);
    return outcome.error ? undefined : outcome.via;
  } catch {
    return undefined;
  }
}

/** Whether a path reads only the count or globals the document gives a start value (index refs included). */
function isKnown(segments: readonly Segment[], reviewId: string, graph: Graph): boolean {
  const [root, field] = segments;
  if (typeof root !== 'string') return false;
  if (!segments.every((s) => typeof s !== 'object' || isKnown(s.ref, reviewId, graph))) return false;
  // The resolver's rule: two or more segments under a node id read that node's answer.
  if (segments.length >= 2 && graph.byId.has(root)) return root === reviewId && field === COUNT;
  return root === COUNT || graph.seeded.has(root);
}

function loopFindings(branch: IssuesBranch, reviewId: string, producers: readonly string[], graph: Graph): Finding[] {
  const { cond, via, target } = branch;
  const branchAt = childPointer(`${cond.pointer}/connections`, via);
  const fixTo = `connect the fix step's success to "${reviewId}" (the fix goes back to the same review, never to the producing step)`;
  const out: Finding[] = [];
  for (const fixId of firstWaiting(target, graph.byId, kindOf)) {
    const fix = graph.byId.get(fixId) as LoopNode;
    const entry = graph.model.byId.get(fixId) as NodeEntry;
    if (!isFixStep(fix)) {
      const what = kindOf(fix.type) === 'final'
        ? `ends the run at "${fixId}"`
        : fixId === reviewId ? `goes straight back to the review with no fix step` : `goes to another review "${fixId}" with no fix step`;
      out.push({
        code: 'E_REVIEW_LOOP',
        message: `when review "${reviewId}" reports issues, condition "${cond.id}" takes "${via}", which ${what}; every issue must be fixed and re-reviewed (seed 003 G7, G11) — route "${via}" to a fix step and ${fixTo}`,
        pointer: branchAt,
        severity: 'error',
      });
      continue;
    }
    const back = successOf(fix);
    const reached = back === undefined ? new Set<string>() : firstWaiting(back, graph.byId, kindOf);
    if (!reached.has(reviewId)) {
      const names = [...reached].map((id) => `"${id}"${producers.includes(id) ? ' (the producing step)' : ''}`);
      const where = back === undefined ? 'has no success connection' : names.length ? `hands the artifact to ${names.join(', ')}` : `leads to no waiting node`;
      out.push({
        code: 'E_REVIEW_LOOP',
        message: `fix step "${fixId}" of review "${reviewId}" ${where} instead of back to "${reviewId}", so the fixed artifact is never re-reviewed by the same reviewer (seed 003 G7, G11); ${fixTo}`,
        pointer: back === undefined ? entry.pointer : `${entry.pointer}/connections/success`,
        severity: 'error',
      });
    }
    if (!declaresUnchangedReason(entry)) {
      const schema = entry.raw.inputSchema;
      out.push({
        code: 'E_UNCHANGED_REASON_UNDECLARED',
        message: `fix step "${fixId}" of review "${reviewId}" does not declare "unchanged_reason" in its inputSchema, so when a defect does not reproduce it cannot explain an unchanged artifact and the answer is rejected with E_UNCHANGED_ARTIFACT (seed 003 G12); add "unchanged_reason": {"type": "string"} under inputSchema.properties, or list a registry variable "unchanged_reason" in inputSchema.globalInputs`,
        pointer: schema === undefined ? entry.pointer : `${entry.pointer}/inputSchema`,
        severity: 'warning',
      });
    }
  }
  return out;
}

/** Declared as the node's own field (`properties`) or as a global it writes (`globalInputs`). */
function declaresUnchangedReason(entry: NodeEntry): boolean {
  const schema = entry.raw.inputSchema;
  if (!isPlainObject(schema)) return false;
  if (isPlainObject(schema.properties) && Object.prototype.hasOwnProperty.call(schema.properties, UNCHANGED_REASON)) return true;
  return Array.isArray(schema.globalInputs) && schema.globalInputs.includes(UNCHANGED_REASON);
}

/**
 * Registry defaults, then the start node's initialData values: the order
 * the start node seeds them in. Entries of the wrong shape are skipped.
 */
function seededGlobals(data: unknown, model: GraphModel): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const registry = isPlainObject(data) ? data.variableRegistry : undefined;
  if (isPlainObject(registry)) {
    for (const [name, decl] of Object.entries(registry)) {
      if (isPlainObject(decl) && decl.default !== undefined) out.set(name, decl.default);
    }
  }
  const initial = model.nodes.find((n) => n.type === 'start')?.raw.initialData;
  const variables = isPlainObject(initial) ? initial.variables : undefined;
  if (isPlainObject(variables)) {
    for (const [name, v] of Object.entries(variables)) {
      if (isPlainObject(v) && v.value !== undefined) out.set(name, v.value);
    }
  }
  return out;
}

/** A workflow holding only node ids, so evaluating never reads a schema-invalid node. */
function standInWorkflow(ids: Iterable<string>): Workflow {
  return {
    metadata: { name: 'validate', version: '0.0.0', description: 'review lints' },
    // Unregistered type: no node type's declares() runs on these stand-ins.
    nodes: [...ids].map((id) => ({ id, type: 'review-lint-stand-in' })),
  } as unknown as Workflow;
}

/** One finding per code and pointer: a shared fix step is reported once per review, a warning once at all. */
function unique(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = f.severity === 'warning' ? `${f.code} ${f.pointer}` : `${f.code} ${f.pointer} ${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
