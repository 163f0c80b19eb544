/**
 * What only the SQLite store promises: runs survive the process, two
 * processes stepping one run are serialised, and a damaged or foreign
 * database is a clear E_STORE, never a crash.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, hashWorkflow } from '../../engine/run/hash.js';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isCountersignError } from '../../engine/errors.js';
import type { Workflow } from '../../engine/format/model.js';
import { createSqliteStore, SCHEMA_VERSION } from '../../engine/store/sqlite.js';
import { createEngine } from '../../engine/index.js';
import { readFileSync, realpathSync } from 'node:fs';

const TWO = JSON.parse(readFileSync(join(fileURLToPath(new URL('../../', import.meta.url)), 'spec/fixtures/cli/two-step.json'), 'utf8'));
import type { RunRecord } from '../../engine/store/store.js';
import { CONTEXT } from '../helpers/run-context.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SQLITE_MODULE = pathToFileURL(join(REPO, 'engine/store/sqlite.ts')).href;

const WORKFLOW: Workflow = {
  metadata: { name: 'loop', version: '1.0.0', description: 'a test workflow' },
  nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'end' }],
};
/** Its own hash: a store keeps a copy only under that. */
const H1 = hashWorkflow(WORKFLOW);

/** A waiting record of run `runId` that keeps the run contract (a store refuses any other from a host). */
function record(runId: string, seq = 1): RunRecord {
  return {
    runId,
    workflow: 'loop',
    workflowHash: H1,
    workspace: '/tmp/ws',
    status: 'waiting',
    snapshot: { value: 'work', context: CONTEXT },
    pending: { kind: 'directive', nodeId: 'work', directive: 'Do it', completionCondition: 'done', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3 },
    seq,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function catchError(fn: () => unknown): { code: string; message: string; fix?: string } {
  try {
    fn();
  } catch (err) {
    if (isCountersignError(err)) return err;
    return { code: `not a CountersignError: ${String(err)}`, message: '' };
  }
  return { code: 'no error', message: '' };
}

const test = suite<{ dir: string }>('sqlite store', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-sqlite-'));
});
test.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

test('the database is <dir>/countersign.db, in a directory created on demand', (c) => {
  const dir = join(c.dir, 'nested', 'store');
  createSqliteStore(dir).close();
  assert.ok(existsSync(join(dir, 'countersign.db')));
});

test('the database uses WAL, records the schema version, and keeps the run columns in step with the record', (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  store.create({ ...record('r1'), file: 'loop.json' }, [{ seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'directive.issued', nodeId: 'work' }]);
  store.update('r1', (cur) => ({ record: { ...cur, seq: 4, status: 'completed', endNodeId: 'end', output: {} }, events: [{ seq: 4, at: '2024-01-02T00:00:00.000Z', type: 'run.completed', nodeId: 'end' }], result: null }));
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'), { readonly: true });
  assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.is(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  const row = db.prepare('SELECT workflow, workflow_hash, file, workspace, status, seq, created_at FROM runs').get();
  assert.equal(row, {
    workflow: 'loop',
    workflow_hash: H1,
    file: 'loop.json',
    workspace: '/tmp/ws',
    status: 'completed',
    seq: 4,
    created_at: '2024-01-01T00:00:00.000Z',
  });
  assert.equal(db.prepare('SELECT run_id, idx, seq, type, node_id FROM events').all(), [
    { run_id: 'r1', idx: 0, seq: 1, type: 'directive.issued', node_id: 'work' },
    { run_id: 'r1', idx: 1, seq: 4, type: 'run.completed', node_id: 'end' },
  ]);
  db.close();
});

test('r105 d1: a store damaged inside its pages, found only when a read reaches them, is E_STORE saying it is damaged with the restore fix (never the writable-disk check)', async (c) => {
  const wf = JSON.parse(readFileSync(join(fileURLToPath(new URL('../../', import.meta.url)), 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;
  let store = createSqliteStore(c.dir);
  const { runId } = await createEngine({ store }).start(wf);
  store.close();
  // Page 3 holds the runs table: overwritten, the file still opens, and a read of a run reaches the damage.
  const db = join(c.dir, 'countersign.db');
  const fd = openSync(db, 'r+');
  writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 4096 * 3);
  closeSync(fd);
  store = createSqliteStore(c.dir);
  try {
    for (const read of [() => store.get(runId), () => store.list()]) {
      let e: unknown;
      try {
        read();
      } catch (err) {
        e = err;
      }
      assert.ok(isCountersignError(e), String(e));
      assert.is(e.code, 'E_STORE');
      assert.match(e.message, 'the store is damaged');
      assert.match(e.fix ?? '', `restore ${db} from a backup`);
      assert.not.match(e.fix ?? '', 'writable');
    }
  } finally {
    store.close();
  }
});

test('runs, journals and workflow copies survive closing and reopening the store', (c) => {
  const first = createSqliteStore(c.dir);
  first.putWorkflow(H1, WORKFLOW);
  first.create(record('r1'), [{ seq: 0, at: '2024-01-01T00:00:00.000Z', type: 'run.started' }]);
  first.update('r1', (cur) => ({ record: { ...cur, seq: 1 }, events: [{ seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'directive.issued' }], result: null }));
  first.close();

  const second = createSqliteStore(c.dir);
  assert.is(second.get('r1')!.seq, 1);
  assert.equal(second.getWorkflow(H1), WORKFLOW);
  assert.equal(second.events('r1').map((e) => e.type), ['run.started', 'directive.issued']);
  assert.equal(second.list().map((r) => r.runId), ['r1']);
  second.close();
});

test('a database from a newer countersign is refused with E_STORE and a fix', (c) => {
  createSqliteStore(c.dir).close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  const err = catchError(() => createSqliteStore(c.dir));
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, 'newer');
  assert.match(err.fix ?? '', 'upgrade countersign');
});

test('another program\'s SQLite database in the store\'s place is E_STORE and left exactly as it was (no tables added, no WAL), also when its tables have a store table\'s name', (c) => {
  for (const [table, ddl] of [['foo', 'CREATE TABLE foo (x); INSERT INTO foo VALUES (1)'], ['events', 'CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT, happened_at TEXT); INSERT INTO events (name) VALUES (\'signup\')']]) {
    const dir = join(c.dir, table);
    mkdirSync(dir);
    const file = join(dir, 'countersign.db');
    const other = new Database(file);
    other.exec(ddl);
    other.close();
    const err = catchError(() => createSqliteStore(dir));
    assert.is(err.code, 'E_STORE');
    assert.match(err.message, `is another program's SQLite database (tables ${table})`);
    const check = new Database(file, { readonly: true });
    assert.equal(check.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')").pluck().all(), [table], 'nothing added');
    assert.is(check.pragma('journal_mode', { simple: true }), 'delete');
    assert.is(check.pragma('user_version', { simple: true }), 0);
    assert.is(check.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), 1);
    check.close();
  }
});

test('another program\'s database that numbers its own user_version (1, 2, 9) is refused as such, never migrated into nor switched to WAL, whatever its tables are called', (c) => {
  const cases: Array<[number, string, string, string]> = [
    [2, 'customers', 'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES (\'ada\')', 'no runs table, which every countersign store has'],
    [9, 'customers', 'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES (\'ada\')', 'no runs table, which every countersign store has'],
    // Named like a store's own table, at a version countersign reads or a newer one: still someone else's.
    [2, 'events', 'CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO events (name) VALUES (\'signup\')', 'no runs table'],
    [12, 'events', 'CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO events (name) VALUES (\'signup\')', 'no runs table'],
    [3, 'events', `${['runs (run_id TEXT, record TEXT, created_at TEXT)', 'events (id INTEGER, name TEXT)'].map((t) => `CREATE TABLE ${t};`).join(' ')} INSERT INTO events VALUES (1, 'x')`, 'its events table has no run_id, idx, body column'],
    [1, 'runs', 'CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO runs (name) VALUES (\'5k\')', 'its runs table has no run_id, record, created_at column'],
    [3, 'runs', `${['workflows (hash TEXT, body TEXT)', 'runs (run_id TEXT, record TEXT, created_at TEXT)', 'events (run_id TEXT, idx INTEGER, body TEXT)', 'invoices (id INTEGER)'].map((t) => `CREATE TABLE ${t};`).join(' ')} INSERT INTO runs VALUES ('r', '{}', 'now')`, 'countersign never creates invoices'],
  ];
  for (const [version, table, ddl, why] of cases) {
    const dir = join(c.dir, `v${version}-${table}-${why.length}`);
    mkdirSync(dir);
    const file = join(dir, 'countersign.db');
    const other = new Database(file);
    other.exec(ddl);
    other.pragma(`user_version = ${version}`);
    const before = other.prepare("SELECT name FROM sqlite_master ORDER BY name").pluck().all();
    other.close();
    const err = catchError(() => createSqliteStore(dir));
    assert.is(err.code, 'E_STORE', `v${version}`);
    assert.match(err.message, 'is another program\'s SQLite database');
    assert.match(err.message, why);
    assert.not.match(err.fix ?? '', 'upgrade countersign');
    const check = new Database(file, { readonly: true });
    assert.equal(check.prepare("SELECT name FROM sqlite_master ORDER BY name").pluck().all(), before, 'nothing added');
    assert.is(check.pragma('journal_mode', { simple: true }), 'delete');
    assert.is(check.pragma('user_version', { simple: true }), version);
    assert.is(check.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), 1);
    check.close();
  }
});

test('r112 d1: another program\'s SQLite file with no tables yet but its own user_version or application_id is refused, left byte for byte as it was; an empty file at version 0 becomes a store', (c) => {
  for (const [pragma, why] of [['user_version = 2', 'user_version 2 and no tables'], ['application_id = 12345', 'application_id 12345, which countersign never sets'], ['user_version = 9', 'user_version 9 and no tables']]) {
    const dir = join(c.dir, pragma.replace(/\W+/g, '-'));
    mkdirSync(dir);
    const file = join(dir, 'countersign.db');
    const other = new Database(file);
    other.pragma(pragma);
    other.close();
    const before = readFileSync(file);
    const err = catchError(() => createSqliteStore(dir));
    assert.is(err.code, 'E_STORE', pragma);
    assert.match(err.message, `is another program's SQLite database (${why}`);
    assert.match(err.fix ?? '', '--store DIR');
    assert.ok(readFileSync(file).equals(before), `${pragma}: the file is unchanged`);
    assert.not.ok(existsSync(`${file}-wal`), 'no WAL switched on');
  }
  const dir = join(c.dir, 'blank');
  mkdirSync(dir);
  new Database(join(dir, 'countersign.db')).close();
  const store = createSqliteStore(dir);
  assert.equal(store.list(), []);
  store.close?.();
});

test('a file that is not a SQLite database is E_STORE naming it', (c) => {
  writeFileSync(join(c.dir, 'countersign.db'), 'this is not a database, just text that is long enough to matter\n'.repeat(20));
  const err = catchError(() => createSqliteStore(c.dir));
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, 'countersign.db');
});

test('r79 d8: a record row that is not JSON is E_STORE naming the run on get, update and list (runs, under any status: never listed as the waiting its column says), with countersign.db and the restore fix; the other runs still read', (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  store.create(record('broken'), []);
  store.create(record('fine'), []);
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare("UPDATE runs SET record = '{\"runId\": \"broken\", ' WHERE run_id = 'broken'").run();
  db.close();

  const onGet = catchError(() => store.get('broken'));
  assert.is(onGet.code, 'E_STORE');
  assert.match(onGet.message, '"broken"');
  const onUpdate = catchError(() => store.update('broken', (cur) => ({ record: cur, result: null })));
  assert.is(onUpdate.code, 'E_STORE');
  assert.is(store.get('fine')!.runId, 'fine');
  for (const filter of [undefined, { status: 'waiting' as const }, { status: 'completed' as const }, { status: 'failed' as const }]) {
    const onList = catchError(() => store.list(filter));
    assert.is(onList.code, 'E_STORE', JSON.stringify(filter));
    assert.match(onList.message, /^the summary row of run "broken" in .*countersign\.db says status "waiting", and its record is not valid JSON/);
    assert.match(onList.fix ?? '', /restore countersign\.db from a backup/);
  }
  // The other runs still read, one by one (status, trace): only the damaged row is refused.
  assert.is(store.get('fine')!.status, 'waiting');
  store.close();
});

test('a row that is valid JSON but not what its table holds (a record without status, another run\'s record, a workflow without nodes, an event without type) is E_STORE naming it, never a TypeError', (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  for (const id of ['shapeless', 'other', 'fine']) store.create(record(id), [{ seq: 0, at: '2026-01-01T00:00:00.000Z', type: 'run.started' } as never]);
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify({ runId: 'shapeless' }), 'shapeless');
  db.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify({ ...record('fine'), runId: 'fine' }).replace('"fine"', '"elsewhere"'), 'other');
  db.prepare("UPDATE events SET body = '{\"seq\": 0}' WHERE run_id = 'fine'").run();
  db.close();
  const shapeless = catchError(() => store.get('shapeless'));
  assert.is(shapeless.code, 'E_STORE');
  assert.match(shapeless.message, /the stored record of run "shapeless" in .*countersign\.db has status undefined/);
  assert.match(shapeless.fix ?? '', /restore countersign\.db from a backup/);
  assert.match(catchError(() => store.get('other')).message, /names run "elsewhere", not "other"/);
  assert.match(catchError(() => store.events('fine')).message, /event 0 of run "fine" .* has no type/);
  assert.is(store.get('fine')!.runId, 'fine', 'the other runs still read');
  store.close();
  const c2 = createSqliteStore(c.dir);
  const db2 = new Database(join(c.dir, 'countersign.db'));
  db2.prepare("UPDATE workflows SET body = '{\"metadata\": {}}' WHERE hash = ?").run(H1);
  db2.close();
  assert.match(catchError(() => c2.getWorkflow(H1)).message, new RegExp(`the stored workflow copy ${H1} .* has no nodes list`));
  c2.close();
});

