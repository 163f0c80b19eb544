/**
 * Generated workflows for benchmarks: a ring of `groups` ×
 * (agent-directive → expression → condition), so a run can be stepped
 * forever and every step crosses one waiting and two transient nodes.
 */
import type { Workflow, WorkflowNode } from '../engine/format/model.js';

export function ringWorkflow(groups: number): Workflow {
  const nodes: WorkflowNode[] = [{ type: 'start', id: 'start', connections: { default: 'ask-0' } }];
  for (let i = 0; i < groups; i++) {
    const next = `ask-${(i + 1) % groups}`;
    nodes.push(
      {
        type: 'agent-directive',
        id: `ask-${i}`,
        directive: `Step ${i} of {{total}}: report the score for item {{n}} ({{executionId}}).`,
        completionCondition: 'score reported',
        inputSchema: {
          type: 'object',
          properties: { score: { type: 'integer', minimum: 0, maximum: 100 }, note: { type: 'string', maxLength: 200 } },
          globalInputs: ['last_score'],
          required: ['score', 'last_score'],
        },
        connections: { success: `count-${i}` },
      },
      { type: 'expression', id: `count-${i}`, expressions: ['n = n + 1'], connections: { default: `check-${i}` } },
      {
        type: 'condition',
        id: `check-${i}`,
        condition: { operator: 'lt', left: { contextPath: 'n' }, right: { contextPath: 'limit' } },
        connections: { true: next, false: 'done' },
      },
    );
  }
  nodes.push({ type: 'end', id: 'done', finalOutput: ['n'] });
  return {
    metadata: { name: `ring-${nodes.length}`, version: '1.0.0', description: `generated ring of ${groups} groups` },
    variableRegistry: {
      n: { type: 'integer', description: 'steps so far', default: 0 },
      limit: { type: 'integer', description: 'steps before the end', default: 1_000_000_000 },
      total: { type: 'integer', description: 'groups', default: groups },
      last_score: { type: 'integer', description: 'latest score' },
    },
    nodes,
  };
}

/** The smallest loop: one directive whose success leads back to itself. */
export function selfLoopWorkflow(): Workflow {
  return {
    metadata: { name: 'self-loop', version: '1.0.0', description: 'one directive answered forever' },
    variableRegistry: { last_score: { type: 'integer', description: 'latest score' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      {
        type: 'agent-directive',
        id: 'ask',
        directive: 'Report the score ({{executionId}}).',
        completionCondition: 'score reported',
        inputSchema: {
          type: 'object',
          properties: { score: { type: 'integer', minimum: 0, maximum: 100 } },
          globalInputs: ['last_score'],
          required: ['score', 'last_score'],
        },
        connections: { success: 'ask' },
      },
      { type: 'end', id: 'done' },
    ],
  };
}
