/**
 * A stored pending item against the one its node issues from the stored
 * context: what a host is shown (its attempt, retries left, answer schema,
 * the review it is) must be what the next answer is judged by. A record
 * whose item says otherwise, or whose context cannot give the item at all,
 * is damaged (E_STORE at read), never served with numbers the engine then
 * ignores. The item's text (the rendered directive, the review prompt) is
 * not compared: a template may render differently in another version, and
 * it is never what an answer is judged by.
 */
import type { Workflow, WorkflowNode } from '../format/model.js';
import { nodeType, type RunContext, type WaitingType } from '../nodes/index.js';
import type { Pending } from '../nodes/pending.js';

/** The fields an answer is judged by, or that name the review it is. */
const JUDGED: readonly string[] = ['attempt', 'maxRetries', 'inputSchema', 'contract', 'reviewer', 'artifacts', 'criteria', 'context', 'report', 'iteration', 'persona', 'answererPinned'];

/** How `pending` differs from what `node` issues from `context`; undefined when it is that item. */
export function itemFault(pending: Pending, node: WorkflowNode, context: RunContext, workflow: Workflow): string | undefined {
  const type = nodeType(node.type);
  if (type?.kind !== 'waiting' || pending.kind === 'tool') return undefined;
  let issued: Pending;
  try {
    issued = (type as WaitingType).pending(node, context, workflow).pending;
  } catch (e) {
    return `has a snapshot whose context cannot give node "${node.id}"'s item (${e instanceof Error ? e.message : String(e)})`;
  }
  const stored = pending as unknown as Record<string, unknown>;
  const own = issued as unknown as Record<string, unknown>;
  for (const key of JUDGED) {
    if (JSON.stringify(stored[key]) === JSON.stringify(own[key])) continue;
    return `has a ${pending.kind} pending item whose "${key}" is ${JSON.stringify(stored[key]) ?? 'missing'}, where node "${node.id}" issues ${JSON.stringify(own[key]) ?? 'none'} from the stored context`;
  }
  return undefined;
}
