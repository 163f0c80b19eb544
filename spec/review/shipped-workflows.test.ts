/**
 * The shipped review workflows (issue 3, "Shipped workflows"):
 * workflows/review-fix-loop.json (seed 003's loop) and
 * workflows/development-flow.json (seed 003's real example, G33–G35) validate
 * cleanly, and development-flow runs end to end in process: plan → step 1 →
 * gate review with one fix round → step 2 → gate review → done. The test
 * plays every role itself, writing the files each role would write.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, validateFile, type RunState, type WaitingState } from '../../engine/index.js';
import { ROOT, tempDir } from '../helpers/cli.js';

const REVIEW_FIX_LOOP = join(ROOT, 'workflows/review-fix-loop.json');
const DEVELOPMENT_FLOW = join(ROOT, 'workflows/development-flow.json');
const REVIEW_LOOP = join(ROOT, 'workflows/review-loop.json');

type RawNode = { id: string; type: string; agent?: string; reviewer?: string; criteria?: string[]; inputSchema?: { properties?: Record<string, unknown> }; connections?: Record<string, string> };
const nodesOf = (file: string) => new Map((JSON.parse(readFileSync(file, 'utf8')).nodes as RawNode[]).map((n) => [n.id, n]));

const Shipped = suite('review: shipped workflows');

Shipped('seed 003 G1 G7 G15 G37: review-fix-loop.json and development-flow.json validate with no errors and no warnings, issue 3\'s static lints included', () => {
  for (const file of [REVIEW_FIX_LOOP, DEVELOPMENT_FLOW]) {
    const r = validateFile(file);
    assert.equal(r.errors, [], file);
    assert.equal(r.warnings, [], file);
    assert.ok(r.ok, file);
  }
});

Shipped('seed 003 G7 G11 G12: review-fix-loop is produce → review → check → fix → the same review, with exhausted and unchanged as their own ends', () => {
  const n = nodesOf(REVIEW_FIX_LOOP);
  assert.is(n.get('produce')!.connections!.success, 'review');
  assert.is(n.get('review')!.type, 'delegate-review');
  assert.equal(n.get('review')!.connections, { success: 'check', exhausted: 'needs-a-person', unchanged: 'unchanged' });
  assert.equal(n.get('check')!.connections, { true: 'done', false: 'fix' });
  assert.is(n.get('fix')!.connections!.success, 'review');
  assert.ok(n.get('fix')!.inputSchema!.properties!.unchanged_reason);
  assert.is.not(n.get('review')!.reviewer, n.get('produce')!.agent);
  for (const end of ['done', 'needs-a-person', 'unchanged']) assert.is(n.get(end)!.type, 'end');
});

Shipped('seed 003 G33 G34: development-flow gates every step with agent-validate-step, reviewer "plan step gate reviewer", checking the step against PREVIOUS and FUTURE steps', () => {
  const n = nodesOf(DEVELOPMENT_FLOW);
  const gate = n.get('agent-validate-step')!;
  assert.is(gate.type, 'delegate-review');
  assert.is(gate.reviewer, 'plan step gate reviewer');
  assert.ok(gate.criteria!.some((c) => c.includes('PREVIOUS and FUTURE steps')));
  assert.ok(gate.criteria!.some((c) => c.startsWith('No errors')));
  assert.ok(gate.criteria!.some((c) => c.startsWith('Code quality')));
  assert.is(n.get('fix-step')!.connections!.success, 'agent-validate-step');
  assert.is(n.get('implement-step')!.connections!.success, 'agent-validate-step');
});

/* ------------------------------------------------------------------ */

function waiting(s: RunState, nodeId: string): WaitingState {
  assert.is(s.status, 'waiting', JSON.stringify(s));
  const w = s as WaitingState;
  assert.is(w.pending.nodeId, nodeId);
  assert.is(w.rejected, undefined, JSON.stringify(w.rejected));
  return w;
}

