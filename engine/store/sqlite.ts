/**
 * The embedded default store: SQLite through better-sqlite3, one database
 * file `<dir>/countersign.db`. WAL lets readers (`status`, `runs`) proceed
 * while a step writes; every step is one IMMEDIATE transaction, so two
 * processes stepping one run are serialised and never both advance it.
 */
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { CountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import type { JournalEvent, RunStatus, RunSummary } from '../run/contract.js';
import type { LedgerQuery, LedgerRow, Mutation, RunRecord, Store } from './store.js';
import { deepFreeze } from '../format/freeze.js';
import { checkAskedHash, checkCreate, checkEventIndex, checkMutate, checkMutation, checkStoreRunId, checkWorkflowHash, duplicateRun, listedStatus, runNotFound, unknownWorkflowHash, workflowNotFound } from './store-errors.js';
import { givenCopyText, sameCopy } from './workflow-copy.js';
import { openDatabase } from './sqlite-schema.js';
import { createSqliteLedger } from './sqlite-ledger.js';
import { makeDirs } from '../format/make-dirs.js';
import { shellWord } from '../format/shell-word.js';
import { shown } from '../format/said.js';
import { eventProblem, recordProblem, summaryProblem, workflowProblem } from './row-shapes.js';
import { refuseExtraArguments } from '../run/option-keys.js';


export { SCHEMA_VERSION } from './sqlite-schema.js';

export const DATABASE_FILE = 'countersign.db';

/** Parsed workflow copies kept per store; a copy never changes under its hash. */
const WORKFLOW_CACHE_SIZE = 32;

/**
 * Parsed run records kept per store, keyed by the row's `version` (bumped
 * by every write, from any process). A step reads the version, and parses
 * the record only when another writer changed it: parsing the snapshot and
 * rebuilding the machine state from it cost more than the step.
 */
const RECORD_CACHE_SIZE = 256;

interface SummaryRow {
  run_id: string;
  workflow: string;
  status: RunStatus;
  created_at: string;
  updated_at: string;
  /** 1 when the row's record is no JSON at all, or JSON whose own runId, workflow, status, createdAt or updatedAt is not the column's. */
  disagrees: number;
}

/**
 * The summary columns `runs` lists, beside what the row's record (the run
 * itself) says of each: compared in SQL, so listing reads no record into
 * JavaScript. A record that is no JSON at all supports no summary either:
 * it disagrees (E_STORE), never listed as the status its column claims.
 * CASE, since SQLite may evaluate both sides of an AND, and ->> throws on
 * malformed JSON.
 */
const SUMMARY = `run_id, workflow, status, created_at, updated_at,
  CASE WHEN json_valid(record) THEN record ->> '$.runId' IS NOT run_id OR record ->> '$.workflow' IS NOT workflow OR record ->> '$.status' IS NOT status
    OR record ->> '$.createdAt' IS NOT created_at OR record ->> '$.updatedAt' IS NOT updated_at ELSE 1 END AS disagrees`;

/** The record field behind each summary column. */
const SUMMARY_FIELDS = [['status', 'status'], ['workflow', 'workflow'], ['created_at', 'createdAt'], ['updated_at', 'updatedAt'], ['run_id', 'runId']] as const;

type Mutate = (current: RunRecord) => Mutation<unknown>;

export function createSqliteStore(dir: string): Store {
  // Before anything is created: { readonly: true } must not open (and make) a writable store instead.
  refuseExtraArguments('createSqliteStore', 'one argument, the store directory', [...arguments].slice(1), 'pass only the directory: createSqliteStore(dir) takes no options and always opens the store for reading and writing (there is no read-only store)');
  // A library caller's value as it comes (an unset variable gives "" or undefined): never taken as "here".
  if (typeof dir !== 'string' || dir.trim() === '') {
    throw new CountersignError('E_INPUT', `createSqliteStore needs the store directory, got ${shown(dir)}`, {
      fix: 'pass the directory to keep countersign.db in, e.g. createSqliteStore(".countersign"), or use openStore({ cwd }) for the CLI\'s choice (--store, $COUNTERSIGN_STORE, ./.countersign)',
    });
  }
  const file = join(dir, DATABASE_FILE);
  try {
    makeDirs(dir);
  } catch (err) {
    // A file (or a link to nothing) where a folder of the path should be: no access right would help, moving it or another path would.
    const { code: errno, path: blocking } = err as NodeJS.ErrnoException;
    const blocked = errno === 'ENOTDIR' ? blocking : undefined;
    throw new CountersignError('E_STORE', `cannot create the store directory ${dir}: ${(err as Error).message}`, {
      file: dir,
      cause: err,
      fix: blocked
        ? `move ${shellWord(blocked)} aside (it stands where a folder of the store path goes; for a link, create the folder it points to), or pass another directory with --store DIR or COUNTERSIGN_STORE`
        : errno === 'ENOSPC'
          ? 'free space on that disk, or pass a directory on a disk with room with --store DIR or COUNTERSIGN_STORE'
          : errno === 'EROFS'
            ? 'pass a directory on a writable file system with --store DIR or COUNTERSIGN_STORE (or remount that one read-write); no change of access rights can help'
            : 'pass a writable directory with --store DIR or COUNTERSIGN_STORE',
    });
  }
  const db = openDatabase(file);

  const sql = prepared(db, file, () => ({
    // The hash names the exact content, so a stored copy that differs is damaged: a new start puts the right one back.
    putWorkflow: db.prepare<[string, string]>('INSERT INTO workflows (hash, body) VALUES (?, ?) ON CONFLICT (hash) DO UPDATE SET body = excluded.body WHERE body <> excluded.body'),
    getWorkflow: db.prepare<[string], string>('SELECT body FROM workflows WHERE hash = ?').pluck(),
    hasWorkflow: db.prepare<[string], number>('SELECT 1 FROM workflows WHERE hash = ?').pluck(),
    hasRun: db.prepare<[string], number>('SELECT 1 FROM runs WHERE run_id = ?').pluck(),
    getRecord: db.prepare<[string], string>('SELECT record FROM runs WHERE run_id = ?').pluck(),
    getVersion: db.prepare<[string], number>('SELECT version FROM runs WHERE run_id = ?').pluck(),
    insertRun: db.prepare(
      `INSERT INTO runs (run_id, workflow, workflow_hash, file, workspace, status, seq, record, created_at, updated_at)
       VALUES (@runId, @workflow, @workflowHash, @file, @workspace, @status, @seq, @record, @createdAt, @updatedAt)`,
    ),
    updateRun: db.prepare(
      `UPDATE runs SET workflow = @workflow, workflow_hash = @workflowHash, file = @file, workspace = @workspace,
       status = @status, seq = @seq, record = @record, updated_at = @updatedAt, version = version + 1 WHERE run_id = @runId`,
    ),
    nextEventIndex: db.prepare<[string], number>('SELECT COALESCE(MAX(idx) + 1, 0) FROM events WHERE run_id = ?').pluck(),
    insertEvent: db.prepare<[string, number, number | null, string | null, string | null, string | null, string]>(
      'INSERT INTO events (run_id, idx, seq, at, type, node_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    events: db.prepare<[string, number], string>('SELECT body FROM events WHERE run_id = ? AND idx >= ? ORDER BY idx').pluck(),
    listAll: db.prepare<[], SummaryRow>(
      // Runs created in the same millisecond: the later insert (higher rowid) is the newer.
      `SELECT ${SUMMARY} FROM runs ORDER BY created_at DESC, rowid DESC`,
    ),
    // The runs whose column or whose record has the status: a run the column moved to another status is reported, never left out.
    // So is one whose record is no JSON, under any status: it may have any.
    listByStatus: db.prepare<[{ status: string }], SummaryRow>(
      `SELECT ${SUMMARY} FROM runs WHERE status = @status OR CASE WHEN json_valid(record) THEN record ->> '$.status' = @status ELSE 1 END ORDER BY created_at DESC, rowid DESC`,
    ),
  }));

  /** How a listed row's columns disagree with its record (read here, for that one row). */
  function disagreement(row: SummaryRow): string {
    let record: unknown;
    try {
      record = JSON.parse(guard('list runs', () => sql.getRecord.get(row.run_id)) ?? 'null');
    } catch (err) {
      // SQLite took it for no JSON too (it listed the row as disagreeing for that): said so, as a read of the run says it.
      if (err instanceof CountersignError) throw err;
      return `says status ${JSON.stringify(row.status)}, and its record is not valid JSON (${(err as Error).message})`;
    }
    const own = record !== null && typeof record === 'object' && !Array.isArray(record) ? (record as Record<string, unknown>) : {};
    const [column, field] = SUMMARY_FIELDS.find(([c, f]) => own[f] !== row[c]) ?? SUMMARY_FIELDS[0];
    return `says ${column} ${JSON.stringify(row[column])}, and its record ${own[field] === undefined ? `has no ${field}` : `says ${JSON.stringify(own[field])}`}`;
  }

  const workflowCache = new Map<string, Workflow>();
  const ledger = prepared(db, file, () => createSqliteLedger(db, file));

  function recordRow(record: RunRecord) {
    return {
      runId: record.runId,
      workflow: record.workflow,
      workflowHash: record.workflowHash,
      file: record.file ?? null,
      workspace: record.workspace,
      status: record.status,
      seq: record.seq,
      record: JSON.stringify(record),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  function appendEvents(runId: string, events: JournalEvent[]): void {
    let idx = sql.nextEventIndex.get(runId) ?? 0;
    for (const e of events) {
      sql.insertEvent.run(runId, idx++, e.seq ?? null, e.at ?? null, e.type ?? null, e.nodeId ?? null, JSON.stringify(e));
    }
  }

  const recordCache = new Map<string, { version: number; record: RunRecord }>();

  function remember(runId: string, version: number, record: RunRecord): void {
    recordCache.delete(runId);
    if (recordCache.size >= RECORD_CACHE_SIZE) recordCache.delete(recordCache.keys().next().value!);
    recordCache.set(runId, { version, record });
  }

  /** The run's record and row version; records are shared, never mutated (see Store). */
  function readRecord(runId: string): { version: number; record: RunRecord } | undefined {
    const version = sql.getVersion.get(runId);
    if (version === undefined) return undefined;
    const hit = recordCache.get(runId);
    if (hit && hit.version === version) return hit;
    const raw = sql.getRecord.get(runId)!;
    // Cached and handed on (pending items reach hosts): read-only.
    const record = deepFreeze(parseRow<RunRecord>(raw, `the stored record of run "${runId}"`, file, (v) => recordProblem(v, runId)));
    remember(runId, version, record);
    return { version, record };
  }

  const createTx = db.transaction((record: RunRecord, events: JournalEvent[], rows: readonly LedgerRow[] | undefined) => {
    if (sql.hasRun.get(record.runId) !== undefined) throw duplicateRun(record.runId, resolve(file));
    if (sql.hasWorkflow.get(record.workflowHash) === undefined) throw unknownWorkflowHash(record.runId, record.workflowHash, resolve(file));
    sql.insertRun.run(recordRow(record));
    appendEvents(record.runId, events);
    if (rows && rows.length > 0) ledger.append(rows, record.runId);
  });

  const appendTx = db.transaction((rows: readonly LedgerRow[]) => ledger.append(rows));

  // Read, decide and write under one write lock: a second process waits (busy_timeout) and then sees this result.
  const updateTx = db.transaction((runId: string, mutate: Mutate): { result: unknown; written?: { version: number; record: RunRecord } } => {
    const current = readRecord(runId);
    if (!current) throw runNotFound(runId);
    const { record, events, rows, result } = checkMutation(mutate(current.record), runId, current.record);
    if (record) sql.updateRun.run({ ...recordRow(record), runId });
    if (events && events.length > 0) appendEvents(runId, events);
    if (rows && rows.length > 0) ledger.append(rows, runId);
    return { result, written: record ? { version: current.version + 1, record } : undefined };
  });

  /**
   * A closed store stays closed, and so does every engine made with it: the
   * fix is a store opened again on the same directory, in a new engine.
   */
  function mustBeOpen(what: string): void {
    if (!db.open) {
      throw new CountersignError('E_STORE', `cannot ${what}: the store ${file} is closed`, {
        file,
        fix: `keep the store open while its engine is in use (close it last); to go on, open it again with createSqliteStore(${JSON.stringify(resolve(dir))}) and pass that store to a new createEngine({ store }): an engine keeps the store it was created with`,
      });
    }
  }

  function guard<T>(what: string, fn: () => T): T {
    mustBeOpen(what);
    try {
      return fn();
    } catch (err) {
      if (err instanceof Database.SqliteError) {
        throw new CountersignError('E_STORE', `cannot ${what} in ${file}: ${err.message}${damaged(err.code) ? ': the store is damaged' : ''}`, {
          file,
          cause: err,
          fix: failureFix(err.code, file),
        });
      }
      throw err;
    }
  }

  return {
    location: resolve(dir),
    file: resolve(file),
    putWorkflow(hash, workflow) {
      mustBeOpen('store a workflow copy');
      checkWorkflowHash(hash, 'putWorkflow');
      const text = givenCopyText(hash, workflow);
      guard('store a workflow copy', () => {
        const stored = sql.getWorkflow.get(hash);
        // The copy a run keeps never changes: the same copy again is nothing to do, a damaged one is put back, another is refused.
        if (stored !== undefined && sameCopy(hash, stored, text) === 'keep') return;
        sql.putWorkflow.run(hash, text);
      });
      workflowCache.delete(hash);
    },

    getWorkflow(hash, runId) {
      mustBeOpen('read a workflow copy');
      checkWorkflowHash(hash, 'getWorkflow');
      if (runId !== undefined) checkStoreRunId(runId, 'getWorkflow');
      checkAskedHash(hash, runId);
      const cached = workflowCache.get(hash);
      if (cached) return cached;
      const body = guard('read a workflow copy', () => sql.getWorkflow.get(hash));
      if (body === undefined) throw workflowNotFound(hash, runId, resolve(file));
      // Frozen, as run records are: the cached copy is shared by every read, and an edit to one would change the stored copy's hash.
      const workflow = deepFreeze(parseRow<Workflow>(body, `${runId ? `run ${runId}: ` : ''}the stored workflow copy ${hash}`, file, workflowProblem));
      if (workflowCache.size >= WORKFLOW_CACHE_SIZE) workflowCache.delete(workflowCache.keys().next().value!);
      workflowCache.set(hash, workflow);
      return workflow;
    },

    create(record, events, rows) {
      mustBeOpen('create a run');
      const { record: kept, events: firstEvents } = checkCreate(record, events, rows);
      guard(`create run "${kept.runId}"`, () => createTx.immediate(kept, firstEvents, rows));
    },

    get(runId) {
      mustBeOpen('read a run');
      checkStoreRunId(runId, 'get');
      return guard(`read run "${runId}"`, () => readRecord(runId)?.record);
    },

    update<T>(runId: string, mutate: (current: RunRecord) => Mutation<T>): T {
      mustBeOpen('update a run');
      checkStoreRunId(runId, 'update');
      checkMutate(mutate);
      const { result, written } = guard(`update run "${runId}"`, () => updateTx.immediate(runId, mutate));
      // Only a committed write may be served from the cache.
      if (written) remember(runId, written.version, written.record);
      return result as T;
    },

    list(filter?: { status?: RunStatus }): RunSummary[] {
      mustBeOpen('list runs');
      const status = listedStatus(filter);
      const rows = guard('list runs', () => (status !== undefined ? sql.listByStatus.all({ status }) : sql.listAll.all()));
      return rows.map((r) => {
        const why = summaryProblem(r) ?? (r.disagrees ? disagreement(r) : undefined);
        if (why !== undefined) {
          throw new CountersignError('E_STORE', `the summary row of run "${String(r.run_id)}" in ${file} ${why}: the store is damaged`, {
            file,
            fix: 'the database row is damaged; restore countersign.db from a backup, or move the store aside and start again',
          });
        }
        return { runId: r.run_id, workflow: r.workflow, status: r.status, createdAt: r.created_at, updatedAt: r.updated_at };
      });
    },

    events(runId, from = 0) {
      mustBeOpen('read a journal');
      checkStoreRunId(runId, 'events');
      checkEventIndex(from);
      return guard(`read the journal of run "${runId}"`, () => {
        const bodies = sql.events.all(runId, from);
        if (bodies.length === 0 && sql.hasRun.get(runId) === undefined) throw runNotFound(runId);
        return bodies.map((b, i) => parseRow<JournalEvent>(b, `event ${from + i} of run "${runId}"`, file, eventProblem));
      });
    },

    eventCount(runId) {
      mustBeOpen('read a journal');
      checkStoreRunId(runId, 'eventCount');
      return guard(`read the journal of run "${runId}"`, () => {
        if (sql.hasRun.get(runId) === undefined) throw runNotFound(runId);
        return sql.nextEventIndex.get(runId) ?? 0;
      });
    },

    appendRows(rows) {
      guard('append ledger rows', () => appendTx.immediate(rows));
    },

    rows(table: string, query?: LedgerQuery): LedgerRow[] {
      return guard(`read ledger table ${table}`, () => ledger.rows(table, query));
    },

    close() {
      if (db.open) db.close();
      workflowCache.clear();
      recordCache.clear();
    },
  };
}

/**
 * Statements prepared against the store's tables: a database whose tables
 * or columns are not a countersign store's (damaged, or another program's
 * file at that name) is E_STORE naming the file, not a crash.
 */
function prepared<T>(db: Database.Database, file: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    db.close();
    throw new CountersignError('E_STORE', `the store ${file} does not have a countersign store's tables (${(err as Error).message})`, {
      file,
      cause: err,
      fix: 'restore countersign.db from a backup, or move the store aside (or pass another directory with --store DIR) and start again',
    });
  }
}

/** A damaged row (not JSON, or not the shape its table holds) is a store fault naming what it belongs to, never a crash. */
function parseRow<T>(text: string, what: string, file: string, problem: (value: unknown) => string | undefined): T {
  const damaged = (why: string) =>
    new CountersignError('E_STORE', `${what} in ${file} ${why}`, {
      file,
      fix: 'the database row is damaged; restore countersign.db from a backup, or move the store aside and start the run again',
    });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw damaged(`is not valid JSON (${(err as Error).message})`);
  }
  const why = problem(value);
  if (why !== undefined) throw damaged(why);
  return value as T;
}

/** A file SQLite reads as damaged (a page overwritten, cut short): found at open (open-failure.ts) or only when a read reaches it. */
const damaged = (code: string): boolean => /^SQLITE_(CORRUPT|NOTADB)/.test(code);

/** What to do about a SQLite error met once the store is open, by its code: never the writable-disk check for a damaged file. */
function failureFix(code: string, file: string): string {
  if (code.startsWith('SQLITE_BUSY')) return 'another process held the store for over 5 s; retry the command';
  if (damaged(code)) return `the file is damaged: restore ${file} from a backup, or move the store aside and start again (pass another directory with --store DIR)`;
  if (code.startsWith('SQLITE_FULL')) return 'free space on the disk that holds the store, then retry: a step is one transaction, so the runs are as they were';
  if (code.startsWith('SQLITE_READONLY')) return `give this user write access to ${file} (and the -wal and -shm files beside it), or copy the store to a directory it may write and pass it with --store DIR`;
  return 'check that the store directory is writable and the disk is not full';
}
