import type { Finding } from '../nodes/node-type.js';
import type { NodeEntry } from './graph-model.js';
import { childPointer } from './pointer.js';
import { COUNT, issuesReach, takenConnections, type BranchScope, type IssuesWalk } from './review-branches.js';

/**
 * G16 from the other side: at issues_count 0 the condition must let the run
 * leave the loop. A condition whose every branch at 0 leads to the same fix
 * step issues go to
 * (a strict `eq` against "0", an `exists` test) keeps a clean review
 * fixing forever.
 */
export function cleanReviewFindings(cond: NodeEntry, scope: BranchScope, walk: IssuesWalk, reviewId: string, issueFixSteps: ReadonlySet<string>): Finding[] {
  // Only the loop's own fix steps count: a clean review may well go on to a
  // next step that later comes back to this review (the next plan step).
  if (issueFixSteps.size === 0) return [];
  const taken = takenConnections(cond, scope, 0);
  if (taken === undefined || taken.size === 0) return [];
  for (const via of taken) {
    const target = cond.connections.find(([name]) => name === via)?.[1];
    if (target === undefined) return [];
    const reach = issuesReach(target, scope, walk);
    if (reach.handedOn || reach.firsts.length === 0 || !reach.firsts.every((id) => issueFixSteps.has(id))) return [];
  }
  const via = [...taken][0];
  return [{
    code: 'E_REVIEW_LOOP',
    message: `when review "${reviewId}" reports 0 issues, condition "${cond.id}" takes "${via}", which leads to the fix step again, so a clean review never leaves the loop; the condition must pass exactly at issues_count 0 (seed 003 G16), e.g. {"operator":"eq","left":{"contextPath":"${COUNT}"},"right":0} with the number 0, not the string "0"`,
    pointer: childPointer(`${cond.pointer}/connections`, via),
    severity: 'error',
  }];
}
