/**
 * The store boundary. The engine reads and writes runs only through this
 * interface, so a store is swappable (SQLite by default, memory for tests
 * and embedding). All methods are synchronous: both shipped stores are, and
 * a step must be one atomic read-decide-write. Both refuse an argument of
 * the wrong kind (a run id that is no non-empty string, a list status that
 * is no run status) with E_INPUT naming it (store-errors.ts).
 */
import type { JsonObject, Workflow } from '../format/model.js';
import type { JournalEvent, Pending, RunFailure, RunStatus, RunSummary } from '../run/contract.js';

export interface RunRecord {
  runId: string;
  /** The workflow's display name (metadata.name). */
  workflow: string;
  /** sha256 of the canonical workflow JSON; the copy itself is stored once per hash. */
  workflowHash: string;
  /** The file the run was started from, for display only: runs never re-read it. */
  file?: string;
  /** The run's working directory (absolute). */
  workspace: string;
  status: RunStatus;
  /** The persisted xstate snapshot. */
  snapshot: JsonObject;
  seq: number;
  pending?: Pending;
  /** ISO-8601 deadline of the pending item, if any. */
  deadline?: string;
  endNodeId?: string;
  output?: JsonObject;
  /** The end node's `outcome`, when it has one. */
  outcome?: string;
  /** A failed run's error: its code, message and the node it failed at (the engine refuses one without them as damaged). */
  error?: RunFailure;
  createdAt: string;
  updatedAt: string;
}

export interface Mutation<T> {
  /** The new record; omit to write nothing. */
  record?: RunRecord;
  /** Journal events to append in the same transaction. */
  events?: JournalEvent[];
  /** Ledger rows (a `record` node's) to append in the same transaction. */
  rows?: LedgerRow[];
  result: T;
}

/**
 * One row of a named ledger table (proposals, executions, confirmations,
 * or any table a workflow's `record` node names). Rows are append-only:
 * the audit trail is never rewritten. `row` keeps its JSON types
 * (booleans, objects, null) exactly as written.
 */
export interface LedgerRow {
  /** Unique across all tables. */
  id: string;
  /** The table name: `[a-z][a-z0-9_]*`. */
  table: string;
  /** ISO-8601 time the row was written. */
  at: string;
  /** An indexed lookup key (a dedupe hash, a confirmation id), if any. */
  key?: string;
  /** The run whose `record` node wrote it, if any. */
  runId?: string;
  row: JsonObject;
}

export interface LedgerQuery {
  /** Only rows whose `at` is at or after this ISO-8601 time. */
  since?: string;
  key?: string;
  /** Newest rows only, at most this many (rows still come oldest first). */
  limit?: number;
}

export interface Store {
  /** The directory the store keeps its files in, if any: review hashing skips it. */
  readonly location?: string;
  /** The file it keeps runs in, if one: an error about a damaged record names it, so the right store is restored. */
  readonly file?: string;
  /** Stores the workflow copy under its own hash, hashWorkflow(workflow) (idempotent; puts back a stored copy that was damaged); any other hash is E_INPUT. */
  putWorkflow(hash: string, workflow: Workflow): void;
  /** The stored copy. A malformed hash, or one the store never held asked for without `runId`, is E_INPUT; one missing for run `runId`, or damaged, is E_STORE naming the run. */
  getWorkflow(hash: string, runId?: string): Workflow;
  /** Inserts a new run, its first events and any ledger rows its first step wrote, atomically. */
  create(record: RunRecord, events: JournalEvent[], rows?: LedgerRow[]): void;
  /** The stored record. Records are shared with the store's cache: never mutate one, build a new one. */
  get(runId: string): RunRecord | undefined;
  /**
   * One step: inside a single write transaction, read the run, call
   * `mutate` (synchronous; it never touches the store itself, though a
   * review step reads and moves workspace files), then write its record
   * and events. Two
   * concurrent updates of one run are serialised, so each sees the other's
   * result. Throws E_RUN_NOT_FOUND when the run does not exist.
   */
  update<T>(runId: string, mutate: (current: RunRecord) => Mutation<T>): T;
  /** Newest first (by createdAt, then the later created of runs in one millisecond). */
  list(filter?: { status?: RunStatus }): RunSummary[];
  /** The journal in append order; from event index `from` (0, the first, by default). */
  events(runId: string, from?: number): JournalEvent[];
  /** How many events the run's journal holds: where the next appended one will be. */
  eventCount(runId: string): number;
  /** Appends rows outside any run, in one transaction. */
  appendRows(rows: LedgerRow[]): void;
  /** Rows of one table, oldest first (by `at`, then insertion order). */
  rows(table: string, query?: LedgerQuery): LedgerRow[];
  close(): void;
}
