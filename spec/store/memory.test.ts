/**
 * The in-memory store must stay small: the benchmark budget is 10,000
 * waiting runs in well under 300 MB, so the workflow copy is kept once per
 * hash and the engine's records are not copied.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Workflow } from '../../engine/format/model.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createEngine } from '../../engine/index.js';
import type { RunRecord } from '../../engine/store/store.js';
import { hashWorkflow } from '../../engine/run/hash.js';

const test = suite('memory store');

const ASK: Workflow = {
  metadata: { name: 'ask', version: '1.0.0', description: 'one question' },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'q' } },
    { id: 'q', type: 'agent-directive', directive: 'Answer', completionCondition: 'done', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, connections: { success: 'end' } },
    { id: 'end', type: 'end' },
  ],
};

function bigWorkflow(): Workflow {
  const nodes: Workflow['nodes'] = [{ id: 'start', type: 'start', connections: { default: 'n0' } }];
  for (let i = 0; i < 300; i++) {
    nodes.push({
      id: `n${i}`,
      type: 'agent-directive',
      directive: `Step ${i}: ${'do the careful thing '.repeat(10)}`,
      completionCondition: 'done',
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
      connections: { success: i === 299 ? 'end' : `n${i + 1}` },
    });
  }
  nodes.push({ id: 'end', type: 'end' });
  return { metadata: { name: 'big', version: '1', description: 'large' }, nodes };
}

test('r102 d2: a host\'s record is kept as a read-only copy (an edit to the object given changes nothing stored), and the engine\'s own comes back as the very object it wrote, read-only at its top', async () => {
  const store = createMemoryStore();
  const hash = hashWorkflow(bigWorkflow());
  store.putWorkflow(hash, bigWorkflow());
  const rec: RunRecord = {
    runId: 'r',
    workflow: 'big',
    workflowHash: hash,
    workspace: '/w',
    status: 'completed',
    endNodeId: 'end',
    output: {},
    snapshot: {},
    seq: 1,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
  store.create(rec, []);
  const kept = store.get('r')!;
  assert.ok(kept !== rec);
  assert.equal(kept, rec);
  assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept.output));
  rec.status = 'failed';
  assert.is(store.get('r')!.status, 'completed');
  // The engine's records are its own (it never edits one it wrote): kept as written, not copied on every step.
  let written: RunRecord | undefined;
  const spy = new Proxy(store, { get: (t, k) => (k === 'update' ? (id: string, m: (c: RunRecord) => { record?: RunRecord }) => t.update(id, (c) => { const out = m(c); written = out.record; return out as never; }) : Reflect.get(t, k)) });
  const engine = createEngine({ store: spy });
  const s = await engine.start(ASK);
  await engine.submit(s.runId, { n: 'x' }, { seq: s.seq });
  assert.ok(written !== undefined && store.get(s.runId) === written, 'the very record the engine wrote');
  assert.ok(Object.isFrozen(written));
});

test('a workflow copy is kept once per hash: storing the same hash again keeps the first copy', () => {
  const store = createMemoryStore();
  const first = bigWorkflow();
  const hash = hashWorkflow(first);
  store.putWorkflow(hash, first);
  const kept = store.getWorkflow(hash);
  store.putWorkflow(hash, bigWorkflow());
  assert.ok(store.getWorkflow(hash) === kept);
  assert.equal(kept, first);
});

test('r90 d3: the memory store keeps its own frozen copy: an edit the caller makes to the object it stored never reaches the stored copy (as in SQLite)', () => {
  const store = createMemoryStore();
  const wf = bigWorkflow();
  const hash = hashWorkflow(wf);
  store.putWorkflow(hash, wf);
  (wf.nodes[0] as { id: string }).id = 'edited-after-putWorkflow';
  assert.is.not(store.getWorkflow(hash).nodes[0]!.id, 'edited-after-putWorkflow');
  assert.ok(Object.isFrozen(store.getWorkflow(hash).nodes[0]));
});

test('a closed memory store refuses every call with E_STORE, as the SQLite store does, instead of answering as an empty store', () => {
  const store = createMemoryStore();
  const wf: Workflow = { metadata: { name: 'w', version: '1.0.0', description: 'd' }, nodes: [] };
  const hash = hashWorkflow(wf);
  store.putWorkflow(hash, wf);
  store.close();
  const calls: Array<[string, () => unknown]> = [
    ['get', () => store.get('r')],
    ['list', () => store.list()],
    ['getWorkflow', () => store.getWorkflow(hash)],
    ['putWorkflow', () => store.putWorkflow(hash, wf)],
    ['events', () => store.events('r')],
    ['update', () => store.update('r', (cur) => ({ record: cur, result: null }))],
    ['rows', () => store.rows('proposals')],
    ['appendRows', () => store.appendRows([])],
    ['create', () => store.create({ runId: 'n', workflow: 'w', workflowHash: hash, workspace: '/', status: 'waiting', snapshot: {}, seq: 1, createdAt: 'x', updatedAt: 'x' }, [])],
    ['eventCount', () => store.eventCount('r')],
  ];
  for (const [name, call] of calls) {
    try {
      call();
      assert.unreachable(`${name} worked on a closed store`);
    } catch (e) {
      assert.is((e as { code?: string }).code, 'E_STORE', `${name}: ${String(e)}`);
      assert.match((e as Error).message, 'the in-memory store is closed');
    }
  }
  store.close(); // closing twice is harmless
});

test('r86: run() on an in-memory store closed mid-drive says the run is lost and must be started again, never that it still waits or how to resume it', async () => {
  const wf = {
    metadata: { name: 'one', version: '1.0.0', description: 'one directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Ask.', completionCondition: 'asked', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const store = createMemoryStore();
  const stops: Array<{ message: string; fix?: string }> = [];
  const r = await createEngine({ store }).run(wf, {
    agent: { async answer() { store.close(); return { x: 1 }; } },
    onProgress: (e) => { if (e.type === 'stopped') stops.push(e.error); },
  });
  assert.is(r.stopped, true);
  assert.equal(stops, [r.error], 'onProgress is told what the result says');
  assert.is(r.error?.code, 'E_STORE');
  const said = `${r.error!.message} ${r.error!.fix}`;
  assert.match(r.error!.message, `run ${r.runId} is lost`);
  assert.not.match(said, 'still waits');
  assert.not.match(said, '--resume');
  assert.not.match(said, 'engine.run({ runId }');
  assert.match(r.error!.fix ?? '', 'createMemoryStore()');
  assert.match(r.error!.fix ?? '', 'start the run again');
});

test.run();
