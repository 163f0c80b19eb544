/** Errors both shipped stores raise, worded once. */
import { CountersignError } from '../errors.js';

export function runNotFound(runId: string): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}" in the store`, {
    fix: 'list runs with `countersign runs`',
  });
}

export function workflowNotFound(hash: string): CountersignError {
  return new CountersignError('E_STORE', `no workflow copy with hash ${hash} in the store`, {
    fix: 'the store is missing the workflow copy this run was started with; start the run again',
  });
}

export function duplicateRun(runId: string): CountersignError {
  return new CountersignError('E_STORE', `a run "${runId}" already exists in the store`, {
    fix: 'give each run a new id',
  });
}

export function unknownWorkflowHash(runId: string, hash: string): CountersignError {
  return new CountersignError('E_STORE', `run "${runId}" names workflow hash ${hash}, which the store does not hold`, {
    fix: 'store the workflow copy with putWorkflow before creating the run',
  });
}