test('a waiting record whose pending item is missing, not an object, or for another node than the run rests at is E_STORE on every read (status and step alike)', (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  for (const id of ['string', 'missing', 'elsewhere', 'fine']) store.create(record(id), []);
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare(`UPDATE runs SET record = json_set(record, '$.pending', 'x'), version = version + 1 WHERE run_id = 'string'`).run();
  db.prepare(`UPDATE runs SET record = json_remove(record, '$.pending'), version = version + 1 WHERE run_id = 'missing'`).run();
  db.prepare(`UPDATE runs SET record = json_set(record, '$.pending.nodeId', 'zzz'), version = version + 1 WHERE run_id = 'elsewhere'`).run();
  db.close();
  for (const id of ['string', 'missing']) {
    const onGet = catchError(() => store.get(id));
    assert.is(onGet.code, 'E_STORE', id);
    assert.match(onGet.message, id === 'string' ? 'is waiting with the pending item "x", not an object' : 'is waiting without a pending item');
    assert.is(catchError(() => store.update(id, (cur) => ({ record: cur, result: null }))).code, 'E_STORE');
  }
  assert.match(catchError(() => store.get('elsewhere')).message, /is waiting at node "work" with the pending item of node "zzz"/);
  assert.is(store.get('fine')!.runId, 'fine');
  store.close();
});

