/** Errors both shipped stores raise, worded once. */
import { CountersignError } from '../errors.js';
import { said } from '../format/said.js';

export function runNotFound(runId: string): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}" in the store`, {
    fix: 'list runs with `countersign runs`',
  });
}

/**
 * The workflow copy a run was started with is gone (a row deleted by hand,
 * a record naming a hash no copy has): the store is damaged, said as a
 * damaged copy is (stored-workflow.ts), naming the run and the database file.
 */
export function workflowNotFound(hash: string, runId?: string, file?: string): CountersignError {
  return new CountersignError('E_STORE', `${runId ? `run ${runId}: ` : ''}the workflow copy ${hash}${runId ? ' it was started with' : ''} is missing from ${file ?? 'the store'}: the store is damaged`, {
    ...(file ? { file } : {}),
    fix: file
      ? `restore ${file} from a backup, or move the store aside and start the run again from its workflow file`
      : 'start the run again from its workflow file: this store no longer holds the copy the run was started with',
  });
}

/** A run id already taken, named with the database file when the store has one (as its other E_STORE errors are). */
export function duplicateRun(runId: string, file?: string): CountersignError {
  return new CountersignError('E_STORE', `a run "${runId}" already exists in ${file ?? 'the store'}`, {
    ...(file ? { file } : {}),
    fix: `give each run a new id (createEngine's newRunId must return an id no run in ${file ?? 'the store'} has); the run already there is kept as it was`,
  });
}

export function unknownWorkflowHash(runId: string, hash: string, file?: string): CountersignError {
  return new CountersignError('E_STORE', `run "${runId}" names workflow hash ${hash}, which ${file ?? 'the store'} does not hold`, {
    ...(file ? { file } : {}),
    fix: 'store the workflow copy with putWorkflow before creating the run',
  });
}

/** events(runId, from): an index from 0, or E_INPUT naming the value given (the stores would each read a bad one differently). */
export function checkEventIndex(from: unknown): void {
  if (!Number.isSafeInteger(from) || (from as number) < 0) {
    throw new CountersignError('E_INPUT', `events(runId, from): ${said(from)} is not an index into a journal`, {
      fix: 'pass a whole number from 0 (the index of the first event to read), or leave it out to read the whole journal',
    });
  }
}
