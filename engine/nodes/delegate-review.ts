/**
 * `delegate-review`: an independent review through one report file, with
 * seed 003's review→fix contract enforced by the engine rather than asked
 * for in a prompt. On entry the paths are resolved inside the workspace,
 * an unchanged iteration is caught, the old report is moved to `.prev` and
 * the artifacts are hashed. An answer is `{issues_count}`; it is accepted
 * only when the reviewer is not an author, the artifacts are untouched and
 * the report file lists exactly that many flat issues. The context gets
 * the count and the path; the findings stay in the file.
 */
import { join } from 'node:path';
import { CountersignError, isCountersignError } from '../errors.js';
import type { DelegateReviewNode, JsonObject, JsonValue, Workflow } from '../format/model.js';
import { renderTemplate } from '../format/template.js';
import { nodeAnswer, withNodeAnswer } from '../format/node-answers.js';
import { setAside } from '../review/artifacts.js';
import { keepPreviousReport, type AcceptedReport } from '../review/previous-report.js';
import { changedRoots, hashEach, missingPaths, prepareReportSlot, reportIsWorkFile, REVIEWS_DIR, skippedPaths, type VisitPaths } from '../review/visit.js';
import { resolveInWorkspace } from '../review/paths.js';
import { reviewPrompt } from '../review/prompt.js';
import { readReport } from '../review/report.js';
import { wordingFindings } from '../review/wording.js';
import { answerValidator, ownSchema } from './answer-schema.js';
import { describeErrors } from './answer-errors.js';
import { guardAnswer } from './answer-guard.js';
import { checkTemplate, templateReads } from './checks.js';
import { controlCharacter, criterionTemplates, escapingPath, pathTemplates, reportOverArtifact } from './review-static-checks.js';
import type { EnterOutcome, RunContext, RunEnv, WaitingType } from './node-type.js';
import { firstVisitAt, lastVisitAt, nextVisitOrder, slotsOf, stateOf } from './review-state.js';
import { lookup } from './workflow-facts.js';

export const DEFAULT_REVIEWER = 'reviewer';
export const DEFAULT_MAX_ITERATIONS = 5;
export const DEFAULT_REVIEW_RETRIES = 3;

/** The issues contract (G17, G18, G9): only the count; the findings are in the report file. */
export const ISSUES_ANSWER_SCHEMA: JsonObject = ownSchema({
  type: 'object',
  properties: {
    issues_count: { type: 'integer', minimum: 0, description: 'Number of issues in the report file (0 = pass)' },
  },
  required: ['issues_count'],
  additionalProperties: false,
});

interface Observed {
  hash: string;
  roots: string[];
  report: { count: number; accepted: AcceptedReport } | { code: string; message: string };
}

