/**
 * A store that cannot be written while `run` drives (another process holds
 * its write lock past the busy timeout, a full disk): the run exists by
 * then, so `run` stops as for any resumable stop — the run id, its status,
 * the steps taken and the error, exit 3, and a fix that resumes this run,
 * never "retry the command" (which would start a second run and leave this
 * one waiting forever). The library's run() resolves the same way.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CountersignError, createEngine, createMemoryStore, defineTool, type Agent, type Store, type Workflow } from '../../engine/index.js';
import { cli, ROOT, tempDir } from '../helpers/cli.js';
import { readFileSync } from 'node:fs';

const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');
const TWO_STEP = JSON.parse(readFileSync(WF, 'utf8')) as Workflow;

const test = suite('run with a store that fails mid-drive');

/** A jsonl agent that marks each request it reads, and answers only once `go` exists. */
function gatedAgent(dir: string): { spec: string; asked: string; go: string } {
  const asked = join(dir, 'asked');
  const go = join(dir, 'go');
  writeFileSync(join(dir, 'agent.mjs'), `
import { existsSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  writeFileSync(${JSON.stringify(asked)}, line);
  while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 20));
  process.stdout.write('{"words": 150}\\n');
}
`);
  return { spec: `jsonl:node ${join(dir, 'agent.mjs')}`, asked, go };
}

test('the store locked by another process when the answer is submitted: --json prints {runId, status: "waiting", steps, error: E_STORE} with a fix that resumes this run, exit 3; resumed once the lock is gone, the same run completes', async () => {
  const dir = tempDir();
  const store = join(dir, 'store');
  const agent = gatedAgent(dir);
  const running = cli(['run', WF, '--agent', agent.spec, '--store', store, '--json'], { cwd: dir });
  for (const end = Date.now() + 20_000; !existsSync(agent.asked); ) {
    if (Date.now() > end) throw new Error('the agent was never asked');
    await new Promise((r) => setTimeout(r, 20));
  }
  // Another process's write transaction, held past the store's busy timeout.
  const other = new Database(join(store, 'countersign.db'));
  other.prepare('BEGIN IMMEDIATE').run();
  writeFileSync(agent.go, '');
  const r = await running;
  other.prepare('ROLLBACK').run();
  other.close();
  assert.is(r.code, 3, r.stderr);
  assert.type(r.json.runId, 'string');
  assert.is(r.json.status, 'waiting');
  assert.is(r.json.steps, 0);
  assert.is(r.json.stopped, true);
  assert.is(r.json.error.code, 'E_STORE');
  assert.match(r.json.error.message, 'database is locked');
  assert.match(r.json.error.message, `run ${r.json.runId}`);
  assert.match(r.json.error.fix, `countersign run --resume ${r.json.runId} --store ${store} --agent <adapter>`);
  assert.not.match(r.json.error.fix, 'retry the command');
  assert.match(r.stderr, `countersign: E_STORE:`);
  // Resumed as the fix says: the same run takes the answer and completes; no second run was started.
  const resumed = await cli(['run', '--resume', r.json.runId, '--agent', agent.spec, '--store', store, '--json'], { cwd: dir });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is(resumed.json.runId, r.json.runId);
  assert.is(resumed.json.status, 'completed');
  const runs = await cli(['runs', '--store', store, '--json']);
  assert.is(runs.json.runs.length, 1);
});

test('without --json, the stop says which run still waits and how to resume it', async () => {
  const dir = tempDir();
  const store = join(dir, 'store');
  const agent = gatedAgent(dir);
  const running = cli(['run', WF, '--agent', agent.spec, '--store', store], { cwd: dir });
  for (const end = Date.now() + 20_000; !existsSync(agent.asked); ) {
    if (Date.now() > end) throw new Error('the agent was never asked');
    await new Promise((r) => setTimeout(r, 20));
  }
  const other = new Database(join(store, 'countersign.db'));
  other.prepare('BEGIN IMMEDIATE').run();
  writeFileSync(agent.go, '');
  const r = await running;
  other.prepare('ROLLBACK').run();
  other.close();
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stdout, /stopped; run [0-9a-f-]+ is still waiting\nresume with: countersign run --resume [0-9a-f-]+ --store /);
  assert.match(r.stderr, 'countersign: E_STORE:');
});