test('a store directory that is a dangling link is E_STORE saying it is a link to a missing directory', (c) => {
  const link = join(c.dir, 'store');
  symlinkSync(join(c.dir, 'gone'), link);
  const err = catchError(() => createSqliteStore(link));
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, `${link} exists but is not a directory (a link to ${join(c.dir, 'gone')}, which does not exist`);
});

test('a damaged summary column (runs.status NULL) is E_STORE naming the run when runs are listed, never a crash or a null status', (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  store.create(record('broken'), []);
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare("UPDATE runs SET status = NULL WHERE run_id = 'broken'").run();
  db.close();
  const err = catchError(() => store.list());
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, /the summary row of run "broken" in .*countersign\.db has status null/);
  assert.match(err.fix ?? '', /restore countersign\.db from a backup/);
  store.close();
});

test('r78 d7: a runs row whose summary columns disagree with its record (status, workflow, times) is E_STORE naming the run and countersign.db when runs are listed, under every status filter: never listed as the column says', async (c) => {
  const store = createSqliteStore(c.dir);
  const engine = createEngine({ store });
  const moved = await engine.start(TWO);
  const renamed = await engine.start(TWO);
  const fine = await engine.start(TWO);
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare("UPDATE runs SET status = 'completed' WHERE run_id = ?").run(moved.runId);
  db.close();
  const again = createSqliteStore(c.dir);
  const fresh = createEngine({ store: again });
  assert.is((await fresh.status(moved.runId)).status, 'waiting', 'the record says waiting');
  const dbFile = join(realpathSync(c.dir), 'countersign.db');
  // The column moved the run to "completed": listed under neither status as the column says, nor left out of "waiting".
  for (const filter of [undefined, { status: 'completed' as const }, { status: 'waiting' as const }]) {
    const e = await fresh.runs(filter).then(() => undefined, (err) => err);
    assert.is(e?.code, 'E_STORE', JSON.stringify(filter));
    assert.match(e.message, `the summary row of run "${moved.runId}" in `);
    assert.match(e.message, 'countersign.db says status "completed", and its record says "waiting": the store is damaged');
    assert.is(realpathSync(e.file), dbFile);
    assert.match(e.fix, 'restore countersign.db from a backup');
  }
  assert.equal(await fresh.runs({ status: 'failed' }), [], 'a filter neither the column nor the record names lists nothing');
  again.close();
  const db2 = new Database(join(c.dir, 'countersign.db'));
  db2.prepare("UPDATE runs SET status = 'waiting' WHERE run_id = ?").run(moved.runId);
  db2.prepare("UPDATE runs SET workflow = 'other' WHERE run_id = ?").run(renamed.runId);
  db2.close();
  const third = createSqliteStore(c.dir);
  const e = await createEngine({ store: third }).runs().then(() => undefined, (err) => err);
  assert.is(e?.code, 'E_STORE');
  assert.match(e.message, `run "${renamed.runId}"`);
  assert.match(e.message, 'says workflow "other", and its record says "two-step"');
  third.close();
  const db3 = new Database(join(c.dir, 'countersign.db'));
  db3.prepare("UPDATE runs SET workflow = 'two-step' WHERE run_id = ?").run(renamed.runId);
  db3.close();
  const repaired = createSqliteStore(c.dir);
  assert.equal((await createEngine({ store: repaired }).runs()).map((r) => r.runId).sort(), [moved.runId, renamed.runId, fine.runId].sort(), 'once the row agrees again, every run is listed');
  repaired.close();
});

