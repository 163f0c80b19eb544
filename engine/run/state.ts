/** The run contract view of a stored run. */
import type { RunRecord } from '../store/store.js';
import type { RunState } from './contract.js';

export function stateOf(rec: RunRecord): RunState {
  switch (rec.status) {
    case 'waiting':
      return { runId: rec.runId, seq: rec.seq, status: 'waiting', pending: rec.pending! };
    case 'completed':
      return { runId: rec.runId, seq: rec.seq, status: 'completed', endNodeId: rec.endNodeId!, output: rec.output ?? {}, ...(rec.outcome !== undefined ? { outcome: rec.outcome } : {}) };
    case 'failed':
      return { runId: rec.runId, seq: rec.seq, status: 'failed', error: rec.error! };
  }
}