export const delegateReview: WaitingType<DelegateReviewNode> = {
  type: 'delegate-review',
  kind: 'waiting',
  connections: { required: ['success', 'exhausted'], optional: ['unchanged', 'timeout', 'error'] },

  declares() {
    return { local: ['issues_count', 'report', 'unchanged_reason'], globals: ['issues_count'] };
  },

  reads(node, pointer) {
    return pathTemplates(node, pointer).flatMap(([text, at]) => templateReads(text, at));
  },

  check(node, ctx) {
    return [
      ...pathTemplates(node, ctx.pointer).flatMap(([text, at]) => [...checkTemplate(text, at), ...escapingPath(text, at), ...controlCharacter(text, at)]),
      ...reportOverArtifact(node, ctx.pointer, ctx.workflow),
    ];
  },

  lint(raw, pointer) {
    return [...wordingFindings(raw, pointer), ...criterionTemplates(raw.criteria, pointer)];
  },

  maxRetries(node) {
    return node.maxRetries ?? DEFAULT_REVIEW_RETRIES;
  },

  onMaxRetries(_node, last) {
    return { via: 'error', code: last.code };
  },

  enter(node, ctx, workflow, env, cause): EnterOutcome {
    const state = stateOf(ctx, node.id);
    const unset: string[] = [];
    const unsetEvents = () => (unset.length > 0 ? [{ type: 'variable.unset', names: [...new Set(unset)] }] : []);
    // The fix travels with the refusal (journaled on review.refused) so the
    // user learns how to repair the path, not only that it was refused.
    const refuse = (code: string, message: string, fix?: string): EnterOutcome => {
      const outcome = {
        kind: 'route' as const,
        via: 'error',
        code,
        message,
        ...(fix ? { fix } : {}),
        events: [...unsetEvents(), { type: 'review.refused', code, message, ...(fix ? { fix } : {}) }],
      };
      return outcome;
    };
    const maxIterations = node.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (state.accepted >= maxIterations) {
      return refuse('E_MAX_ITERATIONS', `review "${node.id}" has accepted ${state.accepted} review(s), its maxIterations, and is not issued again in this run`,
        `raise node "${node.id}"'s maxIterations (${maxIterations} now), or route the work elsewhere after its last accepted review (a condition before the way back to it, or its "error" connection, taken when it is entered again); then start a new run`);
    }
    let paths: VisitPaths;
    try {
      paths = resolvePaths(node, ctx, workflow, env, unset);
      prepareReportSlot(paths, { workspace: env.workspace, store: env.skip });
    } catch (e) {
      if (!isCountersignError(e)) throw e;
      const names = [...new Set(unset)];
      return refuse(e.code, names.length > 0 ? `${e.message} (these variables were unset and rendered empty: ${names.join(', ')})` : e.message, e.fix);
    }
    const missing = missingPaths(paths);
    if (missing.length > 0) {
      const message = `review "${node.id}" has nothing to review at ${missing.join(', ')}: no such file or folder`;
      // The answer that led here said the work was done: it is rejected and asked again, the run waits.
      // Behind tool nodes it is not re-asked: what the tools did (or failed to write) came after it, and they ran.
      if (cause !== undefined && cause.nodeId !== node.id && cause.earlier === undefined) {
        return { kind: 'veto', code: 'E_ARTIFACT_MISSING', errors: [`${message}; write ${missing.length === 1 ? 'it' : 'them'} before answering`] };
      }
      // Said for where the run then is: failed (a new run is needed), or gone on by the node's error route.
      return refuse('E_ARTIFACT_MISSING', message, `write ${missing.join(', ')} in the workspace ${env.workspace}, or correct the node's artifacts/context; ${afterRefusal(node)}`);
    }
    const hashes = hashEach(paths.artifacts, skippedPaths(paths.report, ctx.meta.executionId, env.workspace, env.skip), env.workspace);
    if (state.acceptedHash !== undefined && hashes.hash === state.acceptedHash) {
      // The fix answer that led here, also behind tool nodes (a formatter between the fix and the review): its reason counts, and without one it is re-asked.
      const fromFix = cause !== undefined && cause.nodeId !== node.id ? cause : undefined;
      const reason = fromFix ? unchangedReason(fromFix.answer) : undefined;
      const message = `the artifacts of review "${node.id}" are unchanged since its last accepted review`;
      if (reason !== undefined) {
        return {
          kind: 'route',
          via: 'unchanged',
          code: 'E_UNCHANGED_ARTIFACT',
          message: `${message} (reason: ${reason}) and the node has no "unchanged" route`,
          fix: `give review "${node.id}" an "unchanged" connection (taken when a fix leaves the artifacts as they are and says why), or change the artifacts in the fix step; then start a new run`,
          events: [...unsetEvents(), { type: 'review.unchanged', reason }],
          assign: withNodeAnswer(ctx, node.id, { ...(nodeAnswer(ctx, node.id) ?? {}), unchanged_reason: reason }),
        };
      }
      if (fromFix) {
        return {
          kind: 'veto',
          code: 'E_UNCHANGED_ARTIFACT',
          errors: [`${message}: change the artifacts to fix the reported issues, or answer with a non-empty "unchanged_reason" saying why they stay as they are`],
        };
      }
      // Journaled as review.refused like every entry refusal: a run leaving by `error` says why.
      const onWay = `the review was reached again with nothing changed and no fix answer before it (a timeout, an error route or a failed tool on the way)`;
      return refuse('E_UNCHANGED_ARTIFACT', `${message} and no fix answer led here`, node.connections?.error !== undefined
        ? `${onWay}: ${afterRefusal(node)}; if that path should lead to a fix instead, route it elsewhere than back to review "${node.id}"`
        : `${onWay}: route that path elsewhere than back to review "${node.id}", or give the node an "error" connection to handle it; then start a new run`);
    }
    // Only now, with the review certain to be issued: the last accepted
    // report becomes the one generation kept (G8), so the reviewer starts
    // from an empty slate. A report left by a visit that ended without an
    // accepted review (timeout, error route) must not push the accepted one
    // out of .prev: it is set aside as .refused.
    // A fix step that edited or deleted the accepted report does not change
    // what .prev holds: the engine rewrites it from the accepted findings.
    let change: string = 'kept';
    let setAsideTo: string | undefined;
    // The last visit at this report path decides what lies there, whichever
    // review node made it (two nodes may share a path): its accepted report
    // goes to .prev, an unaccepted one to .refused.
    const last = lastVisitAt(ctx, paths.report, node.id) ?? state;
    // A report path that now names another file (a templated path) has no accepted report to keep in its .prev.
    const accepted = last.acceptedReport?.path === undefined || last.acceptedReport.path === paths.report ? last.acceptedReport : undefined;
    const slots = slotsOf(state);
    const firstHere = firstVisitAt(ctx, paths.report);
    if (!accepted && firstHere) {
      const folder = reportIsWorkFile(paths);
      if (folder !== undefined) {
        return refuse('E_REPORT_PATH', `the review report ${paths.report} is a file of ${folder} under review (it does not read as a review report): setting it aside would take it out of the review`,
          'give the report a path of its own, outside the folders under review (e.g. ".countersign/reviews/review.json", the default)');
      }
    }
    try {
      if (last.visit?.report === paths.report && last.reportAccepted === false) setAside(paths.report, `${paths.report}.refused`);
      // A file this run never wrote there (the user's, an earlier run's
      // report) is kept under a name of its own that this run never reuses,
      // not as .prev, which the next accepted review replaces.
      else if (!accepted && firstHere && setAside(paths.report, `${paths.report}.before-${ctx.meta.executionId}`)) {
        setAsideTo = `${paths.report}.before-${ctx.meta.executionId}`;
      } else change = keepPreviousReport(paths.report, accepted);
      // An earlier run's .prev (its last accepted findings) and .refused are
      // kept too: this run's own would replace them.
      if (!accepted && firstHere) {
        setAside(`${paths.report}.prev`, `${paths.report}.prev.before-${ctx.meta.executionId}`);
        setAside(`${paths.report}.refused`, `${paths.report}.refused.before-${ctx.meta.executionId}`);
      }
    } catch (e) {
      if (!isCountersignError(e)) throw e;
      return refuse(e.code, e.message, e.fix);
    }
    const reviews = { ...ctx.reviews, [node.id]: { ...state, reportAccepted: false, visit: { ...paths, ...hashes }, visitOrder: nextVisitOrder(ctx), slots: firstHere ? [...slots, paths.report] : slots } };
    const restored = change === 'kept' ? [] : [{ type: 'review.report_restored', nodeId: node.id, report: paths.report, change }];
    const keptAside = setAsideTo ? [{ type: 'review.report_set_aside', nodeId: node.id, report: paths.report, to: setAsideTo }] : [];
    return { kind: 'ready', assign: { reviews }, events: [...unsetEvents(), ...restored, ...keptAside] };
  },

  // A review that edits the artifacts and then lets the deadline pass must
  // not leave the edit behind as if nothing happened (G13).
  onTimeout(node, ctx, observed) {
    const visit = stateOf(ctx, node.id).visit;
    const seen = observed as unknown as Observed | undefined;
    if (!visit || !seen || typeof seen.hash !== 'string' || seen.hash === visit.hash) return undefined;
    const changed = changedRoots(visit.artifacts, visit.roots ?? [], seen.roots);
    return {
      code: 'E_REVIEWER_MODIFIED',
      fix: reviewerModifiedFix(node),
      errors: [`the artifacts changed while the review was pending and no review came before the deadline (${(changed.length > 0 ? changed : visit.artifacts).join(', ')}): a reviewer diagnoses and never fixes`],
    };
  },

  observe(node, ctx, _workflow, env): JsonValue {
    const visit = stateOf(ctx, node.id).visit;
    if (!visit) return null;
    let report: Observed['report'];
    try {
      const read = readReport(visit.report);
      report = { count: read.issues.length, accepted: { digest: read.digest, issues: read.issues, format: read.format, path: visit.report } };
    } catch (e) {
      if (!isCountersignError(e)) throw e;
      report = { code: e.code, message: e.fix ? `${e.message}; ${e.fix}` : e.message };
    }
    const { hash, roots } = hashEach(visit.artifacts, skippedPaths(visit.report, ctx.meta.executionId, env.workspace, env.skip), env.workspace);
    return { hash, roots, report } satisfies Observed as unknown as JsonValue;
  },

  pending(node, ctx) {
    const state = stateOf(ctx, node.id);
    const visit = state.visit!;
    const reviewer = node.reviewer ?? DEFAULT_REVIEWER;
    // `\{{` marks literal braces in a criterion (see criterionTemplates).
    const criteria = node.criteria.map((c) => c.replaceAll('\\{{', '{{'));
    const pending = {
      kind: 'review' as const,
      contract: 'issues' as const,
      nodeId: node.id,
      reviewer,
      prompt: reviewPrompt({ reviewer, artifacts: visit.artifacts, criteria, context: visit.context, report: visit.report }),
      artifacts: [...visit.artifacts],
      criteria,
      context: [...visit.context],
      report: visit.report,
      iteration: state.accepted + 1,
      attempt: ctx.attempt + 1,
      maxRetries: delegateReview.maxRetries(node),
      inputSchema: ISSUES_ANSWER_SCHEMA,
      ...(ctx.errors ? { errors: ctx.errors } : {}),
    };
    return { pending, unset: [] };
  },

  answer(node, ctx, submission) {
    const state = stateOf(ctx, node.id);
    const visit = state.visit!;
    // First, before anything the answer says (even {"$error": …}): an author
    // has no say in the review of its own work. The report file is left
    // alone: who wrote it cannot be told, and it may be the real reviewer's,
    // whose answer must still be judged on it (the refusal costs nothing).
    if (state.authors.includes(submission.userId)) {
      return {
        kind: 'rejected',
        code: 'E_SELF_REVIEW',
        free: true,
        errors: [`"${submission.userId}" produced or fixed the artifacts under review; the review must come from another identity (answer with --as <reviewer>)`],
      };
    }
    // Next the artifacts, whatever the answer says: a reviewer that edited
    // them has not reviewed the producer's work (G13).
    const observed = submission.observed as unknown as Observed;
    if (observed.hash !== visit.hash) {
      const changed = changedRoots(visit.artifacts, visit.roots ?? [], observed.roots);
      return {
        kind: 'rejected',
        code: 'E_REVIEWER_MODIFIED',
        final: true,
        errors: [`the artifacts changed while the review was pending (${(changed.length > 0 ? changed : visit.artifacts).join(', ')}): a reviewer diagnoses and never fixes`],
        fix: reviewerModifiedFix(node),
      };
    }
    const validate = answerValidator(ISSUES_ANSWER_SCHEMA);
    const guarded = guardAnswer(submission, (rest) => (validate(rest) ? [] : describeErrors(validate.errors, { of: 'answer' })));
    if (guarded) return guarded;
    if (!validate(submission.answer)) return { kind: 'rejected', code: 'E_ANSWER_INVALID', errors: describeErrors(validate.errors, { of: 'answer' }) };
    if ('code' in observed.report) return { kind: 'rejected', code: observed.report.code, errors: [observed.report.message] };
    const count = (submission.answer as { issues_count: number }).issues_count;
    if (observed.report.count !== count) {
      return {
        kind: 'rejected',
        code: 'E_REPORT_MISMATCH',
        errors: [`issues_count is ${count} but the report ${visit.report} lists ${observed.report.count} issue(s); answer with the number of issues in the file`],
      };
    }
    const accepted = state.accepted + 1;
    const exhausted = count > 0 && accepted >= (node.maxIterations ?? DEFAULT_MAX_ITERATIONS);
    return {
      kind: 'accepted',
      // Replaced, not merged: an earlier unchanged_reason does not describe this review.
      local: { issues_count: count, report: visit.report },
      vars: { issues_count: count },
      via: exhausted ? 'exhausted' : 'success',
      events: [
        { type: 'review.accepted', nodeId: node.id, issues_count: count, iteration: accepted },
        ...(exhausted ? [{ type: 'review.exhausted', nodeId: node.id, issues_count: count }] : []),
      ],
      assign: { reviews: { ...ctx.reviews, [node.id]: { ...state, accepted, acceptedHash: visit.hash, reportAccepted: true, acceptedReport: observed.report.accepted } } },
    };
  },
};