function write(ws: string, rel: string, text: string): void {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

const directiveOf = (w: WaitingState) => (w.pending.kind === 'directive' ? w.pending.directive : '');

const DevFlow = suite('review: development-flow end to end');

DevFlow('G33–G35: two plan steps, one fix round: plan → step 1 → gate 1 → fix → gate 0 → step 2 → gate 0 → done, with counts 1 → 0 → 0 in the journal', async () => {
  const ws = realpathSync(tempDir('countersign-devflow-'));
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(DEVELOPMENT_FLOW, { workspace: ws, as: 'lead', input: { task: 'A slugify(text) function with a test' } });

  // The planner writes one file per step and answers how many there are.
  let w = waiting(s, 'plan');
  assert.match(directiveOf(w), /Plan this task: A slugify\(text\) function with a test/);
  write(ws, 'plan/step-1.md', '# Step 1\n\nWrite slugify(text) in src/slugify.mjs.\n');
  write(ws, 'plan/step-2.md', '# Step 2\n\nTest slugify in src/slugify.test.mjs.\n');
  s = await engine.submit(w.runId, { step_count: 2 }, { seq: w.seq, as: 'planner' });

  // Step 1, with a placeholder left in.
  w = waiting(s, 'implement-step');
  assert.match(directiveOf(w), /^Implement step 1 of 2 of the plan\.$/m);
  assert.match(directiveOf(w), /^Plan step: plan\/step-1\.md$/m);
  write(ws, 'src/slugify.mjs', 'export function slugify(text) {\n  // TODO\n  return text;\n}\n');
  s = await engine.submit(w.runId, {}, { seq: w.seq, as: 'developer' });

  // The gate review: only paths, criteria and the fixed prompt (G30).
  w = waiting(s, 'agent-validate-step');
  const review = w.pending;
  assert.is(review.kind, 'review');
  if ((review.kind !== 'review' || review.contract !== 'issues')) return;
  assert.is(review.reviewer, 'plan step gate reviewer');
  assert.equal(review.artifacts, [join(ws, 'plan/step-1.md'), join(ws, 'src')]);
  assert.equal(review.context, [join(ws, 'plan'), ws]);
  assert.is(review.iteration, 1);
  assert.match(review.prompt, /^YOU ARE plan step gate reviewer\. Your assessment determines if we proceed\./);
  assert.not.match(review.prompt, /slugify/);
  const report = review.report;
  assert.is(report, join(ws, '.countersign/reviews', w.runId, 'agent-validate-step.json'));

  // G1: the developer may not pass its own step; that costs no attempt.
  writeFileSync(report, JSON.stringify({ issues: [] }));
  const self = await engine.submit(w.runId, { issues_count: 0 }, { seq: w.seq, as: 'developer' });
  assert.is(self.status, 'waiting');
  assert.is((self as WaitingState).rejected?.code, 'E_SELF_REVIEW');
  assert.is((self as WaitingState).pending.attempt, 1);

  writeFileSync(report, JSON.stringify({ issues: ['src/slugify.mjs:2: a TODO placeholder instead of the slug logic'] }));
  s = await engine.submit(w.runId, { issues_count: 1 }, { seq: self.seq, as: 'gate' });

  // The fix round reads the same report file and hands back to the same gate.
  w = waiting(s, 'fix-step');
  assert.match(directiveOf(w), /lists 1 issue\(s\) in step 1/);
  assert.ok(directiveOf(w).includes(`Report file: ${report}\n`));
  write(ws, 'src/slugify.mjs', "export function slugify(text) {\n  return text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).join('-');\n}\n");
  s = await engine.submit(w.runId, {}, { seq: w.seq, as: 'developer' });

  w = waiting(s, 'agent-validate-step');
  assert.is(w.pending.kind === 'review' && w.pending.contract === 'issues' && w.pending.iteration, 2);
  assert.not.ok(existsSync(report), 'the report of review 1 was moved aside before review 2');
  assert.equal(JSON.parse(readFileSync(`${report}.prev`, 'utf8')), { issues: ['src/slugify.mjs:2: a TODO placeholder instead of the slug logic'] });
  writeFileSync(report, JSON.stringify({ issues: [] }));
  s = await engine.submit(w.runId, { issues_count: 0 }, { seq: w.seq, as: 'gate' });

  // Step 2 starts only after the gate passed step 1.
  w = waiting(s, 'implement-step');
  assert.match(directiveOf(w), /^Implement step 2 of 2 of the plan\.$/m);
  assert.match(directiveOf(w), /^Plan step: plan\/step-2\.md$/m);
  write(ws, 'src/slugify.test.mjs', "import { slugify } from './slugify.mjs';\nif (slugify('Hello, World!') !== 'hello-world') throw new Error('slugify');\n");
  s = await engine.submit(w.runId, {}, { seq: w.seq, as: 'developer' });

  w = waiting(s, 'agent-validate-step');
  assert.equal(w.pending.kind === 'review' && w.pending.contract === 'issues' && w.pending.artifacts, [join(ws, 'plan/step-2.md'), join(ws, 'src')]);
  writeFileSync(report, JSON.stringify({ issues: [] }));
  s = await engine.submit(w.runId, { issues_count: 0 }, { seq: w.seq, as: 'gate' });

  assert.is(s.status, 'completed', JSON.stringify(s));
  if (s.status !== 'completed') return;
  assert.is(s.endNodeId, 'done');
  assert.equal(s.output, { step_count: 2, issues_count: 0, 'agent-validate-step.report': report });

  const { events } = await engine.trace(s.runId);
  assert.equal(events.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count), [1, 0, 0]);
  assert.equal(events.filter((e) => e.type === 'review.accepted').map((e) => e.iteration), [1, 2, 3]);
  assert.equal(events.filter((e) => e.type === 'answer.rejected').map((e) => e.code), ['E_SELF_REVIEW']);
  const routes = events.filter((e) => e.type === 'route').map((e) => `${e.from}-${e.via}->${e.to}`);
  assert.equal(routes, [
    'start-default->plan',
    'plan-success->implement-step',
    'implement-step-success->agent-validate-step',
    'agent-validate-step-success->step-check',
    'step-check-false->fix-step',
    'fix-step-success->agent-validate-step',
    'agent-validate-step-success->step-check',
    'step-check-true->next-step',
    'next-step-default->more-steps',
    'more-steps-true->implement-step',
    'implement-step-success->agent-validate-step',
    'agent-validate-step-success->step-check',
    'step-check-true->next-step',
    'next-step-default->more-steps',
    'more-steps-false->done',
  ]);
  // G14: the findings stayed in the file; the run's context never held them.
  assert.not.match(JSON.stringify(events.filter((e) => e.type !== 'answer.rejected')), /TODO placeholder/);
});

