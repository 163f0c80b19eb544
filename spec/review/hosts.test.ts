/**
 * The adapters with a review pending item (issue 3, Hosts): the interactive
 * adapter shows the fixed prompt and the report path instead of a
 * directive, and the jsonl and exec adapters hand the review object to the
 * reviewer process unchanged, so the reviewer writes the report itself.
 */
import { PassThrough } from 'node:stream';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type AgentRequest } from '../../engine/index.js';
import { createExecAgent } from '../../engine/hosts/exec.js';
import { createInteractiveAgent, renderPrompt } from '../../engine/hosts/interactive.js';
import { createJsonlAgent } from '../../engine/hosts/jsonl.js';
import { cli, tempDir } from '../helpers/cli.js';
import { ARTIFACT, CRITERION, REMINDER, REPORT, nodeCommand, reviewLoop, reviewerCommand, writeWorkflow } from '../fixtures/review/loop.js';

const opts = (timeoutMs = 10_000) => ({ signal: new AbortController().signal, timeoutMs });

/** A real review request: a run of the review loop, produced by "alice", waiting at review 1. */
async function reviewRequest(): Promise<{ ws: string; request: AgentRequest }> {
  const ws = tempDir('countersign-review-ws-');
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(reviewLoop({ systemReminder: REMINDER }), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# Notes\nIntro.\n\n## Setup\n');
  const state = await engine.submit(started.runId, {}, { as: 'alice' });
  assert.is(state.status, 'waiting');
  if (state.status !== 'waiting') throw new Error('unreachable');
  assert.is(state.pending.kind, 'review');
  return { ws, request: { ...state.pending, runId: state.runId, seq: state.seq } as AgentRequest };
}

const Hosts = suite('review: adapters');

Hosts('G28/G30: the interactive prompt for a review shows the fixed prompt, the report path and how to answer — no "Done when"', async () => {
  const { ws, request } = await reviewRequest();
  if (request.kind !== 'review') throw new Error('expected a review request');
  const shown = renderPrompt(request);
  assert.match(shown, `── node review · attempt 1 of 4 · run ${request.runId} seq ${request.seq}`);
  assert.match(shown, 'review 1 · role: reviewer');
  assert.match(shown, request.prompt);
  assert.match(shown, 'YOU ARE reviewer. Your assessment determines if we proceed.');
  assert.match(shown, CRITERION);
  assert.match(shown, `Report file: ${join(ws, REPORT)}`);
  assert.match(shown, '{"issues_count": N}');
  assert.match(shown, JSON.stringify(request.inputSchema, null, 2));
  assert.not.match(shown, 'Done when');
  assert.not.match(shown, REMINDER, 'the systemReminder is not shown to the reviewer');
});

Hosts('G9/§4.10: the interactive adapter shows a rejected review answer\'s errors and reads {"issues_count"} from the person', async () => {
  const { ws, request } = await reviewRequest();
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += String(d)));
  const agent = createInteractiveAgent({ input, output });
  const retry = { ...request, attempt: 2, errors: ['issues_count is 0 but the report lists 1 issue(s)'] } as AgentRequest;
  const answer = agent.answer(retry, opts());
  input.write('{"issues_count": 1}\n');
  assert.equal(await answer, { issues_count: 1 });
  assert.match(shown, 'attempt 2 of 4');
  assert.match(shown, 'The previous answer was rejected:');
  assert.match(shown, 'issues_count is 0 but the report lists 1 issue(s)');
  assert.match(shown, `Report file: ${join(ws, REPORT)}`);
  await agent.close!();
});

Hosts('G8/G9/G30: jsonl and exec reviewers receive the review object unchanged, write the report themselves and answer the count', async () => {
  for (const kind of ['jsonl', 'exec'] as const) {
    const { ws, request } = await reviewRequest();
    const dump = join(tempDir(), 'reviewer.jsonl');
    const command = reviewerCommand('honest', dump);
    const agent = kind === 'jsonl' ? createJsonlAgent(command, { cwd: ws }) : createExecAgent(command, { cwd: ws, stderr: null });
    try {
      assert.equal(await agent.answer(request, opts()), { issues_count: 1 }, kind);
    } finally {
      await agent.close?.();
    }
    assert.equal(JSON.parse(readFileSync(dump, 'utf8')), JSON.parse(JSON.stringify(request)), `${kind}: the request is passed as is`);
    assert.equal(JSON.parse(readFileSync(join(ws, REPORT), 'utf8')), { issues: ['heading "Setup" has no body'] }, kind);
  }
});

Hosts.run();

const Scripted = suite('review: a scripted reviewer under countersign run');

Scripted('G8 G9 G10: a scripted review entry {issues: [...]} writes those findings to the report and answers their count; [] passes; the previous report is kept as .prev', async () => {
  const ws = tempDir('countersign-review-ws-');
  const store = tempDir('countersign-review-store-');
  const wf = writeWorkflow(ws, reviewLoop());
  writeFileSync(join(ws, ARTIFACT), '# Notes\n\n## Setup\n');
  const reviewer = join(ws, 'reviewer.yaml');
  writeFileSync(reviewer, 'review:\n  - { issues: ["heading \\"Setup\\" has no body"] }\n  - { issues: [] }\n');
  // The producer is an exec script that really edits the artifact: a fix that changes nothing is refused (G12).
  const edit = join(ws, 'edit.mjs');
  writeFileSync(edit, `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(join(ws, ARTIFACT))}, 'Body.\\n'); process.stdout.write('{}');`);
  const r = await cli(['run', wf, '--agent', `exec:${nodeCommand(edit)}`, '--reviewer', `scripted:${reviewer}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'done');
  assert.equal(JSON.parse(readFileSync(join(ws, REPORT), 'utf8')), { issues: [] });
  assert.equal(JSON.parse(readFileSync(join(ws, `${REPORT}.prev`), 'utf8')), { issues: ['heading "Setup" has no body'] });
  const trace = await cli(['trace', r.json.runId], { store });
  assert.match(trace.stdout, 'review review: 1 → 0');
});

Scripted.run();
