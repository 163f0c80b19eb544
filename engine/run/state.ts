/** The run contract view of a stored run. */
import { CountersignError } from '../errors.js';
import type { RunRecord } from '../store/store.js';
import type { RunState } from './contract.js';

/** `storeFile`: where the record is kept, named when it is damaged. */
export function stateOf(rec: RunRecord, storeFile?: string): RunState {
  switch (rec.status) {
    case 'waiting':
      // A host acts on the pending item: a record without a real one is a damaged store, not a state to hand on.
      if (rec.pending === null || typeof rec.pending !== 'object' || typeof (rec.pending as { kind?: unknown }).kind !== 'string') throw damagedRecord(rec, 'is waiting without a pending item', storeFile);
      {
        const missing = missingField(rec.pending);
        if (missing) throw damagedRecord(rec, `has a ${rec.pending.kind} pending item without its ${missing}`, storeFile);
        const wrong = optionalFieldProblem(rec.pending);
        if (wrong) throw damagedRecord(rec, `has a ${rec.pending.kind} pending item whose ${wrong}`, storeFile);
      }
      return { runId: rec.runId, seq: rec.seq, status: 'waiting', pending: rec.pending };
    case 'completed':
      // Every completed record carries its output ({} when finalOutput names nothing): a missing one is lost data, not "no output".
      if (typeof rec.endNodeId !== 'string' || rec.output === null || typeof rec.output !== 'object' || Array.isArray(rec.output)) throw damagedRecord(rec, 'completed without its end node or output', storeFile);
      return { runId: rec.runId, seq: rec.seq, status: 'completed', endNodeId: rec.endNodeId, output: rec.output, ...(rec.outcome !== undefined ? { outcome: rec.outcome } : {}) };
    case 'failed':
      if (rec.error === null || typeof rec.error !== 'object' || typeof rec.error.code !== 'string') throw damagedRecord(rec, 'failed without an error code', storeFile);
      if (typeof rec.error.message !== 'string') throw damagedRecord(rec, 'failed without its error message', storeFile);
      return { runId: rec.runId, seq: rec.seq, status: 'failed', error: rec.error };
  }
}

/** The fields of the run contract each kind of pending item must carry, as [name, type]. */
const CONTRACT: Readonly<Record<string, ReadonlyArray<readonly [string, 'string' | 'object' | 'integer' | 'array']>>> = {
  directive: [['nodeId', 'string'], ['directive', 'string'], ['completionCondition', 'string'], ['inputSchema', 'object'], ['attempt', 'integer'], ['maxRetries', 'integer']],
  review: [['nodeId', 'string'], ['prompt', 'string'], ['attempt', 'integer'], ['maxRetries', 'integer']],
  tool: [['nodeId', 'string'], ['tool', 'string'], ['args', 'object'], ['attempt', 'integer']],
};

/** The first contract field a pending item lacks (or holds with the wrong type); undefined when it has them all. */
function missingField(pending: object): string | undefined {
  const item = pending as Record<string, unknown>;
  const fields = Object.hasOwn(CONTRACT, item.kind as string) ? CONTRACT[item.kind as string] : undefined;
  if (!fields) return 'kind (directive, review or tool)';
  for (const [name, type] of fields) {
    const v = item[name];
    const ok = type === 'integer' ? Number.isInteger(v) : type === 'array' ? Array.isArray(v) : type === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : typeof v === type;
    if (!ok) return name;
  }
  return undefined;
}

/** Why an optional contract field of a pending item (`errors`, `deadline`) has the wrong type; undefined when none does. */
function optionalFieldProblem(pending: object): string | undefined {
  const item = pending as Record<string, unknown>;
  if (item.errors !== undefined && (!Array.isArray(item.errors) || !item.errors.every((e) => typeof e === 'string'))) return '"errors" is not a list of strings';
  if (item.deadline !== undefined && (typeof item.deadline !== 'string' || !Number.isFinite(Date.parse(item.deadline)))) return '"deadline" is no time';
  return undefined;
}

/** A stored record the engine cannot use: E_STORE, with the store's repair. */
export function damagedRecord(rec: RunRecord, what: string, storeFile?: string): CountersignError {
  return new CountersignError('E_STORE', `the stored record of run "${rec.runId}"${storeFile ? ` in ${storeFile}` : ''} ${what}: the store is damaged`, {
    ...(storeFile ? { file: storeFile } : {}),
    fix: `restore ${storeFile ?? 'countersign.db'} from a backup, or move the store aside and start the run again`,
  });
}