test('library: run() whose store fails mid-drive resolves with the run id, status "waiting", stopped and the E_STORE error (never a rejection that loses the run); the run resumes', async () => {
  const base = createMemoryStore();
  let failNext = false;
  const store: Store = {
    ...base,
    update(runId, mutate) {
      if (failNext) {
        failNext = false;
        throw new CountersignError('E_STORE', `cannot update run "${runId}" in the test store: disk full`, { fix: 'free some disk space' });
      }
      return base.update(runId, mutate);
    },
  };
  const engine = createEngine({ store });
  const agent: Agent = {
    answer: async () => {
      failNext = true;
      return { words: 150 };
    },
  };
  const result = await engine.run(TWO_STEP, { agent });
  assert.is(result.status, 'waiting');
  assert.is(result.stopped, true);
  assert.is(result.steps, 0);
  assert.is(result.error?.code, 'E_STORE');
  assert.is(result.error?.nodeId, 'write');
  assert.match(result.error?.message ?? '', 'disk full');
  assert.match(result.error?.fix ?? '', 'free some disk space');
  assert.match(result.error?.fix ?? '', `countersign run --resume ${result.runId}`);
  const resumed = await engine.run({ runId: result.runId }, { agent: { answer: async () => ({ words: 150 }) } });
  assert.is(resumed.status, 'completed');
  assert.is(resumed.runId, result.runId);
});

/** start → a tool node → a directive → end, over a store whose first update after the run is created fails. */
function toolFirst() {
  const base = createMemoryStore();
  let created = false;
  let failed = false;
  const store: Store = {
    ...base,
    create(...args) {
      created = true;
      return base.create(...args);
    },
    update(runId, mutate) {
      if (created && !failed) {
        failed = true;
        throw new CountersignError('E_STORE', `cannot update run "${runId}" in the test store: disk full`, { fix: 'free some disk space' });
      }
      return base.update(runId, mutate);
    },
  };
  const ran: string[] = [];
  const note = defineTool({ name: 'note', class: 'read', inputSchema: { type: 'object' }, run: async () => (ran.push('note'), 'noted') });
  const wf = {
    metadata: { name: 'tool-first', version: '1.0.0', description: 'a tool node before the first directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'prep' } },
      { type: 'tool', id: 'prep', tool: 'note', args: {}, connections: { success: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Say done', completionCondition: 'done', inputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  return { engine: createEngine({ store, tools: [note] }), wf, ran, base };
}

test('library: run() whose store fails while a new run\'s first tool nodes run (after the run was stored) resolves with the run id, stopped, E_STORE at the tool node; resumed, the same run completes', async () => {
  const { engine, wf, base } = toolFirst();
  const closed: string[] = [];
  const agent: Agent = { answer: async () => ({ ok: true }), close: async () => void closed.push('agent') };
  const result = await engine.run(wf, { agent });
  assert.is(result.status, 'waiting');
  assert.is(result.stopped, true);
  assert.is(result.error?.code, 'E_STORE');
  assert.is(result.error?.nodeId, 'prep');
  assert.match(result.error?.message ?? '', 'disk full');
  assert.match(result.error?.fix ?? '', `countersign run --resume ${result.runId}`);
  assert.equal(closed, ['agent'], 'its agent is closed as after any drive');
  assert.is(base.list().length, 1, 'one run, the one named');
  const resumed = await engine.run({ runId: result.runId }, { agent: { answer: async () => ({ ok: true }) } });
  assert.is(resumed.status, 'completed');
  assert.is(resumed.runId, result.runId);
});

test('library: start() whose store fails while the new run\'s first tool nodes run rejects with E_STORE naming the run it started and how to continue it (status runs its tool nodes)', async () => {
  const { engine, wf, base } = toolFirst();
  const err = await engine.start(wf).then(() => undefined, (e: CountersignError) => e);
  assert.ok(err, 'start rejected');
  const runId = base.list()[0]!.runId;
  assert.is(err!.code, 'E_STORE');
  assert.is(err!.nodeId, 'prep');
  assert.match(err!.message, `run ${runId} was started and waits at node "prep"`);
  assert.match(err!.fix ?? '', `countersign status ${runId}`);
  assert.match(err!.fix ?? '', 'free some disk space');
  const after = await engine.status(runId);
  assert.is(after.status === 'waiting' && after.pending.kind, 'directive', 'status ran the tool node, as the fix says');
});

test('r88 d2: run() that fails before its drive begins (a store that cannot take the workflow copy, a workflow that does not load) still closes the agent and reviewer it was handed, once each', async () => {
  const base = createMemoryStore();
  const store: Store = {
    ...base,
    putWorkflow() {
      throw new CountersignError('E_STORE', 'the disk is full', { fix: 'free some disk space' });
    },
  };
  const closed: string[] = [];
  const agent: Agent = { answer: async () => ({ words: 150 }), close: async () => void closed.push('agent') };
  const reviewer: Agent = { answer: async () => ({}), close: async () => void closed.push('reviewer') };
  const err = await createEngine({ store }).run(TWO_STEP, { agent, reviewer }).then(() => undefined, (e: CountersignError) => e);
  assert.is(err?.code, 'E_STORE');
  assert.equal(closed.sort(), ['agent', 'reviewer']);
  closed.length = 0;
  const missing = await createEngine({ store: createMemoryStore() }).run(join(tempDir(), 'nowhere.json'), { agent }).then(() => undefined, (e: CountersignError) => e);
  assert.ok(missing, 'a missing workflow file rejects');
  assert.equal(closed, ['agent']);
});

test.run();
