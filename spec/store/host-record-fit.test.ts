/**
 * A host writes a record the engine once wrote, changed (r107 d1–d6): what
 * a store can judge alone is refused as it is written (E_INPUT, nothing
 * stored), and what only the workflow can judge — the item's attempt,
 * retries, schema, the review it is — is E_STORE at the next read, never
 * served with numbers the next answer is not judged by, nor a crash.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, defineTool, type Workflow } from '../../engine/index.js';
import type { RunRecord, Store } from '../../engine/store/store.js';
import { ROOT } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';

const Fit = suite('host-written records against their workflow');

const ASK: Workflow = {
  metadata: { name: 'ask', version: '1.0.0', description: 'one question with a deadline' },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'work' } },
    { id: 'work', type: 'agent-directive', directive: 'Do it', completionCondition: 'done', timeoutMs: 600_000, inputSchema: { type: 'object', properties: { a: { type: 'string' } } }, connections: { success: 'end', timeout: 'end' } },
    { id: 'end', type: 'end' },
  ],
} as Workflow;

/** A JSON copy of what the engine stored for a run waiting at its first item, and the store, with the copy written back as run "copy" after `change`. */
async function copied(store: Store, runId: string, change: (r: Record<string, any>) => void): Promise<void> {
  const copy = JSON.parse(JSON.stringify(store.get(runId))) as Record<string, any>;
  copy.runId = 'copy';
  copy.snapshot.context.meta.executionId = 'copy';
  change(copy);
  store.create(copy as RunRecord, []);
}

async function directiveRun() {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(ASK);
  return { store, engine, runId: s.runId };
}

async function reviewRun() {
  const ws = mkdtempSync(join(tmpdir(), 'countersign-fit-'));
  mkdirSync(join(ws, 'lib'));
  writeFileSync(join(ws, 'lib/a.mjs'), 'export const a = 1;\n');
  const store = createMemoryStore();
  const engine = createEngine({ store });
  let s = await engine.start(join(ROOT, 'workflows/review-fix-loop.json'), { workspace: ws, input: { task: 'Doc', artifact_path: 'docs/api.md', context_path: 'lib' } });
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs/api.md'), '# API\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'producer' });
  assert.ok(s.status === 'waiting' && s.pending.kind === 'review');
  return { store, engine, runId: s.runId };
}

Fit('r107 d2 d3 d4: a context attempt that is no count, a deadline or tool claim time in another form than toISOString, a tool item\'s maxRetries of the wrong type, a claimed tool item without its attempt: E_INPUT at the write, nothing stored', async () => {
  const { store, runId } = await directiveRun();
  const cases: Array<[(r: Record<string, any>) => void, string]> = [
    [(r) => (r.snapshot.context.attempt = 1.5), 'context has the "attempt" 1.5, not a count from 0'],
    [(r) => (r.snapshot.context.attempt = -1), 'context has the "attempt" -1, not a count from 0'],
    [(r) => { r.deadline = '1'; r.pending.deadline = '1'; }, 'has the deadline "1", not a time in the one form run times take'],
    [(r) => { r.deadline = '2099-01-01T00:00:00+02:00'; r.pending.deadline = r.deadline; }, 'has the deadline "2099-01-01T00:00:00+02:00"'],
  ];
  for (const [change, rule] of cases) {
    const e = await rejection(copied(store, runId, change));
    assert.is(e.code, 'E_INPUT', rule);
    assert.match(e.message, rule);
    assert.is(store.get('copy'), undefined, `${rule}: nothing stored`);
  }
  // A tool item caught mid-call, as the engine stores it.
  const tools = [defineTool({ name: 'nap', class: 'read', inputSchema: { type: 'object' }, run: () => new Promise(() => undefined) })];
  const toolStore = createMemoryStore();
  const engine = createEngine({ store: toolStore, tools });
  void engine.start({ metadata: { name: 't', version: '1.0.0', description: 'x' }, nodes: [{ type: 'start', id: 'start', connections: { default: 'sum' } }, { type: 'tool', id: 'sum', tool: 'nap', args: {}, connections: { success: 'done', error: 'done' } }, { type: 'end', id: 'done' }] } as Workflow);
  await new Promise((r) => setTimeout(r, 50));
  const [running] = await engine.runs();
  for (const [change, rule] of [
    [(r: Record<string, any>) => (r.pending.maxRetries = 'x'), 'has a pending item whose "maxRetries" is "x", not a whole number from 0'],
    [(r: Record<string, any>) => (r.pending.startedAt = '1'), 'has the pending.startedAt "1"'],
    [(r: Record<string, any>) => delete r.pending.attempt, 'has a tool pending item without its attempt'],
  ] as const) {
    const e = await rejection(copied(toolStore, running.runId, change));
    assert.is(e.code, 'E_INPUT', rule);
    assert.match(e.message, rule);
  }
});

Fit('r107 d2 d5, r108 d1: an item whose attempt, retries or schema are not what its node issues from the stored context, or a context naming another run (meta.executionId), is E_STORE from status and submit, never served and then judged by other numbers', async () => {
  const cases: Array<[(r: Record<string, any>) => void, string]> = [
    [(r) => (r.snapshot.context.attempt = 4), 'has a directive pending item whose "attempt" is 1, where node "work" issues 5'],
    [(r) => (r.pending.maxRetries = 0), 'whose "maxRetries" is 0, where node "work" issues 3'],
    [(r) => (r.pending.inputSchema = {}), 'whose "inputSchema" is {}, where node "work" issues'],
  ];
  for (const [change, rule] of cases) {
    const { store, engine, runId } = await directiveRun();
    await copied(store, runId, change);
    for (const call of [() => engine.status('copy'), () => engine.submit('copy', { a: 'x' })]) {
      const e = await rejection(call());
      assert.is(e.code, 'E_STORE', rule);
      assert.match(e.message, rule);
    }
    assert.is(store.eventCount('copy'), 0, 'the submit journaled nothing');
  }
  // The copy as the engine wrote it is served; one still naming the run it was copied from is not.
  const { store, engine, runId } = await directiveRun();
  await copied(store, runId, () => undefined);
  assert.is((await engine.status('copy')).status, 'waiting');
  const { store: other, engine: reader, runId: original } = await directiveRun();
  await copied(other, original, (r) => (r.snapshot.context.meta.executionId = original));
  const e = await rejection(reader.status('copy'));
  assert.is(e.code, 'E_STORE');
  assert.match(e.message, `has a snapshot whose context names the run "${original}" (meta.executionId, what {{executionId}} reads)`);
});

Fit('r107 d1 d5: a review record whose context has lost its review (reviews {}), or whose item names another iteration, is E_STORE from status and step, never a crash inside the step', async () => {
  for (const [change, rule] of [
    [(r: Record<string, any>) => (r.snapshot.context.reviews = {}), 'cannot give node'],
    [(r: Record<string, any>) => (r.pending.iteration = 7), 'whose "iteration" is 7, where node'],
  ] as const) {
    const { store, engine, runId } = await reviewRun();
    await copied(store, runId, change);
    for (const call of [() => engine.status('copy'), () => engine.submit('copy', { issues_count: 0 }, { as: 'checker' })]) {
      const e = await rejection(call());
      assert.is(e.code, 'E_STORE', rule);
      assert.match(e.message, rule);
    }
  }
});

Fit.run();
