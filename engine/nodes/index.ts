/**
 * The node-type registry. A node type is one file in this folder; adding a
 * type means adding its file here.
 */
import type { WorkflowNode } from '../format/model.js';
import { agentDirective } from './agent-directive.js';
import { condition } from './condition.js';
import { delegateReview } from './delegate-review.js';
import { reviewByContract } from './review-contracts.js';
import { decisionReview } from './review-decision.js';
import { record } from './record.js';
import { toolNode } from './tool.js';
import { end } from './end.js';
import { expression } from './expression.js';
import type { NodeType } from './node-type.js';
import { start } from './start.js';
import { setGlobalsOfNode } from './workflow-facts.js';

export const NODE_TYPES: Readonly<Record<string, NodeType<any>>> = Object.freeze({
  start,
  end,
  'agent-directive': agentDirective,
  condition,
  expression,
  'delegate-review': reviewByContract,
  record,
  tool: toolNode,
});

export function nodeType(type: string): NodeType<any> | undefined {
  return Object.prototype.hasOwnProperty.call(NODE_TYPES, type) ? NODE_TYPES[type] : undefined;
}

/** Whether a workflow has nodes an agent answers (a tool node the engine runs itself): one of tool nodes only needs no agent. */
export function asksAgents(nodes: ReadonlyArray<{ type?: unknown }>): boolean {
  return nodes.some(answered);
}

/** The ids of the nodes an agent or reviewer answers (directives, reviews): all a script's keys may name. */
export function answeredNodeIds(nodes: ReadonlyArray<{ type?: unknown; id?: unknown }>): string[] {
  return nodes.filter(answered).map((n) => n.id).filter((id): id is string => typeof id === 'string');
}

const answered = (n: { type?: unknown }): boolean => typeof n?.type === 'string' && n.type !== 'tool' && nodeType(n.type)?.kind === 'waiting';

setGlobalsOfNode((node: WorkflowNode) => nodeType(node.type)?.declares(node).globals ?? []);

export { start, end, agentDirective, condition, expression, delegateReview, decisionReview, record, toolNode };
export type * from './node-type.js';
