/**
 * `countersign run --gate-reviewer` (issue 5): a jsonl agent answering a
 * directive asks for the built-in `post_review` with a `$tool` line. Without
 * a review gate the request is refused and gh never runs; with one, the
 * gate's reviewer decides and an approved call posts from the workspace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, tempDir } from '../helpers/cli.js';
import { gitRepo, useStandIn } from '../tools/standin.js';

const AGENT = `
import { createInterface } from 'node:readline';
const lines = createInterface({ input: process.stdin });
const queue = [];
let wake;
lines.on('line', (l) => { queue.push(l); wake?.(); });
const next = async () => { while (queue.length === 0) await new Promise((r) => (wake = r)); return JSON.parse(queue.shift()); };
for (;;) {
  const item = await next();
  const offered = (item.toolSpecs ?? []).map((t) => t.name + ':' + t.class).join(',');
  process.stdout.write(JSON.stringify({ $tool: { name: 'post_review', args: { pr_number: 7, verdict: 'APPROVE', body: 'Looks right.' }, reason: 'post the review the workflow asked for' } }) + '\\n');
  const reply = await next();
  process.stdout.write(JSON.stringify({ note: JSON.stringify({ offered, reply }) }) + '\\n');
}
`;

function fixture(): { dir: string; workflow: string; repo: string; agent: string } {
  const dir = tempDir('countersign-gatetools-');
  const agent = join(dir, 'agent.mjs');
  writeFileSync(agent, AGENT);
  const workflow = join(dir, 'wf.json');
  writeFileSync(workflow, JSON.stringify({
    metadata: { name: 'post-by-agent', version: '1.0.0', description: 'an agent posts its own review' },
    access: { reviewer: ['post_review'] },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'review' } },
      {
        type: 'agent-directive', id: 'review', agent: 'reviewer', directive: 'Review PR 7 and post your verdict.', completionCondition: 'posted',
        inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] }, connections: { success: 'done' },
      },
      { type: 'end', id: 'done', finalOutput: ['review.note'] },
    ],
  }));
  writeFileSync(join(dir, 'approve.txt'), 'Decision: approve\n\n**Gates**\n- ✓ SOP-3 covers posting a review\n');
  return { dir, workflow, repo: gitRepo('https://github.com/acme/widgets.git'), agent };
}

const T = suite('countersign run --gate-reviewer');
let standIn: ReturnType<typeof useStandIn>;
T.before.each(() => {
  standIn = useStandIn();
});
T.after.each(() => standIn.restore());

T('§4.13/ADR-019: without a review gate, a directive\'s $tool request for a write tool is E_GATE_REQUIRED and gh is never called', async () => {
  const f = fixture();
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--json'], { store: join(f.dir, 'store'), env: process.env });
  assert.is(r.code, 0, r.stderr);
  const note = JSON.parse(r.json.output['review.note']);
  assert.is(note.reply.$toolError.code, 'E_GATE_REQUIRED');
  assert.not.ok(String(note.offered).includes('post_review'), 'an uncallable tool is not offered');
  assert.equal(standIn.calls(), []);
});

T('A3/H3–H6: with --gate-reviewer, the approved request posts once, from the workspace, with the exact ADR-019 comment, and the proposal is on record', async () => {
  const f = fixture();
  const store = join(f.dir, 'store');
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', `reply:${join(f.dir, 'approve.txt')}`, '--json'], { store, env: process.env });
  assert.is(r.code, 0, r.stderr);
  const note = JSON.parse(r.json.output['review.note']);
  assert.ok('$toolResult' in note.reply, JSON.stringify(note.reply));
  assert.ok(String(note.offered).split(',').includes('post_review:write'), note.offered);
  const calls = standIn.calls();
  assert.is(calls.length, 1);
  assert.is(calls[0].cwd, f.repo);
  assert.not.ok(calls[0].argv.includes('--repo'));
  assert.is(calls[0].comment, '## Code Review Summary\n\nLooks right.\n\n### Verdict: APPROVE');
  const audit = await cli(['audit', '--json'], { store });
  assert.equal(audit.json.proposals.map((p: { tool: string; status: string }) => [p.tool, p.status]), [['post_review', 'approved']]);
});

T('usage: --agents, or --gate-timeout-ms, without --gate-reviewer is a usage error (exit 2) naming the flag given and the missing --gate-reviewer', async () => {
  const f = fixture();
  const cases: Array<[string, string]> = [['--agents', f.dir], ['--gate-timeout-ms', '60000']];
  for (const [flag, value] of cases) {
    const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, flag, value, '--json'], { store: join(f.dir, 'store'), env: process.env });
    assert.is(r.code, 2, flag);
    assert.is(r.json.error.code, 'E_USAGE', flag);
    assert.match(r.json.error.message, `${flag} configures the review gate, and there is none`);
    assert.match(r.json.error.fix, '--gate-reviewer');
  }
  assert.equal(standIn.calls(), []);
});

T('F11: --gate-timeout-ms out of range with a gate is E_GATE_CONFIG (exit 2) naming --gate-timeout-ms, and nothing runs', async () => {
  const f = fixture();
  const store = join(f.dir, 'store');
  for (const value of ['10', '0', 'soon']) {
    const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', `reply:${join(f.dir, 'approve.txt')}`, '--gate-timeout-ms', value, '--json'], { store, env: process.env });
    assert.is(r.code, 2, value);
    assert.is(r.json.error.code, 'E_GATE_CONFIG', value);
    assert.match(r.json.error.message, `--gate-timeout-ms ${value} is not a whole number of milliseconds`);
    assert.match(r.json.error.fix, 'leave --gate-timeout-ms out');
  }
  assert.equal((await cli(['runs', '--json'], { store })).json.runs, []);
  assert.equal(standIn.calls(), []);
});

T('a --gate-reviewer reply: file that cannot be read is E_FILE_NOT_FOUND whose fix names --gate-reviewer reply:<file>, not run\'s --reviewer', async () => {
  const f = fixture();
  const missing = join(f.dir, 'missing.txt');
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', `reply:${missing}`, '--json'], { store: join(f.dir, 'store'), env: process.env });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_FILE_NOT_FOUND');
  assert.match(r.json.error.message, `cannot read the reply file ${missing} given to --gate-reviewer: ENOENT`);
  // Said once on the stderr line: the message names the file, so it is not put in front of it again.
  assert.is(r.stderr.split('\n')[0], `countersign: E_FILE_NOT_FOUND: cannot read the reply file ${missing} given to --gate-reviewer: ENOENT`);
  assert.match(r.json.error.fix, /^pass --gate-reviewer reply:<file> /);
  const gate = await cli(['gate', '--tool', 'post_review', '--class', 'write', '--proposal', JSON.stringify({ action: 'post_review', target: { pr: 7 }, reason: 'r', operator: 'u', context_summary: 's' }), '--reviewer', `reply:${missing}`, '--json'], { store: join(f.dir, 'store') });
  assert.is(gate.json.error.code, 'E_FILE_NOT_FOUND');
  assert.match(gate.json.error.fix, /^pass --reviewer reply:<file> /, 'countersign gate names its own --reviewer');
  assert.equal(standIn.calls(), []);
});

T('an unknown --gate-reviewer (or gate --reviewer) adapter is E_ADAPTER naming the flag, whose fix lists reply:<file> with run\'s adapters; --agent\'s fix is unchanged', async () => {
  const f = fixture();
  const store = join(f.dir, 'store');
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', 'bogus:x', '--json'], { store, env: process.env });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_ADAPTER');
  assert.match(r.json.error.message, '--gate-reviewer "bogus:x" names no known adapter');
  assert.is(r.json.error.fix, 'use reply:<file> (a fixed reply), scripted:<file>, jsonl:<command>, exec:<command> or interactive');
  const gate = await cli(['gate', '--tool', 'post_review', '--class', 'write', '--proposal', JSON.stringify({ action: 'post_review', target: { pr: 7 }, reason: 'r', operator: 'u', context_summary: 's' }), '--reviewer', 'bogus', '--json'], { store });
  assert.match(gate.json.error.message, '--reviewer "bogus" names no known adapter');
  assert.match(gate.json.error.fix, 'reply:<file>');
  const agent = await cli(['run', f.workflow, '--agent', 'bogus:x', '--workspace', f.repo, '--json'], { store, env: process.env });
  assert.is(agent.json.error.code, 'E_ADAPTER');
  assert.is(agent.json.error.fix, 'use scripted:<file>, jsonl:<command>, exec:<command> or interactive', '--agent cannot be a fixed reply');
  const emptyCommand = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', 'jsonl:', '--json'], { store, env: process.env });
  assert.match(emptyCommand.json.error.fix, /^use jsonl:<command>/, 'other adapter errors keep their own fix');
  assert.equal(standIn.calls(), []);
});

T('a scripted gate reviewer is found relative to where the command was typed (like --agent scripted:), not the workspace', async () => {
  const f = fixture();
  writeFileSync(join(f.dir, 'gate.yaml'), 'review:\n  - reply: "Decision: approve"\n');
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--workspace', f.repo, '--gate-reviewer', 'scripted:gate.yaml', '--json'], { store: join(f.dir, 'store'), cwd: f.dir, env: process.env });
  assert.is(r.code, 0, r.stderr);
  assert.ok('$toolResult' in JSON.parse(r.json.output['review.note']).reply);
  assert.is(standIn.calls().length, 1);
});

T('usage: --gate-reviewer interactive beside another interactive adapter is refused (two prompts on one terminal)', async () => {
  const f = fixture();
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--reviewer', 'interactive', '--gate-reviewer', 'interactive'], { store: join(f.dir, 'store') });
  assert.is(r.code, 2);
  assert.match(r.stderr, /--gate-reviewer and --reviewer cannot both be interactive/);
});

T('--allow-tool-modules is an option only of the commands that can reach a tool node', async () => {
  const f = fixture();
  for (const cmd of [['runs'], ['trace', 'x'], ['audit']]) {
    const r = await cli([...cmd, '--allow-tool-modules'], { store: join(f.dir, 'store') });
    assert.is(r.code, 2, cmd.join(' '));
    assert.match(r.stderr, /allow-tool-modules/);
  }
});

T('A3: --gate-reviewer may not be the --agent adapter: an agent never approves its own tool calls (usage, exit 2, nothing posted)', async () => {
  const f = fixture();
  const r = await cli(['run', f.workflow, '--agent', `jsonl:node ${f.agent}`, '--gate-reviewer', `jsonl: node ${f.agent}`, '--workspace', f.repo], { store: join(f.dir, 'store'), env: process.env });
  assert.is(r.code, 2);
  assert.match(r.stderr, /same adapter as --agent/);
  assert.equal(standIn.calls(), []);
});

T.run();
