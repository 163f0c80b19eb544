/**
 * The tools a gate lends its reviewer: one tool per name, so the tool the
 * runtime filter allowed is the tool that runs (B16), and a record of each
 * call that ran, which the gate journals itself when the reviewer fails
 * before it could answer (the driver's own record of it is then lost).
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonValue } from '../format/model.js';
import type { ToolCallRecord, ToolRunner } from '../hosts/tool-mediation.js';
import type { Tool } from '../tools/tool.js';

/** The identity the gate's tools run under. */
const TOOL_USER = 'review-gate';

/** Checks `catalog` (E_GATE_CONFIG for a name used twice) and returns a runner maker: one runner per review. */
export function reviewerTools(catalog: readonly Tool[]): (ran: ToolCallRecord[]) => ToolRunner {
  const byName = new Map<string, Tool>();
  for (const t of catalog) {
    if (byName.has(t.name)) {
      throw new CountersignError('E_GATE_CONFIG', `the review gate's tools list "${t.name}" twice`, {
        fix: 'give every tool a unique name: a reviewer calls tools by name, and must get exactly the tool its persona was allowed',
      });
    }
    byName.set(t.name, t);
  }
  return (ran) => ({
    names: () => [...byName.keys()],
    call: async (name, args) => {
      try {
        const result = (await byName.get(name)!.run(args, { userId: TOOL_USER })) as JsonValue;
        ran.push({ name, ok: true });
        return result;
      } catch (e) {
        ran.push({ name, ok: false, code: isCountersignError(e) ? e.code : 'E_TOOL_FAILED' });
        throw e;
      }
    },
  });
}
