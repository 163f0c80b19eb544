/**
 * Review behaviours no other suite pins down (issue 3, review round 3):
 * hashing leaves out a refused report and a store kept inside a directory
 * artifact, the default iteration cap, the journaled unset variable of an
 * issued review, and the trimmed identity check of engine.run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, createSqliteStore, type Agent, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';
import { reviewLoop } from '../fixtures/review/loop.js';

type Node = Record<string, unknown>;

/** The shared review loop with its review node (and optionally the write node) patched. */
function loop(review: Node, write: Node = {}): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Node[] };
  Object.assign(wf.nodes.find((n) => n.id === 'review')!, review);
  Object.assign(wf.nodes.find((n) => n.id === 'write')!, write);
  return wf as unknown as Workflow;
}

function put(ws: string, path: string, text: string | object): void {
  const file = join(ws, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof text === 'string' ? text : JSON.stringify(text));
}

const Gaps = suite('review: behaviours pinned by review round 3');

Gaps('G4/G13: a self-review refusal leaves the report inside a directory artifact alone, and the next honest review is not E_REVIEWER_MODIFIED', async () => {
  const ws = tempDir('countersign-gaps-');
  const engine = createEngine({ store: createMemoryStore() });
  let s = await engine.start(loop({ artifacts: ['docs'], report: 'docs/review.json' }), { workspace: ws });
  put(ws, 'docs/notes.md', '# A\nbody\n');
  s = await engine.submit(s.runId, {}, { as: 'alice' });
  put(ws, 'docs/review.json', { issues: [] });
  s = await engine.submit(s.runId, { issues_count: 0 }, { as: 'alice' });
  assert.is(s.status, 'waiting');
  assert.is(s.status === 'waiting' && s.rejected?.code, 'E_SELF_REVIEW');
  assert.equal(JSON.parse(readFileSync(join(ws, 'docs/review.json'), 'utf8')), { issues: [] }, 'the report stays where the reviewer wrote it');
  put(ws, 'docs/review.json', { issues: [] });
  s = await engine.submit(s.runId, { issues_count: 0 }, { as: 'bob' });
  assert.is(s.status, 'completed', JSON.stringify(s));
  assert.is(s.status === 'completed' && s.endNodeId, 'done');
});

Gaps('G13: a SQLite store inside a directory artifact ["."] is not hashed: an honest review passes over two iterations', async () => {
  const ws = tempDir('countersign-gaps-');
  const store = createSqliteStore(join(ws, '.countersign'));
  try {
    const engine = createEngine({ store });
    const agent: Agent = {
      async answer(req) {
        writeFileSync(join(ws, 'notes.md'), req.nodeId === 'write' ? '# A\n' : '# A\nbody\n');
        return {};
      },
    };
    const reviewer: Agent = {
      async answer(req) {
        if (req.kind !== 'review' || req.contract !== 'issues') return { $error: 'not a review' };
        const issues = readFileSync(join(ws, 'notes.md'), 'utf8').includes('body') ? [] : ['heading "A" has no body'];
        writeFileSync(req.report, JSON.stringify({ issues }));
        return { issues_count: issues.length };
      },
    };
    const r = await engine.run(loop({ artifacts: ['.'] }), { agent, reviewer, workspace: ws });
    assert.is(r.status, 'completed', JSON.stringify(r.error));
    assert.is(r.endNodeId, 'done');
    const events = (await engine.trace(r.runId)).events;
    assert.equal(events.filter((e) => e.type === 'answer.rejected').map((e) => e.code), []);
    assert.equal(events.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count), [1, 0]);
  } finally {
    store.close();
  }
});

Gaps('G7/G11: without maxIterations the 4th accepted review with issues goes on to the fix, the 5th takes exhausted', async () => {
  const ws = tempDir('countersign-gaps-');
  const engine = createEngine({ store: createMemoryStore() });
  let s = await engine.start(loop({}), { workspace: ws });
  put(ws, 'notes.md', '# A\n');
  s = await engine.submit(s.runId, {}, { as: 'alice' });
  for (let i = 1; i <= 5; i++) {
    assert.is(s.status === 'waiting' && s.pending.nodeId, 'review', `review ${i} is issued`);
    put(ws, 'review.json', { issues: [`still wrong ${i}`] });
    s = await engine.submit(s.runId, { issues_count: 1 }, { as: 'bob' });
    if (i === 5) break;
    assert.is(s.status === 'waiting' && s.pending.nodeId, 'fix', `review ${i} with issues routes to the fix`);
    put(ws, 'notes.md', `# A\nattempt ${i}\n`);
    s = await engine.submit(s.runId, {}, { as: 'alice' });
  }
  assert.is(s.status, 'completed', JSON.stringify(s));
  assert.is(s.status === 'completed' && s.endNodeId, 'gave-up');
});

Gaps('G23: a path template that used an unset variable is refused (E_PATH_EMPTY), never reviewed at a path nobody named; variable.unset comes before review.refused', async () => {
  const ws = tempDir('countersign-gaps-');
  const engine = createEngine({ store: createMemoryStore() });
  const wf = loop({ artifacts: ['docs/{{write.maybe}}notes.md'] }, { inputSchema: { type: 'object', properties: { maybe: { type: 'string' } } } });
  let s = await engine.start(wf, { workspace: ws });
  put(ws, 'docs/notes.md', '# A\nbody\n');
  s = await engine.submit(s.runId, {}, { as: 'alice' });
  assert.is(s.status === 'failed' && s.error.code, 'E_PATH_EMPTY', 'refused, not reviewed at docs/notes.md');
  const events = (await engine.trace(s.runId)).events.filter((e) => e.type === 'variable.unset' || e.type === 'review.issued' || e.type === 'review.refused');
  assert.equal(events.map((e) => e.type), ['variable.unset', 'review.refused']);
  assert.equal((events[0] as { names?: string[] }).names, ['write.maybe']);
});

Gaps('G1/G2: engine.run trims identities: as "alice " with reviewerAs "alice" is E_SELF_REVIEW and starts no run', async () => {
  const ws = tempDir('countersign-gaps-');
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { async answer() { return {}; } };
  const reviewer: Agent = { async answer() { return { issues_count: 0 }; } };
  const err = await rejection(engine.run(reviewLoop(), { agent, reviewer, workspace: ws, as: 'alice ', reviewerAs: 'alice' }));
  assert.is(err.code, 'E_SELF_REVIEW');
  assert.equal(await engine.runs(), []);
});

Gaps.run();
