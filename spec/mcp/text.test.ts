/** The model-facing text of MCP results: what an agent reads to know what to do next. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorText, stateText, workflowsText } from '../../engine/hosts/mcp/text.js';
import { createWorkflowCatalog } from '../../engine/hosts/mcp/workflows.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

function reviewState(report: string): RunState {
  return {
    runId: 'run-4',
    seq: 2,
    status: 'waiting',
    pending: {
      kind: 'review', contract: 'issues', nodeId: 'review', reviewer: 'reviewer', prompt: 'YOU ARE reviewer.', artifacts: ['/w/notes.md'], criteria: ['c'],
      context: [], report, iteration: 1, attempt: 1, maxRetries: 3, inputSchema: { type: 'object' },
    },
  } as unknown as RunState;
}

Text('seed 003 G8: the report-file line asks for the format the report path reads: Markdown list items for .md, {"issues": [...]} JSON otherwise', () => {
  for (const report of ['/w/review.md', '/w/REVIEW.markdown']) {
    const md = stateText(reviewState(report));
    assert.match(md, /REPORT FILE \(overwrite it with Markdown: one top-level list item "- …" per finding/);
    assert.not.match(md, /"issues"/, `${report}: no JSON shape is suggested for a Markdown report`);
  }
  const json = stateText(reviewState('/w/review.json'));
  assert.match(json, /REPORT FILE \(overwrite it with JSON \{"issues": \["one finding per string", …\]\}; \{"issues": \[\]\} when there are none\)\n\/w\/review\.json/);
});

Text('list_workflows text says how to start an entry whose name starts another file: by its file name, or by its path', () => {
  const entry = (name: string, path: string) => ({ name, path, description: '', version: '' });
  const refs: Record<string, string> = { '/a/twin.json': 'twin', '/a/twin.yaml': 'twin.yaml', '/b/twin.json': '/b/twin.json' };
  const text = workflowsText([entry('twin', '/a/twin.json'), entry('twin', '/a/twin.yaml'), entry('twin', '/b/twin.json')], (w) => refs[w.path]);
  const lines = text.split('\n').slice(1);
  assert.is(lines[0], '- twin — /a/twin.json');
  assert.match(lines[1], /its name starts another file: start this one with "twin\.yaml"/);
  assert.match(lines[2], /its name and file name start another file: start this one by its path/);
});

Text('list_workflows marks a file that parses but is no workflow (an answers script beside the workflows) instead of offering it to start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-wfcat-'));
  writeFileSync(join(dir, 'flow.json'), JSON.stringify({ metadata: { name: 'flow', version: '1.0.0', description: 'a flow' }, nodes: [] }));
  writeFileSync(join(dir, 's.yaml'), 'ask:\n  - {n: 1}\n');
  const entries = createWorkflowCatalog({ cwd: dir, dirs: [dir] }).list();
  assert.equal(entries.map((e) => [e.name, e.description]), [['flow', 'a flow'], ['s', '(not a workflow: it has no "nodes" list; call validate for details)']]);
});

Text.run();
