/** `run` when things go wrong around the agent: its process, its directory, the user's Ctrl-C. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCHER, ROOT, cli, spawnCli, tempDir } from '../helpers/cli.js';
import { aliveThenReaped, pidFrom } from '../helpers/processes.js';

const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');
const Faults = suite('cli run: agent faults and workspaces');

Faults('a stopped run is reported as countersign: E_CODE: message with the adapter\'s fix, and in --json error.fix', async () => {
  const r = await cli(['run', WF, '--agent', 'exec:exit 3'], { store: tempDir() });
  assert.is(r.code, 3);
  assert.match(r.stderr, /^countersign: E_AGENT_CRASHED: /m);
  assert.match(r.stderr, /^  fix: /m);
  const j = await cli(['run', WF, '--agent', 'exec:exit 3', '--json'], { store: tempDir() });
  assert.ok(j.json.error.fix, JSON.stringify(j.json));
});

Faults('--workspace must exist (exit 2, E_USAGE, no run created); run --resume keeps the run\'s recorded workspace', async () => {
  const store = tempDir();
  const missing = await cli(['run', WF, '--agent', 'exec:echo {}', '--workspace', '/nope/dir', '--json'], { store });
  assert.is(missing.code, 2);
  assert.is(missing.json.error.code, 'E_USAGE');
  assert.equal((await cli(['runs', '--json'], { store })).json.runs, []);
  const ws = tempDir('countersign-ws-');
  const elsewhere = tempDir('countersign-elsewhere-');
  const log = join(tempDir(), 'cwd.txt');
  const first = await cli(['run', WF, '--agent', 'exec:exit 1', '--workspace', ws, '--json'], { store });
  assert.is(first.code, 3);
  const resumed = await cli(['run', '--resume', first.json.runId, '--agent', `exec:pwd >> ${log}; echo '{"words": 2}'`, '--json'], { store, cwd: elsewhere });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is(readFileSync(log, 'utf8').trim(), ws);
});

Faults('a jsonl agent that ignores SIGTERM is killed with its whole process group soon after --agent-timeout', async () => {
  const dir = tempDir();
  const agent = join(dir, 'stubborn.mjs');
  writeFileSync(agent, "process.on('SIGTERM', () => {}); process.stdin.resume(); setTimeout(() => {}, 60_000);\n");
  const started = Date.now();
  const r = await cli(['run', WF, '--agent', `jsonl:node ${agent}`, '--agent-timeout', '0.5', '--json'], { store: tempDir() });
  const took = Date.now() - started;
  assert.is(r.code, 3);
  assert.is(r.json.error.code, 'E_AGENT_TIMEOUT');
  assert.ok(took < 8_000, `run took ${took} ms to return`);
  const left = spawnSync('pgrep', ['-f', agent], { encoding: 'utf8' }).stdout.trim();
  assert.is(left, '', 'no agent process is left');
});

Faults('an --agent-timeout beyond the timer limit waits for the agent instead of timing out at once', async () => {
  const r = await cli(['run', WF, '--agent', `exec:sleep 0.3; echo '{"words": 1}'`, '--agent-timeout', '3000000', '--json'], { store: tempDir() });
  assert.is(r.code, 0, r.stderr);
});

Faults('Ctrl-C (SIGINT) during run stops the agent process group, prints the still-waiting run under --json (E_INTERRUPTED, not an agent crash) and exits with 130; the run resumes', async () => {
  const marker = `countersign-sigint-${process.pid}-${Date.now()}`;
  const store = tempDir();
  const child = spawn(process.execPath, [LAUNCHER, 'run', WF, '--agent', `exec:sleep 30 # ${marker}`, '--json', '--store', store], { cwd: ROOT });
  let err = '';
  let out = '';
  child.stderr.on('data', (c) => (err += c));
  child.stdout.on('data', (c) => (out += c));
  // Poll rather than sleep a fixed time: on a loaded machine the launcher can take seconds to start the agent.
  // Match the agent's own `sh -c` command line, not countersign's (whose argv holds "exec:sleep 30 # marker").
  const running = () => spawnSync('pgrep', ['-f', `[-]c sleep 30 # ${marker}`]).status === 0;
  const until = async (ok: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
    return ok();
  };
  assert.ok(await until(running, 20_000), `the agent should be running: ${err}`);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  assert.is(code, 130, err);
  assert.ok(await until(() => !running(), 5_000), 'the agent was stopped');
  const result = JSON.parse(out);
  assert.equal([result.status, result.stopped, result.error.code, result.error.nodeId], ['waiting', true, 'E_INTERRUPTED', 'write']);
  assert.match(result.error.fix, `countersign run --resume ${result.runId} --store ${store}`);
  // Both commands it suggests work as printed: the run's id and its store.
  assert.match(result.error.fix, `or answer with countersign step ${result.runId} --store ${store}`);
  assert.match(err, /■ stopped: E_INTERRUPTED: interrupted while waiting for the agent \(--agent exec:sleep 30/);
  assert.not.match(err, 'E_AGENT_CRASHED');
  const resumed = await cli(['run', '--resume', result.runId, '--agent', `exec:echo '{"words": 2}'`, '--json'], { store });
  assert.is(resumed.code, 0, resumed.stderr);
});

/** Starts the launcher with an agent (or reviewer) that writes its pid, signals countersign once the agent runs, and says whether the agent outlived it. */
async function signalled(args: (agent: string) => string[], signal: NodeJS.Signals): Promise<{ code: number | null; agentAlive: boolean; stderr: string }> {
  const dir = tempDir();
  const pidFile = join(dir, 'agent.pid');
  const child = spawn(process.execPath, [LAUNCHER, ...args(`jsonl:echo $$ > ${pidFile}; exec sleep 30`), '--store', join(dir, 'store')], { cwd: ROOT });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const pid = await pidFrom(pidFile, 20_000, () => stderr);
  child.kill(signal);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  let agentAlive = false;
  for (const end = Date.now() + 5_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    try {
      process.kill(pid, 0);
      agentAlive = true;
    } catch {
      agentAlive = false;
      break;
    }
  }
  if (agentAlive) process.kill(pid, 'SIGKILL');
  return { code, agentAlive, stderr };
}

