/**
 * The in-memory store, for tests and embedding. A host's record is kept as
 * a frozen copy and the engine's own as given, frozen at its top
 * (store-errors.ts keptRecord): the engine never mutates a record it passed
 * in or got back (it builds new ones). Whether a record fits its workflow
 * is not checked here: the engine checks every record it reads, from this store and SQLite alike (run/state.ts,
 * run/served-record.ts), so a record changed in place is refused as a
 * damaged SQLite row is. The workflow copy is kept once per hash,
 * which keeps 10,000 waiting runs small.
 */
import { deepFreeze } from '../format/freeze.js';
import { CountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import type { JournalEvent, RunStatus, RunSummary } from '../run/contract.js';
import type { LedgerQuery, LedgerRow, Mutation, RunRecord, Store } from './store.js';
import { checkAskedHash, checkCreate, checkEventIndex, checkMutate, checkMutation, checkStoreRunId, checkWorkflowHash, duplicateRun, listedStatus, runNotFound, unknownWorkflowHash, workflowNotFound } from './store-errors.js';
import { givenCopyText, sameCopy } from './workflow-copy.js';
import { checkQuery, checkRows, checkTable } from './ledger-rows.js';
import { refuseExtraArguments } from '../run/option-keys.js';

/** Memory stores closed: what they held is gone, so a run stopped by the close can only be started again. */
const closedStores = new WeakSet<Store>();

/** Whether `store` is an in-memory store that was closed (its runs are gone, never to be resumed). */
export function isClosedMemoryStore(store: Store): boolean {
  return closedStores.has(store);
}

export function createMemoryStore(): Store {
  // An option asked for ({ persist: true }) is refused, never a store that keeps nothing handed over without a word.
  refuseExtraArguments('createMemoryStore', 'no arguments', [...arguments], 'call createMemoryStore() with none: a memory store has no options and keeps nothing past its process; for a store on disk use createSqliteStore(dir) or openStore({ cwd })');
  const workflows = new Map<string, Workflow>();
  const runs = new Map<string, RunRecord>();
  const journals = new Map<string, JournalEvent[]>();
  // Ledger rows per table in insertion order; rows are copied in and out, so the trail cannot be edited in place.
  const ledger = new Map<string, LedgerRow[]>();
  const ledgerIds = new Set<string>();
  let closed = false;
  // As the SQLite store: a closed store says so, instead of answering as an empty one.
  const open = (what: string): void => {
    if (closed) {
      throw new CountersignError('E_STORE', `cannot ${what}: the in-memory store is closed, and what it held is gone`, {
        fix: 'keep the store open while its engine is in use (close it last), or create a new one with createMemoryStore() and pass it to a new createEngine({ store })',
      });
    }
  };

  function appendChecked(rows: readonly LedgerRow[]): void {
    for (const row of rows) {
      const table = ledger.get(row.table) ?? [];
      table.push(structuredClone(row));
      ledger.set(row.table, table);
      ledgerIds.add(row.id);
    }
  }

  const store: Store = {
    putWorkflow(hash, workflow) {
      open('store a workflow');
      checkWorkflowHash(hash, 'putWorkflow');
      // As SQLite would store it: a copy JSON cannot keep, or no workflow, is refused here too.
      const text = givenCopyText(hash, workflow);
      const stored = workflows.get(hash);
      // A frozen copy of what was given, as SQLite keeps its text: an edit the caller makes afterwards never reaches it.
      if (stored === undefined || sameCopy(hash, JSON.stringify(stored), text) === 'replace') workflows.set(hash, deepFreeze(JSON.parse(text) as Workflow));
    },

    getWorkflow(hash, runId) {
      open('read a workflow');
      checkWorkflowHash(hash, 'getWorkflow');
      if (runId !== undefined) checkStoreRunId(runId, 'getWorkflow');
      checkAskedHash(hash, runId);
      const workflow = workflows.get(hash);
      if (!workflow) throw workflowNotFound(hash, runId);
      return workflow;
    },

    create(record, events, rows) {
      open('create a run');
      const { record: kept, events: firstEvents } = checkCreate(record, events, rows);
      if (runs.has(record.runId)) throw duplicateRun(record.runId);
      if (!workflows.has(record.workflowHash)) throw unknownWorkflowHash(record.runId, record.workflowHash);
      const checked = rows && rows.length > 0 ? checkRows(rows, (id) => ledgerIds.has(id), record.runId) : [];
      runs.set(record.runId, kept);
      journals.set(record.runId, firstEvents);
      appendChecked(checked);
    },

    get(runId) {
      open('read a run');
      checkStoreRunId(runId, 'get');
      return runs.get(runId);
    },

    update<T>(runId: string, mutate: (current: RunRecord) => Mutation<T>): T {
      open('update a run');
      checkStoreRunId(runId, 'update');
      checkMutate(mutate);
      const current = runs.get(runId);
      if (!current) throw runNotFound(runId, true);
      // Nothing is written until mutate returns and its rows pass, so a throw leaves the run as it was.
      const { record, events, rows, result } = checkMutation<T>(mutate(current), runId, current);
      const checked = rows && rows.length > 0 ? checkRows(rows, (id) => ledgerIds.has(id), runId) : [];
      if (record) runs.set(runId, record);
      if (events && events.length > 0) journals.get(runId)!.push(...events);
      appendChecked(checked);
      return result;
    },

    list(filter?: { status?: RunStatus }): RunSummary[] {
      open('list runs');
      const status = listedStatus(filter);
      const out: RunSummary[] = [];
      for (const r of runs.values()) {
        if (status !== undefined && r.status !== status) continue;
        out.push({ runId: r.runId, workflow: r.workflow, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt });
      }
      // Newest insert first, then a stable sort by time: runs created in the same millisecond keep that order.
      return out.reverse().sort(newestFirst);
    },

    events(runId, from = 0) {
      open('read a journal');
      checkStoreRunId(runId, 'events');
      checkEventIndex(from);
      const journal = journals.get(runId);
      if (!journal) throw runNotFound(runId, true);
      // The journal is append-only: readers get copies, never the stored events.
      return journal.slice(from).map((e) => structuredClone(e));
    },

    eventCount(runId) {
      open('read a journal');
      checkStoreRunId(runId, 'eventCount');
      const journal = journals.get(runId);
      if (!journal) throw runNotFound(runId, true);
      return journal.length;
    },

    appendRows(rows) {
      open('append ledger rows');
      appendChecked(checkRows(rows, (id) => ledgerIds.has(id)));
    },

    rows(table: string, query?: LedgerQuery): LedgerRow[] {
      open('read ledger rows');
      checkTable(table);
      const { since, key, limit } = checkQuery(query);
      const matching = (ledger.get(table) ?? []).filter(
        (r) => (since === undefined || r.at >= since) && (key === undefined || r.key === key),
      );
      // Array#sort is stable: rows with one time keep their insertion order.
      matching.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      const newest = limit === undefined ? matching : matching.slice(-limit);
      return newest.map((r) => structuredClone(r));
    },

    close() {
      closed = true;
      closedStores.add(store);
      workflows.clear();
      runs.clear();
      journals.clear();
      ledger.clear();
      ledgerIds.clear();
    },
  };
  return store;
}

function newestFirst(a: RunSummary, b: RunSummary): number {
  return a.createdAt === b.createdAt ? 0 : a.createdAt < b.createdAt ? 1 : -1;
}
