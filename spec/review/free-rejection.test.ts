/**
 * A review answered by the producer's identity is rejected for free
 * (E_SELF_REVIEW, G4): it changes nothing for the real reviewer, who is
 * still working on the same item — same seq, same deadline, no second
 * review.issued — so the real answer, given with the seq it was issued
 * under, is taken rather than dropped as a replay.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, reviewLoop } from '../fixtures/review/loop.js';

const Free = suite('review: a free rejection keeps the item as issued');

Free('G4: after E_SELF_REVIEW the review keeps its seq, deadline and attempt; the real reviewer\'s answer under that seq is accepted', async () => {
  const ws = tempDir('countersign-free-');
  let t = Date.parse('2026-12-02T10:00:00Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(t) });
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes[2].timeoutMs = 60_000;
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  const issued = s as Extract<RunState, { status: 'waiting' }>;
  t += 30_000;
  const refused = await engine.submit(s.runId, { issues_count: 0 }, { seq: issued.seq, as: 'author' });
  assert.is(refused.status === 'waiting' && refused.rejected?.code, 'E_SELF_REVIEW');
  assert.is(refused.seq, issued.seq, 'same seq');
  assert.is(refused.status === 'waiting' && refused.pending.deadline, issued.pending.deadline, 'same deadline');
  assert.is(refused.status === 'waiting' && refused.pending.attempt, issued.pending.attempt, 'no attempt used');
  writeFileSync(join(ws, REPORT), JSON.stringify({ issues: [] }));
  const done = await engine.submit(s.runId, { issues_count: 0 }, { seq: issued.seq, as: 'reviewer' });
  assert.is(done.replayed, undefined, 'the real answer is not a replay');
  assert.is(done.status === 'completed' && done.endNodeId, 'done');
  const events = (await engine.trace(s.runId)).events;
  assert.is(events.filter((e) => e.type === 'review.issued').length, 1, 'one review.issued');
});

Free.run();
