/**
 * Which runs of a gate workflow the review gate itself started. Anyone can
 * run workflows/ongrid-review-gate.json by hand (`countersign run`, or the
 * engine as a library), and its record nodes then write proposal rows that
 * skipped everything the gate does first: the persona file and its lint,
 * the force_approve_no_sop confirmation check, the dedupe. The gate records
 * the id of every run it starts here, before the run exists, so a proposal
 * row can be told apart by the run that wrote it.
 *
 * This is bookkeeping, not a security boundary: the engine is a library,
 * and code with the store can append to any table. What it guarantees is
 * that no workflow run (a `record` node) can mark itself: the store refuses
 * rows of this table that a run writes.
 */
import { randomUUID } from 'node:crypto';
import type { LedgerRow, Store } from '../store/store.js';

export const GATE_RUNS_TABLE = 'review_gate_runs';

/** Makes a run id for a gate run and records it; for the gate's engine as `newRunId`. */
export function attestGateRun(store: Store, now: Date): string {
  const runId = randomUUID();
  store.appendRows([{ id: `gate-run-${runId}`, table: GATE_RUNS_TABLE, at: now.toISOString(), key: runId, row: { run_id: runId } }]);
  return runId;
}

/**
 * Whether a proposal row is the gate's: written outside any run (the gate's
 * own skipped and deduped rows, or a host's `writeProposal`), or by a run
 * the gate started. `all` reads the gate's runs once, for listing many rows.
 */
export function gateRowCheck(store: Store, all = false): (row: LedgerRow) => boolean {
  if (all) {
    const runs = new Set(store.rows(GATE_RUNS_TABLE).map((r) => r.key));
    return (row) => row.runId === undefined || runs.has(row.runId);
  }
  return (row) => row.runId === undefined || store.rows(GATE_RUNS_TABLE, { key: row.runId, limit: 1 }).length > 0;
}