Faults('a second Ctrl-C while run is still stopping a slow agent (one that ignores end of input) never leaves that agent running', async () => {
  const dir = tempDir();
  const pidFile = join(dir, 'agent.pid');
  const child = spawn(process.execPath, [LAUNCHER, 'run', WF, '--agent', `jsonl:echo $$ > ${pidFile}; read line; exec sleep 45`, '--store', join(dir, 'store')], { cwd: ROOT });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const pid = await pidFrom(pidFile, 20_000, () => stderr);
  await new Promise((r) => setTimeout(r, 300));
  child.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 300));
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.is(code, 130, stderr);
  const gone = () => { try { process.kill(pid, 0); return false; } catch { return true; } };
  for (const end = Date.now() + 3000; !gone() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
  assert.not.ok(aliveThenReaped(pid), 'the agent was stopped');
});

Faults('the terminal going away (SIGHUP) or a service manager stopping it (SIGTERM) during run stops the agent process group too, and countersign exits with 129 / 143', async () => {
  for (const [signal, status] of [['SIGHUP', 129], ['SIGTERM', 143]] as const) {
    const r = await signalled((agent) => ['run', WF, '--agent', agent, '--json'], signal);
    assert.is(r.code, status, `${signal}: ${r.stderr}`);
    assert.not.ok(r.agentAlive, `${signal}: the agent was stopped`);
  }
});

Faults('Ctrl-C (SIGINT) during gate stops its reviewer process group before countersign exits with 130', async () => {
  const proposal = JSON.stringify({ action: 'host_restart_service', target: { device_id: 7 }, reason: 'why', operator: 'u', context_summary: '' });
  const r = await signalled((reviewer) => ['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', proposal, '--reviewer', reviewer], 'SIGINT');
  assert.is(r.code, 130, r.stderr);
  assert.not.ok(r.agentAlive, 'the reviewer was stopped');
});