test('r78 d6: a run whose workflow copy is missing from the store (the workflows row deleted, or a record naming a hash no copy has) is E_STORE naming the run and countersign.db, with the restore fix', async (c) => {
  const store = createSqliteStore(c.dir);
  const engine = createEngine({ store });
  const deleted = await engine.start(TWO);
  const other = await engine.start({ ...TWO, metadata: { ...TWO.metadata, name: 'two-step-too' } });
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.pragma('foreign_keys = OFF'); // as the sqlite3 shell runs: `sqlite3 countersign.db 'delete from workflows'`
  const hash = db.prepare('SELECT workflow_hash FROM runs WHERE run_id = ?').pluck().get(deleted.runId) as string;
  db.prepare('DELETE FROM workflows WHERE hash = ?').run(hash);
  const unknown = 'f'.repeat(64);
  db.prepare(`UPDATE runs SET record = json_set(record, '$.workflowHash', ?), workflow_hash = ?, version = version + 1 WHERE run_id = ?`).run(unknown, unknown, other.runId);
  db.close();
  const again = createSqliteStore(c.dir);
  const fresh = createEngine({ store: again });
  const dbFile = join(realpathSync(c.dir), 'countersign.db');
  for (const [runId, missing] of [[deleted.runId, hash], [other.runId, unknown]]) {
    for (const call of [() => fresh.status(runId), () => fresh.submit(runId, { words: 3 }), () => fresh.info(runId)]) {
      const e = await call().then(() => undefined, (err) => err);
      assert.is(e?.code, 'E_STORE', String(e));
      assert.is(e.message, `run ${runId}: the workflow copy ${missing} it was started with is missing from ${dbFile}: the store is damaged`);
      assert.is(e.file, dbFile);
      assert.is(e.fix, `restore ${dbFile} from a backup, or move the store aside and start the run again from its workflow file`);
    }
  }
  again.close();
});

test('r84: a start whose newRunId repeats a stored run id is E_STORE naming the run and countersign.db in its message and file; the first run is kept', async (c) => {
  const store = createSqliteStore(c.dir);
  const engine = createEngine({ store, newRunId: () => 'run-1' });
  await engine.start(TWO);
  const e = await engine.start(TWO).then(() => undefined, (err) => err);
  assert.is(e?.code, 'E_STORE', String(e));
  assert.is(e.message, `a run "run-1" already exists in ${store.file}`);
  assert.match(store.file!, /countersign\.db$/);
  assert.is(e.file, store.file);
  assert.match(e.fix, 'give each run a new id');
  assert.is((await engine.status('run-1')).seq, 1, 'the first run is as it was');
  store.close();
});

