/** The model-facing text of MCP results: what an agent reads to know what to do next. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorText, stateText } from '../../engine/hosts/mcp/text.js';
import type { RunState } from '../../engine/run/contract.js';

const Text = suite('mcp: result text');

const waiting: RunState = {
  runId: 'run-1',
  seq: 4,
  status: 'waiting',
  pending: {
    kind: 'directive',
    nodeId: 'plan',
    directive: 'Plan the work.\n\nReminder: answer with JSON.',
    completionCondition: 'a plan exists',
    inputSchema: { type: 'object', properties: { steps: { type: 'array' } }, required: ['steps'] },
    attempt: 3,
    maxRetries: 2,
    errors: ['/steps: must be array', 'Give the steps as a list.'],
    deadline: '2030-01-01T00:00:00.000Z',
    agent: 'planner',
  },
};

Text('a waiting directive names the runId, the seq, the attempt, the directive with its reminder, the criterion, the schema and the step call', () => {
  const text = stateText(waiting);
  for (const part of ['run-1', 'seq 4', 'attempt 3 of 3', 'role "planner"', 'Plan the work.\n\nReminder: answer with JSON.', 'DONE WHEN\na plan exists', '"required": [', 'DEADLINE: 2030-01-01T00:00:00.000Z']) {
    assert.ok(text.includes(part), `text has ${JSON.stringify(part)}`);
  }
  assert.ok(text.includes('{"runId": "run-1", "seq": 4, "answer": {…}}'));
  assert.not.match(text, /IDENTITY REQUIRED/, 'no identity is asked for outside review loops');
  // Seen through status (no `rejected`): the earlier errors, retryMessage included, are still shown.
  assert.match(text, /previous answer to this item was rejected[\s\S]*\/steps: must be array[\s\S]*Give the steps as a list\./);
});

Text('the answer just rejected is named with its code, its errors and the attempt that comes next', () => {
  const text = stateText({ ...waiting, rejected: { code: 'E_ANSWER_INVALID', errors: ['/steps: must be array'] } } as RunState);
  assert.match(text, /REJECTED \(E_ANSWER_INVALID\)[\s\S]*- \/steps: must be array[\s\S]*attempt 3 of 3/);
});

Text('a replayed state says nothing changed and still names the seq to answer', () => {
  const text = stateText({ ...waiting, replayed: true } as RunState);
  assert.match(text, /already answered, so nothing changed \(replayed: true\)/);
  assert.match(text, /"seq": 4/);
});

Text('a completed run gives its output; a failed run gives the code, the message and the fix', () => {
  const done = stateText({ runId: 'run-2', seq: 7, status: 'completed', endNodeId: 'done', output: { issues_count: 0 } });
  assert.match(done, /run-2 completed at end node "done"/);
  assert.match(done, /OUTPUT\n\{\n {2}"issues_count": 0\n\}/);
  const failed = stateText({ runId: 'run-3', seq: 2, status: 'failed', error: { code: 'E_MAX_RETRIES', message: 'node "plan" got 3 invalid answers', nodeId: 'plan', fix: 'add a maxRetriesExceeded route' } });
  assert.match(failed, /run-3 failed at node "plan" \(seq 2\): E_MAX_RETRIES: node "plan" got 3 invalid answers/);
  assert.match(failed, /fix: add a maxRetriesExceeded route/);
});

Text('a tool error names its code and its fix', () => {
  const text = errorText({ code: 'E_SEQ', message: 'seq 9 has not been issued', fix: 'answer seq 2' });
  assert.match(text, /^Error E_SEQ: seq 9 has not been issued\nfix: answer seq 2/);
});

Text.run();
