/**
 * `delegate-review` with `contract: "decision"`: a reviewer persona judges
 * one proposal (the review gate, seed 000). The pending item carries the
 * persona's model, turn budget and effective tools with a prompt made of
 * the persona body, its critical_reminder and the proposal. The answer is
 * `{"reply": "<final text>"}` and is taken as it is — no retries: the
 * engine parses the reply's first non-blank line, and anything that is not
 * a clean approve (an empty reply, a malformed answer, a declared failure)
 * is a reject. Fail closed; nothing falls back to approve.
 */
import { createHash } from 'node:crypto';
import type { DecisionReviewNode, JsonObject, JsonValue } from '../format/model.js';
import { parseDecision, unexplainedReject } from '../review/decision.js';
import { decisionPrompt, personaProblems, type PersonaValue } from '../review/decision-prompt.js';
import { MAX_ANSWER_BYTES, ownSchema } from './answer-schema.js';
import type { EnterOutcome, Finding, WaitingType } from './node-type.js';
import { lookup } from './workflow-facts.js';

/** The decision contract's answer: the reviewer's final reply, verbatim. */
export const DECISION_ANSWER_SCHEMA: JsonObject = ownSchema({
  type: 'object',
  properties: { reply: { type: 'string', description: 'The reviewer\'s final reply; its first non-blank line must be "Decision: approve" to approve' } },
  required: ['reply'],
  additionalProperties: false,
});

/** Node-local fields a decision review writes (`<node-id>.decision`, …). */
export const DECISION_FIELDS = ['decision', 'gates', 'sop_id', 'rollback', 'missing_gates', 'reason', 'reply', 'output'] as const;

