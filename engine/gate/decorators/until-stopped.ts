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
 * tool that honours its signal ends within that turn, and how it ended is
 * kept in the stop's message.
 */
export function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined, tool = 'the tool'): Promise<T> {
  if (!signal) return work;
  let reason: CountersignError | undefined;
  const reasonOf = (): CountersignError => (reason ??= stopReason(signal, tool));
  let onAbort = (): void => undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => void setImmediate(() => reject(reasonOf()));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // A tool that honours the stop ends with its own cancellation error, or
  // returns what it managed: either way the stop is what ended it
  // (E_TOOL_TIMEOUT, E_TOOL_CANCELLED), which is what the caller is told, so
  // the record says the same, with how the tool ended kept.
  const stop = (): CountersignError | undefined => (signal.aborted ? reasonOf() : undefined);
  const endedBy = (reason: CountersignError, how: string, cause?: unknown) =>
    new CountersignError(reason.code, `${reason.message} (the tool ended: ${how})`, {
      ...(reason.fix ? { fix: reason.fix } : {}),
      ...(reason.data ? { data: reason.data } : {}),
      ...(cause !== undefined ? { cause } : {}),
    });
  const told = work.then(
    (value) => {
      const reason = stop();
      if (reason) throw endedBy(reason, 'it returned a result after it was told to stop, which was not passed on');
      return value;
    },
    (err: unknown) => {
      const reason = stop();
      // Already said (the stop itself, or a decorator further in that told it): as it is.
      if (!reason || (isCountersignError(err) && err.code === reason.code)) throw err;
      throw endedBy(reason, err instanceof Error ? err.message : String(err), err);
    },
  );
  return Promise.race([told, stopped]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** A call whose signal was aborted before its tool started: the abort's own typed reason, else E_TOOL_CANCELLED. */
export function cancelled(tool: string, signal: AbortSignal, when: string): CountersignError {
  const reason = signal.reason as unknown;
  if (isCountersignError(reason)) return reason;
  return new CountersignError('E_TOOL_CANCELLED', `the call to tool "${tool}" was cancelled (its signal was aborted) ${when}`, {
    fix: 'call the tool again, with a signal that is not aborted, if it should still run',
  });
}

/**
 * Why a running call was stopped, typed: the signal's own reason when it is
 * one of ours (timeout's E_TOOL_TIMEOUT), else E_TOOL_CANCELLED — a caller's
 * plain abort (a DOMException) is no code a host can match on.
 */
export function stopReason(signal: AbortSignal, tool: string): CountersignError {
  const reason = signal.reason as unknown;
  if (isCountersignError(reason)) return reason;
  return new CountersignError('E_TOOL_CANCELLED', `the call to tool "${tool}" was cancelled (its signal was aborted${reason instanceof Error && reason.message ? `: ${reason.message}` : ''})`, {
    fix: 'the tool may have taken effect if it had started: check its state before calling it again',
  });
}

// Records of stopped calls still being written, by the signal that stopped them.
const recordings = new WeakMap<AbortSignal, Set<Promise<unknown>>>();

/**
 * Says that the stop of the call `signal` belongs to is being recorded by
 * `writing` (audit's row): the decorator that stopped it waits for that,
 * however long the sink takes, so a row that cannot be written reaches the
 * caller as E_STORE and is never dropped after the stop's grace period.
 */
export function recordingStop(signal: AbortSignal | undefined, writing: Promise<unknown>): void {
  if (!signal?.aborted) return;
  let set = recordings.get(signal);
  if (!set) recordings.set(signal, (set = new Set()));
  const entry = writing.then(() => undefined, () => undefined);
  set.add(entry);
  void entry.then(() => set!.delete(entry));
}

/** The records of a stop still being written; empty when none is. */
export function stopRecordings(signal: AbortSignal): Promise<unknown>[] {
  return [...(recordings.get(signal) ?? [])];
}
