/**
 * Observable convergence (issue 3 guarantee 6; seed 003 G6, G8): every
 * `review.issued` event names the one report file by its absolute path,
 * and the human `countersign trace` ends with the convergence line of each
 * review node.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type JournalEvent, type RunState, type Workflow } from '../../engine/index.js';
import { cli, tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, producerCommand, reviewLoop, reviewerCommand, writeWorkflow } from '../fixtures/review/loop.js';

/** The standard loop with the review node's fields replaced (`undefined` removes one). */
function loop(review: Record<string, unknown>): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  const node = wf.nodes.find((n) => n.id === 'review')!;
  for (const [key, value] of Object.entries(review)) {
    if (value === undefined) delete node[key];
    else node[key] = value;
  }
  return wf as unknown as Workflow;
}

const issued = (events: JournalEvent[]) => events.filter((e) => e.type === 'review.issued');

/** Starts `workflow` in `ws`, answers the producer as "author", and returns the waiting review. */
async function reachReview(workflow: Workflow, ws: string) {
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  const state = await engine.submit(started.runId, {}, { as: 'author' });
  assert.is(state.status, 'waiting', JSON.stringify(state));
  const waiting = state as Extract<RunState, { status: 'waiting' }>;
  assert.is(waiting.pending.kind, 'review');
  return { engine, runId: started.runId, pending: waiting.pending as Extract<typeof waiting.pending, { kind: 'review'; contract: 'issues' }> };
}

const Journal = suite('review: the report path in the journal');

Journal('G6/G8: review.issued carries report = the absolute, normalised report path, the same one the pending review names; a re-asked review carries it again', async () => {
  const ws = tempDir('countersign-journal-ws-');
  const { engine, runId, pending } = await reachReview(loop({ report: './out/../review.json' }), ws);
  const report = join(ws, 'review.json');
  assert.is(pending.report, report);
  // A missing report re-asks the review: the second issue names the same file.
  const rejected = await engine.submit(runId, { issues_count: 0 }, { as: 'checker' });
  assert.is(rejected.status === 'waiting' ? rejected.rejected?.code : rejected.status, 'E_REPORT_MISSING');
  const events = issued((await engine.trace(runId)).events);
  assert.equal(events.map((e) => [e.attempt, e.report]), [[1, report], [2, report]]);
});

Journal('G6/G8: with no report field, review.issued carries the default <workspace>/.countersign/reviews/<runId>/<nodeId>.json', async () => {
  const ws = tempDir('countersign-journal-ws-');
  const { engine, runId, pending } = await reachReview(loop({ report: undefined }), ws);
  const report = join(ws, '.countersign', 'reviews', runId, 'review.json');
  assert.is(pending.report, report);
  assert.equal(issued((await engine.trace(runId)).events).map((e) => e.report), [report]);
});

Journal.run();

const Trace = suite('review: countersign trace');

Trace('G6/G8/G16: a 2-then-0 loop run by the CLI: trace --json has review.issued with the absolute report path per iteration, and the human trace ends with "review review: 2 → 0"', async () => {
  const ws = tempDir('countersign-trace-ws-');
  const store = tempDir('countersign-trace-store-');
  const wf = writeWorkflow(ws, reviewLoop());
  const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--reviewer', `exec:${reviewerCommand('honest')}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'done');

  const json = await cli(['trace', r.json.runId, '--json'], { store });
  assert.is(json.code, 0, json.stderr);
  const events = issued(json.json.events as JournalEvent[]);
  assert.equal(events.map((e) => [e.iteration, e.report]), [[1, join(ws, REPORT)], [2, join(ws, REPORT)]]);

  const human = await cli(['trace', r.json.runId], { store });
  assert.is(human.code, 0, human.stderr);
  const lines = human.stdout.split('\n').filter((l) => l.trim() !== '');
  assert.is(lines[lines.length - 1], 'review review: 2 → 0');
  assert.is(lines.filter((l) => l.startsWith('review review:')).length, 1, 'one convergence line per review node');
});

Trace.run();
