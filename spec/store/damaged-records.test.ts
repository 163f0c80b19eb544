/**
 * A stored record damaged by hand (or by another program) is refused the
 * same way whichever store keeps it: `status`, `info` and `submit` are
 * E_STORE naming the run and the damage, with the store's repair, and the
 * run is never answered, advanced or served half-broken. Each damage is
 * applied to a run in SQLite (its row edited) and to one a host's own
 * store serves over a memory store (which keeps its records read-only).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, type Engine } from '../../engine/index.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import type { Store } from '../../engine/store/store.js';

const TWO = JSON.parse(readFileSync(join(fileURLToPath(new URL('../../', import.meta.url)), 'spec/fixtures/cli/two-step.json'), 'utf8'));

type Damage = (r: Record<string, any>) => void;

interface Damaged {
  runId: string;
  engine: Engine;
  store: Store;
  kind: 'memory' | 'sqlite';
  cleanup: () => void;
}

/** A run of TWO waiting at "write" (seq 1), its stored record changed by `damage`, with an engine over the store. */
async function damagedRun(kind: 'memory' | 'sqlite', damage: Damage): Promise<Damaged> {
  if (kind === 'memory') {
    const inner = createMemoryStore();
    const { runId } = await createEngine({ store: inner }).start(TWO);
    // update() refuses a record it would read back as damaged (E_INPUT), and the memory store keeps what it holds
    // read-only: the damaged record comes from a host's own store without a file, serving it over a memory store.
    const record = structuredClone(inner.get(runId)) as unknown as Record<string, any>;
    damage(record);
    const served = (id: string) => (id === runId ? (record as never) : inner.get(id));
    const store = new Proxy(inner, {
      get: (target, key) =>
        key === 'get' ? served
          : key === 'update' ? (id: string, mutate: (cur: never) => never) => target.update(id, (cur) => mutate(id === runId ? (record as never) : (cur as never)))
            : key === 'list' ? (filter?: never) => target.list().map((summary) => (summary.runId === runId ? { ...summary, status: record.status, createdAt: record.createdAt, updatedAt: record.updatedAt, workflow: record.workflow } : summary)).filter((summary) => !filter || summary.status === (filter as { status: string }).status)
              : Reflect.get(target, key),
    }) as Store;
    return { runId, engine: createEngine({ store }), store, kind, cleanup: () => inner.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'countersign-damaged-'));
  const first = createSqliteStore(dir);
  const { runId } = await createEngine({ store: first }).start(TWO);
  first.close();
  const db = new Database(join(dir, 'countersign.db'));
  const r = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(runId) as string);
  damage(r);
  db.prepare('UPDATE runs SET record = ?, created_at = ?, version = version + 1 WHERE run_id = ?').run(JSON.stringify(r), typeof r.createdAt === 'string' ? r.createdAt : '2024-01-01T00:00:00.000Z', runId);
  db.close();
  const store = createSqliteStore(dir);
  return { runId, engine: createEngine({ store }), store, kind, cleanup: () => { store.close(); rmSync(dir, { recursive: true, force: true }); } };
}

/** Asserts `status`, `info` and `submit` are E_STORE naming the run and `what`, and that the submit changed nothing. */
async function refusedEverywhere(d: Damaged, what: string, label: string): Promise<void> {
  const before = d.store.eventCount(d.runId);
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['status', () => d.engine.status(d.runId)],
    ['info', () => d.engine.info(d.runId)],
    ['submit', () => d.engine.submit(d.runId, { words: 5 })],
  ];
  for (const [name, call] of calls) {
    const got = await call().then((v) => ({ resolved: v }), (e) => e);
    const where = `${label}, ${d.kind}, ${name}`;
    assert.is(got?.code, 'E_STORE', `${where}: ${JSON.stringify(got?.resolved ?? got?.message ?? String(got))}`);
    assert.match(got.message, `run "${d.runId}"`, where);
    assert.match(got.message, what, where);
    assert.match(got.fix ?? '', 'start the run again', where);
    if (d.kind === 'sqlite') assert.match(got.fix, /restore \S*countersign\.db from a backup/, where);
  }
  assert.is(d.store.eventCount(d.runId), before, `${label}, ${d.kind}: the submit journaled nothing`);
}

