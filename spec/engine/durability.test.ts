/** Guarantees that only show across processes, restarts and real time. */
import { hashWorkflow } from '../../engine/run/hash.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore, type Workflow } from '../../engine/index.js';
import { ROOT, cli, tempDir } from '../helpers/cli.js';

const Durability = suite('durability across processes and time');
const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

function withDeadline(ms: number): Workflow {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: ms, connections: { success: 'check', timeout: 'short' } });
  return wf;
}

Durability('four processes released together with the same seq: exactly one advances the run (every time)', async () => {
  const store = mkdtempSync(join(tmpdir(), 'countersign-race-'));
  const engine = createEngine({ store: createSqliteStore(store) });
  const s = await engine.start(TWO_STEP);
  const go = join(store, 'go');
  const script = join(store, 'racer.mts');
  writeFileSync(script, `
    import { existsSync } from 'node:fs';
    import { createEngine, createSqliteStore } from ${JSON.stringify(join(ROOT, 'engine/index.ts'))};
    const engine = createEngine({ store: createSqliteStore(${JSON.stringify(store)}) });
    while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 2));
    const r = await engine.submit(${JSON.stringify(s.runId)}, { words: 0 }, { seq: 1 });
    console.log(r.replayed ? 'replayed' : 'processed');
  `);
  const racers = [1, 2, 3, 4].map(
    () =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('close', () => resolve(out.trim()));
      }),
  );
  await new Promise((r) => setTimeout(r, 1500)); // every racer is loaded and polling
  writeFileSync(go, '');
  const outcomes = (await Promise.all(racers)).sort();
  assert.equal(outcomes, ['processed', 'replayed', 'replayed', 'replayed']);
  const s2 = await engine.status(s.runId);
  assert.is(s2.seq, 2);
  assert.is((await engine.trace(s.runId)).events.filter((e) => e.type === 'answer.rejected').length, 1);
  void existsSync;
});

Durability('a deadline survives a restart: a new process fires it at its first status after the deadline', async () => {
  const dir = tempDir();
  const file = join(dir, 'deadline.json');
  writeFileSync(file, JSON.stringify(withDeadline(300)));
  const store = join(dir, 'store');
  const s = await cli(['start', file, '--json'], { store });
  assert.is(s.json.status, 'waiting');
  assert.ok(s.json.pending.deadline);
  await new Promise((r) => setTimeout(r, 500));
  const st = await cli(['status', s.json.runId, '--json'], { store }); // a fresh engine over the same store
  assert.is(st.json.status, 'completed');
  assert.is(st.json.endNodeId, 'short');
});

Durability('in a driving run the node deadline bounds the wait on an agent that never answers', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const started = Date.now();
  const result = await engine.run(withDeadline(400), { agent: { answer: () => new Promise(() => {}) } });
  const took = Date.now() - started;
  assert.is(result.endNodeId, 'short');
  assert.ok(took < 3000, `took ${took} ms: the wait was not bounded by the deadline`);
});

Durability('updatedAt follows every step while createdAt stays; the workspace is stored absolute', async () => {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const s = await engine.start(TWO_STEP, { workspace: 'spec/fixtures' });
  clock += 60_000;
  await engine.submit(s.runId, { words: 2 });
  const info = await engine.info(s.runId);
  assert.is(info.createdAt, '2026-01-01T00:00:00.000Z');
  assert.is(info.updatedAt, '2026-01-01T00:01:00.000Z');
  assert.is(info.workspace, join(process.cwd(), 'spec/fixtures'));
  const [summary] = await engine.runs();
  assert.is(summary.updatedAt, '2026-01-01T00:01:00.000Z');
});

Durability('a run stored before malformed finalOutput names were refused still completes: such a name is left out of the output, as an unresolved one is', async () => {
  const store = createMemoryStore();
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[3], { finalOutput: ['topic', 'a b', 'write.words'] });
  await createEngine({ store }).start(wf).then(() => assert.unreachable('validation refuses "a b"'), (e) => assert.is(e.code, 'E_WORKFLOW_INVALID'));
  const hash = hashWorkflow(wf);
  store.putWorkflow(hash, wf);
  const at = '2026-01-01T00:00:00.000Z';
  const directive = { kind: 'directive', nodeId: 'write', directive: 'Write about x.', completionCondition: 'written', inputSchema: { type: 'object', properties: { words: { type: 'integer', minimum: 1 } }, required: ['words'], additionalProperties: false }, attempt: 1, maxRetries: 3 };
  store.create({
    runId: 'old', workflow: 'two-step', workflowHash: hash, workspace: process.cwd(), status: 'waiting', seq: 1, createdAt: at, updatedAt: at,
    snapshot: { value: 'write', context: { vars: { topic: 'x' }, nodes: {}, meta: { executionId: 'old', workflowId: 'two-step', userId: 'local' }, attempt: 0 } },
    pending: directive,
  } as never, [{ seq: 0, at, type: 'run.started' }]);
  const done = await createEngine({ store }).submit('old', { words: 500 }, { seq: 1 });
  assert.equal(done, { runId: 'old', seq: 1, status: 'completed', endNodeId: 'long', output: { topic: 'x', 'write.words': 500 } });
});

Durability.run();
