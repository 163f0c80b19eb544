/**
 * E_REVIEW_REENTRY (issue 3 "Connections", §5): an `exhausted` route that
 * leads back into its review can only fail the run (an exhausted review is
 * never issued again: E_MAX_ITERATIONS), and an `unchanged` route that
 * returns to it with no step answered finds the artifact unchanged again
 * (E_UNCHANGED_ARTIFACT). `validate` reports both at the route.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graphModel } from '../../engine/validate/graph-model.js';
import { reviewGraphFindings } from '../../engine/validate/review-graph.js';

const withReason = { inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } } };

/** Seed 003's loop with the review's `exhausted` and `unchanged` routes given, plus a `person` step and a `relay` condition to route through. */
function loop(routes: { exhausted: string; unchanged?: string }) {
  return {
    metadata: { name: 't', version: '1.0.0', description: 't' },
    nodes: [
      { id: 'start', type: 'start', connections: { default: 'write' } },
      { id: 'write', type: 'agent-directive', agent: 'author', directive: 'Write.', completionCondition: 'written', connections: { success: 'review' } },
      { id: 'review', type: 'delegate-review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], connections: { success: 'check', ...routes } },
      { id: 'check', type: 'condition', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      { id: 'fix', type: 'agent-directive', agent: 'author', directive: 'Fix.', completionCondition: 'fixed', ...withReason, connections: { success: 'review' } },
      { id: 'person', type: 'agent-directive', agent: 'lead', directive: 'Decide.', completionCondition: 'decided', ...withReason, connections: { success: 'review' } },
      { id: 'relay', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'review.unchanged_reason' } }, connections: { true: 'review', false: 'done' } },
      { id: 'done', type: 'end' },
    ],
  };
}

const reentry = (doc: ReturnType<typeof loop>) => reviewGraphFindings(graphModel(doc)!).filter((f) => f.code === 'E_REVIEW_REENTRY').map((f) => f.pointer);

const test = suite('review graph: exhausted and unchanged routes back into the review');

test('G7 (issue 3 Connections): "exhausted" straight back to the review, or through the fix step, is E_REVIEW_REENTRY at the route', () => {
  assert.equal(reentry(loop({ exhausted: 'review' })), ['/nodes/2/connections/exhausted']);
  assert.equal(reentry(loop({ exhausted: 'fix' })), ['/nodes/2/connections/exhausted']);
  const message = reviewGraphFindings(graphModel(loop({ exhausted: 'fix' }))!).find((f) => f.code === 'E_REVIEW_REENTRY')!.message;
  assert.match(message, 'never issued again in this run');
  assert.match(message, 'E_MAX_ITERATIONS');
});

test('G7: "exhausted" to an end, or to a step that leads out of the loop, passes', () => {
  assert.equal(reentry(loop({ exhausted: 'done' })), []);
  assert.equal(reentry(loop({ exhausted: 'relay' })), ['/nodes/2/connections/exhausted'], 'a condition that may lead back is still a way back');
});

test('G12 (issue 3 §5): "unchanged" back to the review with nothing answered in between (directly or through a condition) is E_REVIEW_REENTRY', () => {
  assert.equal(reentry(loop({ exhausted: 'done', unchanged: 'review' })), ['/nodes/2/connections/unchanged']);
  assert.equal(reentry(loop({ exhausted: 'done', unchanged: 'relay' })), ['/nodes/2/connections/unchanged']);
  const message = reviewGraphFindings(graphModel(loop({ exhausted: 'done', unchanged: 'review' }))!).find((f) => f.code === 'E_REVIEW_REENTRY')!.message;
  assert.match(message, 'E_UNCHANGED_ARTIFACT');
});

test('G12: "unchanged" to a step that can change the artifact (a person, the fix step) and back to the review passes', () => {
  assert.equal(reentry(loop({ exhausted: 'done', unchanged: 'person' })), []);
  assert.equal(reentry(loop({ exhausted: 'done', unchanged: 'fix' })), []);
  assert.equal(reentry(loop({ exhausted: 'done', unchanged: 'done' })), []);
});

test.run();