async function bothStores(label: string, damage: Damage, what: string): Promise<void> {
  for (const kind of ['memory', 'sqlite'] as const) {
    const d = await damagedRun(kind, damage);
    try {
      await refusedEverywhere(d, what, label);
    } finally {
      d.cleanup();
    }
  }
}

const failedAt = (error: Record<string, unknown>): Damage => (r) => {
  r.status = 'failed';
  delete r.pending;
  delete r.deadline;
  r.error = error;
};

const test = suite('damaged records: the same refusal from either store');

test('r83 d1: a pending inputSchema that does not compile ({"type": "nope"}) is E_STORE from status, info and submit, never served or used', async () => {
  await bothStores('type nope', (r) => (r.pending.inputSchema = { type: 'nope' }), 'has a directive pending item whose inputSchema does not compile');
  await bothStores('unknown keyword', (r) => (r.pending.inputSchema = { type: 'object', minLenght: 3 }), 'has a directive pending item whose inputSchema does not compile');
});

test('r83 d2: a failed record must carry its error code, message and the node it failed at (a node of its workflow), else E_STORE; a real failure still reads', async () => {
  await bothStores('no nodeId', failedAt({ code: 'E_AGENT_ERROR', message: 'gave up' }), 'failed without the node it failed at');
  await bothStores('nodeId a number', failedAt({ code: 'E_AGENT_ERROR', message: 'gave up', nodeId: 7 }), 'failed with an error whose "nodeId" is 7, not a string');
  await bothStores('no code', failedAt({ message: 'gave up', nodeId: 'write' }), 'failed without an error code');
  await bothStores('no message', failedAt({ code: 'E_AGENT_ERROR', nodeId: 'write' }), 'failed without its error message');
  await bothStores('unknown node', failedAt({ code: 'E_AGENT_ERROR', message: 'gave up', nodeId: 'nowhere' }), 'failed at node "nowhere", which its stored workflow does not have');
  // A failure the engine wrote itself names its node, and is served as it is.
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO);
  const failed = await engine.submit(s.runId, { $error: 'gave up' });
  assert.is(failed.status, 'failed');
  assert.equal(failed.status === 'failed' && failed.error.nodeId, 'write');
  assert.equal(await engine.status(s.runId), failed);
});

test('r83 d3: submit on a tool pending item at an agent-directive node is E_STORE with the restore fix (never E_TOOL_NODE sending the user to status)', async () => {
  await bothStores('tool item at a directive', (r) => (r.pending = { kind: 'tool', nodeId: 'write', tool: 'x', args: {}, attempt: 1, maxRetries: 0 }), 'waits at node "write", a agent-directive node, with a tool pending item');
});

test('r83 d4: a record whose status is not waiting, completed or failed is E_STORE from status, info, submit and runs(), never undefined or a TypeError', async () => {
  await bothStores('paused', (r) => (r.status = 'paused'), 'has status "paused", not waiting, completed or failed');
  for (const kind of ['memory', 'sqlite'] as const) {
    const d = await damagedRun(kind, (r) => (r.status = 'paused'));
    try {
      const listed = await d.engine.runs().then((v) => ({ resolved: v }), (e) => e);
      assert.is(listed.code, 'E_STORE', `${kind}: ${JSON.stringify(listed.resolved)}`);
      assert.match(listed.message, `run "${d.runId}"`);
    } finally {
      d.cleanup();
    }
  }
});

test('r83 d5: a record whose snapshot is null is E_STORE naming it from status, info and submit, never a TypeError', async () => {
  await bothStores('snapshot null', (r) => (r.snapshot = null), 'has the snapshot null, not an object');
});

test('r83 d6: a record status() refuses is never answered or advanced by submit: the wrong kind of item, a bogus kind, errors or deadline of the wrong type, a schema that is a list, no directive', async () => {
  const cases: Array<[string, Damage, string]> = [
    ['review item at a directive', (r) => { r.pending.kind = 'review'; r.pending.prompt = 'p'; }, 'waits at node "write", a agent-directive node, with a review pending item'],
    ['bogus kind', (r) => (r.pending.kind = 'bogus'), 'pending item whose kind "bogus" is not directive, review or tool'],
    ['errors "bad"', (r) => (r.pending.errors = 'bad'), 'pending item whose "errors" is not a list of strings'],
    ['pending deadline "soon"', (r) => (r.pending.deadline = 'soon'), 'pending item whose "deadline" is no time'],
    ['inputSchema []', (r) => (r.pending.inputSchema = []), 'has a directive pending item whose "inputSchema" is a list, not an object'],
    ['no directive', (r) => delete r.pending.directive, 'has a directive pending item without its directive'],
  ];
  for (const [label, damage, what] of cases) await bothStores(label, damage, what);
});

