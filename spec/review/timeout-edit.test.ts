/**
 * G13 at the deadline: a reviewer that edits the artifacts and then lets
 * the review time out is caught like one that answers — the node takes
 * `error` (or the run fails) with E_REVIEWER_MODIFIED naming what changed,
 * instead of a plain timeout that hides the edit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { ARTIFACT, reviewLoop } from '../fixtures/review/loop.js';

async function pendingReview(ws: string, clock: { t: number }, withTimeoutRoute: boolean) {
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock.t) });
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes[2].timeoutMs = 60_000;
  if (withTimeoutRoute) {
    wf.nodes[2].connections = { ...(wf.nodes[2].connections as object), timeout: 'gave-up' };
  }
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  return { engine, runId: s.runId };
}

const Edit = suite('review: an edit made before the deadline passed');

Edit('G13: artifacts edited during a review that then times out fail the run with E_REVIEWER_MODIFIED, naming the file', async () => {
  const ws = tempDir('countersign-timeout-edit-');
  const clock = { t: Date.parse('2026-12-02T10:00:00Z') };
  const { engine, runId } = await pendingReview(ws, clock, true);
  writeFileSync(join(ws, ARTIFACT), '# A\n\nFixed by the reviewer.\n');
  clock.t += 61_000;
  const s = await engine.status(runId);
  assert.is(s.status === 'failed' && s.error.code, 'E_REVIEWER_MODIFIED', JSON.stringify(s));
  assert.match(s.status === 'failed' ? s.error.message : '', ARTIFACT);
});

Edit('G13: untouched artifacts at the deadline take the ordinary timeout route', async () => {
  const ws = tempDir('countersign-timeout-edit-');
  const clock = { t: Date.parse('2026-12-02T10:00:00Z') };
  const { engine, runId } = await pendingReview(ws, clock, true);
  clock.t += 61_000;
  const s = await engine.status(runId);
  assert.is(s.status === 'completed' && s.endNodeId, 'gave-up');
});

Edit.run();