export const decisionReview: WaitingType<DecisionReviewNode> = {
  type: 'delegate-review',
  kind: 'waiting',
  connections: { required: ['success'], optional: ['timeout', 'error'] },

  declares() {
    return { local: [...DECISION_FIELDS], globals: [] };
  },

  reads(node, pointer) {
    return (['persona', 'proposal'] as const)
      .filter((field) => typeof node[field]?.contextPath === 'string')
      .map((field) => ({ path: node[field].contextPath, pointer: `${pointer}/${field}/contextPath` }));
  },

  check(): Finding[] {
    return [];
  },

  maxRetries() {
    return 0;
  },

  // The persona and the proposal come from the host at run time: a run that
  // lacks them cannot be reviewed, and must not reach a reviewer at all.
  enter(node, ctx, workflow): EnterOutcome {
    const persona = lookup(ctx, workflow, node.persona.contextPath);
    const proposal = lookup(ctx, workflow, node.proposal.contextPath);
    const problems = personaProblems(persona.found ? persona.value : undefined, node.persona.contextPath);
    if (!proposal.found || !isObject(proposal.value)) {
      problems.push(`"${node.proposal.contextPath}" must hold the proposal object; it is ${proposal.found && proposal.value !== undefined ? JSON.stringify(proposal.value) : 'unset'}`);
    }
    if (problems.length > 0) {
      const code = 'E_DECISION_INPUT';
      const message = `decision review "${node.id}" cannot be issued: ${problems.join('; ')}`;
      const fix = `give the run's input a complete persona at "${node.persona.contextPath}" ({name, model, max_turns, tools, body}) and the proposal object at "${node.proposal.contextPath}", then start a new run`;
      // Journaled as review.refused like every entry refusal, so a run leaving by `error` says why (trace, progress).
      return { kind: 'route', via: 'error', code, message, fix, events: [{ type: 'review.refused', code, message, fix }] };
    }
    return { kind: 'ready', assign: {}, events: [] };
  },

  pending(node, ctx, workflow) {
    const persona = lookup(ctx, workflow, node.persona.contextPath) as { value: PersonaValue };
    const proposal = lookup(ctx, workflow, node.proposal.contextPath) as { value: JsonObject };
    const p = persona.value;
    return {
      pending: {
        kind: 'review',
        contract: 'decision',
        nodeId: node.id,
        persona: { name: p.name, model: p.model, max_turns: p.max_turns, tools: [...p.tools] },
        prompt: decisionPrompt(p, proposal.value),
        proposal: structuredClone(proposal.value),
        ...(p.tool_specs ? { toolSpecs: structuredClone(p.tool_specs) } : {}),
        attempt: ctx.attempt + 1,
        maxRetries: 0,
        inputSchema: DECISION_ANSWER_SCHEMA,
        // The host pinned the one identity that answers (the review gate's reviewer): nobody else's step counts.
        ...(typeof (p as { answerer_sha256?: unknown }).answerer_sha256 === 'string' ? { answererPinned: true as const } : {}),
      },
      unset: [],
    };
  },

  answer(node, ctx, submission, workflow) {
    // Before anything the answer says: when the host named the one identity
    // that answers (the review gate does), an answer from anyone else is
    // refused at no cost, and the reviewer's own answer still counts.
    const persona = lookup(ctx, workflow, node.persona.contextPath);
    const expected = persona.found && isObject(persona.value) ? persona.value.answerer_sha256 : undefined;
    if (typeof expected === 'string' && sha256(submission.userId) !== expected) {
      return {
        kind: 'rejected',
        code: 'E_REVIEWER_IDENTITY',
        free: true,
        errors: [`"${submission.userId}" is not the reviewer this review was issued to: only the reviewer the review gate spawned may answer it`],
      };
    }
    const { reply, failure, output } = replyOf(submission.answer, submission.bytes);
    const parsed = parseDecision(reply);
    // A reply the reviewer never gave (malformed answer, declared failure)
    // is a reject whose reason says why, never an empty "approve".
    const reason = failure ?? parsed.reason;
    const local: JsonObject = {
      decision: parsed.decision,
      gates: parsed.gates as unknown as JsonValue,
      sop_id: parsed.sop_id,
      rollback: parsed.rollback,
      missing_gates: parsed.missing_gates,
      reason: reason ?? (parsed.decision === 'reject' ? unexplainedReject(reply) : null),
      // No reply, no decision text: the reviewer crashed, declared failure or answered out of shape.
      reply: failure ? null : reply,
      // What the reviewer wrote when its answer was not a decision answer (kept
      // for the audit trail; never read as a decision, so it dedupes nothing).
      output: output ?? null,
    };
    return {
      kind: 'accepted',
      local,
      vars: {},
      events: [{ type: 'decision.parsed', nodeId: node.id, decision: parsed.decision }],
    };
  },
};

function replyOf(answer: JsonValue, bytes: number): { reply: string; failure?: string; output?: string } {
  if (bytes > MAX_ANSWER_BYTES) return { reply: '', failure: `the reviewer's answer is ${bytes} bytes, over the ${MAX_ANSWER_BYTES}-byte limit` };
  // What the reviewer wrote is kept for the audit whenever it is no decision answer (never read as one).
  const written = typeof answer === 'string' ? answer : JSON.stringify(answer);
  if (typeof answer === 'string') return { reply: '', output: written, failure: 'the reviewer wrote plain text, not {"reply": "<text>"} (kept whole as reviewer_output)' };
  if (!isObject(answer)) return { reply: '', output: written, failure: 'the reviewer\'s answer is not {"reply": "<text>"}' };
  if ('$error' in answer) {
    const m = answer.$error;
    return { reply: '', failure: `the reviewer failed: ${typeof m === 'string' ? m : JSON.stringify(m)}` };
  }
  if (typeof answer.reply !== 'string') return { reply: '', output: written, failure: 'the reviewer\'s answer has no "reply" text' };
  // The schema the item advertises is {"reply"} and nothing else: an answer beside it ("approved": false, a note) is malformed, never approved.
  const extra = Object.keys(answer).filter((k) => k !== 'reply');
  if (extra.length > 0) return { reply: '', output: written, failure: `the reviewer's answer has fields outside its schema ({"reply": "<text>"} only): ${extra.map((k) => JSON.stringify(k)).join(', ')}` };
  return { reply: answer.reply };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
