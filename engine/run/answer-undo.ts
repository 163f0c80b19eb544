/**
 * Taking back an answer that a review behind tool nodes refused (a fix →
 * a formatter tool → the review, which finds the artifacts unchanged and
 * no reason given). Refused when given, the answer would have changed no
 * variable; refused a step later, the values its step wrote are still in
 * the run. So when the run comes to rest at a tool node behind an agent's
 * answer, the values that step replaced are kept with the answer's leadIn
 * (only then: a step that rests elsewhere never pays for it), and a
 * refusal puts them back before its node is asked again.
 *
 * The answer's identity goes back too: accepted, it became an author of
 * the reviews its node feeds (refused as their reviewer, E_SELF_REVIEW)
 * and the run's user (`{{userId}}`); rejected, it changed no artifact and
 * answered nothing, so it is neither.
 *
 * What the tool nodes did stays: they ran, and their results are theirs.
 * What the transient nodes between them did goes back with the answer
 * (an expression after a formatter tool, counting rounds): the answer led
 * through them, and rejected when given it would have led through none.
 * So each step behind the tools adds the globals it changed to the undo
 * (a tool's outcome changes no global; its node's answer is never undone).
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { nodeAnswer, withNodeAnswer } from '../format/node-answers.js';
import type { AnswerUndo, LeadIn, RunContext } from '../nodes/node-type.js';

/**
 * What the step from `pre` to `post`, which accepted `lead`, replaced:
 * every global it changed, the answered node's earlier answer,
 * the reviews it made the answer's identity an author of, and the run's
 * user before it.
 */
export function undoOf(pre: RunContext, post: RunContext, lead: Pick<LeadIn, 'nodeId' | 'userId'>): AnswerUndo {
  const { nodeId, userId } = lead;
  const undo: AnswerUndo = globalsBefore(pre, post);
  const earlier = nodeAnswer(pre, nodeId);
  if (earlier !== undefined) undo.answer = earlier;
  const authored = Object.keys(post.reviews ?? {}).filter((reviewId) => isAuthor(post, reviewId, userId) && !isAuthor(pre, reviewId, userId));
  if (authored.length > 0) undo.authored = authored;
  if (pre.meta.userId !== post.meta.userId) undo.userId = pre.meta.userId;
  return undo;
}

/**
 * `undo` with the globals a later step behind the tool nodes changed (from
 * `pre` to `post`) put back as they were before that step too; a global
 * the undo already holds keeps its earlier value (the one before the answer).
 */
export function withLaterStep(undo: AnswerUndo, pre: RunContext, post: RunContext): AnswerUndo {
  const recorded = (name: string): boolean => Object.hasOwn(undo.vars, name) || (undo.unset?.includes(name) ?? false);
  const later = globalsBefore(pre, post);
  const vars = { ...undo.vars };
  const unset = [...(undo.unset ?? [])];
  let changed = false;
  for (const name of Object.keys(later.vars)) {
    if (recorded(name)) continue;
    vars[name] = later.vars[name];
    changed = true;
  }
  for (const name of later.unset ?? []) {
    if (recorded(name)) continue;
    unset.push(name);
    changed = true;
  }
  if (!changed) return undo;
  return { ...undo, vars, ...(unset.length > 0 ? { unset } : {}) };
}

/**
 * `ctx` with the answer `lead` taken back: its step's globals and the
 * node's answer as they were before it, its identity no author of what it
 * did not change, and the run's user the one before it.
 */
export function takenBack(ctx: RunContext, lead: Pick<LeadIn, 'nodeId' | 'userId'>, undo: AnswerUndo): Pick<RunContext, 'vars' | 'nodes' | 'recent' | 'reviews' | 'meta'> {
  const vars = Object.assign({}, ctx.vars, undo.vars);
  for (const name of undo.unset ?? []) delete vars[name];
  const answers = undo.answer !== undefined ? withNodeAnswer(ctx, lead.nodeId, undo.answer) : withoutNodeAnswer(ctx, lead.nodeId);
  const meta = undo.userId !== undefined ? { ...ctx.meta, userId: undo.userId } : ctx.meta;
  return { vars, nodes: answers.nodes, recent: answers.recent, reviews: withoutAuthor(ctx.reviews, undo.authored ?? [], lead.userId), meta };
}

/**
 * The globals the steps from `pre` to `post` changed, as they were in `pre`
 * (`unset`: it had none). Values are never mutated in place, so an
 * unchanged one is the same value.
 */
function globalsBefore(pre: RunContext, post: RunContext): Pick<AnswerUndo, 'vars' | 'unset'> {
  const vars: Record<string, JsonValue> = {};
  const unset: string[] = [];
  for (const name of Object.keys(post.vars)) {
    if (Object.hasOwn(pre.vars, name) && pre.vars[name] === post.vars[name]) continue;
    if (Object.hasOwn(pre.vars, name)) vars[name] = pre.vars[name];
    else unset.push(name);
  }
  for (const name of Object.keys(pre.vars)) if (!Object.hasOwn(post.vars, name)) vars[name] = pre.vars[name];
  return unset.length > 0 ? { vars, unset } : { vars };
}

/** Own keys only: a node id may be `constructor` or `toString`. */
function isAuthor(ctx: RunContext, reviewId: string, userId: string): boolean {
  return ctx.reviews !== undefined && Object.hasOwn(ctx.reviews, reviewId) && ctx.reviews[reviewId].authors.includes(userId);
}

/** The review states with `userId` no longer an author of `reviewIds`. */
function withoutAuthor(reviews: RunContext['reviews'], reviewIds: readonly string[], userId: string): RunContext['reviews'] {
  if (reviews === undefined || reviewIds.length === 0) return reviews;
  const out = { ...reviews };
  for (const reviewId of reviewIds) {
    if (!Object.hasOwn(out, reviewId)) continue;
    const state = out[reviewId];
    out[reviewId] = { ...state, authors: state.authors.filter((a) => a !== userId) };
  }
  return out;
}

/** The context's node answers without `nodeId`'s (it had none before the answer taken back). */
function withoutNodeAnswer(ctx: RunContext, nodeId: string): { nodes: Record<string, JsonObject>; recent: RunContext['recent'] } {
  let nodes = ctx.nodes;
  if (Object.hasOwn(nodes, nodeId)) {
    nodes = { ...nodes };
    delete nodes[nodeId];
  }
  const recent = ctx.recent?.filter((pair) => pair[0] !== nodeId);
  return { nodes, recent: recent !== undefined && recent.length > 0 ? recent : undefined };
}
