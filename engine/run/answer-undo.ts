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
 * What the tool nodes did stays: they ran, and their results are theirs.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { nodeAnswer, withNodeAnswer } from '../format/node-answers.js';
import type { AnswerUndo, RunContext } from '../nodes/node-type.js';

/**
 * What the step from `pre` to `post` replaced: every global it changed
 * (values are never mutated in place, so an unchanged one is the same
 * value) and the answered node's earlier answer.
 */
export function undoOf(pre: RunContext, post: RunContext, nodeId: string): AnswerUndo {
  const vars: Record<string, JsonValue> = {};
  const unset: string[] = [];
  for (const name of Object.keys(post.vars)) {
    if (Object.hasOwn(pre.vars, name) && pre.vars[name] === post.vars[name]) continue;
    if (Object.hasOwn(pre.vars, name)) vars[name] = pre.vars[name];
    else unset.push(name);
  }
  for (const name of Object.keys(pre.vars)) if (!Object.hasOwn(post.vars, name)) vars[name] = pre.vars[name];
  const undo: AnswerUndo = { vars };
  if (unset.length > 0) undo.unset = unset;
  const earlier = nodeAnswer(pre, nodeId);
  if (earlier !== undefined) undo.answer = earlier;
  return undo;
}

/** `ctx` with the answer to `nodeId` taken back: its step's globals and the node's answer as they were before it. */
export function takenBack(ctx: RunContext, nodeId: string, undo: AnswerUndo): Pick<RunContext, 'vars' | 'nodes' | 'recent'> {
  const vars = Object.assign({}, ctx.vars, undo.vars);
  for (const name of undo.unset ?? []) delete vars[name];
  const answers = undo.answer !== undefined ? withNodeAnswer(ctx, nodeId, undo.answer) : withoutNodeAnswer(ctx, nodeId);
  return { vars, nodes: answers.nodes, recent: answers.recent };
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
