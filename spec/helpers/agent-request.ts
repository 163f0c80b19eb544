/** A minimal pending item as adapters receive it. */
import type { AgentRequest } from '../../engine/run/contract.js';

export function agentRequest(nodeId: string, seq = 1, over: Partial<AgentRequest> = {}): AgentRequest {
  return {
    kind: 'directive',
    nodeId,
    directive: 'Do it',
    completionCondition: 'done',
    inputSchema: { type: 'object' },
    attempt: 1,
    maxRetries: 3,
    runId: 'run-1',
    seq,
    ...over,
  } as AgentRequest;
}
