/**
 * Independence holds across a chain of reviews (issue 3 §3; seed 003 G1,
 * G4): a review leaves the artifact as it found it (G13), so whoever wrote
 * it before the first review is still its author at the second. `validate`
 * flags a second review whose reviewer role is that author's agent, and the
 * engine refuses that author's answer to it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import { graphModel } from '../../engine/validate/graph-model.js';
import { reviewGraphFindings } from '../../engine/validate/review-graph.js';
import { tempDir } from '../helpers/cli.js';

const withReason = { inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } } };

/** write (author) → review1 (alice) → check1 → review2 (`second`) → check2 → done; each review has its own fix step. */
function twoReviews(second: string): Workflow {
  const fix = (id: string, agent: string, back: string) => ({ type: 'agent-directive', id, agent, directive: 'Fix.', completionCondition: 'fixed', ...withReason, connections: { success: back } });
  const review = (id: string, reviewer: string, check: string) => ({
    type: 'delegate-review', id, reviewer, artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: `${id}.json`, connections: { success: check, exhausted: 'done' },
  });
  const check = (id: string, review: string, pass: string, fail: string) => ({
    type: 'condition', id, condition: { operator: 'eq', left: { contextPath: `${review}.issues_count` }, right: 0 }, connections: { true: pass, false: fail },
  });
  return {
    metadata: { name: 'two-reviews', version: '1.0.0', description: 'two reviews of one artifact' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', connections: { success: 'review1' } },
      review('review1', 'alice', 'check1'),
      check('check1', 'review1', 'review2', 'fix1'),
      fix('fix1', 'author', 'review1'),
      review('review2', second, 'check2'),
      check('check2', 'review2', 'done', 'fix2'),
      fix('fix2', 'bob', 'review2'),
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
}

const findings = (wf: Workflow) => reviewGraphFindings(graphModel(wf)!).map((f) => `${f.code} ${f.pointer}`);

const test = suite('review: independence across a chain of reviews');

test('G1, G4: a second review whose reviewer role is the agent that wrote the artifact before the first review is E_SELF_REVIEW at its /reviewer', () => {
  assert.equal(findings(twoReviews('author')), ['E_SELF_REVIEW /nodes/5/reviewer', 'E_SELF_REVIEW /nodes/5/reviewer']);
  const messages = reviewGraphFindings(graphModel(twoReviews('author'))!).map((f) => f.message);
  assert.match(messages[0], 'node "write"');
  assert.match(messages[1], 'node "fix1"');
  assert.equal(findings(twoReviews('carol')), []);
});

test('G1, G4 (issue 3 §3): at run time the identity that wrote the artifact cannot answer the second review either: E_SELF_REVIEW, no attempt used', async () => {
  const ws = tempDir('countersign-two-reviews-');
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(twoReviews('carol'), { workspace: ws });
  writeFileSync(join(ws, 'notes.md'), '# A\nBody.\n');
  await engine.submit(runId, {}, { as: 'author' });
  writeFileSync(join(ws, 'review1.json'), '{"issues": []}');
  const second = await engine.submit(runId, { issues_count: 0 }, { as: 'alice' });
  assert.is(second.status === 'waiting' && second.pending.nodeId, 'review2');
  writeFileSync(join(ws, 'review2.json'), '{"issues": []}');
  const refused = await engine.submit(runId, { issues_count: 0 }, { as: 'author' });
  assert.is(refused.status, 'waiting', 'the author\'s answer must not complete the run');
  if (refused.status !== 'waiting') return;
  assert.is(refused.rejected?.code, 'E_SELF_REVIEW');
  assert.is(refused.pending.attempt, 1);
  writeFileSync(join(ws, 'review2.json'), '{"issues": []}');
  const done = await engine.submit(runId, { issues_count: 0 }, { as: 'carol' });
  assert.is(done.status, 'completed');
});

test.run();
