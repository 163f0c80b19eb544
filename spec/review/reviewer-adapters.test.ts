/**
 * `countersign run --reviewer <adapter>` faults are reported about the
 * reviewer, with a fix that fits it (issue 3, Hosts): a scripted reviewer's
 * findings reach the report as written, a missing or empty script names
 * `--reviewer`, and a silent reviewer is not "the agent".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createScriptedAgent } from '../../engine/hosts/scripted.js';
import { cli, tempDir } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';
import { agentRequest } from '../helpers/agent-request.js';
import { ARTIFACT, REPORT, nodeCommand, reviewLoop, writeWorkflow } from '../fixtures/review/loop.js';

const Adapters = suite('review: reviewer adapters under countersign run');

/** A review-loop workspace whose producer really edits the artifact on every answer. */
function setup(): { ws: string; store: string; wf: string; producer: string } {
  const ws = tempDir('countersign-reviewer-ws-');
  const wf = writeWorkflow(ws, reviewLoop({ maxIterations: 2 }));
  writeFileSync(join(ws, ARTIFACT), '# Notes\n\n## Setup\n');
  const edit = join(ws, 'edit.mjs');
  writeFileSync(edit, `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(join(ws, ARTIFACT))}, 'Body.\\n'); process.stdout.write('{}');`);
  return { ws, store: tempDir('countersign-reviewer-store-'), wf, producer: `exec:${nodeCommand(edit)}` };
}

Adapters('G15, G17: a scripted reviewer entry whose issue is an object reaches the JSON report as written, so the engine rejects it as E_REPORT_FORMAT — never as "[object Object]"', async () => {
  const { ws, store, wf, producer } = setup();
  const script = join(ws, 'rev.yaml');
  writeFileSync(script, 'review:\n' + '  - issues: [{severity: major, text: "x"}]\n'.repeat(4));
  const r = await cli(['run', wf, '--agent', producer, '--reviewer', `scripted:${script}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 1, `the run went on: ${r.stdout}`);
  assert.is(r.json.error.code, 'E_REPORT_FORMAT');
  const report = readFileSync(join(ws, REPORT), 'utf8');
  assert.equal(JSON.parse(report), { issues: [{ severity: 'major', text: 'x' }] });
  assert.not.match(report, '[object Object]');
});

Adapters('G15: a scripted entry with a non-string issue for a Markdown report is refused naming the script file and the item\'s pointer', async () => {
  const agent = createScriptedAgent({ review: [{ issues: ['ok', { severity: 'major' }] }] }, { file: 'rev.yaml' });
  const dir = tempDir('countersign-reviewer-md-');
  const request = agentRequest('review', 1, { kind: 'review', contract: 'issues', report: join(dir, 'review.md') } as never);
  const err = await rejection(agent.answer(request, { signal: new AbortController().signal, timeoutMs: 1000 }));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'the script rev.yaml');
  assert.is(err.pointer, '/review/0/issues/1');
  assert.is(err.file, 'rev.yaml');
  assert.ok(err.fix);
});

Adapters('issue 3 Hosts: --reviewer scripted: with no file is E_ADAPTER "needs a script file after the colon" (exit 2), like exec:', async () => {
  const { ws, store, wf, producer } = setup();
  for (const [flag, spec] of [['--reviewer', 'scripted:'], ['--agent', 'scripted:  ']]) {
    const args = flag === '--reviewer' ? ['--agent', producer, '--reviewer', spec] : ['--agent', spec, '--reviewer', producer];
    const r = await cli(['run', wf, ...args, '--workspace', ws, '--json'], { store });
    assert.is(r.code, 2, r.stdout);
    assert.is(r.json.error.code, 'E_ADAPTER', `${flag} ${spec}`);
    assert.is(r.json.error.message, `${flag} scripted: needs a script file after the colon`);
    assert.match(r.json.error.fix, 'scripted:<file>');
  }
});

Adapters('issue 3 Hosts: a missing --reviewer script is E_FILE_NOT_FOUND whose fix names --reviewer, not --agent', async () => {
  const { ws, store, wf, producer } = setup();
  const r = await cli(['run', wf, '--agent', producer, '--reviewer', 'scripted:missing.yaml', '--workspace', ws, '--json'], { store, cwd: ws });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_FILE_NOT_FOUND');
  assert.match(r.json.error.fix, '--reviewer scripted:<file>');
  assert.not.match(r.json.error.fix, '--agent');
});

Adapters('issue 3 Hosts: a silent reviewer is E_AGENT_TIMEOUT about the reviewer and its command, with a hint for an exec command', async () => {
  const { ws, store, wf, producer } = setup();
  const sleeper = `exec:${nodeCommand('-e', 'setTimeout(() => {}, 10000)')}`;
  const r = await cli(['run', wf, '--agent', producer, '--reviewer', sleeper, '--workspace', ws, '--agent-timeout', '0.5', '--json'], { store });
  assert.is(r.code, 3, r.stderr);
  assert.is(r.json.error.code, 'E_AGENT_TIMEOUT');
  assert.match(r.json.error.message, `the reviewer (--reviewer ${sleeper}) gave no answer for node "review" within 0.5 s`);
  assert.match(r.json.error.fix, 'check that the command prints its answer to stdout and exits');
  assert.not.match(r.json.error.fix, 'JSON line');
});

Adapters.run();
