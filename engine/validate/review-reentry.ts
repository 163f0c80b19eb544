/**
 * E_REVIEW_REENTRY: a review's `exhausted` or `unchanged` route that leads
 * back into the same review, which no answer can make work (issue 3
 * "Connections", §5):
 * - after `exhausted` the review has accepted its maxIterations reviews and
 *   is never issued again in the run (E_MAX_ITERATIONS), so any way back to
 *   it — even through a fix step — only fails the run or takes its error
 *   route, and the fix is never reviewed;
 * - after `unchanged` the artifacts are as they were; reaching the review
 *   again with no step answered in between finds them unchanged once more,
 *   with no fix answer to explain it (E_UNCHANGED_ARTIFACT). A way back
 *   through a waiting step is fine: that step can change the artifact.
 * Read from the graph alone; nothing throws on a schema-invalid document.
 */
import type { Finding } from '../nodes/node-type.js';
import { successOf, type KindOf, type LoopNode } from '../review/loop.js';
import type { NodeEntry } from './graph-model.js';

/** Findings for the review `entry`; `kindOf` says which nodes wait. */
export function reentryFindings(entry: NodeEntry, byId: ReadonlyMap<string, LoopNode>, kindOf: KindOf): Finding[] {
  const reviewId = entry.id as string;
  const out: Finding[] = [];
  const routes = new Map(entry.connections);
  const exhausted = routes.get('exhausted');
  if (exhausted !== undefined && leadsBack(exhausted, reviewId, byId, kindOf, true)) {
    out.push({
      code: 'E_REVIEW_REENTRY',
      pointer: `${entry.pointer}/connections/exhausted`,
      severity: 'error',
      message: `the "exhausted" route of review "${reviewId}" leads back to "${reviewId}", but an exhausted review has accepted its maxIterations reviews and is never issued again in this run: the run fails with E_MAX_ITERATIONS (or takes the review's error route) and the work done on the way is never reviewed; send "exhausted" to a step or end outside the loop (e.g. an end "needs-a-person"), or raise maxIterations`,
    });
  }
  const unchanged = routes.get('unchanged');
  if (unchanged !== undefined && leadsBack(unchanged, reviewId, byId, kindOf, false)) {
    out.push({
      code: 'E_REVIEW_REENTRY',
      pointer: `${entry.pointer}/connections/unchanged`,
      severity: 'error',
      message: `the "unchanged" route of review "${reviewId}" leads straight back to "${reviewId}" with no step answered in between, so the artifacts are still unchanged and no fix answer explains it: the run fails with E_UNCHANGED_ARTIFACT (seed 003 G12); send "unchanged" to a step that can change the artifact, or to an end (e.g. "unchanged")`,
    });
  }
  return out;
}

/**
 * Whether `from` reaches the review along every connection of transient
 * nodes and, when `throughSteps`, the `success` of waiting nodes too.
 */
function leadsBack(from: string, reviewId: string, byId: ReadonlyMap<string, LoopNode>, kindOf: KindOf, throughSteps: boolean): boolean {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    if (id === reviewId) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = byId.get(id);
    if (!node) continue;
    const kind = kindOf(node.type);
    if (kind === 'transient' || kind === 'start') queue.push(...node.connections.map(([, target]) => target));
    else if (kind === 'waiting' && throughSteps) {
      const next = successOf(node);
      if (next !== undefined) queue.push(next);
    }
  }
  return false;
}
