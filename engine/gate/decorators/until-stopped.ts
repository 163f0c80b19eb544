import { CountersignError, isCountersignError } from '../../errors.js';

/**
 * How the decorators inside `timeout` (audit, metric) account for a call
 * that is stopped: they see the call's signal abort, and a tool that
 * ignores it may never settle, yet the call started and must be on the
 * record and in the counts.
 */

/**
 * `work`'s outcome, or the stop: when the signal aborts and `work` has not
 * ended by the next turn, the result rejects with the signal's reason. A
 * tool that honours its signal ends within that turn, and its own outcome
 * is kept.
 */
export function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  let onAbort = (): void => undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => void setImmediate(() => reject(signal.reason ?? new Error('the call was aborted')));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // A tool that honours the stop ends with its own cancellation error: the
  // stop is still what ended it (E_TOOL_TIMEOUT), with the tool's words kept.
  const told = work.catch((err: unknown) => {
    const reason = signal.reason as unknown;
    // Already said (the stop itself, or a decorator further in that told it): as it is.
    if (!signal.aborted || !isCountersignError(reason) || (isCountersignError(err) && err.code === reason.code)) throw err;
    throw new CountersignError(reason.code, `${reason.message} (the tool ended: ${err instanceof Error ? err.message : String(err)})`, {
      ...(reason.fix ? { fix: reason.fix } : {}),
      cause: err,
    });
  });
  return Promise.race([told, stopped]).finally(() => signal.removeEventListener('abort', onAbort));
}
