/**
 * `agent-directive`: an instruction to an agent plus the inputSchema its
 * structured answer must satisfy. The run waits here; an answer is checked
 * with ajv, stored whole under the node id (shallow-merged over an earlier
 * answer) and its `globalInputs` fields are written as globals.
 */
import type { AgentDirectiveNode, JsonObject, JsonValue, Workflow } from '../format/model.js';
import { renderTemplate } from '../format/template.js';
import { nodeAnswer } from '../format/node-answers.js';
import { answerValidator, effectiveSchema } from './answer-schema.js';
import { describeErrors } from './answer-errors.js';
import { checkInputSchema, checkTemplate, templateReads } from './checks.js';
import { guardAnswer } from './answer-guard.js';
import type { AnswerOutcome, Finding, RunContext, StaticContext, Submission, WaitingType } from './node-type.js';
import type { DirectivePending } from './pending.js';
import { lookup } from './workflow-facts.js';

export const DEFAULT_MAX_RETRIES = 3;

export const agentDirective: WaitingType<AgentDirectiveNode> = {
  type: 'agent-directive',
  kind: 'waiting',
  connections: { required: ['success'], optional: ['error', 'timeout', 'maxRetriesExceeded'] },

  declares(node) {
    const schema = node.inputSchema ?? {};
    const props = schema.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [];
    const globals = Array.isArray(schema.globalInputs) ? schema.globalInputs.filter((g): g is string => typeof g === 'string') : [];
    return { local: [...props, ...globals], globals: [] };
  },

  reads(node, pointer) {
    return [
      ...templateReads(node.directive, `${pointer}/directive`),
      ...templateReads(node.completionCondition, `${pointer}/completionCondition`),
    ];
  },

  check(node, ctx: StaticContext): Finding[] {
    return [
      ...checkTemplate(node.directive, `${ctx.pointer}/directive`),
      ...checkTemplate(node.completionCondition, `${ctx.pointer}/completionCondition`),
      ...checkInputSchema(node.inputSchema, `${ctx.pointer}/inputSchema`, ctx.workflow),
    ];
  },

  maxRetries(node) {
    return node.maxRetries ?? DEFAULT_MAX_RETRIES;
  },

  pending(node, ctx, workflow) {
    const read = (path: Parameters<typeof lookup>[2]) => lookup(ctx, workflow, path);
    const directive = renderTemplate(node.directive, read);
    const completion = renderTemplate(node.completionCondition, read);
    const unset = completion.unset.length > 0 ? [...directive.unset, ...completion.unset] : directive.unset;
    let text = directive.text;
    if (workflow.systemReminder) {
      const reminder = renderTemplate(workflow.systemReminder, read);
      unset.push(...reminder.unset);
      text = `${text}\n\n${reminder.text}`;
    }
    const pending: DirectivePending = {
      kind: 'directive',
      nodeId: node.id,
      directive: text,
      completionCondition: completion.text,
      inputSchema: effectiveSchema(node.inputSchema, workflow),
      attempt: ctx.attempt + 1,
      maxRetries: agentDirective.maxRetries(node),
    };
    // Set when present, not spread in: spreads were a slow path on every step.
    if (ctx.errors) pending.errors = ctx.errors;
    if (node.agent) pending.agent = node.agent;
    return { pending, unset };
  },

  answer(node, ctx: RunContext, submission: Submission, workflow: Workflow): AnswerOutcome {
    const validate = answerValidator(effectiveSchema(node.inputSchema, workflow));
    // The node's retryMessage is added to every rejection that costs an attempt
    // where all of them meet (compile/decisions.ts), a review's refusal too.
    const guarded = guardAnswer(submission, (rest) => (validate(rest) ? [] : describeErrors(validate.errors, { of: 'answer' })));
    if (guarded) return guarded;
    const { answer } = submission;
    if (!validate(answer)) return { kind: 'rejected', code: 'E_ANSWER_INVALID', errors: describeErrors(validate.errors, { of: 'answer' }) };
    // The schema guarantees an object (or null for a node without fields).
    const fields = (answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? answer : {}) as JsonObject;
    const vars: Record<string, JsonValue> = {};
    const globalInputs = node.inputSchema?.globalInputs;
    if (Array.isArray(globalInputs)) {
      for (const name of globalInputs) {
        if (typeof name === 'string' && Object.hasOwn(fields, name)) vars[name] = fields[name];
      }
    }
    const local = { ...(nodeAnswer(ctx, node.id) ?? {}), ...fields };
    return { kind: 'accepted', local, vars };
  },
};
