/**
 * The SQLite store's tables and how a database file is opened: pragmas for
 * WAL and a 5 s busy wait, then a migration to SCHEMA_VERSION that runs
 * under the write lock, so concurrent first opens create the tables once.
 * What may sit where the database file should be (a directory, a broken
 * link) is checked first, in store-file-kind.ts.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { CountersignError } from '../errors.js';
import { openFailure } from './open-failure.js';
import { refuseNonFile } from './store-file-kind.js';

/**
 * Bumped whenever the tables, or what a stored record means, change; a
 * newer database is refused, not misread. 4: run snapshots may keep the
 * latest node answers in `recent` (format/node-answers.ts), which a
 * version 3 reader would not see; the tables are those of version 3.
 */
export const SCHEMA_VERSION = 4;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS workflows (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    workflow TEXT,
    workflow_hash TEXT REFERENCES workflows(hash),
    file TEXT,
    workspace TEXT,
    status TEXT,
    seq INTEGER,
    record TEXT NOT NULL,
    created_at TEXT,
    updated_at TEXT,
    version INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS runs_newest ON runs (created_at DESC, run_id DESC);
  CREATE INDEX IF NOT EXISTS runs_status_newest ON runs (status, created_at DESC, run_id DESC);
  CREATE TABLE IF NOT EXISTS events (
    run_id TEXT,
    idx INTEGER,
    seq INTEGER,
    at TEXT,
    type TEXT,
    node_id TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
  );
  -- Version 3: the append-only ledger (audit trail). seq is the insertion order:
  -- an implicit rowid may be renumbered by VACUUM, an explicit column is not.
  CREATE TABLE IF NOT EXISTS ledger (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    table_name TEXT NOT NULL,
    at TEXT NOT NULL,
    key TEXT,
    run_id TEXT,
    body TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ledger_table_at ON ledger (table_name, at, seq);
  CREATE INDEX IF NOT EXISTS ledger_table_key ON ledger (table_name, key, at, seq);
`;

let binding: string | object | undefined;
/**
 * The compiled SQLite addon, named directly: better-sqlite3 otherwise finds
 * it through the `bindings` package, which probes a dozen paths relative to
 * its caller on every process start (and, in the CLI bundle, that caller is
 * the bundle, not better-sqlite3). When the addon is not where an npm
 * install puts it, `bindings` searches better-sqlite3's own folder for it.
 */
function nativeBinding(): string | object {
  if (binding === undefined) {
    const here = createRequire(import.meta.url);
    try {
      binding = here.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      const manifest = here.resolve('better-sqlite3/package.json');
      const bindings = createRequire(manifest)('bindings') as (options: { bindings: string; module_root: string }) => object;
      binding = bindings({ bindings: 'better_sqlite3.node', module_root: dirname(manifest) });
    }
  }
  return binding;
}

export function openDatabase(file: string): Database.Database {
  refuseNonFile(file);
  // A database file this user may only read would be opened read-only without a word, and every write refused later with a wrong fix.
  if (existsSync(file)) {
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      // Not only access rights: a read-only file system (EROFS) fails this check too, and needs another fix.
      throw openFailure(file, err);
    }
  }
  let db: Database.Database | undefined;
  try {
    // better-sqlite3 takes the loaded addon as well as its path; its types name only the path.
    db = new Database(file, { timeout: 5000, nativeBinding: nativeBinding() as string });
    db.pragma('busy_timeout = 5000');
    const opened = db;
    // Another program's database is refused before anything is written to it (not even WAL mode).
    whileBusy(() => refuseForeign(opened, file));
    // Two processes opening a new store at once (two MCP servers, two
    // starts): switching to WAL and creating the tables need the file to
    // themselves, and SQLite answers "database is locked" at once instead of
    // waiting. Tried again until the other has finished.
    whileBusy(() => opened.pragma('journal_mode = WAL'));
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    whileBusy(() => migrate(opened, file));
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof CountersignError) throw err;
    // The native addon itself (missing, or built for another Node): an install to repair, not a store.
    if (/better_sqlite3\.node|NODE_MODULE_VERSION|bindings file|Cannot find module/.test((err as Error).message)) {
      throw new CountersignError('E_INSTALL', `the SQLite addon (better-sqlite3) cannot be loaded: ${(err as Error).message.split('\n')[0]}`, {
        cause: err,
        fix: 'rebuild it for this Node: run `npm rebuild better-sqlite3` (or `npm ci`) in the countersign package',
      });
    }
    throw openFailure(file, err);
  }
}

/** Runs `fn` again while SQLite reports the file busy, for up to five seconds. */
function whileBusy<T>(fn: () => T): T {
  const until = Date.now() + 5000;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      const busy = err instanceof Database.SqliteError && (err.code.startsWith('SQLITE_BUSY') || err.code.startsWith('SQLITE_LOCKED'));
      if (!busy || Date.now() > until) throw err;
      // A synchronous pause: opening a store is synchronous, and this is rare.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

/** The tables every countersign store has had since version 1, and those it may hold up to SCHEMA_VERSION. */
const CORE_TABLES = ['workflows', 'runs', 'events'];
const OWN_TABLES = new Set([...CORE_TABLES, 'ledger']);
/** The columns each table has had in every version: a table of that name without them is someone else's. */
const CORE_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  runs: ['run_id', 'record', 'created_at'],
  events: ['run_id', 'idx', 'body'],
  workflows: ['hash', 'body'],
  ledger: ['id', 'seq', 'table_name', 'body'],
};

/**
 * Why the file is someone else's database, or undefined when it is a
 * countersign store (or empty). At user_version 0, any table at all:
 * countersign creates its tables and sets the version in one transaction,
 * so a store of its own is never at version 0 with tables in it. At any
 * other version (another program may use user_version for its own
 * numbering): a `runs` table must be there, every table named like one of
 * countersign's must have its columns, and, up to the version this build
 * writes, no table it never creates may be there.
 */
function foreignReason(version: number, applicationId: number, tables: string[], columnsOf: (table: string) => string[]): { foreign: boolean; why: string } | undefined {
  const foreign = (why: string) => ({ foreign: true, why });
  // SQLite's own mark of a file format: countersign never sets one.
  if (applicationId !== 0) return foreign(`application_id ${applicationId}, which countersign never sets`);
  if (tables.length === 0) {
    // A new file. Countersign sets its version in the transaction that creates its tables, so a numbered file without them is not its own.
    return version === 0 ? undefined : foreign(`user_version ${version} and no tables, while countersign numbers a store only with its tables`);
  }
  const listed = `tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''}`;
  if (version === 0) return foreign(listed);
  if (!tables.includes('runs')) return foreign(`${listed}; no runs table, which every countersign store has`);
  for (const [table, core] of Object.entries(CORE_COLUMNS)) {
    if (!tables.includes(table)) continue;
    const columns = columnsOf(table);
    const lacking = core.filter((c) => !columns.includes(c));
    if (lacking.length > 0) return foreign(`its ${table} table has no ${lacking.join(', ')} column`);
  }
  const unknown = version <= SCHEMA_VERSION ? tables.filter((t) => !OWN_TABLES.has(t)) : [];
  if (unknown.length > 0) return foreign(`${listed}; countersign never creates ${unknown.slice(0, 5).join(', ')}`);
  // Countersign's own file with a part missing: damaged, and left as it is for a restore.
  const missing = CORE_TABLES.filter((t) => !tables.includes(t));
  if (missing.length > 0) return { foreign: false, why: `it has no ${missing.join(', ')} table` };
  if (version >= 2 && !columnsOf('runs').includes('version')) return { foreign: false, why: 'its runs table has no version column, which a version 2 or later store has' };
  return undefined;
}

/**
 * Another program's file, or a store from a newer countersign, is refused
 * before anything is written to it (not even WAL mode switched on).
 */
function refuseForeign(db: Database.Database, file: string): void {
  // All reads in one read transaction: another process may finish setting
  // up this very store between two separate reads, and its tables would
  // then be seen without the version it set with them.
  const { reason, version } = db.transaction(() => {
    const v = db.pragma('user_version', { simple: true }) as number;
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").pluck().all() as string[];
    const columnsOf = (table: string) => db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
    return { reason: foreignReason(v, applicationId, tables, columnsOf), version: v };
  })();
  if (reason?.foreign) {
    throw new CountersignError('E_STORE', `${file} is another program's SQLite database (${reason.why}), not a countersign store: it was left as it is`, {
      file,
      fix: 'pass another directory with --store DIR (or COUNTERSIGN_STORE) for countersign\'s store',
    });
  }
  // A newer countersign may lay its store out otherwise (a table renamed, one dropped): that is a store to upgrade for, never "damaged".
  refuseNewer(version, file);
  if (reason) {
    throw new CountersignError('E_STORE', `the store ${file} is damaged (${reason.why}): it was left as it is`, {
      file,
      fix: 'restore countersign.db from a backup, or move the store aside and start again',
    });
  }
  refuseNewer(version, file);
}

function refuseNewer(version: number, file: string): void {
  if (version > SCHEMA_VERSION) {
    throw new CountersignError(
      'E_STORE',
      `the store ${file} has schema version ${version}, newer than this countersign reads (${SCHEMA_VERSION}): it was left as it is`,
      { file, fix: 'upgrade countersign, or pass another directory with --store DIR' },
    );
  }
}

function migrate(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  refuseNewer(version, file);
  if (version === SCHEMA_VERSION) return;
  // Another process may be creating the tables at the same moment: decide again under the write lock.
  db.transaction(() => {
    const locked = db.pragma('user_version', { simple: true }) as number;
    refuseNewer(locked, file);
    if (locked === SCHEMA_VERSION) return;
    // Version 1 stores lack the row version that record caching relies on.
    if (locked === 1) db.exec('ALTER TABLE runs ADD COLUMN version INTEGER NOT NULL DEFAULT 0');
    // Every table is CREATE … IF NOT EXISTS: a version 1 or 2 store gains the ledger and keeps its runs.
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