function resolvePaths(node: DelegateReviewNode, ctx: RunContext, workflow: Workflow, env: RunEnv, unset: string[]) {
  // A path whose template used an unset variable names something nobody
  // chose ("docs/{{p}}" would review all of docs/): refused, not reviewed.
  const render = (text: string, what: string) => {
    const out = renderTemplate(text, (path) => lookup(ctx, workflow, path));
    unset.push(...out.unset);
    if (out.unset.length > 0) {
      throw new CountersignError('E_PATH_EMPTY', `${what} would be ${JSON.stringify(out.text)}: its template used variables that are not set`, {
        fix: `make sure every variable in the ${what} template is written before this node runs, or give a literal path`,
      });
    }
    return out.text;
  };
  const artifacts = node.artifacts.map((t, i) => resolveInWorkspace(env.workspace, render(t, `artifact ${i + 1} (${JSON.stringify(t)})`), `artifact ${i + 1} (${JSON.stringify(t)})`));
  const context = (node.context ?? []).map((t, i) => resolveInWorkspace(env.workspace, render(t, `context path ${i + 1} (${JSON.stringify(t)})`), `context path ${i + 1} (${JSON.stringify(t)})`));
  const reportText = node.report !== undefined ? render(node.report, `report (${JSON.stringify(node.report)})`) : join(REVIEWS_DIR, ctx.meta.executionId, `${node.id}.json`);
  const report = resolveInWorkspace(env.workspace, reportText, `report (${JSON.stringify(node.report ?? reportText)})`);
  return { artifacts, context, report };
}


/** What follows a refusal at entry: the node's error route, or a failed run that a new one replaces. */
function afterRefusal(node: DelegateReviewNode): string {
  return node.connections?.error !== undefined
    ? `the run took review "${node.id}"'s error route`
    : `then start a new run (this one has failed), or give review "${node.id}" an "error" connection to route this`;
}

/** How to repair a review whose reviewer edited what it reviews (G13): it is never re-asked. */
function reviewerModifiedFix(node: DelegateReviewNode): string {
  return `the reviewer may only write the report file: have it leave the artifacts alone, restore them if its edits are unwanted, and ${node.connections?.error !== undefined ? `handle the review's "error" route (the run took it)` : `start a new run (or give review "${node.id}" an "error" connection)`}`;
}

/** An answer's non-blank `unchanged_reason`: why a fix left the reviewed artifacts as they were. */
export function unchangedReason(answer: JsonValue): string | undefined {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
  const reason = (answer as JsonObject).unchanged_reason;
  return typeof reason === 'string' && reason.trim() !== '' ? reason : undefined;
}
