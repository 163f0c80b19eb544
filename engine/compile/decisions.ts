/**
 * What each kind of step decides: the next state, the context update and
 * the journal events. Pure functions of (node, context, event); the machine
 * only wires them to xstate transitions.
 */
import { isBlank } from '../nodes/answer-guard.js';
import { capErrorLines } from '../nodes/answer-errors.js';
import type { JsonObject, JsonValue, Workflow, WorkflowNode } from '../format/model.js';
import type { AnswerOutcome, EnterOutcome, LeadIn, RunContext, Submission, TransientType, WaitingType } from '../nodes/node-type.js';
import { withNodeAnswer } from '../format/node-answers.js';
import { withAuthor } from '../nodes/review-loops.js';
import { ENGINE_ID } from '../nodes/tool.js';
import { unchangedReason } from '../nodes/delegate-review.js';

export interface Decision {
  /** The next state; absent when the node stays (a rejected answer). */
  target?: string;
  stay?: boolean;
  via?: string;
  assign?: Partial<RunContext>;
  events: JsonObject[];
}

const FAILED = '@failed';

function route(node: WorkflowNode, via: string, events: JsonObject[], assign?: Partial<RunContext>): Decision {
  const to = node.connections?.[via];
  if (to === undefined) {
    return fail(node, 'E_MISSING_CONNECTION', `node "${node.id}" has no "${via}" connection`, events);
  }
  events.push({ type: 'route', nodeId: node.id, from: node.id, to, via });
  return { target: to, via, assign, events };
}

function fail(node: WorkflowNode, code: string, message: string, events: JsonObject[], assign: Partial<RunContext> = {}, fix?: string): Decision {
  return { target: FAILED, assign: { ...assign, failure: { code, message, nodeId: node.id, ...(fix ? { fix } : {}) } }, events };
}

/** Follows `via` when the node has that connection, else fails the run with `code`. */
function routeOrFail(node: WorkflowNode, via: string, code: string, message: string, events: JsonObject[], assign?: Partial<RunContext>, fix?: string): Decision {
  return node.connections?.[via] !== undefined ? route(node, via, events, assign) : fail(node, code, message, events, assign, fix);
}

export function decideTransient(type: TransientType, node: WorkflowNode, ctx: RunContext, workflow: Workflow): Decision {
  const outcome = type.step(node, ctx, workflow);
  // A spread followed by a key is a slow path in V8; assign is not.
  const events: JsonObject[] = [Object.assign({}, outcome.event as JsonObject, { nodeId: node.id })];
  // The journal notes every declared variable a template rendered empty, as a directive's does.
  if (outcome.unset && outcome.unset.length > 0) events.unshift({ type: 'variable.unset', nodeId: node.id, names: [...new Set(outcome.unset)] });
  let assign: Partial<RunContext> | undefined;
  if (outcome.vars || outcome.local) {
    assign = outcome.local ? withNodeAnswer(ctx, node.id, outcome.local) : {};
    if (outcome.vars) assign.vars = Object.assign({}, ctx.vars, outcome.vars);
  }
  // A failure route (an expression's `error`) is a way on that no answer leads through.
  if (outcome.error) return withoutLeadIn(ctx, routeOrFail(node, outcome.via, outcome.error.code, outcome.error.message, events, assign, outcome.error.fix));
  return route(node, outcome.via, events, assign);
}

export function decideAnswer(
  type: WaitingType,
  node: WorkflowNode,
  ctx: RunContext,
  ev: Submission,
  workflow: Workflow,
): Decision {
  const attempt = ctx.attempt + 1;
  const calls: JsonObject[] = (ev.toolCalls ?? []).map((c) => ({ type: 'tool.called', nodeId: node.id, ...c }));
  if (ev.toolFailure) {
    // A failed tool is never worked around (ADR-019): the answer given after it is not taken.
    const f = ev.toolFailure;
    const message = `node "${node.id}": tool "${f.tool}" failed while the agent worked on this item: ${f.message}`;
    // The failed call itself is on record as tool.called (ok false, code, message); the answer's fate as answer.discarded.
    return withoutLeadIn(ctx, routeOrFail(node, 'error', f.code, message, [
      ...calls,
      { type: 'answer.discarded', nodeId: node.id, attempt, code: f.code, tool: f.tool, message, userId: ev.userId },
    ], undefined, `${f.fix ? `${f.fix}; then: ` : ''}${node.connections?.error !== undefined
      ? 'the run took the node\'s error route; fix what made the tool fail before the work reaches this node again (a failed tool stops the step, it is not worked around)'
      : 'the run has failed: fix what made the tool fail, then start a new run (or give the node an "error" route to handle the failure); a failed tool stops the step, it is not worked around'}`));
  }
  const decision = decideAnswerOutcome(type, node, ctx, ev, workflow, attempt);
  return calls.length === 0 ? decision : { ...decision, events: [...calls, ...decision.events] };
}

