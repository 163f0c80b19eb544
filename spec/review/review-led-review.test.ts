/**
 * A review reached from another review's accepted answer (review → condition
 * → review): the first reviewer only diagnoses and cannot write or change
 * the second review's artifacts, so its answer is no answer that "said the
 * work was done". The second review is one no answer led to: refused on
 * entry (its error route, or the run fails at it), the first review kept.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';

type NodeFields = Record<string, unknown>;

/** produce → r1 (a.md) → c1 → r2 (b.md) → c2 → done; a failed r2 goes to `fix`, which leads back to r1. */
function twoReviews(r2: NodeFields = {}): Workflow {
  return {
    metadata: { name: 'two-reviews', version: '1.0.0', description: 'one review after another' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'produce' } },
      { type: 'agent-directive', id: 'produce', directive: 'write a.md and b.md', completionCondition: 'done', connections: { success: 'r1' } },
      { type: 'delegate-review', id: 'r1', artifacts: ['a.md'], criteria: ['good'], maxRetries: 1, connections: { success: 'c1', exhausted: 'done' } },
      { type: 'condition', id: 'c1', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'r2', false: 'fix' } },
      { type: 'delegate-review', id: 'r2', artifacts: ['b.md'], criteria: ['good'], ...r2, connections: { success: 'c2', exhausted: 'done', ...((r2.connections as object) ?? {}) } },
      { type: 'condition', id: 'c2', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      { type: 'agent-directive', id: 'fix', directive: 'fix', completionCondition: 'done', inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } }, connections: { success: 'r1' } },
      { type: 'end', id: 'done' },
      { type: 'end', id: 'refused' },
    ],
  } as unknown as Workflow;
}

/** Starts the run, writes `files`, answers produce, and returns what answering r1 with a passing report gives. */
async function passR1(workflow: Workflow, files: string[]) {
  const ws = tempDir('countersign-review-led-');
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(workflow, { workspace: ws, as: 'prod' });
  for (const f of files) writeFileSync(join(ws, f), '# A\n');
  const atR1 = await engine.submit(started.runId, {}, { as: 'prod' });
  if (atR1.status !== 'waiting' || atR1.pending.kind !== 'review' || atR1.pending.contract !== 'issues') throw new Error(`expected r1's review, got ${JSON.stringify(atR1)}`);
  writeFileSync(atR1.pending.report, JSON.stringify({ issues: [] }));
  const state = await engine.submit(started.runId, { issues_count: 0 }, { as: 'rev' });
  return { ws, engine, runId: started.runId, state };
}

const R = suite('review: a review reached from another review\'s answer');

R('a missing artifact of the next review does not reject the first review\'s answer: the run fails at r2 with E_ARTIFACT_MISSING, and r1\'s review is kept', async () => {
  const { ws, engine, runId, state } = await passR1(twoReviews(), ['a.md']);
  assert.is(state.status, 'failed', JSON.stringify(state));
  if (state.status !== 'failed') return;
  assert.is(state.error.code, 'E_ARTIFACT_MISSING');
  assert.is(state.error.nodeId, 'r2');
  assert.match(state.error.message, `review "r2" has nothing to review at ${join(ws, 'b.md')}`);
  assert.not.match(String(state.error.fix), 'said the work was done');
  assert.match(String(state.error.fix), 'b.md');
  const events = (await engine.trace(runId)).events;
  assert.ok(events.some((e) => e.type === 'review.accepted' && e.nodeId === 'r1'), 'r1\'s review was accepted');
  assert.not.ok(events.some((e) => e.type === 'answer.rejected' && e.nodeId === 'r1'), 'r1\'s answer was not rejected');
});

R('with an error route, r2 takes it and r1\'s accepted review stands', async () => {
  const { state } = await passR1(twoReviews({ connections: { error: 'refused' } }), ['a.md']);
  assert.is(state.status, 'completed', JSON.stringify(state));
  assert.is(state.status === 'completed' && state.endNodeId, 'refused');
});

R('unchanged artifacts of the next review, reached from the first review\'s answer, refuse r2 (E_UNCHANGED_ARTIFACT at r2), not the reviewer\'s answer', async () => {
  const { ws, engine, runId, state } = await passR1(twoReviews(), ['a.md', 'b.md']);
  // r2 finds one issue; the fix changes only a.md; r1 passes again; b.md is as r2 last reviewed it.
  if (state.status !== 'waiting' || state.pending.kind !== 'review' || state.pending.contract !== 'issues') throw new Error(`expected r2's review, got ${JSON.stringify(state)}`);
  writeFileSync(state.pending.report, JSON.stringify({ issues: ['b is thin'] }));
  const atFix = await engine.submit(runId, { issues_count: 1 }, { as: 'rev' });
  assert.is(atFix.status === 'waiting' && atFix.pending.nodeId, 'fix');
  writeFileSync(join(ws, 'a.md'), '# A, changed\n');
  const atR1 = await engine.submit(runId, {}, { as: 'prod' });
  if (atR1.status !== 'waiting' || atR1.pending.kind !== 'review' || atR1.pending.contract !== 'issues') throw new Error(`expected r1 again, got ${JSON.stringify(atR1)}`);
  writeFileSync(atR1.pending.report, JSON.stringify({ issues: [] }));
  const last = await engine.submit(runId, { issues_count: 0 }, { as: 'rev' });
  assert.is(last.status, 'failed', JSON.stringify(last));
  if (last.status !== 'failed') return;
  assert.equal([last.error.code, last.error.nodeId], ['E_UNCHANGED_ARTIFACT', 'r2']);
});

R.run();