test('engine: a stored workflow copy that no longer matches its hash is E_STORE, a copy stored under the older sorted-key hash still runs, and damaged completed or waiting records are E_STORE naming the database file, never output {} or a crash', async (c) => {
  const store = createSqliteStore(c.dir);
  const engine = createEngine({ store });
  const damaged = await engine.start(TWO);
  const completed = await engine.start(TWO, { input: { topic: 'done' } });
  await engine.submit(completed.runId, { words: 3 });
  const waiting = await engine.start(TWO, { input: { topic: 'waits' } });
  const db = new Database(join(c.dir, 'countersign.db'));
  const hash = (db.prepare('SELECT workflow_hash AS h FROM runs WHERE run_id = ?').get(damaged.runId) as { h: string }).h;
  db.prepare(`UPDATE runs SET record = json_remove(record, '$.output'), version = version + 1 WHERE run_id = ?`).run(completed.runId);
  db.prepare(`UPDATE runs SET record = json_remove(record, '$.pending.directive'), version = version + 1 WHERE run_id = ?`).run(waiting.runId);
  db.prepare('UPDATE workflows SET body = ? WHERE hash = ?').run(JSON.stringify({ ...TWO, nodes: [{ type: 'start', id: 'start', connections: { default: 'write' } }, { type: 'agent-directive', id: 'write' }] }), hash);
  db.close();
  store.close();
  const again = createSqliteStore(c.dir);
  const fresh = createEngine({ store: again });
  const onStep = await fresh.submit(damaged.runId, { words: 3 }).then(() => undefined, (e) => e);
  assert.is(onStep?.code, 'E_STORE', String(onStep));
  assert.match(onStep.message, `run ${damaged.runId}: the stored workflow copy ${hash}`);
  assert.match(onStep.message, 'no longer matches its hash');
  const onDone = await fresh.status(completed.runId).then(() => undefined, (e) => e);
  assert.is(onDone?.code, 'E_STORE');
  assert.match(onDone.message, /completed without its (end node \(endNodeId\)|output)/);
  const onWait = await fresh.status(waiting.runId).then(() => undefined, (e) => e);
  assert.is(onWait?.code, 'E_STORE');
  assert.match(onWait.message, 'has a directive pending item without its directive');
  // Each names the database file it is in, so the right store is restored.
  const dbFile = join(realpathSync(c.dir), 'countersign.db');
  for (const e of [onStep, onDone, onWait]) {
    assert.is(e.file, dbFile);
    assert.match(e.message, ` in ${dbFile} `);
    assert.match(e.fix, `restore ${dbFile} from a backup`);
  }
  again.close();
});

test('r81 d1: info() of a run whose stored pending item lost its directive and inputSchema is E_STORE naming the run and countersign.db, with the restore fix, as status() is: never served as a half-empty pending item', async (c) => {
  const store = createSqliteStore(c.dir);
  const s = await createEngine({ store }).start(TWO);
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare(`UPDATE runs SET record = json_remove(record, '$.pending.directive', '$.pending.inputSchema'), version = version + 1 WHERE run_id = ?`).run(s.runId);
  db.close();
  const again = createSqliteStore(c.dir);
  const fresh = createEngine({ store: again });
  const dbFile = join(realpathSync(c.dir), 'countersign.db');
  for (const call of [() => fresh.status(s.runId), () => fresh.info(s.runId)]) {
    const e = await call().then((served) => served, (err) => err);
    assert.is(e?.code, 'E_STORE', JSON.stringify(e));
    assert.is(e.message, `the stored record of run "${s.runId}" in ${dbFile} has a directive pending item without its directive: the store is damaged`);
    assert.is(e.file, dbFile);
    assert.is(e.fix, `restore ${dbFile} from a backup, or move the store aside and start the run again`);
  }
  again.close();
});

test('engine: a new start of a workflow whose stored copy was damaged puts the right copy back, so its runs step again', async (c) => {
  const first = createSqliteStore(c.dir);
  const s = await createEngine({ store: first }).start(TWO);
  first.close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare(`UPDATE workflows SET body = replace(body, '"minimum":1', '"minimum":50')`).run();
  db.close();
  const store = createSqliteStore(c.dir);
  const broken = await createEngine({ store }).submit(s.runId, { words: 5 }).then(() => undefined, (e) => e.code);
  assert.is(broken, 'E_STORE');
  const again = await createEngine({ store }).start(TWO);
  store.close();
  const reopened = createSqliteStore(c.dir);
  const engine = createEngine({ store: reopened });
  assert.is((await engine.submit(again.runId, { words: 5 })).status, 'completed');
  assert.is((await engine.submit(s.runId, { words: 5 })).status, 'completed', 'the earlier run steps again too');
  reopened.close();
});

test('engine: a run whose workflow copy was stored under the older sorted-key hash still steps', async (c) => {
  const store = createSqliteStore(c.dir);
  const wf = structuredClone(TWO);
  const old = createHash('sha256').update(canonicalJson(wf)).digest('hex');
  store.putWorkflow(old, wf);
  const at = '2026-01-01T00:00:00.000Z';
  store.create({
    runId: 'older', workflow: 'two-step', workflowHash: old, workspace: process.cwd(), status: 'waiting', seq: 1, createdAt: at, updatedAt: at,
    snapshot: { value: 'write', context: { vars: { topic: 'x' }, nodes: {}, meta: { executionId: 'older', workflowId: 'two-step', userId: 'local' }, attempt: 0 } },
    pending: { kind: 'directive', nodeId: 'write', directive: 'Write about x.', completionCondition: 'written', inputSchema: { type: 'object', properties: { words: { type: 'integer', minimum: 1 } }, required: ['words'], additionalProperties: false }, attempt: 1, maxRetries: 3 },
  } as RunRecord, []);
  const done = await createEngine({ store }).submit('older', { words: 5 }, { seq: 1 });
  assert.is(done.status, 'completed');
  store.close();
});

