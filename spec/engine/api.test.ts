/** The library API a host embeds: createEngine, start/submit/status/trace/runs/run. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import {
  CountersignError,
  createEngine,
  createMemoryStore,
  createSqliteStore,
  loadWorkflow,
  validateDocument,
  type Agent,
  type Workflow,
} from '../../engine/index.js';
import { hashWorkflow } from '../../engine/run/hash.js';
import { MAX_ANSWER_BYTES } from '../../engine/nodes/answer-schema.js';
import { ROOT } from '../helpers/cli.js';

const Api = suite('library API');
const tmp = () => mkdtempSync(join(tmpdir(), 'countersign-api-'));
const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

Api('loadWorkflow reads YAML and JSON into one model: the same workflow hashes identically and runs identically', async () => {
  const yamlDoc = loadWorkflow(join(ROOT, 'workflows/bugfix.yaml'));
  const asJson = join(tmp(), 'bugfix.json');
  writeFileSync(asJson, JSON.stringify(yamlDoc.data, null, 2));
  const jsonDoc = loadWorkflow(asJson);
  assert.equal(jsonDoc.data, yamlDoc.data);
  assert.is(hashWorkflow(jsonDoc.data), hashWorkflow(yamlDoc.data));
  assert.ok(validateDocument(yamlDoc).ok && validateDocument(jsonDoc).ok);
  const script = parseYaml(readFileSync(join(ROOT, 'examples/scripts/bugfix.yaml'), 'utf8')) as Record<string, unknown[]>;
  const results = [];
  for (const doc of [yamlDoc, jsonDoc]) {
    const queues = Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
    const agent: Agent = { answer: async (req) => queues[req.nodeId].shift() };
    const engine = createEngine({ store: createMemoryStore(), newRunId: () => 'same' });
    results.push(await engine.run(doc, { agent }));
  }
  assert.equal(results[0], results[1]);
  assert.is(results[0].status, 'completed');
});

Api('a Moira-format workflow (seed-003 loop with catalog fields and issues_found yes/no) loads unchanged and runs (G21 G26 G32)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const doc = loadWorkflow(join(ROOT, 'spec/fixtures/good/review-loop.json'));
  let state = await engine.start(doc);
  let guard = 0;
  while (state.status === 'waiting' && guard++ < 20) {
    const props = Object.keys((state.pending.inputSchema.properties as object) ?? {});
    const answer: Record<string, unknown> = {};
    for (const p of props) {
      const schema = (state.pending.inputSchema.properties as Record<string, { type?: string; enum?: string[] }>)[p];
      const byType: Record<string, unknown> = { number: 0, integer: 0, boolean: true, array: [], object: {}, string: 'x' };
      answer[p] = schema.enum ? (schema.enum.includes('no') ? 'no' : schema.enum[0]) : byType[schema.type ?? 'string'];
    }
    state = await engine.submit(state.runId, answer);
  }
  assert.is(state.status, 'completed', JSON.stringify(state));
});

Api('concurrent submits to one run never both advance it: one is processed, the other replays (memory and SQLite)', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const s = await engine.start(TWO_STEP);
    const [a, b] = await Promise.all([
      engine.submit(s.runId, { words: 0 }, { seq: 1 }),
      engine.submit(s.runId, { words: 0 }, { seq: 1 }),
    ]);
    assert.equal([a.replayed ?? false, b.replayed ?? false].sort(), [false, true]);
    assert.is((await engine.status(s.runId)).seq, 2);
    const rejected = (await engine.trace(s.runId)).events.filter((e) => e.type === 'answer.rejected');
    assert.is(rejected.length, 1);
    store.close();
  }
});

Api('two processes stepping one SQLite run with the same seq: exactly one advances it', async () => {
  const store = tmp();
  const engine = createEngine({ store: createSqliteStore(store) });
  const s = await engine.start(TWO_STEP);
  const script = `
    import { createEngine, createSqliteStore } from ${JSON.stringify(join(ROOT, 'engine/index.ts'))};
    const engine = createEngine({ store: createSqliteStore(${JSON.stringify(store)}) });
    const r = await engine.submit(${JSON.stringify(s.runId)}, { words: 0 }, { seq: 1 });
    console.log(JSON.stringify({ replayed: r.replayed === true }));
  `;
  const file = join(tmp(), 'race.mts');
  writeFileSync(file, script);
  const { spawn } = await import('node:child_process');
  const run = () =>
    new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('close', () => resolve(out.trim()));
    });
  const outs = await Promise.all([run(), run()]);
  const replays = outs.map((o) => JSON.parse(o).replayed as boolean).sort();
  assert.equal(replays, [false, true]);
  assert.is((await engine.status(s.runId)).seq, 2);
  void spawnSync;
});

Api('an oversized answer (over MAX_ANSWER_BYTES, 1 MiB) is rejected as E_ANSWER_TOO_LARGE and counts as an attempt', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const huge = { words: 1, pad: 'x'.repeat(MAX_ANSWER_BYTES) };
  const r = await engine.submit(s.runId, huge);
  assert.is(r.status, 'waiting');
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_TOO_LARGE');
  assert.is(r.status === 'waiting' && r.pending.attempt, 2);
  const events = (await engine.trace(s.runId)).events;
  assert.ok(!JSON.stringify(events).includes('xxxxxxxxxx'), 'the oversized answer is not stored in the journal');
});

Api('a run keeps its stored copy of the workflow: editing the file never changes a run under way', async () => {
  const dir = tmp();
  const file = join(dir, 'wf.json');
  writeFileSync(file, JSON.stringify(TWO_STEP));
  const engine = createEngine({ store: createSqliteStore(join(dir, 'store')) });
  const s = await engine.start(file);
  const edited = structuredClone(TWO_STEP);
  (edited.nodes[1] as { directive: string }).directive = 'CHANGED';
  edited.nodes[2] = { ...edited.nodes[2], connections: { true: 'short', false: 'short' } } as never;
  writeFileSync(file, JSON.stringify(edited));
  const done = await createEngine({ store: createSqliteStore(join(dir, 'store')) }).submit(s.runId, { words: 500 });
  assert.is(done.status === 'completed' && done.endNodeId, 'long');
});

Api('submit to an unknown run and a malformed answer value are typed errors with codes', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  try {
    await engine.submit('nope', {});
    assert.unreachable();
  } catch (e) {
    assert.instance(e, CountersignError);
    assert.is((e as CountersignError).code, 'E_RUN_NOT_FOUND');
  }
  const s = await engine.start(TWO_STEP);
  try {
    await engine.submit(s.runId, undefined);
    assert.unreachable();
  } catch (e) {
    assert.is((e as CountersignError).code, 'E_INPUT');
  }
});

Api('start of an invalid workflow throws E_WORKFLOW_INVALID carrying the full validation report', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const bad = structuredClone(TWO_STEP);
  (bad.nodes[1] as { directive: string }).directive = 'About {{tpoic}}';
  try {
    await engine.start(bad);
    assert.unreachable();
  } catch (e) {
    const err = e as CountersignError;
    assert.is(err.code, 'E_WORKFLOW_INVALID');
    const report = err.data as { errors: Array<{ code: string; message: string; pointer: string }> };
    assert.is(report.errors[0].code, 'E_UNDECLARED_VARIABLE');
    assert.is(report.errors[0].pointer, '/nodes/1/directive');
    assert.match(report.errors[0].message, /did you mean "topic"/);
  }
});

Api('run() with an agent reports progress node by node and returns output; an agent throwing a CountersignError stops resumably', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const seen: string[] = [];
  const result = await engine.run(TWO_STEP, {
    agent: { answer: async () => ({ words: 101 }) },
    onProgress: (e) => seen.push(e.type === 'pending' ? `pending:${e.state.pending.nodeId}` : e.type),
  });
  assert.equal(result, { runId: result.runId, status: 'completed', steps: 1, endNodeId: 'long', output: { topic: 'tests', 'write.words': 101 } });
  assert.equal(seen, ['pending:write', 'answered']);
  const stopped = await engine.run(TWO_STEP, {
    agent: { answer: async (req) => { throw new CountersignError('E_AGENT_CRASHED', 'boom', { nodeId: req.nodeId }); } },
  });
  assert.equal({ status: stopped.status, stopped: stopped.stopped, code: stopped.error?.code }, { status: 'waiting', stopped: true, code: 'E_AGENT_CRASHED' });
  const resumed = await engine.run({ runId: stopped.runId }, { agent: { answer: async () => ({ words: 1 }) } });
  assert.is(resumed.endNodeId, 'short');
});

Api('run(): a node deadline that passes while the agent thinks takes the timeout route, not an adapter error', async () => {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: 50, connections: { success: 'check', timeout: 'short' } });
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(wf, { agent: { answer: () => new Promise((r) => setTimeout(() => r({ words: 5 }), 5_000)) } });
  assert.is(result.status, 'completed');
  assert.is(result.endNodeId, 'short');
  const types = (await engine.trace(result.runId)).events.map((e) => e.type);
  assert.ok(types.includes('timeout'));
});

Api.run();