/**
 * What leads on from an accepted answer (RunContext.leadIn): an agent's
 * answer at a node without entry work; the engine's own tool outcome
 * passes on the one that led to the tool node.
 */
function leadInOf(type: WaitingType, node: WorkflowNode, ctx: RunContext, ev: Submission, attempt: number, via: string | undefined): LeadIn | undefined {
  // A tool that failed (its error route, an accepted outcome) is a way on that no answer leads through.
  if (ev.userId === ENGINE_ID) return via === 'error' ? undefined : ctx.leadIn;
  if (type.enter !== undefined) return undefined;
  const reason = unchangedReason(ev.answer);
  const lead: LeadIn = { nodeId: node.id, attempt, userId: ev.userId };
  if (reason !== undefined) lead.unchangedReason = reason;
  if (ev.deadline !== undefined) lead.deadline = ev.deadline;
  return lead;
}

/** A decision that moves the run on without an accepted answer: no answer leads on from it. */
function withoutLeadIn(ctx: RunContext, decision: Decision): Decision {
  if (decision.stay || ctx.leadIn === undefined) return decision;
  return { ...decision, assign: { ...decision.assign, leadIn: undefined } };
}

function decideAnswerOutcome(
  type: WaitingType,
  node: WorkflowNode,
  ctx: RunContext,
  ev: Submission,
  workflow: Workflow,
  attempt: number,
): Decision {
  // A review that refuses the answer leading to it (a veto) rejects it at its node, like the node's own checks.
  const given = ev.veto ? { kind: 'rejected' as const, ...ev.veto } : type.answer(node, ctx, ev, workflow);
  const outcome = given.kind === 'rejected' ? { ...given, errors: rejectionLines(node, given) } : given;
  switch (outcome.kind) {
    case 'accepted': {
      const accepted: JsonObject = { type: 'answer.accepted', nodeId: node.id, attempt, userId: ev.userId };
      const events = outcome.events ? [accepted, ...outcome.events] : [accepted];
      const { nodes, recent } = withNodeAnswer(ctx, node.id, outcome.local);
      const own: Partial<RunContext> = {
        nodes,
        recent,
        vars: outcome.vars ? Object.assign({}, ctx.vars, outcome.vars) : ctx.vars,
        // The engine's own answers (a tool node's outcome) do not make it the run's user.
        meta: ctx.meta.userId === ev.userId || ev.userId === ENGINE_ID ? ctx.meta : { ...ctx.meta, userId: ev.userId },
        leadIn: leadInOf(type, node, ctx, ev, attempt, outcome.via),
      };
      // Object.assign, not spreads: see node-answers.ts on V8's slow path.
      const assign = outcome.assign ? Object.assign({}, outcome.assign, own) : own;
      // Whoever produced or fixed a review's artifacts may not review them.
      const reviews = withAuthor(outcome.assign?.reviews ?? ctx.reviews, node.id, ev.userId, workflow);
      if (reviews) assign.reviews = reviews;
      return route(node, outcome.via ?? 'success', events, assign);
    }
    case 'declared-error':
      return withoutLeadIn(ctx, routeOrFail(node, 'error', 'E_AGENT_ERROR', `the agent declared failure: ${outcome.message}`, [
        { type: 'answer.error', nodeId: node.id, attempt, message: outcome.message, userId: ev.userId },
      ], undefined, `see why the agent failed (its message above); give node "${node.id}" an "error" connection to route declared failures, and start a new run`));
    case 'rejected': {
      const events: JsonObject[] = [
        outcome.journalAs ?? { type: 'answer.rejected', nodeId: node.id, attempt, code: outcome.code, errors: outcome.errors, userId: ev.userId },
      ];
      if (outcome.final) {
        return withoutLeadIn(ctx, routeOrFail(node, 'error', outcome.code, `node "${node.id}": ${outcome.errors.join('; ')}`, events, undefined, outcome.fix));
      }
      // A wrong identity, not a wrong answer: the errors are for whoever gave
      // it (in the submit's `rejected`), not for the next answerer's item.
      if (outcome.free) return { stay: true, assign: { stayed: true }, events };
      const maxRetries = type.maxRetries(node);
      if (attempt > maxRetries) {
        const exhausted = type.onMaxRetries?.(node, outcome) ?? { via: 'maxRetriesExceeded', code: 'E_MAX_RETRIES' };
        return withoutLeadIn(ctx, routeOrFail(
          node,
          exhausted.via,
          exhausted.code,
          `node "${node.id}" rejected ${attempt} answers (maxRetries ${maxRetries}); last: ${outcome.errors.join('; ')}`,
          events,
          undefined,
          retriesSpentFix(node.id, outcome.code, exhausted.via),
        ));
      }
      return { stay: true, assign: { attempt, errors: outcome.errors, stayed: true }, events };
    }
  }
}

/**
 * The lines a rejected answer goes back with (stored, journaled and
 * returned), within the limits whichever check made them. One that costs
 * an attempt — refused by the protocol, the node's schema, or the review
 * it led to — ends with the node's retryMessage (issue §4), kept whatever
 * the cap: the cap is of the lines before it. A free rejection (a wrong
 * identity) and a final one (never re-asked) get none: no retry follows.
 */
