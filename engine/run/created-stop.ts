/**
 * A store failure after `start` stored a new run, while its first tool
 * nodes ran: the run exists, so the error names it and how to go on with
 * it. Thrown bare, it would lose the id, and "try again" would start
 * another run beside the one left waiting.
 */
import { CountersignError } from '../errors.js';
import type { RunState } from './contract.js';

export function createdButStopped(e: CountersignError, state: RunState): CountersignError {
  const at = state.status === 'waiting' ? ` and waits at node "${state.pending.nodeId}", where the store last recorded it` : '';
  return new CountersignError('E_STORE', `${e.message}; run ${state.runId} was started${at}`, {
    ...(state.status === 'waiting' ? { nodeId: state.pending.nodeId } : {}),
    ...(e.file ? { file: e.file } : {}),
    fix: `${e.fix ?? 'make the store writable again'}; then continue this run with countersign status ${state.runId} (library: engine.status(runId)), which runs its tool nodes. Starting the workflow again would start another run and leave this one waiting`,
    cause: e,
  });
}
