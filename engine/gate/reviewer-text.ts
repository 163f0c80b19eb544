/**
 * A reviewer CLI that forgets the `{"reply": …}` wrapper and prints its
 * review as plain text has still said something the audit trail must keep.
 * Its adapter reports that as E_AGENT_OUTPUT, a fault that would leave the
 * ledger only the message's quoted start; the gate takes the text as the
 * reviewer's answer instead, so the decision node refuses it (the review
 * fails closed, as for any answer out of shape) and the rejected row keeps
 * it whole in `reviewer_output`.
 */
import { isCountersignError } from '../errors.js';
import type { Agent } from '../hosts/agent.js';

export function keepingPlainText(reviewer: Agent): Agent {
  return {
    ...(reviewer.callsTools !== undefined ? { callsTools: reviewer.callsTools } : {}),
    answer: async (request, options) => {
      try {
        return await reviewer.answer(request, options);
      } catch (e) {
        const output = isCountersignError(e) && e.code === 'E_AGENT_OUTPUT' ? (e.data as { output?: unknown } | undefined)?.output : undefined;
        if (typeof output === 'string') return output;
        throw e;
      }
    },
  };
}
