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
  return Promise.race([work, stopped]).finally(() => signal.removeEventListener('abort', onAbort));
}