test('r83 d7: a waiting record at seq 0 is E_STORE (seqs start at 1), never served as waiting nor an E_SEQ whose fix cannot work', async () => {
  await bothStores('seq 0', (r) => (r.seq = 0), 'is waiting at seq 0, and seqs start at 1');
  for (const kind of ['memory', 'sqlite'] as const) {
    const d = await damagedRun(kind, (r) => (r.seq = 0));
    try {
      const got = await d.engine.submit(d.runId, { words: 5 }, { seq: 0 }).then(() => undefined, (e) => e);
      assert.is(got?.code, 'E_STORE', kind);
    } finally {
      d.cleanup();
    }
  }
});

test('r83 d8: a pending item whose attempt is not a count from 1, or whose maxRetries is below 0, is E_STORE', async () => {
  await bothStores('attempt 0', (r) => (r.pending.attempt = 0), 'has a directive pending item whose "attempt" is 0, not a count from 1');
  await bothStores('attempt -5', (r) => (r.pending.attempt = -5), 'has a directive pending item whose "attempt" is -5, not a count from 1');
  await bothStores('maxRetries -1', (r) => (r.pending.maxRetries = -1), 'has a directive pending item whose "maxRetries" is -1, not a count from 0');
});

test('r83 d9: the memory store is refused as SQLite is for the same damage (times, file, workspace, workflow, another run\'s id, seqs, an item of another node, a deadline that is no time)', async () => {
  const cases: Array<[string, Damage, string]> = [
    ['createdAt "yesterday"', (r) => (r.createdAt = 'yesterday'), 'has the createdAt "yesterday", which is no time'],
    ['updatedAt 5', (r) => (r.updatedAt = 5), 'has the updatedAt 5, which is no time'],
    ['file 7', (r) => (r.file = 7), 'has the file 7, which is no path'],
    ['workspace 3', (r) => (r.workspace = 3), 'has the workspace 3, not a string'],
    ['workflow 5', (r) => (r.workflow = 5), 'has the workflow 5, not a string'],
    ['runId "zzz"', (r) => (r.runId = 'zzz'), 'names run "zzz"'],
    ['seq 1.5', (r) => (r.seq = 1.5), 'has seq 1.5, not a whole number'],
    ['seq -1', (r) => (r.seq = -1), 'has seq -1, not a whole number'],
    ['item of another node', (r) => (r.pending.nodeId = 'other'), 'with the pending item of node "other"'],
    ['deadline "soon"', (r) => (r.deadline = 'soon'), 'has the deadline "soon", which is no time'],
  ];
  for (const [label, damage, what] of cases) await bothStores(label, damage, what);
  // runs() lists no run whose time is no time, whichever store, nor (SQLite, whose rows can be edited) one under another run's id.
  for (const [damage, what, kinds] of [[(r) => (r.createdAt = 'yesterday'), '"yesterday", which is no time', ['memory', 'sqlite']], [(r) => (r.runId = 'zzz'), '"zzz"', ['sqlite']]] as Array<[Damage, string, Array<'memory' | 'sqlite'>]>) {
    for (const kind of kinds) {
      const d = await damagedRun(kind, damage);
      try {
        const listed = await d.engine.runs().then((v) => ({ resolved: v }), (e) => e);
        assert.is(listed.code, 'E_STORE', `${kind}: ${JSON.stringify(listed.resolved)}`);
        assert.match(listed.message, `run "${d.runId}"`);
        assert.match(listed.message, what);
      } finally {
        d.cleanup();
      }
    }
  }
});

