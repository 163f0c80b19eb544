/**
 * The ledger part of the Store contract, run against both shipped stores:
 * append-only rows in named tables that keep their JSON types, queried by
 * time, key and limit, and written in the same transaction as a step.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storeSuite, type StoreContext } from '../helpers/store-suite.js';
import type { Workflow } from '../../engine/format/model.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore, SCHEMA_VERSION } from '../../engine/store/sqlite.js';
import type { LedgerRow, RunRecord } from '../../engine/store/store.js';
import { thrownWithCode } from '../helpers/errors.js';
import { hashWorkflow } from '../../engine/run/hash.js';
import { CONTEXT } from '../helpers/run-context.js';

const WORKFLOW: Workflow = {
  metadata: { name: 'loop', version: '1.0.0', description: 'a test workflow' },
  nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'end' }],
};
/** Its own hash: a store keeps a copy only under that. */
const HASH = hashWorkflow(WORKFLOW);

function run(runId: string): RunRecord {
  return {
    runId, workflow: 'loop', workflowHash: HASH, workspace: '/tmp/ws', status: 'waiting', snapshot: { value: 'work', context: CONTEXT }, pending: { kind: 'directive', nodeId: 'work', directive: 'Do it', completionCondition: 'done', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3 }, seq: 1,
    createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function row(id: string, at: string, body: LedgerRow['row'] = { n: id }, extra: Partial<LedgerRow> = {}): LedgerRow {
  return { id, table: 'audit_test', at, row: body, ...extra };
}

const T = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();

/** Every JSON type, nested: what comes back must be exactly this. */
const TYPED = {
  text: 'naïve ✓ — "quoted"',
  zero: 0,
  negative: -1.5,
  yes: true,
  no: false,
  nothing: null,
  target: { device_id: 7, service: 'nginx', tags: ['production', 'edge'] },
  missing_gates: ['✗ no SOP for action host_restart_service'],
  empty: {},
  list: [],
};

type Context = StoreContext;

function ledgerContract(name: string, open: () => Context) {
  const { test, store } = storeSuite(`store ledger (${name})`, open, WORKFLOW);

  test('an appended row reads back with its JSON types exactly: booleans, null, objects, arrays, numbers', (c) => {
    store(c).appendRows([row('r1', T(0), TYPED, { key: 'k1', runId: 'run-1' })]);
    const [back] = store(c).rows('audit_test');
    assert.equal(back, { id: 'r1', table: 'audit_test', at: T(0), key: 'k1', runId: 'run-1', row: TYPED });
    assert.is(back.row.yes, true);
    assert.is(back.row.nothing, null);
    assert.type(back.row.target, 'object');
  });

  test('a row written without key or runId reads back without them, not with null', (c) => {
    store(c).appendRows([row('r1', T(0))]);
    const [back] = store(c).rows('audit_test');
    assert.equal(Object.keys(back).sort(), ['at', 'id', 'row', 'table']);
  });

  test('rows come back per table, oldest first by time, ties in insertion order', (c) => {
    store(c).appendRows([row('late', T(5)), row('tie-a', T(1)), { ...row('other', T(0)), table: 'other_table' }]);
    store(c).appendRows([row('early', T(0)), row('tie-b', T(1))]);
    assert.equal(store(c).rows('audit_test').map((r) => r.id), ['early', 'tie-a', 'tie-b', 'late']);
    assert.equal(store(c).rows('other_table').map((r) => r.id), ['other']);
    assert.equal(store(c).rows('never_written'), []);
  });

  test('since keeps rows at or after the time, and takes a date or an offset time as well as UTC', (c) => {
    store(c).appendRows([row('a', T(0)), row('b', T(10)), row('c', T(20))]);
    assert.equal(store(c).rows('audit_test', { since: T(10) }).map((r) => r.id), ['b', 'c']);
    assert.equal(store(c).rows('audit_test', { since: '2024-01-01T01:10:00+01:00' }).map((r) => r.id), ['b', 'c']);
    assert.equal(store(c).rows('audit_test', { since: '2024-01-01' }).map((r) => r.id), ['a', 'b', 'c']);
    assert.equal(store(c).rows('audit_test', { since: '2024-01-02' }), []);
  });

  test('since without a zone is UTC, as a bare date and every stored time are, whatever zone the machine is in', (c) => {
    store(c).appendRows([row('a', T(0)), row('b', T(10)), row('c', T(20))]);
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      assert.equal(store(c).rows('audit_test', { since: T(10).replace(/:00\.000Z$/, '') }).map((r) => r.id), ['b', 'c']);
      assert.equal(store(c).rows('audit_test', { since: '2024-01-01T00:00' }).map((r) => r.id), ['a', 'b', 'c']);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  test('key selects the rows written under it; limit keeps the newest rows, still oldest first', (c) => {
    store(c).appendRows([
      row('a', T(0), {}, { key: 'h1' }),
      row('b', T(1), {}, { key: 'h2' }),
      row('c', T(2), {}, { key: 'h1' }),
      row('d', T(3), {}, { key: 'h1' }),
    ]);
    assert.equal(store(c).rows('audit_test', { key: 'h1' }).map((r) => r.id), ['a', 'c', 'd']);
    assert.equal(store(c).rows('audit_test', { limit: 2 }).map((r) => r.id), ['c', 'd']);
    assert.equal(store(c).rows('audit_test', { key: 'h1', limit: 2, since: T(0) }).map((r) => r.id), ['c', 'd']);
    assert.equal(store(c).rows('audit_test', { key: 'h1', since: T(1) }).map((r) => r.id), ['c', 'd']);
    assert.equal(store(c).rows('audit_test', { limit: 99 }).length, 4);
  });

  test('a table name outside [a-z][a-z0-9_]* is E_LEDGER_TABLE, on append and on read, and nothing of the batch is written', (c) => {
    for (const bad of ['Proposals', '1st', 'drop table', 'a-b', '', 'ledger;--']) {
      thrownWithCode(() => store(c).appendRows([row('ok', T(0)), { ...row('bad', T(0)), table: bad }]), 'E_LEDGER_TABLE');
      thrownWithCode(() => store(c).rows(bad), 'E_LEDGER_TABLE');
    }
    assert.equal(store(c).rows('audit_test'), []);
  });

  test('a duplicate id (stored already, in another table, or twice in one batch) is E_LEDGER_ROW and stored rows stay intact', (c) => {
    store(c).appendRows([row('r1', T(0), TYPED)]);
    const e = thrownWithCode(() => store(c).appendRows([row('r2', T(1)), row('r1', T(2), { forged: true })]), 'E_LEDGER_ROW');
    assert.match(e.message, '"r1"');
    thrownWithCode(() => store(c).appendRows([{ ...row('r1', T(2)), table: 'another' }]), 'E_LEDGER_ROW');
    thrownWithCode(() => store(c).appendRows([row('r3', T(1)), row('r3', T(2))]), 'E_LEDGER_ROW');
    assert.equal(store(c).rows('audit_test'), [{ id: 'r1', table: 'audit_test', at: T(0), row: TYPED }]);
    assert.equal(store(c).rows('another'), []);
  });

  test('a row with no id, a non-canonical time or a body JSON cannot keep is E_LEDGER_ROW, with a fix', (c) => {
    const bad: LedgerRow[] = [
      row('', T(0)),
      row('t1', '2024-01-01 00:00'),
      row('t2', '2024-01-01T00:00:00Z'),
      row('t3', 'yesterday'),
      row('t4', '2026-02-30T00:00:00.000Z'),
      row('t5', '2026-01-01T24:00:00.000Z'),
      row('b1', T(0), { n: Number.NaN }),
      row('b2', T(0), { when: new Date(0) as never }),
      row('b3', T(0), { gone: undefined as never }),
      row('b4', T(0), { list: [1, undefined as never] }),
      row('b5', T(0), [] as never),
    ];
    for (const r of bad) {
      const e = thrownWithCode(() => store(c).appendRows([r]), 'E_LEDGER_ROW');
      assert.ok(e.fix, `no fix for ${r.id}`);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    thrownWithCode(() => store(c).appendRows([row('b6', T(0), cyclic as never)]), 'E_LEDGER_ROW');
    assert.equal(store(c).rows('audit_test'), []);
  });

  test('a since finer than the ledger\'s milliseconds never lists a row written before it (.7931 is after .793)', (c) => {
    store(c).appendRows([row('m1', '2026-12-03T15:44:45.793Z', { n: 1 }), row('m2', '2026-12-03T15:44:45.794Z', { n: 2 })]);
    assert.equal(store(c).rows('audit_test', { since: '2026-12-03T15:44:45.7931Z' }).map((r) => r.id), ['m2']);
    assert.equal(store(c).rows('audit_test', { since: '2026-12-03T15:44:45.7930Z' }).map((r) => r.id), ['m1', 'm2'], 'trailing zeros are the same time');
    assert.equal(store(c).rows('audit_test', { since: '2026-12-03T15:44:45.793Z' }).map((r) => r.id), ['m1', 'm2']);
  });

  test('a since that is not ISO-8601 or a limit that is not a positive whole number is E_LEDGER_QUERY', (c) => {
    for (const q of [{ since: 'last tuesday' }, { since: '2024-13-45' }, { limit: 0 }, { limit: 1.5 }, { limit: -1 }]) {
      thrownWithCode(() => store(c).rows('audit_test', q), 'E_LEDGER_QUERY');
    }
  });

  test('the ledger cannot be edited through the objects passed in or handed out', (c) => {
    const body = { status: 'rejected', gates: ['✗ sop'] };
    store(c).appendRows([row('r1', T(0), body)]);
    body.status = 'approved';
    body.gates.push('forged');
    store(c).rows('audit_test')[0].row.status = 'approved';
    assert.equal(store(c).rows('audit_test')[0].row, { status: 'rejected', gates: ['✗ sop'] });
  });

  test('rows returned by update() are written with its record and events, and carry the run id unless they name one', (c) => {
    store(c).create(run('run-1'), []);
    store(c).update('run-1', (cur) => ({
      record: { ...cur, seq: 2 },
      events: [{ seq: 2, at: T(1), type: 'record.written' }],
      rows: [row('p1', T(1), TYPED), row('p2', T(1), {}, { runId: 'elsewhere' })],
      result: null,
    }));
    const rows = store(c).rows('audit_test');
    assert.equal(rows.map((r) => [r.id, r.runId]), [['p1', 'run-1'], ['p2', 'elsewhere']]);
    assert.equal(rows[0].row, TYPED);
    assert.is(store(c).get('run-1')!.seq, 2);
  });

  test('rows passed to create() (a first step that records) are written with the run and carry its id', (c) => {
    store(c).create(run('run-1'), [{ seq: 1, at: T(0), type: 'run.started' }], [row('p1', T(0), TYPED)]);
    assert.equal(store(c).rows('audit_test'), [{ id: 'p1', table: 'audit_test', at: T(0), runId: 'run-1', row: TYPED }]);
  });

  test('a refused row in create() leaves no run, no journal and no rows', (c) => {
    store(c).appendRows([row('taken', T(0))]);
    thrownWithCode(() => store(c).create(run('run-1'), [{ seq: 1, at: T(0), type: 'run.started' }], [row('fresh', T(0)), row('taken', T(0))]), 'E_LEDGER_ROW');
    assert.is(store(c).get('run-1'), undefined);
    assert.equal(store(c).list(), []);
    assert.equal(store(c).rows('audit_test').map((r) => r.id), ['taken']);
    store(c).create(run('run-1'), [], [row('fresh', T(0))]);
    assert.equal(store(c).rows('audit_test').map((r) => r.id), ['taken', 'fresh']);
  });

  test('when mutate throws, rows it would have returned are not written and the run is unchanged', (c) => {
    store(c).create(run('run-1'), []);
    assert.throws(() => store(c).update('run-1', () => {
      throw new Error('decided badly');
    }), /decided badly/);
    assert.equal(store(c).rows('audit_test'), []);
    assert.is(store(c).get('run-1')!.seq, 1);
  });

  test('a refused row rolls back the whole step: its record and events are not written either', (c) => {
    store(c).appendRows([row('taken', T(0))]);
    store(c).create(run('run-1'), [{ seq: 1, at: T(0), type: 'run.started' }]);
    thrownWithCode(() => store(c).update('run-1', (cur) => ({
      record: { ...cur, seq: 2, status: 'completed', endNodeId: 'end', output: {} },
      events: [{ seq: 2, at: T(1), type: 'record.written' }],
      rows: [row('fresh', T(1)), row('taken', T(1))],
      result: null,
    })), 'E_LEDGER_ROW');
    assert.equal(store(c).get('run-1'), run('run-1'));
    assert.equal(store(c).events('run-1').map((e) => e.type), ['run.started']);
    assert.equal(store(c).rows('audit_test').map((r) => r.id), ['taken']);
  });

  test.run();
}

ledgerContract('memory', () => ({ store: createMemoryStore(), cleanup: () => undefined }));

ledgerContract('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-ledger-'));
  return { store: createSqliteStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});

const Sqlite = suite<{ dir: string }>('store ledger (sqlite only)', { dir: '' });
Sqlite.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-ledger-'));
});
Sqlite.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

Sqlite('the ledger table keeps the body as JSON text and is indexed by (table, time) and (table, key)', (c) => {
  const store = createSqliteStore(c.dir);
  store.appendRows([row('r1', T(0), { deduped: false }, { key: 'hash' })]);
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'), { readonly: true });
  assert.equal(db.prepare('SELECT id, table_name, at, key, run_id, body FROM ledger').all(), [
    { id: 'r1', table_name: 'audit_test', at: T(0), key: 'hash', run_id: null, body: '{"deduped":false}' },
  ]);
  const indexes = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger' AND sql IS NOT NULL").pluck().all() as string[];
  assert.ok(indexes.some((s) => /\(table_name, at/.test(s)), indexes.join('\n'));
  assert.ok(indexes.some((s) => /\(table_name, key/.test(s)), indexes.join('\n'));
  db.close();
});

Sqlite('a ledger body that is valid JSON but no object (null, a list) is E_STORE naming the row, not a crash in audit or the gate', (c) => {
  const store = createSqliteStore(c.dir);
  store.appendRows([row('r1', T(0), { n: 1 }), row('r2', T(1), { n: 2 })]);
  store.close();
  const db = new Database(join(c.dir, 'countersign.db'));
  db.prepare("UPDATE ledger SET body = 'null' WHERE id = 'r1'").run();
  db.prepare("UPDATE ledger SET body = '[1]' WHERE id = 'r2'").run();
  db.close();
  const again = createSqliteStore(c.dir);
  const e = thrownWithCode(() => again.rows('audit_test'), 'E_STORE');
  assert.match(e.message, /ledger row "r1" in .*countersign\.db has a body that is not a JSON object/);
  again.close();
});

Sqlite('rows survive closing and reopening the store, with their JSON types', (c) => {
  const first = createSqliteStore(c.dir);
  first.appendRows([row('r1', T(0), TYPED, { key: 'k' })]);
  first.close();
  const second = createSqliteStore(c.dir);
  assert.equal(second.rows('audit_test', { key: 'k' }), [{ id: 'r1', table: 'audit_test', at: T(0), key: 'k', row: TYPED }]);
  second.close();
});

Sqlite('rows appended by one store instance (another process) are read by another open on the same directory', (c) => {
  const a = createSqliteStore(c.dir);
  const b = createSqliteStore(c.dir);
  assert.equal(b.rows('audit_test'), []);
  a.appendRows([row('r1', T(0), { ok: true })]);
  assert.equal(b.rows('audit_test').map((r) => r.row), [{ ok: true }]);
  a.close();
  b.close();
});

Sqlite('a version-2 store is migrated in place to the current version (4): its runs and journals stay, and the ledger works', (c) => {
  const db = new Database(join(c.dir, 'countersign.db'));
  db.exec(`
    CREATE TABLE workflows (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE runs (run_id TEXT PRIMARY KEY, workflow TEXT, workflow_hash TEXT REFERENCES workflows(hash), file TEXT,
      workspace TEXT, status TEXT, seq INTEGER, record TEXT NOT NULL, created_at TEXT, updated_at TEXT,
      version INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX runs_newest ON runs (created_at DESC, run_id DESC);
    CREATE INDEX runs_status_newest ON runs (status, created_at DESC, run_id DESC);
    CREATE TABLE events (run_id TEXT, idx INTEGER, seq INTEGER, at TEXT, type TEXT, node_id TEXT, body TEXT NOT NULL, PRIMARY KEY (run_id, idx));
  `);
  const old = run('old');
  db.prepare('INSERT INTO workflows VALUES (?, ?)').run(HASH, JSON.stringify(WORKFLOW));
  db.prepare('INSERT INTO runs VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, 4)').run('old', 'loop', HASH, '/tmp/ws', 'waiting', 1, JSON.stringify(old), old.createdAt, old.updatedAt);
  db.prepare('INSERT INTO events VALUES (?, 0, 1, ?, ?, NULL, ?)').run('old', T(0), 'run.started', JSON.stringify({ seq: 1, at: T(0), type: 'run.started' }));
  db.pragma('user_version = 2');
  db.close();

  const store = createSqliteStore(c.dir);
  assert.equal(store.get('old'), old);
  assert.equal(store.events('old').map((e) => e.type), ['run.started']);
  store.update('old', (r) => ({ record: { ...r, seq: 2 }, events: [{ seq: 2, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], rows: [row('p1', T(1), { migrated: true })], result: null }));
  assert.equal(store.rows('audit_test').map((r) => [r.id, r.runId, r.row]), [['p1', 'old', { migrated: true }]]);
  store.close();

  const check = new Database(join(c.dir, 'countersign.db'), { readonly: true });
  assert.is(SCHEMA_VERSION, 4);
  assert.is(check.pragma('user_version', { simple: true }), 4);
  assert.is(check.prepare('SELECT version FROM runs WHERE run_id = ?').pluck().get('old'), 5);
  check.close();
});

Sqlite.run();
