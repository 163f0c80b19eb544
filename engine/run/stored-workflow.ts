/**
 * A run's stored workflow copy, checked once per process before it is
 * compiled. A copy is stored under the sha256 of its JSON, so one that still
 * hashes to its key is the copy the run started with; runs stored before the
 * hash kept key order (it hashed sorted-key JSON) match that way. A copy that
 * matches neither has been damaged (a hand edit, another program) and is
 * refused as a damaged store, never compiled into a TypeError deep in a step.
 */
import { CountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import { hasWorkflowHash } from './hash.js';

export function checkedCopy(workflow: Workflow, hash: string, storeFile: string | undefined, runId?: string): Workflow {
  if (hasWorkflowHash(workflow, hash)) return workflow;
  throw new CountersignError('E_STORE', `${runId ? `run ${runId}: ` : ''}the stored workflow copy ${hash}${storeFile ? ` in ${storeFile}` : ''} is damaged: its content no longer matches its hash`, {
    ...(storeFile ? { file: storeFile } : {}),
    // A store without a file (the memory store) has nothing to restore: the run can only start again.
    fix: storeFile
      ? `restore ${storeFile} from a backup, or move the store aside and start the run again from its workflow file`
      : 'start the run again from its workflow file: this store has no file to restore the damaged copy from',
  });
}