function rejectionLines(node: WorkflowNode, rejected: Extract<AnswerOutcome, { kind: 'rejected' }>): string[] {
  const lines = capErrorLines(rejected.errors);
  const retry = (node as { retryMessage?: unknown }).retryMessage;
  // A blank one (spaces, invisible characters) would be a line that tells the agent nothing: left out, as "" is.
  if (typeof retry !== 'string' || isBlank(retry) || rejected.free || rejected.final) return lines;
  lines.push(retry);
  return lines;
}

/**
 * How to repair a run whose node spent its retries, by what refused the
 * last answer: the fix names what the answers got wrong, not only the
 * schema (a review's count could fit it and still not match its report).
 */
export function retriesSpentFix(nodeId: string, code: string, via: string): string {
  const then = `raise its maxRetries, or give it a "${via}" connection, and start a new run`;
  switch (code) {
    case 'E_ANSWER_INVALID':
      return `the answers did not fit node "${nodeId}"'s inputSchema (the last one's errors are listed); ${then}`;
    case 'E_ANSWER_RESERVED_KEY':
      return `the answers to node "${nodeId}" used the reserved "$" keys (the last one's errors are listed): to declare failure answer {"$error": "<message>"} alone, a message that is not blank and no other key; otherwise leave out every "$" key and answer within the node's inputSchema; or ${then}`;
    case 'E_ANSWER_TOO_LARGE':
    case 'E_ANSWER_TOO_DEEP':
      return `the answers to node "${nodeId}" broke the answer limits (the last one's errors are listed): keep large or deeply nested content in files and answer with their paths; or ${then}`;
    case 'E_REPORT_MISMATCH':
      return `the answers' issues_count did not match the number of issues the report file lists (the last one's errors are listed): make issues_count match the report file — one item per finding — before answering; or ${then}`;
    case 'E_REPORT_MISSING':
    case 'E_REPORT_FORMAT':
      return `the report file was missing or not a flat list of issues (the last one's errors are listed): write every finding as one item of the report file before answering; or ${then}`;
    case 'E_UNCHANGED_ARTIFACT':
      return `the answers to node "${nodeId}" left the reviewed artifacts unchanged without saying why: change the artifacts to fix the reported issues, or give a non-empty "unchanged_reason" (declared in the node's inputSchema); or ${then}`;
    case 'E_ARTIFACT_MISSING':
      return `the answers to node "${nodeId}" said the work was done, but the artifacts the review reads did not exist: write them in the workspace before answering; or ${then}`;
    default:
      return `node "${nodeId}" refused its answers with ${code} (the last one's errors are listed): give an answer that meets them; or ${then}`;
  }
}

/** A waiting node's entry work, done outside the machine, decides whether the run waits here or moves on. */
export function decideEnter(node: WorkflowNode, ctx: RunContext, outcome: EnterOutcome): Decision {
  const events = outcome.kind === 'veto' ? [] : outcome.events.map((e) => ({ ...e, nodeId: node.id }));
  switch (outcome.kind) {
    case 'ready':
      return { stay: true, assign: { ...outcome.assign, entered: node.id }, events };
    case 'route':
      // The fix reaches the run's failure (run/step output, --json error.fix), not only the journal.
      return withoutLeadIn(ctx, routeOrFail(node, outcome.via, outcome.code, outcome.message, events, outcome.assign, outcome.fix));
    case 'veto':
      // The engine re-judges the answer that led here instead; reaching this is a bug.
      return fail(node, 'E_INTERNAL', `entering node "${node.id}" vetoed an answer outside a submit`, events);
  }
}

export function decideTimeout(type: WaitingType, node: WorkflowNode, ctx: RunContext, ev: { observed?: JsonValue }): Decision {
  // Work done while the item was out can still be judged when no answer came
  // (a reviewer that edited the artifacts and then went silent).
  return withoutLeadIn(ctx, decideDeadline(type, node, ctx, ev));
}

function decideDeadline(type: WaitingType, node: WorkflowNode, ctx: RunContext, ev: { observed?: JsonValue }): Decision {
  const refused = type.onTimeout?.(node, ctx, ev.observed);
  if (refused) {
    return routeOrFail(node, 'error', refused.code, `node "${node.id}": ${refused.errors.join('; ')}`, [
      { type: 'timeout', nodeId: node.id },
      { type: 'answer.rejected', nodeId: node.id, attempt: ctx.attempt + 1, code: refused.code, errors: refused.errors, userId: null },
    ], undefined, refused.fix);
  }
  return routeOrFail(node, 'timeout', 'E_TIMEOUT', `node "${node.id}" passed its deadline without an accepted answer`, [
    { type: 'timeout', nodeId: node.id },
  ], undefined, `answer within the deadline, raise node "${node.id}"'s timeoutMs, or give it a "timeout" connection, and start a new run`);
}