test('a database of the current version that lacks a store table (damaged) is E_STORE saying so, left as it is, not a crash', (c) => {
  createSqliteStore(c.dir).close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.exec('DROP TABLE events');
  db.close();
  const err = catchError(() => createSqliteStore(c.dir));
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, /countersign\.db is damaged \(it has no events table\): it was left as it is/);
  assert.match(err.fix ?? '', /move the store aside/);
  // Left as it was: the table is not put back, nor the mode switched.
  const check = new Database(join(c.dir, 'countersign.db'), { readonly: true });
  assert.not.ok((check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).includes('events'));
  check.close();
});

test('an older store missing its runs.version column (damaged), or a truncated database file, is E_STORE with the restore fix, and is never migrated into', (c) => {
  createSqliteStore(c.dir).close();
  const file = join(c.dir, 'countersign.db');
  const db = new Database(file);
  db.exec('ALTER TABLE runs DROP COLUMN version');
  db.pragma('user_version = 3');
  db.pragma('journal_mode = DELETE');
  db.close();
  const err = catchError(() => createSqliteStore(c.dir));
  assert.is(err.code, 'E_STORE');
  assert.match(err.message, 'is damaged (its runs table has no version column');
  const check = new Database(file, { readonly: true });
  assert.equal([check.pragma('user_version', { simple: true }), check.pragma('journal_mode', { simple: true })], [3, 'delete']);
  check.close();
  const broken = join(c.dir, 'truncated');
  mkdirSync(broken);
  writeFileSync(join(broken, 'countersign.db'), readFileSync(file).subarray(0, 5000));
  const corrupt = catchError(() => createSqliteStore(broken));
  assert.is(corrupt.code, 'E_STORE');
  assert.match(corrupt.fix ?? '', /damaged: restore countersign\.db from a backup/);
});

test('a stored run whose snapshot lost its context, that waits without a pending item, or rests at a node its workflow lacks, is E_STORE through the engine (status, step), never a crash or a bogus state', async (c) => {
  const engine = createEngine({ store: createSqliteStore(c.dir) });
  const a = await engine.start(TWO);
  const b = await engine.start(TWO);
  const db = new Database(join(c.dir, 'countersign.db'));
  const edit = (runId: string, change: (r: Record<string, any>) => void) => {
    const r = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(runId) as string);
    change(r);
    db.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), runId);
  };
  const c3 = await engine.start(TWO);
  const done = await engine.submit(c3.runId, { words: 5 });
  assert.is(done.status, 'completed');
  const d = await engine.start(TWO);
  edit(d.runId, (r) => {
    r.snapshot.value = 'nope';
    r.pending.nodeId = 'nope';
  });
  edit(a.runId, (r) => (r.snapshot.context = null));
  edit(b.runId, (r) => (r.pending = 'x'));
  edit(c3.runId, (r) => delete r.endNodeId);
  db.close();
  const fresh = createEngine({ store: createSqliteStore(c.dir) });
  const stepped = await fresh.submit(a.runId, { words: 5 }).catch((e) => e);
  assert.is(stepped.code, 'E_STORE');
  assert.match(stepped.message, new RegExp(`run "${a.runId}" in \\S+countersign\\.db has a snapshot whose context is missing`));
  const status = await fresh.status(b.runId).catch((e) => e);
  assert.is(status.code, 'E_STORE');
  assert.match(status.message, /is waiting with the pending item "x", not an object/);
  const completed = await fresh.status(c3.runId).catch((e) => e);
  assert.is(completed.code, 'E_STORE');
  assert.match(completed.message, /completed without its end node \(endNodeId\)/);
  // Resting at a node its own (hash-checked) workflow lacks: the record is damaged, for status and step alike.
  for (const got of [await fresh.status(d.runId).catch((e) => e), await fresh.submit(d.runId, { words: 5 }).catch((e) => e)]) {
    assert.is(got.code, 'E_STORE');
    assert.match(got.message, /at node "nope", which its stored workflow does not have: the store is damaged/);
    assert.match(got.fix, /restore \S+countersign\.db from a backup/);
  }
});

test('a stored context missing what every step reads (meta null, nodes not an object, no attempt) is E_STORE naming it at the next step, never E_INTERNAL from inside a guard', async (c) => {
  const engine = createEngine({ store: createSqliteStore(c.dir) });
  const damage: [string, (ctx: Record<string, any>) => void][] = [
    ['has no "meta" object', (ctx) => (ctx.meta = null)],
    ['has no "nodes" object', (ctx) => (ctx.nodes = 5)],
    ['has no string "meta.userId"', (ctx) => delete ctx.meta.userId],
    ['has no number "attempt"', (ctx) => (ctx.attempt = 'one')],
    ['has a "recent" that is not a list of [node id, answer] pairs', (ctx) => (ctx.recent = [1, null])],
  ];
  const runs = [];
  for (let i = 0; i < damage.length; i++) runs.push((await engine.start(TWO)).runId);
  const db = new Database(join(c.dir, 'countersign.db'));
  runs.forEach((runId, i) => {
    const r = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(runId) as string);
    damage[i][1](r.snapshot.context);
    db.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), runId);
  });
  db.close();
  const fresh = createEngine({ store: createSqliteStore(c.dir) });
  for (let i = 0; i < runs.length; i++) {
    const got = await fresh.submit(runs[i], { words: 5 }).catch((e) => e);
    assert.is(got.code, 'E_STORE', damage[i][0]);
    assert.match(got.message, `has a snapshot whose context ${damage[i][0]}`);
    assert.match(got.fix, /restore \S+countersign\.db from a backup/);
  }
});

