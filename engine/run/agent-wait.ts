/**
 * Waiting on an agent: its answer, raced against the wait the drive allows
 * (E_AGENT_TIMEOUT) and the host's interrupt, and the clock a deadline is
 * read against.
 */
import { CountersignError } from '../errors.js';
import type { Agent } from '../hosts/agent.js';
import type { ToolSession } from '../hosts/tool-mediation.js';
import type { AdapterLabel } from './drive-types.js';
/** The E_AGENT_TIMEOUT errors askWithin raised itself (not ones an adapter typed). */
const waitTimeouts = new WeakSet<object>();
export const isWaitTimeout = (e: unknown): boolean => typeof e === 'object' && e !== null && waitTimeouts.has(e);

/** Waits (a few milliseconds at most, a bounded number of times) until `now()` reaches `at`. */
export async function clockPast(at: number, now: () => Date): Promise<void> {
  for (let tries = 0; tries < 5; tries++) {
    const left = at - now().getTime();
    if (left < 0) return;
    await new Promise((done) => setTimeout(done, left + 1));
  }
}

/** A wait in seconds, as --agent-timeout takes it, to the millisecond; under one, in milliseconds (never "0 s"). */
const spoken = (ms: number) => (ms < 1 ? `${Number(ms.toPrecision(2))} ms` : `${Number((ms / 1000).toFixed(3))} s`);


/** Asks the agent, giving up with E_AGENT_TIMEOUT after `ms`, or at once when `interrupt` is aborted. */
export async function askWithin(agent: Agent, label: AdapterLabel, request: Parameters<Agent['answer']>[0], ms: number, tools?: ToolSession, interrupt?: AbortSignal): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onInterrupt: (() => void) | undefined;
  // The adapter is told to stop (its process group is killed) and the race ends without its answer.
  const stopped = new Promise<never>((_, reject) => {
    onInterrupt = () => {
      reject(new CountersignError('E_INTERRUPTED', 'interrupted', { nodeId: request.nodeId }));
      controller.abort();
    };
    interrupt?.addEventListener('abort', onInterrupt, { once: true });
  });
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before aborting: an adapter that rejects on abort must not win the race with a vaguer error.
      const error = new CountersignError('E_AGENT_TIMEOUT', `${label.name} gave no answer for node "${request.nodeId}" within ${spoken(ms)}`, {
        nodeId: request.nodeId,
        fix: `raise --agent-timeout (library: agentTimeoutMs), or ${label.silence}`,
      });
      waitTimeouts.add(error);
      reject(error);
      controller.abort();
    }, ms);
  });
  try {
    return await Promise.race([agent.answer(request, { signal: controller.signal, timeoutMs: ms, ...(tools ? { tools } : {}) }), timeout, stopped]);
  } finally {
    clearTimeout(timer);
    interrupt?.removeEventListener('abort', onInterrupt!);
  }
}
