import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, SCHEMA_VERSION } from '../../engine/store/sqlite.js';
import type { RunRecord } from '../../engine/store/store.js';
import { hashWorkflow } from '../../engine/run/hash.js';
import { CONTEXT } from '../helpers/run-context.js';

const Migration = suite('sqlite store migration');

Migration('a version-1 store (no row version) is upgraded in place and its runs stay readable and writable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mig-'));
  const db = new Database(join(dir, 'countersign.db'));
  db.exec(`
    CREATE TABLE workflows (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE runs (run_id TEXT PRIMARY KEY, workflow TEXT, workflow_hash TEXT REFERENCES workflows(hash), file TEXT,
      workspace TEXT, status TEXT, seq INTEGER, record TEXT NOT NULL, created_at TEXT, updated_at TEXT);
    CREATE TABLE events (run_id TEXT, idx INTEGER, seq INTEGER, at TEXT, type TEXT, node_id TEXT, body TEXT NOT NULL, PRIMARY KEY (run_id, idx));
  `);
  const record: RunRecord = {
    runId: 'old', workflow: 'w', workflowHash: 'h', workspace: '/', status: 'waiting', snapshot: { value: 'a', context: CONTEXT }, pending: { kind: 'directive', nodeId: 'a', directive: 'Do it', completionCondition: 'done', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3 }, seq: 1,
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  };
  db.prepare('INSERT INTO workflows VALUES (?, ?)').run('h', '{"metadata":{"name":"w"}}');
  db.prepare('INSERT INTO runs VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)').run('old', 'w', 'h', '/', 'waiting', 1, JSON.stringify(record), record.createdAt, record.updatedAt);
  db.pragma('user_version = 1');
  db.close();

  const store = createSqliteStore(dir);
  assert.equal(store.get('old'), record);
  store.update('old', (r) => ({ record: { ...r, seq: 2 }, events: [{ seq: 2, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], result: null }));
  assert.is(store.get('old')?.seq, 2);
  store.close();
  const check = new Database(join(dir, 'countersign.db'));
  assert.is(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.is(check.prepare('SELECT version FROM runs WHERE run_id = ?').pluck().get('old'), 1);
  check.close();
});

Migration('a record changed by another store instance (another process) is re-read, never served stale from the cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mig-'));
  const a = createSqliteStore(dir);
  const b = createSqliteStore(dir);
  const workflow = { metadata: { name: 'w', version: '1.0.0', description: 'd' }, nodes: [] };
  a.putWorkflow(hashWorkflow(workflow), workflow);
  const base: RunRecord = {
    runId: 'r', workflow: 'w', workflowHash: hashWorkflow(workflow), workspace: '/', status: 'waiting', snapshot: { value: 'a', context: CONTEXT }, pending: { kind: 'directive', nodeId: 'a', directive: 'Do it', completionCondition: 'done', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3 }, seq: 1,
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  };
  a.create(base, []);
  a.update('r', (r) => ({ record: { ...r, seq: 2 }, events: [{ seq: 2, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], result: null }));
  b.update('r', (r) => ({ record: { ...r, seq: r.seq + 1 }, events: [{ seq: r.seq + 1, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], result: null }));
  assert.is(a.update('r', (r) => ({ record: { ...r, seq: r.seq + 1 }, events: [{ seq: r.seq + 1, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], result: r.seq })), 3);
  assert.is(b.get('r')?.seq, 4);
  a.close();
  b.close();
});

Migration('a store of a newer countersign laid out otherwise (a table this build expects is missing) is "newer, upgrade countersign", never "damaged, restore a backup"; the file is left as it is', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mig-'));
  const db = new Database(join(dir, 'countersign.db'));
  db.exec(`
    CREATE TABLE blobs (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE runs (run_id TEXT PRIMARY KEY, workflow TEXT, workflow_hash TEXT, file TEXT, workspace TEXT, status TEXT, seq INTEGER, record TEXT NOT NULL, created_at TEXT, updated_at TEXT, version INTEGER NOT NULL DEFAULT 0);
  `);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  let error: { code?: string; message?: string; fix?: string } | undefined;
  try {
    createSqliteStore(dir).get('x');
  } catch (e) {
    error = e as typeof error;
  }
  assert.is(error?.code, 'E_STORE');
  assert.match(error!.message!, `has schema version ${SCHEMA_VERSION + 1}, newer than this countersign reads`);
  assert.match(error!.fix!, 'upgrade countersign');
  const check = new Database(join(dir, 'countersign.db'));
  assert.is(check.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1);
  check.close();
});

Migration.run();
