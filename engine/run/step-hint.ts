/**
 * The `countersign step` command that answers a pending item, as every
 * place that suggests one prints it (status, a stopped run's resume line,
 * the E_MAX_STEPS and E_INTERRUPTED fixes): the identity it needs and the
 * shape of its answer, so the command run as printed is never refused.
 */
import type { Pending } from '../nodes/pending.js';

/**
 * How to answer the item, as a phrase: "answer with <command>", or, for a
 * review only the review gate's reviewer may answer, that no command can.
 */
export function answerHint(runId: string, seq: number, pending: Pending | undefined, store = ''): string {
  if (pending?.kind === 'review' && pending.contract === 'decision' && pending.answererPinned) {
    return 'only the reviewer the review gate spawned may answer this review (persona.answerer_sha256 pins its identity): no `countersign step` can';
  }
  return `answer with ${stepHint(runId, seq, pending, store)}`;
}

/** `store`: the ` --store DIR` argument, when a flag chose the store. */
export function stepHint(runId: string, seq: number, pending: Pending | undefined, store = ''): string {
  const base = `countersign step ${runId}${store} --seq ${seq}`;
  if (pending?.kind === 'review' && pending.contract === 'decision') return `${base} --response '{"reply": "<the final text of the reviewer>"}'`;
  if (pending?.kind === 'review') return `${base} --as <reviewer identity> --response '{"issues_count": N}'`;
  const as = pending?.kind === 'directive' && pending.requiresIdentity ? ' --as <your identity>' : '';
  return `${base}${as} --response '<json>'`;
}
