/**
 * A run that stops in the middle of a review and is resumed (issue 3,
 * Tests: "a resume in the middle of a review: the run restarts, and the
 * review is not issued twice"). The pending review keeps its seq, the
 * journal has one `review.issued` for the iteration, and the report that
 * existed before the review was issued stays in `<report>.prev`: it was
 * moved once, when the review was issued, never again on resume (G8).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Agent, type JournalEvent } from '../../engine/index.js';
import { cli, tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, producerCommand, reviewLoop, reviewerCommand, writeWorkflow } from '../fixtures/review/loop.js';

function setup() {
  const ws = tempDir('countersign-review-ws-');
  return { ws, store: tempDir('countersign-review-store-'), wf: writeWorkflow(ws, reviewLoop()), dumps: tempDir() };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const requests = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

async function events(runId: string, store: string): Promise<JournalEvent[]> {
  return (await cli(['trace', runId, '--json'], { store })).json.events;
}

async function status(runId: string, store: string) {
  return (await cli(['status', runId, '--json'], { store })).json;
}

const issuedFor = (all: JournalEvent[], iteration: number) => all.filter((e) => e.type === 'review.issued' && e.iteration === iteration);

const PRODUCER = `exec:${producerCommand()}`;
const EARLIER = { issues: ['a finding of an earlier review'] };

const Resume = suite('review: resume in the middle of a review');

Resume('G8: a reviewer that crashes mid-review stops the run (exit 3, E_AGENT_CRASHED, still waiting); run --resume answers the same review — same seq, one review.issued, the earlier file set aside once', async () => {
  const { ws, store, wf, dumps } = setup();
  writeFileSync(join(ws, REPORT), JSON.stringify(EARLIER));
  const crashed = await cli(['run', wf, '--agent', PRODUCER, '--reviewer', `exec:${reviewerCommand('crash')}`, '--workspace', ws, '--json'], { store });
  assert.is(crashed.code, 3, crashed.stderr);
  assert.is(crashed.json.status, 'waiting');
  assert.is(crashed.json.error.code, 'E_AGENT_CRASHED');
  assert.is(crashed.json.error.nodeId, 'review');
  const runId = crashed.json.runId;
  const before = await status(runId, store);
  assert.is(before.status, 'waiting');
  assert.is(before.pending.kind, 'review');
  assert.is(before.pending.iteration, 1);
  // Issuing the review set the earlier file aside under a name this run never reuses; the crash left a partial report behind.
  assert.equal(readJson(join(ws, `${REPORT}.before-${runId}`)), EARLIER);
  assert.not.ok(existsSync(join(ws, `${REPORT}.prev`)), 'no .prev yet: no review of this run has been accepted');
  assert.equal(readJson(join(ws, REPORT)), { issues: ['partial'] });

  const dump = join(dumps, 'reviewer.jsonl');
  const resumed = await cli(['run', '--resume', runId, '--agent', PRODUCER, '--reviewer', `exec:${reviewerCommand('honest', dump)}`, '--max-steps', '1', '--json'], { store });
  assert.is(resumed.code, 3, resumed.stderr);
  assert.is(resumed.json.error.code, 'E_MAX_STEPS');
  const asked = requests(dump);
  assert.is(asked.length, 1);
  assert.is(asked[0].seq, before.seq, 'the resumed reviewer answers the pending seq');
  assert.is(asked[0].iteration, 1);
  assert.is(asked[0].attempt, 1);
  assert.equal(readJson(join(ws, `${REPORT}.before-${runId}`)), EARLIER, 'the earlier file was set aside once, not again on resume');
  assert.is(readJson(join(ws, REPORT)).issues.length, 2);
  const journal = await events(runId, store);
  assert.equal(issuedFor(journal, 1).map((e) => e.seq), [before.seq], 'review 1 was issued once');
  const accepted = journal.filter((e) => e.type === 'answer.accepted' && e.nodeId === 'review');
  assert.equal(accepted.map((e) => e.seq), [before.seq]);
  assert.is((await status(runId, store)).pending.nodeId, 'fix');

  const done = await cli(['run', '--resume', runId, '--agent', PRODUCER, '--reviewer', `exec:${reviewerCommand('honest')}`, '--json'], { store });
  assert.is(done.code, 0, done.stderr);
  assert.is(done.json.endNodeId, 'done');
  // One generation: now .prev holds review 1's report.
  assert.is(readJson(join(ws, `${REPORT}.prev`)).issues.length, 2);
  assert.equal(readJson(join(ws, REPORT)), { issues: [] });
  assert.is((await events(runId, store)).filter((e) => e.type === 'review.issued').length, 2);
});

Resume('G8/G11: --max-steps stops with review 2 pending; run --resume answers that review under the same seq, issued once, with review 1\'s report in .prev', async () => {
  const { ws, store, wf, dumps } = setup();
  const first = await cli(['run', wf, '--agent', PRODUCER, '--reviewer', `jsonl:${reviewerCommand('honest')}`, '--max-steps', '3', '--workspace', ws, '--json'], { store });
  assert.is(first.code, 3, first.stderr);
  assert.is(first.json.error.code, 'E_MAX_STEPS');
  const runId = first.json.runId;
  const before = await status(runId, store);
  assert.is(before.pending.kind, 'review');
  assert.is(before.pending.iteration, 2);
  const review1 = readJson(join(ws, `${REPORT}.prev`));
  assert.is(review1.issues.length, 2);

  const dump = join(dumps, 'reviewer.jsonl');
  const done = await cli(['run', '--resume', runId, '--agent', PRODUCER, '--reviewer', `jsonl:${reviewerCommand('honest', dump)}`, '--json'], { store });
  assert.is(done.code, 0, done.stderr);
  assert.is(done.json.endNodeId, 'done');
  assert.is(done.json.steps, 1);
  assert.equal(requests(dump).map((q) => `${q.seq} ${q.iteration} ${q.attempt}`), [`${before.seq} 2 1`]);
  const journal = await events(runId, store);
  assert.equal(issuedFor(journal, 2).map((e) => e.seq), [before.seq], 'review 2 was issued once');
  assert.equal(journal.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count), [2, 0]);
  assert.equal(readJson(join(ws, `${REPORT}.prev`)), review1);
  assert.equal(readJson(join(ws, REPORT)), { issues: [] });
});

Resume('G1: run --resume of a run with review nodes and no --reviewer is exit 2, E_NO_REVIEWER, and leaves the run waiting as it was', async () => {
  const { ws, store, wf } = setup();
  const first = await cli(['run', wf, '--agent', PRODUCER, '--reviewer', `exec:${reviewerCommand('crash')}`, '--workspace', ws, '--json'], { store });
  assert.is(first.code, 3, first.stderr);
  const before = await status(first.json.runId, store);
  const eventsBefore = (await events(first.json.runId, store)).length;
  const r = await cli(['run', '--resume', first.json.runId, '--agent', PRODUCER, '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_NO_REVIEWER');
  assert.equal(await status(first.json.runId, store), before);
  assert.is((await events(first.json.runId, store)).length, eventsBefore);
});

// E_SELF_REVIEW uses up no attempt, so re-asking the same identity could never end.
// The reviewer here gives up after 3 calls so a regression fails instead of hanging.
Resume('G1/G4: resuming with a reviewer identity that produced the artifacts stops with E_SELF_REVIEW after asking that reviewer at most once', async () => {
  const ws = tempDir('countersign-review-ws-');
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(reviewLoop(), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
  await engine.submit(started.runId, {}, { as: 'alice' });
  let calls = 0;
  const reviewer: Agent = {
    async answer(req) {
      calls++;
      if (calls > 3) throw new Error(`asked ${calls} times for the same review`);
      if (req.kind === 'review' && req.contract === 'issues') writeFileSync(req.report, JSON.stringify({ issues: [] }));
      return { issues_count: 0 };
    },
  };
  const agent: Agent = { answer: async () => ({}) };
  const outcome = await engine.run({ runId: started.runId }, { agent, reviewer, as: 'bob', reviewerAs: 'alice' }).then(
    (r) => r.error?.code ?? r.status,
    (e) => e.code as string,
  );
  assert.ok(calls <= 1, `the reviewer was asked ${calls} times`);
  assert.is(outcome, 'E_SELF_REVIEW');
});

Resume.run();