Faults('run --resume of a run whose workspace was deleted is E_FILE_NOT_FOUND naming it (exit 2) before any agent starts; the run still waits', async () => {
  const store = tempDir();
  const root = tempDir();
  const ws = join(root, 'gone');
  mkdirSync(ws);
  const first = await cli(['run', WF, '--agent', 'exec:exit 1', '--workspace', ws, '--json'], { store });
  assert.is(first.code, 3, first.stderr);
  rmSync(ws, { recursive: true });
  const marker = join(root, 'agent-ran');
  const r = await cli(['run', '--resume', first.json.runId, '--agent', `exec:touch ${marker}; echo '{"words":3}'`, '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_FILE_NOT_FOUND');
  assert.match(r.json.error.message, `works in ${ws}, which no longer exists`);
  assert.match(r.json.error.fix, /restore or recreate/);
  assert.not.ok(existsSync(marker), 'no agent was started');
  assert.is((await cli(['status', first.json.runId, '--json'], { store })).json.status, 'waiting');
});

Faults('--reviewer-id without --reviewer is E_USAGE (exit 2), and a blank one is refused even then: no identity is dropped silently', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.yaml'), 'write: [{ words: 5 }]\n');
  for (const id of ['bob', '']) {
    const r = await cli(['run', WF, '--agent', `scripted:${join(dir, 'a.yaml')}`, '--reviewer-id', id, '--json'], { store: tempDir() });
    assert.is(r.code, 2, `--reviewer-id "${id}": ${r.stderr}`);
    assert.is(r.json.error.code, 'E_USAGE');
    assert.match(r.json.error.message, id === '' ? '--reviewer-id needs a non-empty identity' : 'there is no --reviewer');
  }
});

Faults('graph draws a workflow that does not validate (a node without type or id) instead of crashing', async () => {
  const file = join(tempDir(), 'notype.json');
  writeFileSync(file, JSON.stringify({ metadata: {}, nodes: [{ id: 'a', connections: { next: 'b' } }, null, { type: 'end', id: 'b' }] }));
  const r = await cli(['graph', file]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /n0\["a<br\/><small>\(no type\)<\/small>"\]/);
  assert.match(r.stdout, /n0 -->\|"next"\| n2/);
});

Faults.run();

const Reporting = suite('cli error reporting');

Reporting('--json before the command still yields exactly one JSON document', async () => {
  const r = await cli(['--json', 'status', 'nope'], { store: tempDir() });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_RUN_NOT_FOUND');
  const s = await cli(['--store', tempDir(), '--json', 'runs']);
  assert.equal(s.json, { runs: [] });
});

