/**
 * Driving a run with an Agent: hand each pending item to the agent, submit
 * its answer, repeat until the run completes, fails or must stop. Adapter
 * faults (crash, bad output, silence) never route the workflow: the run
 * stays waiting and can be resumed.
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import type { Agent } from '../hosts/agent.js';
import type { RunFailure, RunState, RunStatus } from './contract.js';
import type { Engine } from './engine.js';

export const DEFAULT_AGENT_TIMEOUT_MS = 600_000;

export type ProgressEvent =
  | { type: 'pending'; state: Extract<RunState, { status: 'waiting' }> }
  | { type: 'answered'; state: RunState; nodeId: string }
  | { type: 'stopped'; error: RunFailure };

export interface RunOptions {
  /** Stop (resumable) after this many submitted answers. */
  maxSteps?: number;
  agentTimeoutMs?: number;
  onProgress?: (event: ProgressEvent) => void;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  steps: number;
  endNodeId?: string;
  output?: JsonObject;
  /** The run's failure, or why driving stopped while the run still waits. */
  error?: RunFailure;
  /** True when the run still waits (max-steps or an adapter fault): resume it later. */
  stopped?: boolean;
}

export async function driveRun(
  engine: Engine,
  first: RunState,
  opts: RunOptions & { agent: Agent },
  now: () => Date,
): Promise<RunResult> {
  let state = first;
  let steps = 0;
  const maxSteps = opts.maxSteps ?? Infinity;
  const agentTimeoutMs = opts.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  while (state.status === 'waiting') {
    if (steps >= maxSteps) {
      return stop(state, steps, { code: 'E_MAX_STEPS', message: `stopped after ${steps} step(s) (--max-steps); the run still waits`, nodeId: state.pending.nodeId }, opts);
    }
    opts.onProgress?.({ type: 'pending', state });
    const { pending } = state;
    const untilDeadline = pending.deadline ? new Date(pending.deadline).getTime() - now().getTime() : Infinity;
    const waitMs = Math.max(0, Math.min(agentTimeoutMs, untilDeadline));
    let answer: unknown;
    try {
      answer = await askWithin(opts.agent, { ...pending, runId: state.runId, seq: state.seq }, waitMs);
    } catch (e) {
      if (pending.deadline && now() >= new Date(pending.deadline)) {
        // The node's own deadline passed: that is the workflow's timeout, not an adapter fault.
        state = await engine.status(state.runId);
        continue;
      }
      if (!isCountersignError(e)) throw e;
      return stop(state, steps, { code: e.code, message: e.message, nodeId: pending.nodeId }, opts);
    }
    state = await engine.submit(state.runId, answer, { seq: state.seq });
    steps++;
    opts.onProgress?.({ type: 'answered', state, nodeId: pending.nodeId });
  }
  if (state.status === 'completed') {
    return { runId: state.runId, status: 'completed', steps, endNodeId: state.endNodeId, output: state.output };
  }
  return { runId: state.runId, status: 'failed', steps, error: state.error };
}

function stop(state: RunState, steps: number, error: RunFailure, opts: RunOptions): RunResult {
  opts.onProgress?.({ type: 'stopped', error });
  return { runId: state.runId, status: state.status, steps, error, stopped: true };
}

/** Asks the agent, giving up with E_AGENT_TIMEOUT after `ms`. */
async function askWithin(agent: Agent, request: Parameters<Agent['answer']>[0], ms: number): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CountersignError('E_AGENT_TIMEOUT', `the agent gave no answer for node "${request.nodeId}" within ${Math.round(ms / 100) / 10} s`, {
        nodeId: request.nodeId,
        fix: 'raise --agent-timeout, or check that the agent answers one JSON line per request',
      }));
    }, ms);
  });
  try {
    return await Promise.race([agent.answer(request, { signal: controller.signal, timeoutMs: ms }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