test('r84: a workflow copy that no longer matches its hash, in a store with no file, is E_STORE from status, info and submit whose fix says to start the run again (no countersign.db to restore), with no file', async () => {
  const fake = 'e'.repeat(64);
  const d = await damagedRun('memory', (r) => (r.workflowHash = fake));
  try {
    const before = d.store.eventCount(d.runId);
    // The memory store takes a copy only under its own hash (putWorkflow refuses any other, E_INPUT) and keeps it frozen:
    // the damaged copy comes from a host's own store without a file, serving another copy under the run's hash.
    const other = { ...TWO, nodes: TWO.nodes.map((n: { id: string }) => (n.id === 'write' ? { ...n, directive: 'Another copy.' } : n)) };
    assert.throws(() => d.store.putWorkflow(fake, other), (e: { code?: string }) => e.code === 'E_INPUT');
    const hostStore = new Proxy(d.store, {
      get: (target, key) => (key === 'getWorkflow' ? (hash: string, runId?: string) => (hash === fake ? other : target.getWorkflow(hash, runId)) : Reflect.get(target, key)),
    });
    const engine = createEngine({ store: hostStore });
    for (const call of [() => engine.status(d.runId), () => engine.info(d.runId), () => engine.submit(d.runId, { words: 5 })]) {
      const e = await call().then((v) => ({ resolved: v }), (err) => err);
      assert.is(e?.code, 'E_STORE', JSON.stringify(e?.resolved ?? e?.message));
      assert.is(e.message, `run ${d.runId}: the stored workflow copy ${fake} is damaged: its content no longer matches its hash`);
      assert.is(e.file, undefined);
      assert.match(e.fix, 'start the run again from its workflow file');
      assert.not.match(e.fix, 'countersign.db');
      assert.not.match(e.fix, 'from a backup');
    }
    assert.is(d.store.eventCount(d.runId), before, 'the submit journaled nothing');
  } finally {
    d.cleanup();
  }
});

test('status and info of a sound stored run compile no answer schema (a read never loads ajv), and serve it as it is', async () => {
  const { compilations } = await import('../../engine/nodes/answer-schema.js');
  const d = await damagedRun('sqlite', () => {});
  try {
    const before = compilations();
    const state = await d.engine.status(d.runId);
    const info = await d.engine.info(d.runId);
    assert.is(compilations(), before);
    assert.is(state.status === 'waiting' && state.pending.nodeId, 'write');
    assert.equal(info.pending, state.status === 'waiting' ? state.pending : undefined);
  } finally {
    d.cleanup();
  }
});

test('r83 CLI: countersign step on a record status calls damaged (a tool or review item at a directive, seq 0) is E_STORE with the restore fix, exit 2, and the run is not advanced', async () => {
  const { cli, tempDir } = await import('../helpers/cli.js');
  const wf = join(fileURLToPath(new URL('../../', import.meta.url)), 'spec/fixtures/cli/two-step.json');
  const damages: Array<[string, string, string[]]> = [
    ["json_set(record, '$.pending.kind', 'tool', '$.pending.tool', 'x', '$.pending.args', json('{}'))", 'waits at node "write", a agent-directive node, with a tool pending item', []],
    ["json_set(record, '$.pending.kind', 'review', '$.pending.prompt', 'p')", 'waits at node "write", a agent-directive node, with a review pending item', []],
    ["json_set(record, '$.seq', 0)", 'is waiting at seq 0, and seqs start at 1', []],
    ["json_set(record, '$.seq', 0)", 'is waiting at seq 0, and seqs start at 1', ['--seq', '0']],
  ];
  for (const [update, what, extra] of damages) {
    const store = tempDir();
    const runId = (await cli(['start', wf, '--json'], { store })).json.runId as string;
    const db = new Database(join(store, 'countersign.db'));
    db.prepare(`UPDATE runs SET record = ${update}, version = version + 1 WHERE run_id = ?`).run(runId);
    db.close();
    for (const args of [['status', runId, '--json'], ['step', runId, '--response', '{"words": 3}', ...extra, '--json']]) {
      const r = await cli(args, { store });
      assert.is(r.code, 2, `${what}, ${args[0]}: ${r.stdout}`);
      assert.is(r.json.error.code, 'E_STORE', `${what}, ${args[0]}`);
      assert.match(r.json.error.message, what);
      assert.match(r.json.error.fix, /restore \S*countersign\.db from a backup/);
    }
    const journal = new Database(join(store, 'countersign.db'));
    const types = journal.prepare('SELECT type FROM events WHERE run_id = ? ORDER BY idx').pluck().all(runId);
    journal.close();
    assert.not.ok(types.includes('answer.accepted'), `${what}: no answer was taken`);
    assert.not.ok(types.includes('run.completed'), `${what}: the run was not completed`);
  }
});

test.run();
