/**
 * Graph lints around each delegate-review node (issue 3 §3, §5, §7):
 * - E_SELF_REVIEW: the review's reviewer role is the `agent` of a node that
 *   produces or fixes its artifacts (seed 003 G1, G2, G36);
 * - E_REVIEW_UNROUTED: nothing routes on its issues_count (§4.9);
 * - E_REVIEW_LOOP: when issues remain, they reach no fix step, or the fix
 *   step does not hand the artifact back to this same review (G7, G11) —
 *   e.g. the seed's own `fix-issues → do-work` edge, which restarts the
 *   work instead;
 * - E_REVIEW_REENTRY: its exhausted or unchanged route leads back into it,
 *   where no answer can make the run go on (review-reentry.ts);
 * - E_UNCHANGED_REASON_UNDECLARED (warning): the step whose answer brings
 *   the fixed artifact back to the review cannot explain an unchanged
 *   artifact because it does not declare `unchanged_reason` (G12).
 *
 * The routing conditions are the condition nodes reachable from the
 * review's success (through any nodes, never through the review itself)
 * that read its count: `<review-id>.issues_count` anywhere, a bare
 * `issues_count` only before any other delegate-review (past one, the bare
 * name is that review's count). The connections each takes while issues
 * remain are found by running it at several counts (see review-branches.ts).
 * The fix steps of such a connection are the waiting nodes first met on it
 * through transient nodes, a later condition followed only along the
 * connections it can take; a count condition met only past another
 * condition's fix step routes that stale count after the fix, not the
 * review's result, and is not analysed. When, for a count, some input sends
 * the issues to a fix step and another lets them go on (`issues_count == 0
 * or strict == false`, a fix budget ending at a person), waiving the fix is
 * the author's choice and only the fix path is judged; a count no input
 * sends to a fix step is an error.
 *
 * The fix step's way back (review-way-back.ts) may pass through any steps
 * that come after the review (a test run, another review); it must not hand
 * the artifact to a step that produces it before the review, nor end or
 * stop. Its warning about `unchanged_reason` goes to the step whose answer
 * enters the review, since that is the answer the runtime reads it from.
 * The document may violate the schema: everything is read defensively and
 * nothing throws.
 */
import type { ConditionNode, Workflow } from '../format/model.js';
import { parsePath } from '../format/path.js';
import { condition } from '../nodes/condition.js';
import type { Finding } from '../nodes/node-type.js';
import { REVIEW_TYPE, loopTypeOf, reviewLoops, successOf, type LoopNode } from '../review/loop.js';
import type { GraphModel, NodeEntry } from './graph-model.js';
import { childPointer } from './pointer.js';
import { COUNT, issuesBranches, issuesReach, type BranchScope, type IssuesReach, type IssuesWalk } from './review-branches.js';
import { cleanReviewFindings } from './review-clean-exit.js';
import { reentryFindings } from './review-reentry.js';
import { seededGlobals } from './review-seeded.js';
import { unchangedReasonFinding } from './review-unchanged-reason.js';
import { precedingProducers, reviewKindOf as kindOf, wayBack, type ReviewShape } from './review-way-back.js';

const DEFAULT_REVIEWER = 'reviewer';

interface Graph {
  model: GraphModel;
  byId: Map<string, LoopNode>;
  /** Node ids only: enough for the resolver to tell `review.issues_count` from a global. */
  workflow: Workflow;
  /** Globals whose value the document fixes: registry defaults, then initialData values, of globals no node changes later. */
  seeded: Map<string, unknown>;
}

/**
 * The review lints of a document. `data` is the whole document, read for
 * the registry defaults and initialData values a routing condition may
 * also depend on; without it those values are sampled like any unknown.
 */
