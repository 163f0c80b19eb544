/** The run contract view of a stored run. */
import { CountersignError } from '../errors.js';
import type { RunRecord } from '../store/store.js';
import type { RunState } from './contract.js';

export function stateOf(rec: RunRecord): RunState {
  switch (rec.status) {
    case 'waiting':
      // A host acts on the pending item: a record without a real one is a damaged store, not a state to hand on.
      if (rec.pending === null || typeof rec.pending !== 'object' || typeof (rec.pending as { kind?: unknown }).kind !== 'string') throw damagedRecord(rec, 'is waiting without a pending item');
      return { runId: rec.runId, seq: rec.seq, status: 'waiting', pending: rec.pending };
    case 'completed':
      if (typeof rec.endNodeId !== 'string' || (rec.output !== undefined && (rec.output === null || typeof rec.output !== 'object'))) throw damagedRecord(rec, 'completed without its end node or output');
      return { runId: rec.runId, seq: rec.seq, status: 'completed', endNodeId: rec.endNodeId!, output: rec.output ?? {}, ...(rec.outcome !== undefined ? { outcome: rec.outcome } : {}) };
    case 'failed':
      if (rec.error === null || typeof rec.error !== 'object' || typeof rec.error.code !== 'string') throw damagedRecord(rec, 'failed without an error code');
      return { runId: rec.runId, seq: rec.seq, status: 'failed', error: rec.error };
  }
}

/** A stored record the engine cannot use: E_STORE, with the store's repair. */
export function damagedRecord(rec: RunRecord, what: string): CountersignError {
  return new CountersignError('E_STORE', `the stored record of run "${rec.runId}" ${what}: the store is damaged`, {
    fix: 'restore countersign.db from a backup, or move the store aside and start the run again',
  });
}