Reporting('a run that fails under start or step writes countersign: E_CODE: message on stderr (exit 1)', async () => {
  const file = join(tempDir(), 'fails.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'fails', version: '1.0.0', description: 'd' },
    variableRegistry: { n: { type: 'number', description: 'unset' } },
    nodes: [
      { type: 'start', id: 's', connections: { default: 'e' } },
      { type: 'expression', id: 'e', expressions: ['n = n + 1'], connections: { default: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const r = await cli(['start', file], { store: tempDir() });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^countersign: E_EXPRESSION: /m);
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  let last;
  for (let i = 0; i < 4; i++) last = await cli(['step', s.json.runId, '--response', '{"words": 0}'], { store });
  assert.is(last!.code, 1);
  assert.match(last!.stderr, /^countersign: E_MAX_RETRIES: /m);
});

Reporting('an exec agent silent past --agent-timeout is E_AGENT_TIMEOUT naming the timeout and the flag', async () => {
  const r = await cli(['run', WF, '--agent', 'exec:sleep 5', '--agent-timeout', '0.5', '--json'], { store: tempDir() });
  assert.is(r.code, 3);
  assert.is(r.json.error.code, 'E_AGENT_TIMEOUT');
  assert.match(r.json.error.message, /within 0\.5 s/);
  assert.match(r.json.error.fix, /--agent-timeout/);
});

Reporting('--max-steps stops with a fix that says how to continue; run on an invalid workflow is E_WORKFLOW_INVALID (exit 2)', async () => {
  const file = join(tempDir(), 's.yaml');
  writeFileSync(file, 'write: [{ words: 0 }, { words: 0 }]\n');
  const r = await cli(['run', WF, '--agent', `scripted:${file}`, '--max-steps', '1', '--json'], { store: tempDir() });
  assert.is(r.code, 3);
  assert.match(r.json.error.fix, new RegExp(`countersign run --resume ${r.json.runId}`));
  assert.match(r.stderr, /^ {2}fix: continue with countersign run --resume/m);
  const bad = join(tempDir(), 'bad.json');
  writeFileSync(bad, JSON.stringify({ metadata: { name: 'b', version: '1.0.0', description: 'd' }, nodes: [{ type: 'start', id: 's', connections: { default: 'gone' } }, { type: 'end', id: 'e' }] }));
  const inv = await cli(['run', bad, '--agent', 'exec:true', '--json'], { store: tempDir() });
  assert.is(inv.code, 2);
  assert.is(inv.json.error.code, 'E_WORKFLOW_INVALID');
});

Reporting.run();

const Pipes = suite('cli output into pipes and progress');

Pipes('a reader that closes the pipe early (| head -1) ends the command quietly with exit 0, even with far more output than a pipe holds', () => {
  // 900 nodes draw a graph of hundreds of KB: writes go on after head has exited, so EPIPE really happens.
  const id = (i: number) => `step-${i}-${'x'.repeat(200)}`;
  const nodes = [{ type: 'start', id: 'start', connections: { default: id(0) } }];
  for (let i = 0; i < 900; i++) nodes.push({ type: 'agent-directive', id: id(i), connections: { success: id(i + 1) } } as never);
  const file = join(tempDir(), 'wide.json');
  writeFileSync(file, JSON.stringify({ metadata: { name: 'wide', version: '1.0.0', description: 'a big graph' }, nodes }));
  const size = spawnSync(process.execPath, [LAUNCHER, 'graph', file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 }).stdout.length;
  assert.ok(size > 200_000, `the graph is ${size} bytes, more than a pipe buffer`);
  const r = spawnSync('bash', ['-c', `node ${LAUNCHER} graph ${file} | head -1; echo "status=\${PIPESTATUS[0]}"`], { cwd: ROOT, encoding: 'utf8' });
  assert.match(r.stdout, /^flowchart TD\nstatus=0\n$/);
  assert.not.match(r.stderr, /EPIPE/);
});

Pipes('a closed stderr (2>&1 | head -1) is no error either: validate of many valid files still exits 0', () => {
  const dir = tempDir();
  const two = readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8');
  for (let i = 0; i < 150; i++) writeFileSync(join(dir, `w${i}.json`), two);
  const r = spawnSync('bash', ['-c', `node ${LAUNCHER} validate ${dir}/*.json 2>&1 | head -1; echo "status=\${PIPESTATUS[0]}"`], { cwd: ROOT, encoding: 'utf8' });
  assert.match(r.stdout, /: ok\nstatus=0\n$/);
});

Pipes('a reader of run --json that goes away keeps the run\'s own exit status (1: the run failed) and its agent is still stopped', () => {
  const dir = tempDir();
  const pidFile = join(dir, 'agent.pid');
  const agent = `jsonl:echo $$ > ${pidFile}; echo '{"$error":"nope"}'; exec sleep 30`;
  const r = spawnSync('bash', ['-c', `node ${LAUNCHER} run spec/fixtures/cli/two-step.json --agent "$AGENT" --json 2>/dev/null | true; echo "status=\${PIPESTATUS[0]}"`], {
    cwd: ROOT, encoding: 'utf8', timeout: 20_000, env: { ...process.env, AGENT: agent, COUNTERSIGN_STORE: join(dir, 'store') },
  });
  assert.match(r.stdout, /status=1\n$/);
  assert.not.ok(aliveThenReaped(Number(readFileSync(pidFile, 'utf8'))), 'the agent was stopped when the run ended');
});

Pipes('progress marks a final rejected answer that fails the run with ✗, not ✓', async () => {
  const file = join(tempDir(), 's.yaml');
  writeFileSync(file, 'write: [{ words: 0 }, { words: 0 }, { words: 0 }, { words: 0 }]\n');
  const r = await cli(['run', WF, '--agent', `scripted:${file}`], { store: tempDir() });
  assert.is(r.code, 1);
  assert.match(r.stderr, /✗ write: the run failed: E_MAX_RETRIES/);
  assert.not.match(r.stderr, /✓ write answered/);
});

Pipes.run();

/** A workflow of one directive that takes no fields, written to a fresh directory. */
function oneDirective(): { dir: string; wf: string } {
  const dir = tempDir();
  const wf = join(dir, 'one.json');
  writeFileSync(wf, JSON.stringify({
    metadata: { name: 'one', version: '1.0.0', description: 'one directive that takes no fields' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'Say you are done', completionCondition: 'done', connections: { success: 'end' } },
      { type: 'end', id: 'end' },
    ],
  }));
  return { dir, wf };
}

const NullAnswer = suite('run: a null answer is an answer, judged by the engine');

NullAnswer('§4: a node that takes no fields accepts null from jsonl, exec and interactive agents as from step (its effective schema allows it); where fields are required, null is a rejected answer, never an adapter fault', async () => {
  const { dir, wf } = oneDirective();
  for (const agent of ['jsonl:while read l; do echo null; done', 'exec:cat >/dev/null; echo null']) {
    const r = await cli(['run', wf, '--agent', agent, '--store', join(dir, 's'), '--json']);
    assert.is(r.code, 0, `${agent}: ${r.stderr}`);
    assert.is(r.json.endNodeId, 'end');
  }
  const typed = spawnCli(['run', wf, '--agent', 'interactive', '--store', join(dir, 's'), '--json'], { input: 'null\n' });
  assert.is(typed.code, 0, typed.stderr);
  assert.is(JSON.parse(typed.stdout).endNodeId, 'end');
  // Where fields are required, null is the agent's wrong answer: rejected and re-asked, then E_MAX_RETRIES.
  const needs = await cli(['run', WF, '--agent', 'jsonl:while read l; do echo null; done', '--store', join(dir, 's'), '--json']);
  assert.is(needs.code, 1, needs.stderr);
  assert.is(needs.json.error.code, 'E_MAX_RETRIES');
});

NullAnswer.run();

const Stderr = suite('run: an agent\'s stderr');

Stderr('what an agent writes to stderr while it is being closed is shown, a last line without its newline included', async () => {
  const { dir, wf } = oneDirective();
  const r = await cli(['run', wf, '--agent', 'jsonl:while read l; do echo "{}"; done; printf goodbye-partial >&2', '--store', join(dir, 's')]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'goodbye-partial');
});

Stderr.run();

const Tiny = suite('run: a very short --agent-timeout');

Tiny('a sub-millisecond --agent-timeout is named as it was set (in ms), never "within 0 s"', async () => {
  const { dir, wf } = oneDirective();
  const r = await cli(['run', wf, '--agent', 'jsonl:sleep 5', '--agent-timeout', '0.0001', '--store', join(dir, 's'), '--json']);
  assert.is(r.code, 3, r.stderr);
  assert.is(r.json.error.code, 'E_AGENT_TIMEOUT');
  assert.not.match(r.json.error.message, 'within 0 s');
  assert.match(r.json.error.message, /0\.1 ms/);
});

Tiny.run();
