/**
 * Node-local answers (`node-id.field`) stay readable however many nodes a
 * run has answered: the engine keeps the latest answers apart and folds
 * them into the node map every RECENT_MAX answers (format/node-answers.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore, type Store, type Workflow, type WorkflowNode } from '../../engine/index.js';
import { nodeAnswer, RECENT_MAX, withNodeAnswer, type NodeAnswers } from '../../engine/format/node-answers.js';

const Answers = suite('node-local answers across many answered nodes');
const CHAIN = RECENT_MAX + 8;

/** twice → (first visit) n0 … n39 → twice again → ask, which reads answers from both ends of the chain. */
function longChain(): Workflow {
  const nodes: WorkflowNode[] = [
    { type: 'start', id: 'start', connections: { default: 'twice' } },
    {
      type: 'agent-directive',
      id: 'twice',
      directive: 'Answer a the first time, b the second.',
      completionCondition: 'answered',
      inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
      connections: { success: 'again' },
    },
    { type: 'condition', id: 'again', condition: { operator: 'exists', left: { contextPath: 'twice.b' } }, connections: { true: 'ask', false: 'n0' } },
  ];
  for (let i = 0; i < CHAIN; i++) {
    nodes.push({
      type: 'agent-directive',
      id: `n${i}`,
      directive: `Step ${i}.`,
      completionCondition: 'done',
      inputSchema: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] },
      connections: { success: i + 1 < CHAIN ? `n${i + 1}` : 'twice' },
    });
  }
  nodes.push(
    {
      type: 'agent-directive',
      id: 'ask',
      directive: 'a={{twice.a}} b={{twice.b}} first={{n0.v}} last={{n' + (CHAIN - 1) + '.v}}',
      completionCondition: 'done',
      connections: { success: 'done' },
    },
    { type: 'end', id: 'done', finalOutput: ['twice.a', 'twice.b', 'n0.v', `n${RECENT_MAX}.v`, `n${CHAIN - 1}.v`] },
  );
  return { metadata: { name: 'long-chain', version: '1.0.0', description: 'more answered nodes than RECENT_MAX' }, nodes };
}

async function answerChain(store: () => Store) {
  let engine = createEngine({ store: store() });
  let s = await engine.start(longChain());
  s = await engine.submit(s.runId, { a: 1 });
  for (let i = 0; i < CHAIN; i++) {
    // A fresh engine and store handle every few answers: the run is read back from what was stored.
    if (i % 7 === 0) engine = createEngine({ store: store() });
    assert.is(s.status === 'waiting' && s.pending.nodeId, `n${i}`);
    s = await engine.submit(s.runId, { v: `value-${i}` });
  }
  s = await engine.submit(s.runId, { b: 2 });
  assert.is(s.status === 'waiting' && s.pending.kind === 'directive' && s.pending.directive, `a=1 b=2 first=value-0 last=value-${CHAIN - 1}`);
  s = await engine.submit(s.runId, {});
  assert.is(s.status, 'completed');
  assert.equal(s.status === 'completed' && s.output, {
    'twice.a': 1,
    'twice.b': 2,
    'n0.v': 'value-0',
    [`n${RECENT_MAX}.v`]: `value-${RECENT_MAX}`,
    [`n${CHAIN - 1}.v`]: `value-${CHAIN - 1}`,
  });
}

Answers(`memory store: ${CHAIN} answered nodes; a node answered again keeps its earlier fields (shallow merge); templates and finalOutput read every answer`, async () => {
  const store = createMemoryStore();
  await answerChain(() => store);
});

Answers('SQLite store, read back by new engines along the way: the same answers, the same output', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-answers-'));
  await answerChain(() => createSqliteStore(dir));
});

Answers('nodeAnswer/withNodeAnswer: the latest answer wins before and after the fold; earlier contexts are not changed', () => {
  let ctx: NodeAnswers<{ v: number }> = { nodes: {} };
  const history: Array<NodeAnswers<{ v: number }>> = [];
  for (let i = 0; i < RECENT_MAX * 3; i++) {
    history.push(ctx);
    ctx = withNodeAnswer(ctx, `n${i % (RECENT_MAX + 5)}`, { v: i });
  }
  for (let k = 0; k < RECENT_MAX + 5; k++) {
    const latest = Math.max(...Array.from({ length: RECENT_MAX * 3 }, (_, i) => i).filter((i) => i % (RECENT_MAX + 5) === k));
    assert.equal(nodeAnswer(ctx, `n${k}`), { v: latest }, `n${k}`);
  }
  assert.ok((ctx.recent?.length ?? 0) <= RECENT_MAX);
  // An earlier context still reads what it had: nothing was edited in place.
  assert.equal(nodeAnswer(history[3], 'n1'), { v: 1 });
  assert.is(nodeAnswer(history[3], 'n3'), undefined);
  // A context stored before `recent` existed reads from `nodes` alone.
  assert.equal(nodeAnswer({ nodes: { old: { v: 7 } } }, 'old'), { v: 7 });
  assert.is(nodeAnswer({ nodes: {} }, 'toString'), undefined);
});

Answers('a run stored by a version-3 store (answers only in `nodes`) continues and reads them; the store moves to version 4', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-answers-v3-'));
  const wf: Workflow = {
    metadata: { name: 'v3', version: '1.0.0', description: 'an answer read after an upgrade' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'first' } },
      { type: 'agent-directive', id: 'first', directive: 'Give v.', completionCondition: 'done', inputSchema: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }, connections: { success: 'second' } },
      { type: 'agent-directive', id: 'second', directive: 'You said {{first.v}}.', completionCondition: 'done', connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['first.v'] },
    ],
  };
  const store = createSqliteStore(dir);
  const s = await createEngine({ store }).start(wf);
  await createEngine({ store }).submit(s.runId, { v: 'kept' });
  store.close();
  // Rewrite the stored snapshot as a version 3 store held it: every answer in `nodes`.
  const db = new Database(join(dir, 'countersign.db'));
  const rec = JSON.parse(db.prepare('SELECT record FROM runs WHERE run_id = ?').pluck().get(s.runId) as string);
  const ctx = rec.snapshot.context;
  ctx.nodes = { ...ctx.nodes, ...Object.fromEntries(ctx.recent ?? []) };
  delete ctx.recent;
  db.prepare('UPDATE runs SET record = ? WHERE run_id = ?').run(JSON.stringify(rec), s.runId);
  db.pragma('user_version = 3');
  db.close();

  const reopened = createSqliteStore(dir);
  const engine = createEngine({ store: reopened });
  const waiting = await engine.status(s.runId);
  assert.is(waiting.status === 'waiting' && waiting.pending.kind === 'directive' && waiting.pending.directive, 'You said kept.');
  const done = await engine.submit(s.runId, {});
  assert.equal(done.status === 'completed' && done.output, { 'first.v': 'kept' });
  reopened.close();
  const check = new Database(join(dir, 'countersign.db'), { readonly: true });
  assert.is(check.pragma('user_version', { simple: true }), 4);
  check.close();
});

Answers.run();