DevFlow('G12: a fix that hands step 1 back unchanged, with a reason, ends at step-unchanged with that reason', async () => {
  const ws = realpathSync(tempDir('countersign-devflow-'));
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(DEVELOPMENT_FLOW, { workspace: ws });
  write(ws, 'plan/step-1.md', '# Step 1\n\nWrite src/a.mjs.\n');
  s = await engine.submit(s.runId, { step_count: 1 }, { seq: s.seq, as: 'planner' });
  write(ws, 'src/a.mjs', 'export const a = 1;\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'developer' });
  const w = waiting(s, 'agent-validate-step');
  if ((w.pending.kind !== 'review' || w.pending.contract !== 'issues')) return;
  writeFileSync(w.pending.report, JSON.stringify({ issues: ['src/a.mjs: a is not documented'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'gate' });
  waiting(s, 'fix-step');
  s = await engine.submit(s.runId, { unchanged_reason: 'the plan asks for no documentation' }, { seq: s.seq, as: 'developer' });
  assert.is(s.status, 'completed', JSON.stringify(s));
  if (s.status !== 'completed') return;
  assert.is(s.endNodeId, 'step-unchanged');
  assert.equal(s.output, { step_index: 1, step_count: 1, issues_count: 1, 'agent-validate-step.unchanged_reason': 'the plan asks for no documentation' });
});

Shipped('§8 seed 003: workflows/review-loop.json is the loop as agent-directive + condition (eq on issues_count, 0); it validates clean and a scripted agent runs it 2 → 0 to its end', async () => {
  const report = validateFile(REVIEW_LOOP);
  assert.equal([report.errors, report.warnings], [[], []]);
  const raw = JSON.parse(readFileSync(REVIEW_LOOP, 'utf8')) as { nodes: Array<Record<string, unknown>> };
  const check = raw.nodes.find((n) => n.id === 'check-review-result')!;
  assert.equal(check.condition, { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 });
  assert.ok(raw.nodes.every((n) => n.type !== 'delegate-review'), 'the loop is written with agent-directive + condition');
  // The scripted agent: each node's answers, in order.
  const script: Record<string, Array<Record<string, unknown>>> = {
    'do-work': [{ changed_files: ['src/greet.ts'] }],
    'delegate-review': [
      { review_file: 'reviews/review.md', issues: ['greet() ignores its name', 'no test'], issues_found: 'yes', issues_count: 2 },
      { review_file: 'reviews/review.md', issues: [], issues_found: 'no', issues_count: 0 },
    ],
    'fix-issues': [{}],
  };
  const engine = createEngine({ store: createMemoryStore() });
  let state: RunState = await engine.start(REVIEW_LOOP);
  const path: string[] = [];
  for (let guard = 0; state.status === 'waiting' && guard < 20; guard++) {
    const node = (state as WaitingState).pending.nodeId;
    path.push(node);
    const next = script[node]?.shift();
    if (!next) break;
    state = await engine.submit(state.runId, next, { seq: state.seq, as: node === 'delegate-review' ? 'reviewer' : 'author' });
  }
  assert.equal(path, ['do-work', 'delegate-review', 'fix-issues', 'delegate-review']);
  assert.is(state.status === 'completed' && state.endNodeId, 'next-step');
  assert.equal(state.status === 'completed' && state.output.issues_count, 0);
  const counts = (await engine.trace(state.runId)).events.filter((e) => e.type === 'condition.evaluated' && e.nodeId === 'check-review-result').map((e) => e.result);
  assert.equal(counts, [false, true]);
});

Shipped('ADR-019: when review-loop.json\'s rounds run out, the user\'s choice decides where it ends: "stop" at stopped-by-user, "accept" at accepted-by-user, each output naming the decision (never one end for both)', async () => {
  for (const [decision, endNode] of [['stop', 'stopped-by-user'], ['accept', 'accepted-by-user']] as const) {
    const engine = createEngine({ store: createMemoryStore() });
    let state: RunState = await engine.start(REVIEW_LOOP);
    state = await engine.submit(state.runId, { changed_files: ['a.ts'] }, { seq: state.seq, as: 'author' });
    for (let round = 1; round <= 3; round++) {
      state = await engine.submit(state.runId, { review_file: 'r.md', issues: ['a', 'b'], issues_found: 'yes', issues_count: 2 }, { seq: state.seq, as: 'reviewer' });
      if (round < 3) state = await engine.submit(state.runId, {}, { seq: state.seq, as: 'author' });
    }
    assert.is(state.status === 'waiting' && state.pending.nodeId, 'ask-user');
    state = await engine.submit(state.runId, { decision }, { seq: state.seq, as: 'author' });
    assert.is(state.status === 'completed' && state.endNodeId, endNode, decision);
    assert.is(state.status === 'completed' && state.output['ask-user.decision'], decision);
  }
});

Shipped('G16 G17 ADR-019: the shipped review-loop.json refuses a count that is no whole number, and a verdict that contradicts its count (issues_found "yes" with 0, "no" with 2)', async () => {
  for (const wrong of [{ issues_found: 'yes', issues_count: 0.5 }, { issues_found: 'yes', issues_count: 0 }, { issues_found: 'no', issues_count: 2 }]) {
    const engine = createEngine({ store: createMemoryStore() });
    let state: RunState = await engine.start(REVIEW_LOOP);
    state = await engine.submit(state.runId, { changed_files: ['a.ts'] }, { seq: state.seq, as: 'author' });
    state = await engine.submit(state.runId, { review_file: 'reviews/review.md', issues: [], ...wrong }, { seq: state.seq, as: 'reviewer' });
    assert.is(state.status === 'waiting' && state.rejected?.code, 'E_ANSWER_INVALID', JSON.stringify(wrong));
  }
});

Shipped.run();
DevFlow.run();