test('a waiting record at a node that never waits (an end, a condition) or with a deadline that is no time is E_STORE, never served as a state or stepped past', async (c) => {
  const engine = createEngine({ store: createSqliteStore(c.dir) });
  const atEnd = (await engine.start(TWO)).runId;
  const badDeadline = (await engine.start(TWO)).runId;
  const db = new Database(join(c.dir, 'countersign.db'));
  const edit = (runId: string, change: (r: Record<string, any>) => void) => {
    const r = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(runId) as string);
    change(r);
    db.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), runId);
  };
  const endId = TWO.nodes.find((n: { type: string }) => n.type === 'end')!.id;
  edit(atEnd, (r) => { r.snapshot.value = endId; r.pending.nodeId = endId; });
  const noMessage = (await engine.start(TWO)).runId;
  await engine.submit(noMessage, { $error: 'gave up' });
  edit(badDeadline, (r) => (r.deadline = 'soon'));
  db.close();
  const db2 = new Database(join(c.dir, 'countersign.db'));
  const r = JSON.parse(db2.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(noMessage) as string);
  delete r.error.message;
  db2.prepare('UPDATE runs SET record = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), noMessage);
  db2.close();
  const fresh = createEngine({ store: createSqliteStore(c.dir) });
  for (const got of [await fresh.status(atEnd).catch((e) => e), await fresh.submit(atEnd, { words: 5 }).catch((e) => e)]) {
    assert.is(got.code, 'E_STORE');
    assert.match(got.message, 'which never waits');
  }
  const half = await fresh.status(noMessage).catch((e) => e);
  assert.is(half.code, 'E_STORE');
  assert.match(half.message, 'failed without its error message');
  const dl = await fresh.status(badDeadline).catch((e) => e);
  assert.is(dl.code, 'E_STORE');
  assert.match(dl.message, 'has the deadline "soon", which is no time');
});

/** Starts one run of TWO per damage, applies it to the stored record by hand, and gives a fresh engine over the store. */
async function damagedRuns(dir: string, damage: ReadonlyArray<(r: Record<string, any>) => void>) {
  const engine = createEngine({ store: createSqliteStore(dir) });
  const runs: string[] = [];
  for (const change of damage) {
    const runId = (await engine.start(TWO)).runId;
    const db = new Database(join(dir, 'countersign.db'));
    const r = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(runId) as string);
    change(r);
    db.prepare('UPDATE runs SET record = ?, created_at = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), r.createdAt, runId);
    db.close();
    runs.push(runId);
  }
  return { runs, fresh: createEngine({ store: createSqliteStore(dir) }) };
}

test('r82 d1 status() on a record whose pending item is not the kind its node issues (a tool item at a directive) is E_STORE and never runs the tool or changes the run', async (c) => {
  const { runs: [tool, review], fresh } = await damagedRuns(c.dir, [
    (r) => (r.pending = { kind: 'tool', nodeId: 'write', tool: 'post_review', args: {}, attempt: 1 }),
    (r) => (r.pending = { kind: 'review', nodeId: 'write', prompt: 'look', attempt: 1, maxRetries: 2 }),
  ]);
  const before = (await fresh.trace(tool)).events.length;
  for (const [runId, kind] of [[tool, 'tool'], [review, 'review']]) {
    for (const got of [await fresh.status(runId).catch((e) => e), await fresh.info(runId).catch((e) => e)]) {
      assert.is(got.code, 'E_STORE', kind);
      assert.match(got.message, `waits at node "write", a agent-directive node, with a ${kind} pending item`);
      assert.match(got.fix, /restore \S+countersign\.db from a backup/);
    }
  }
  assert.is((await fresh.trace(tool)).events.length, before, 'status journaled nothing');
  const db = new Database(join(c.dir, 'countersign.db'));
  assert.is(JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(tool) as string).seq, 1, 'the run was not stepped');
  db.close();
});

test('r82 d2 a record whose file is no string, or whose createdAt is no time, is E_STORE from info, status, runs and a step, never served or E_INTERNAL', async (c) => {
  const { runs: [five, obj, when], fresh } = await damagedRuns(c.dir, [(r) => (r.file = 5), (r) => (r.file = {}), (r) => (r.createdAt = 'garbage')]);
  for (const [runId, what] of [[five, 'has the file 5, which is no path'], [obj, 'has the file an object, which is no path'], [when, 'has the createdAt "garbage", which is no time']]) {
    for (const got of [await fresh.info(runId).catch((e) => e), await fresh.status(runId).catch((e) => e), await fresh.submit(runId, { words: 5 }).catch((e) => e)]) {
      assert.is(got.code, 'E_STORE', what);
      assert.match(got.message, what);
      assert.match(got.message, 'countersign.db');
    }
  }
  const listed = await fresh.runs().catch((e) => e);
  assert.is(listed.code, 'E_STORE');
  assert.match(listed.message, 'has the created_at "garbage", which is no time');
});

