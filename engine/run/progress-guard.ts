/**
 * A host's onProgress callback, guarded. A callback that throws would
 * otherwise escape run() as the host's own bare Error, after the step it
 * reported was already stored: the host would lose the run's id and
 * result. Its throw is caught and kept instead, nothing more is handed to
 * it, and the drive stops at its next check (no agent is asked once the
 * host cannot follow): run() returns the run as stored, the callback's
 * failure said as E_PROGRESS_FAILED naming the run and the event.
 */
import { said } from '../format/said.js';
import type { RunFailure, RunState } from './contract.js';
import type { ProgressEvent } from './driver.js';

export interface ProgressGuard {
  /** Hands `event` to the callback, unless it has thrown already; a throw is kept, never passed on. */
  emit(event: ProgressEvent): void;
  /** Whether the callback has thrown: the drive stops. */
  readonly failed: boolean;
  /** Whether the drive stopped for it (stopError was given): the result says it already. */
  readonly stopped: boolean;
  /** The stop of a run that still waits where `state` says, because the callback threw. */
  stopError(state: Extract<RunState, { status: 'waiting' }>, resumeArgs: string): RunFailure;
  /** The callback's failure beside a result that stands (`status`: how the run ended, or a stop of its own). */
  besideResult(status: string): RunFailure;
}

export function guardProgress(listener: (event: ProgressEvent) => void, runId: string): ProgressGuard {
  let failure: { event: string; said: string } | undefined;
  let stopped = false;
  const threw = () => `run()'s onProgress callback threw on the "${failure!.event}" event of run ${runId}${failure!.said}`;
  const fixCallback = 'fix the onProgress callback: it must not throw (a failure of the host\'s own display is the host\'s to catch)';
  return {
    emit(event) {
      if (failure) return;
      try {
        listener(event);
      } catch (e) {
        failure = { event: event.type, said: describeThrown(e) };
      }
    },
    get failed() {
      return failure !== undefined;
    },
    get stopped() {
      return stopped;
    },
    stopError(state, resumeArgs) {
      stopped = true;
      return {
        code: 'E_PROGRESS_FAILED',
        message: `${threw()}; the drive stopped, and the run still waits at node "${state.pending.nodeId}"`,
        nodeId: state.pending.nodeId,
        fix: `${fixCallback}; then continue the run with engine.run({ runId: "${runId}" }, { agent }) (CLI: countersign run --resume ${runId}${resumeArgs})`,
      };
    },
    besideResult(status) {
      return {
        code: 'E_PROGRESS_FAILED',
        message: `${threw()}; the run's result stands as stored (${status}), and no later progress was reported`,
        fix: `${fixCallback}; engine.status("${runId}") and engine.trace("${runId}") show the run`,
      };
    },
  };
}

/** ": <message>" of what was thrown (an Error or any value), " (no message)" for one that says nothing. */
function describeThrown(e: unknown): string {
  // Whatever was thrown is only described, and describing it may throw too (an object with no prototype, a
  // toString or message getter that throws): that is said, never passed on in place of the run's result.
  let message: string;
  try {
    message = e instanceof Error ? String(e.message) : e === undefined ? '' : typeof e === 'string' ? e : said(e);
  } catch {
    message = 'a value that cannot be turned into text (doing so threw)';
  }
  return message.trim() === '' ? ' (no message)' : `: ${message}`;
}
