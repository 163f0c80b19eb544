/**
 * G16 from the zero side: a routing condition must let a clean review
 * (issues_count 0) leave the loop. One that sends 0 to the fix step — a
 * strict eq against the string "0", an `exists` test — never finishes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow, type Workflow } from '../../engine/index.js';
import { reviewLoop } from '../fixtures/review/loop.js';

function withCondition(condition: unknown, connections?: Record<string, string>): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  const check = wf.nodes.find((n) => n.id === 'check')!;
  check.condition = condition;
  if (connections) check.connections = connections;
  return wf as unknown as Workflow;
}

const Clean = suite('validate: a clean review leaves the loop');

Clean('G16: a condition that sends issues_count 0 to the fix step is E_REVIEW_LOOP at the branch it takes', () => {
  const strict = validateWorkflow(withCondition({ operator: 'eq', left: { contextPath: 'issues_count' }, right: '0' }));
  assert.equal(strict.errors.filter((f) => f.code === 'E_REVIEW_LOOP').map((f) => f.pointer), ['/nodes/3/connections/false']);
  assert.match(strict.errors[0].message, /reports 0 issues/);
  const exists = validateWorkflow(withCondition({ operator: 'exists', left: { contextPath: 'issues_count' } }, { true: 'fix', false: 'done' }));
  assert.ok(exists.errors.some((f) => f.code === 'E_REVIEW_LOOP' && /reports 0 issues/.test(f.message)), JSON.stringify(exists.errors));
});

Clean('G16: the seed\'s condition (eq 0, as a number) and lte 0 pass', () => {
  assert.equal(validateWorkflow(withCondition({ operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 })).errors, []);
  assert.equal(validateWorkflow(withCondition({ operator: 'lte', left: { contextPath: 'issues_count' }, right: 0 })).errors, []);
});

Clean.run();