test('r82 d3 a waiting record whose snapshot has no context, or a context without vars, is E_STORE from status and info, never served as a waiting item no answer can advance', async (c) => {
  const { runs: [none, noVars], fresh } = await damagedRuns(c.dir, [(r) => delete r.snapshot.context, (r) => delete r.snapshot.context.vars]);
  for (const [runId, what] of [[none, 'has a snapshot whose context is missing'], [noVars, 'has a snapshot whose context has no "vars" object']]) {
    for (const got of [await fresh.status(runId).catch((e) => e), await fresh.info(runId).catch((e) => e)]) {
      assert.is(got.code, 'E_STORE', what);
      assert.match(got.message, what);
    }
  }
});

test('r82 d4 a record breaking the run contract (pending errors not a list, a pending deadline that is no time, completed at a node that is no end) is E_STORE from status and info', async (c) => {
  const { runs, fresh } = await damagedRuns(c.dir, [
    (r) => (r.pending.errors = 'x'),
    (r) => (r.pending.deadline = 'soon'),
    (r) => { r.status = 'completed'; r.endNodeId = 'nonexistent'; r.output = {}; delete r.pending; },
    (r) => { r.status = 'completed'; r.endNodeId = 'write'; r.output = {}; delete r.pending; },
  ]);
  const whats = ['pending item whose "errors" is not a list of strings', 'pending item whose "deadline" is no time', 'completed at node "nonexistent", which is no end node', 'completed at node "write", which is no end node'];
  for (let i = 0; i < runs.length; i++) {
    for (const got of [await fresh.status(runs[i]).catch((e) => e), await fresh.info(runs[i]).catch((e) => e)]) {
      assert.is(got.code, 'E_STORE', whats[i]);
      assert.match(got.message, whats[i]);
    }
  }
});

test('using a closed store is E_STORE, not a crash', (c) => {
  const store = createSqliteStore(c.dir);
  store.close();
  assert.is(catchError(() => store.get('r1')).code, 'E_STORE');
});

test('r85: a closed store\'s fix works as written: the store opened again with createSqliteStore on its directory, passed to a new createEngine, serves the run; the closed store\'s engine stays closed', async (c) => {
  const store = createSqliteStore(c.dir);
  const engine = createEngine({ store });
  const s = await engine.start(TWO);
  store.close();
  const closed = await engine.status(s.runId).then(() => undefined, (e) => e);
  assert.is(closed?.code, 'E_STORE', String(closed));
  assert.match(closed.message, `the store ${join(c.dir, 'countersign.db')} is closed`);
  assert.match(closed.fix, `createSqliteStore(${JSON.stringify(c.dir)})`);
  assert.match(closed.fix, 'a new createEngine');
  assert.not.match(closed.fix, 'openStore() before using it', 'never a fix that leaves this engine closed');
  const again = createEngine({ store: createSqliteStore(c.dir) });
  assert.is((await again.status(s.runId)).seq, 1, 'the run is served by the store opened again');
  assert.is((await engine.status(s.runId).then(() => undefined, (e) => e))?.code, 'E_STORE', 'the first engine keeps the store it was made with');
});

// Each child waits for "go" so all of them update at the same moment.
const CHILD = `
const [url, dir, runId, count, worker] = process.argv.slice(1);
const { createSqliteStore } = await import(url);
const store = createSqliteStore(dir);
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  for (let i = 0; i < Number(count); i++) {
    store.update(runId, (cur) => ({
      record: { ...cur, seq: cur.seq + 1 },
      events: [{ seq: cur.seq + 1, at: new Date().toISOString(), type: 'tick', worker }],
      result: null,
    }));
  }
  store.close();
  process.exit(0);
});
`;

function startUpdater(dir: string, count: number, worker: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, SQLITE_MODULE, dir, 'shared', String(count), worker], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`updater ${worker} exited early with ${code}`)));
  });
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, done };
}

test('processes opening one new store at the same moment all open it (none fails with "database is locked", nor takes the half-set-up store for another program\'s, while another sets it up)', async (c) => {
  const dir = join(c.dir, 'fresh');
  // Each opener loads first, then waits for one shared moment, so the opens really overlap.
  const opener = `const { createSqliteStore } = await import(process.argv[1]); while (Date.now() < Number(process.argv[3])); createSqliteStore(process.argv[2]).close(); process.stdout.write('ok');`;
  for (let round = 0; round < 3; round++) {
    const at = `${dir}-${round}`;
    const moment = String(Date.now() + 2500);
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map(() => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', opener, SQLITE_MODULE, at, moment], { cwd: REPO });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.once('exit', (code) => resolve({ code, out, err }));
    })));
    for (const r of results) assert.is(r.code, 0, r.err);
    assert.ok(results.every((r) => r.out === 'ok'));
  }
});

test('two processes updating one run read-modify-write never lose an increment (each update is one IMMEDIATE transaction)', async (c) => {
  const store = createSqliteStore(c.dir);
  store.putWorkflow(H1, WORKFLOW);
  store.create(record('shared', 1), []);
  store.close();

  const perWorker = 250;
  const workers = [startUpdater(c.dir, perWorker, 'A'), startUpdater(c.dir, perWorker, 'B')];
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.child.stdin.end('go\n');
  const codes = await Promise.all(workers.map((w) => w.done));
  assert.equal(codes, [0, 0]);

  const after = createSqliteStore(c.dir);
  assert.is(after.get('shared')!.seq, 1 + perWorker * 2);
  const seqs = after.events('shared').map((e) => e.seq);
  assert.equal(seqs, Array.from({ length: perWorker * 2 }, (_, i) => i + 2));
  after.close();
});

test.run();