export function reviewGraphFindings(model: GraphModel, data?: unknown): Finding[] {
  const nodes: LoopNode[] = [];
  for (const n of model.nodes) {
    if (n.id !== undefined) nodes.push({ id: n.id, type: loopTypeOf(n.raw), connections: n.connections });
  }
  const byId = new Map<string, LoopNode>();
  for (const n of nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const graph: Graph = { model, byId, workflow: standInWorkflow(byId.keys()), seeded: seededGlobals(data, model) };
  const loops = reviewLoops(nodes, kindOf);
  const producersOf = new Map(loops.map((l) => [l.reviewId, l.producers]));
  const upstreamOf = new Map(loops.map((l) => [l.reviewId, l.upstream]));

  const out: Finding[] = [];
  for (const entry of model.nodes) {
    // A later node with a duplicate id is reported by the structure check; the first one is the review.
    if (loopTypeOf(entry.raw) !== REVIEW_TYPE || entry.id === undefined || model.byId.get(entry.id) !== entry) continue;
    const producers = producersOf.get(entry.id) ?? [];
    // Anyone whose work flows into the review may not review it (write → polish → review: both).
    out.push(...selfReviewFindings(entry, upstreamOf.get(entry.id) ?? producers, model));
    const review: ReviewShape = { id: entry.id, producers, preceding: precedingProducers(entry.id, producers, byId) };
    out.push(...routingFindings(entry, review, graph));
    out.push(...reentryFindings(entry, byId, kindOf));
  }
  return unique(out);
}

function selfReviewFindings(review: NodeEntry, producers: readonly string[], model: GraphModel): Finding[] {
  const written = review.raw.reviewer;
  if (written !== undefined && typeof written !== 'string') return [];
  const role = written ?? DEFAULT_REVIEWER;
  // The runtime trims identities before comparing them (engine.ts), so "author " is "author".
  const trimmed = role.trim();
  const pointer = written === undefined ? review.pointer : `${review.pointer}/reviewer`;
  const shown = written === undefined ? `the default reviewer role "${role}"` : `reviewer role "${role}"`;
  return producers
    .filter((id) => {
      const agent = model.byId.get(id)?.raw.agent;
      return typeof agent === 'string' && agent.trim() === trimmed;
    })
    .map((id) => ({
      code: 'E_SELF_REVIEW',
      message: `review "${review.id}" uses ${shown}, which is also the agent of node "${id}" that produces or fixes the artifacts it reviews; an agent cannot objectively assess its own work (seed 003 G1, G2) — give the review a reviewer role different from the agent of "${id}"`,
      pointer,
      severity: 'error' as const,
    }));
}

function routingFindings(entry: NodeEntry, review: ReviewShape, graph: Graph): Finding[] {
  const reviewId = review.id;
  const success = entry.connections.find(([name]) => name === 'success')?.[1];
  const successAt = success === undefined ? entry.pointer : `${entry.pointer}/connections/success`;
  const routing = success === undefined ? [] : reachableRoutingConditions(success, reviewId, graph, new Set());
  if (success === undefined || routing.length === 0) {
    return [{
      code: 'E_REVIEW_UNROUTED',
      message: `no condition reading "${COUNT}" before another review, or "${reviewId}.${COUNT}" anywhere, is reachable from the success route of review "${reviewId}", so the run goes on whatever the reviewer found; route its success through a condition node such as {"operator":"eq","left":{"contextPath":"${COUNT}"},"right":0} whose false branch leads to the fix step`,
      pointer: successAt,
      severity: 'error',
    }];
  }
  const nodeIds = new Set(graph.byId.keys());
  const judged: JudgedCondition[] = [];
  const zero: Finding[] = [];
  for (const { cond, bareIsOurs } of routing) {
    const scope: BranchScope = { reviewId, bareIsOurs, nodeIds, seeded: graph.seeded, workflow: graph.workflow };
    const walk: IssuesWalk = { byId: graph.byId, entries: graph.model.byId, kindOf, readsCount: (e) => e !== cond && readsCount(e, reviewId, bareIsOurs) };
    const byCount = issuesBranches(cond, scope);
    const branches = new Map<string, IssuesBranch>();
    for (const vias of byCount.values()) {
      for (const via of vias) {
        const target = cond.connections.find(([name]) => name === via)?.[1];
        if (target === undefined || branches.has(via)) continue;
        const reach = issuesReach(target, scope, walk);
        const fixSteps = reach.firsts.filter((id) => isFixStep(graph.byId.get(id) as LoopNode));
        branches.set(via, { via, target, ...reach, fixSteps });
      }
    }
    judged.push({ cond, byCount, branches });
    const issueFixSteps = new Set([...branches.values()].flatMap((b) => b.fixSteps));
    zero.push(...cleanReviewFindings(cond, scope, walk, reviewId, issueFixSteps));
  }
  const out: Finding[] = [...zero];
  for (const one of judged) {
    const otherFixSteps = new Set(judged.filter((j) => j !== one).flatMap((j) => [...j.branches.values()].flatMap((b) => b.fixSteps)));
    if (!reachableRoutingConditions(success, reviewId, graph, otherFixSteps).some((r) => r.cond === one.cond)) continue;
    out.push(...loopFindings(one, review, graph));
  }
  return out;
}

/** A routing condition with the connections it takes per issue count and where each leads. */
interface JudgedCondition {
  cond: NodeEntry;
  byCount: Map<number, Set<string>>;
  branches: Map<string, IssuesBranch>;
}

/** One connection a routing condition takes while issues remain. */
interface IssuesBranch extends IssuesReach {
  via: string;
  target: string;
  /** The first waiting nodes on `via` that are neither a review nor an end. */
  fixSteps: string[];
}

const isFixStep = (node: LoopNode) => node.type !== REVIEW_TYPE && kindOf(node.type) !== 'final';

interface Routing {
  cond: NodeEntry;
  /** Reached before any other review: a bare `issues_count` there is this review's count. */
  bareIsOurs: boolean;
}

/**
 * Condition nodes reading this review's count, reachable from `from` along
 * any connection, never through the review itself nor through `avoid`.
 * Past another delegate-review only `<review-id>.issues_count` counts.
 */
function reachableRoutingConditions(from: string, reviewId: string, graph: Graph, avoid: ReadonlySet<string>): Routing[] {
  const found = new Map<NodeEntry, boolean>();
  const seen = new Set<string>();
  const queue: [string, boolean][] = [[from, false]];
  while (queue.length > 0) {
    const [id, pastReview] = queue.shift() as [string, boolean];
    const key = `${pastReview ? 'past' : 'before'} ${id}`;
    if (seen.has(key) || avoid.has(id) || id === reviewId) continue;
    seen.add(key);
    const node = graph.byId.get(id);
    if (!node) continue;
    const entry = graph.model.byId.get(id);
    if (entry && readsCount(entry, reviewId, !pastReview)) found.set(entry, (found.get(entry) ?? false) || !pastReview);
    const past = pastReview || node.type === REVIEW_TYPE;
    for (const [, target] of node.connections) queue.push([target, past]);
  }
  return [...found].map(([cond, bareIsOurs]) => ({ cond, bareIsOurs }));
}

function readsCount(entry: NodeEntry, reviewId: string, bareCounts: boolean): boolean {
  if (entry.type !== 'condition') return false;
  try {
    return condition.reads(entry.raw as unknown as ConditionNode, entry.pointer).some(({ path }) => {
      const segments = parsePath(path).map((s) => (typeof s === 'object' ? undefined : String(s)));
      return (bareCounts && segments.length === 1 && segments[0] === COUNT) || (segments.length === 2 && segments[0] === reviewId && segments[1] === COUNT);
    });
  } catch {
    return false;
  }
}

/**
 * For every count, some input must send the issues to a fix step (or to a
 * later condition on the count); then the ends a budget or a flag sends
 * them to are the author's choice. A count for which no input does is
 * E_REVIEW_LOOP on each connection it takes. Every fix step met must hand
 * the artifact back to this review.
 */
function loopFindings(judged: JudgedCondition, review: ReviewShape, graph: Graph): Finding[] {
  const { cond, byCount, branches } = judged;
  const reviewId = review.id;
  const fixTo = `connect the fix step's success to "${reviewId}", directly or through steps that come after the review (never to the producing step)`;
  const out: Finding[] = [];
  const reported = new Set<string>();
  for (const [count, vias] of byCount) {
    const taken = [...vias].map((via) => branches.get(via)).filter((b): b is IssuesBranch => b !== undefined);
    if (taken.some((b) => b.fixSteps.length > 0 || b.handedOn)) continue;
    for (const branch of taken) {
      for (const firstId of branch.firsts) {
        const key = `${branch.via}\u0000${firstId}`;
        if (reported.has(key)) continue;
        reported.add(key);
        const first = graph.byId.get(firstId) as LoopNode;
        const what = kindOf(first.type) === 'final'
          ? `ends the run at "${firstId}"`
          : firstId === reviewId ? `goes straight back to the review with no fix step` : `goes to another review "${firstId}" with no fix step`;
        const issues = count === 1 ? 'issues' : `${count} issues`;
        out.push({
          code: 'E_REVIEW_LOOP',
          message: `when review "${reviewId}" reports ${issues}, condition "${cond.id}" takes "${branch.via}", which ${what}; the condition passes only at issues_count 0 and every issue must be fixed and re-reviewed (seed 003 G7, G11, G16) — route "${branch.via}" to a fix step and ${fixTo}`,
          pointer: childPointer(`${cond.pointer}/connections`, branch.via),
          severity: 'error',
        });
      }
    }
  }
  const fixIds = new Set([...branches.values()].flatMap((b) => b.fixSteps));
  for (const fixId of fixIds) out.push(...fixStepFindings(fixId, review, graph, fixTo));
  return out;
}

/** The fix step must hand the artifact back to the same review; the step entering the review should declare unchanged_reason. */
function fixStepFindings(fixId: string, review: ReviewShape, graph: Graph, fixTo: string): Finding[] {
  const reviewId = review.id;
  const fix = graph.byId.get(fixId) as LoopNode;
  const entry = graph.model.byId.get(fixId) as NodeEntry;
  const out: Finding[] = [];
  const back = successOf(fix);
  const way = back === undefined ? undefined : wayBack(fixId, back, review, graph.byId);
  if (!way?.reached) {
    const quoted = (ids: string[]) => ids.map((id) => `"${id}"`).join(', ');
    // A step that only checks the work (a test run) and also runs before the
    // review cannot be told from the producing step by the graph: say how to keep it.
    const copy = way && way.producersMet.length > 0
      ? `; if ${quoted(way.producersMet)} only checks the work (e.g. runs the tests), give the loop its own copy of that step after the fix (fix → run tests again → "${reviewId}")`
      : '';
    const what = way === undefined ? `has no success connection, so the fixed artifact never goes back to "${reviewId}"`
      : way.producersMet.length > 0 ? `hands the artifact back to the producing step ${quoted(way.producersMet)} instead of the same review "${reviewId}": that step starts the work over, so the review judges new work instead of the fix`
      : way.endsMet.length > 0 ? `ends the run at ${quoted(way.endsMet)} without going back to "${reviewId}", so the fixed artifact is never re-reviewed`
      : `never leads back to "${reviewId}", so the fixed artifact is never re-reviewed`;
    out.push({
      code: 'E_REVIEW_LOOP',
      message: `fix step "${fixId}" of review "${reviewId}" ${what} (seed 003 G7, G11); ${fixTo}${copy}`,
      pointer: back === undefined ? entry.pointer : `${entry.pointer}/connections/success`,
      severity: 'error',
    });
  }
  for (const id of way?.reached ? way.enterers : [fixId]) {
    const step = graph.model.byId.get(id);
    const warning = step ? unchangedReasonFinding(step, fixId, reviewId, graph.model) : undefined;
    if (warning) out.push(warning);
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
