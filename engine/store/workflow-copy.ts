/** putWorkflow()'s checks, alike in both stores: what a workflow copy must be, and under which hash it is kept. */
import { CountersignError } from '../errors.js';
import { said } from '../format/said.js';
import { hashWorkflow, hasWorkflowHash } from '../run/hash.js';
import { workflowProblem } from './row-shapes.js';
import { notKept } from './store-errors.js';

/**
 * putWorkflow()'s copy: a workflow (an object with its nodes list) that JSON
 * keeps as it is, so both stores take the same copies and read each back
 * as it was given; returns it as JSON text.
 */
export function workflowText(hash: string, workflow: unknown): string {
  const refuse = (why: string) =>
    new CountersignError('E_INPUT', `putWorkflow(): the workflow copy for hash ${hash} ${why}`, {
      fix: 'pass the parsed workflow (an object with its nodes list, only JSON values in it), as loadWorkflow gives it',
    });
  let text: string | undefined;
  try {
    text = JSON.stringify(workflow);
  } catch {
    // A cycle or a BigInt: said() names it as written (its cycle as "(itself)").
    throw refuse(`holds a value JSON cannot keep: ${said(workflow)}`);
  }
  const changed = text === undefined ? undefined : notKept(workflow);
  if (changed !== undefined) throw refuse(changed);
  const why = text === undefined ? 'is not an object' : workflowProblem(JSON.parse(text));
  if (why !== undefined) throw refuse(`${why}, got ${said(workflow)}`);
  return text!;
}

/**
 * putWorkflow()'s copy and hash, checked alike in both stores before
 * anything is written: a workflow JSON keeps (workflowText), stored under
 * its own hash — by either rule a run was stored by (hash.ts), so a copy
 * of an older store's run is taken under its older sorted-key hash. A copy
 * under another hash would be read back as a damaged store (its content no
 * longer matching its hash), when the mistake is the caller's.
 */
export function givenCopyText(hash: string, workflow: unknown): string {
  const text = workflowText(hash, workflow);
  const copy: unknown = JSON.parse(text);
  if (!hasWorkflowHash(copy, hash)) {
    const own = hashWorkflow(copy);
    throw new CountersignError('E_INPUT', `putWorkflow(): the workflow copy given for hash ${hash} does not have that hash: its own hash is ${own}, and a copy is stored under its own hash so that a run reads back the copy it was started with`, {
      fix: `store the copy under hashWorkflow(copy) (${own}), as the engine does, and create its runs with that workflowHash; nothing was written`,
    });
  }
  return text;
}

/**
 * putWorkflow() under a hash a copy is already stored under, with a copy
 * that has that hash (givenCopyText): the copy a run keeps never changes.
 * Given the same copy, or the stored one still has its hash (the same
 * workflow under the older sorted-key rule, its keys in another order),
 * nothing to do ('keep'); a stored copy that no longer has its hash was
 * damaged, and the true copy puts it back ('replace': a new start repairs it).
 */
export function sameCopy(hash: string, storedText: string, givenText: string): 'keep' | 'replace' {
  if (storedText === givenText) return 'keep';
  const stored = parsedOrUndefined(storedText);
  return stored !== undefined && hasWorkflowHash(stored, hash) ? 'keep' : 'replace';
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // damaged past JSON: no hash matches it
  }
}
