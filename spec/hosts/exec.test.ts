/**
 * The exec adapter against real child processes: a fresh process per
 * pending item, the request on stdin, the whole stdout as the answer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { createExecAgent } from '../../engine/hosts/exec.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { rejection } from '../helpers/errors.js';
import { agentRequest } from '../helpers/agent-request.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/agents/exec-agent.mjs', import.meta.url));
const cmd = (mode: string) => `node '${FIXTURE}' ${mode}`;

function request(nodeId: string, seq: number): AgentRequest {
  return agentRequest(nodeId, seq, {
    directive: 'Fix the issues',
    completionCondition: 'all fixed',
    attempt: 2,
    errors: ['/files: must be array'],
    runId: 'run-9',
  });
}

const opts = (timeoutMs = 5000, signal = new AbortController().signal) => ({ signal, timeoutMs });


/** A killed orphan may linger as a zombie where init does not reap; that counts as dead. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

const test = suite<{ dir: string }>('exec adapter', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-exec-'));
});
test.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

test('each request gets its own process, run in the working directory, whose whole (multi-line) stdout is the answer', async (c) => {
  const agent = createExecAgent(cmd('echo'), { cwd: c.dir, stderr: null });
  const req = request('fix', 5);
  const a = (await agent.answer(req, opts())) as Record<string, unknown>;
  const b = (await agent.answer(request('fix', 6), opts())) as Record<string, unknown>;
  assert.equal([a.seq, b.seq], [5, 6]);
  assert.is(a.nodeId, 'fix');
  assert.is(a.cwd, c.dir);
  assert.is(a.bytes, JSON.stringify(req).length + 1, 'the request JSON arrives whole on stdin, as one line ending in a newline');
  assert.is.not(a.pid, b.pid);
});

test('E r80: given no env, each process inherits this process\'s environment: a variable only the caller holds reaches the agent', async (c) => {
  process.env.CS_TEST_VAR = `inherited-${process.pid}`;
  try {
    const agent = createExecAgent(`cat > /dev/null; node -e "process.stdout.write(JSON.stringify({v:String(process.env.CS_TEST_VAR)}))"`, { cwd: c.dir, stderr: null });
    assert.equal(await agent.answer(request('fix', 5), opts()), { v: `inherited-${process.pid}` });
  } finally {
    delete process.env.CS_TEST_VAR;
  }
});

test('an output echoing another seq as "$seq" is E_AGENT_OUTPUT, and the fix is exec\'s (echo the request\'s seq), not the line protocol\'s', async (c) => {
  const agent = createExecAgent(`echo '{"$seq": 4, "x": 1}'`, { cwd: c.dir, stderr: null });
  const err = await rejection(agent.answer(request('fix', 5), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'answers seq 4, but the request it was given (node "fix") is seq 5');
  assert.match(err.fix!, 'echo the seq of the request read on stdin ("$seq": 5 here), or leave "$seq" out');
  assert.not.match(err.fix!, 'line');
  const right = createExecAgent(`echo '{"$seq": 5, "x": 1}'`, { cwd: c.dir, stderr: null });
  assert.equal(await right.answer(request('fix', 5), opts()), { x: 1 });
});

test('what an exec agent left running in the background is the run\'s: close() (the run ending, or Ctrl-C) stops its process group', async (c) => {
  const pidFile = join(c.dir, 'bg.pid');
  const agent = createExecAgent(`sleep 30 & echo $! > '${pidFile}'; echo '{"x": 1}'`, { cwd: c.dir, stderr: null });
  assert.equal(await agent.answer(request('fix', 1), opts()), { x: 1 });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(alive(pid), 'the background process outlives the answer');
  await agent.close!();
  for (const end = Date.now() + 3000; alive(pid) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  assert.not.ok(alive(pid), 'stopped when the agent was closed');
});

test('a request whose process group emptied when it answered is forgotten: close() signals no group that no longer exists (its id may be reused)', async (c) => {
  const agent = createExecAgent(`echo '{"x": 1}'`, { cwd: c.dir, stderr: null });
  const killed: number[] = [];
  const real = process.kill;
  for (let i = 0; i < 3; i++) await agent.answer(request('fix', i + 1), opts());
  await new Promise((r) => setTimeout(r, 100));
  (process as { kill: typeof process.kill }).kill = ((pid: number, signal?: string | number) => {
    if (signal !== 0 && signal !== undefined) killed.push(pid);
    return real.call(process, pid, signal as never);
  }) as typeof process.kill;
  try {
    await agent.close!();
  } finally {
    (process as { kill: typeof process.kill }).kill = real;
  }
  assert.equal(killed, []);
});

test('a non-zero exit is E_AGENT_CRASHED with the exit code and the last stderr lines', async (c) => {
  const agent = createExecAgent(cmd('fail'), { cwd: c.dir, stderr: null });
  const err = await rejection(agent.answer(request('fix', 1), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'code 3');
  assert.match(err.message, 'boom: the model is unreachable');
  assert.is(err.nodeId, 'fix');
});

test("the agent's stderr is echoed to the given stream", async (c) => {
  const chunks: string[] = [];
  const sink = { write: (s: string) => chunks.push(s) } as unknown as NodeJS.WritableStream;
  const agent = createExecAgent(cmd('fail'), { cwd: c.dir, stderr: sink });
  await rejection(agent.answer(request('fix', 1), opts()));
  assert.match(chunks.join(''), 'step two');
});

test('output that is not JSON is E_AGENT_OUTPUT quoting it', async (c) => {
  const agent = createExecAgent(cmd('garbage'), { cwd: c.dir, stderr: null });
  const err = await rejection(agent.answer(request('fix', 1), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'I think the answer is yes');
});

test('empty output and non-object JSON are E_AGENT_OUTPUT', async (c) => {
  const empty = await rejection(createExecAgent('true', { cwd: c.dir }).answer(request('fix', 1), opts()));
  assert.is(empty.code, 'E_AGENT_OUTPUT');
  const str = await rejection(createExecAgent(`echo '"yes"'`, { cwd: c.dir }).answer(request('fix', 1), opts()));
  assert.is(str.code, 'E_AGENT_OUTPUT');
});

test('an {"$error": …} object is an answer', async (c) => {
  const agent = createExecAgent(`cat > /dev/null; echo '{"$error": "no access"}'`, { cwd: c.dir });
  assert.equal(await agent.answer(request('fix', 1), opts()), { $error: 'no access' });
});

test('silence past timeoutMs is E_AGENT_TIMEOUT and kills the whole process group', async (c) => {
  const pidFile = join(c.dir, 'pid');
  // The trailing `; true` makes sh fork node instead of exec'ing it, so only a group kill reaches node.
  const agent = createExecAgent(`${cmd('sleep')}; true`, { cwd: c.dir, env: { ...process.env, PID_FILE: pidFile }, stderr: null });
  const err = await rejection(agent.answer(request('fix', 1), opts(400)));
  assert.is(err.code, 'E_AGENT_TIMEOUT');
  assert.is(err.nodeId, 'fix');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await new Promise((r) => setTimeout(r, 100));
  assert.is(alive(pid), false, 'the agent process was killed');
});

test('an answer printed before the command exits is taken even when a background process it left keeps stdout or stderr open (not E_AGENT_TIMEOUT)', async (c) => {
  for (const [held, redirect] of [['stderr', '>/dev/null'], ['stdout', '2>/dev/null'], ['both', '']] as const) {
    const pidFile = join(c.dir, `bg-${held}`);
    const agent = createExecAgent(`cat > /dev/null; echo '{"ok": true}'; sleep 30 ${redirect} & echo $! > '${pidFile}'`, { cwd: c.dir, stderr: null });
    try {
      assert.equal(await agent.answer(request('fix', 1), opts(3000)), { ok: true }, held);
    } finally {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')));
      } catch {
        // already gone
      }
    }
  }
});

test('what a background process the command left writes after the exit is never part of the answer: the answer does not depend on timing', async (c) => {
  // Written 100 ms after the shell exited: too late to count, whatever the timing.
  const late = createExecAgent(`(sleep 0.1; echo '{"late": 1}') & echo '{"msg": "a"}'`, { cwd: c.dir, stderr: null });
  assert.equal(await late.answer(request('fix', 1), opts(3000)), { msg: 'a' });
  await late.close!();
  // The shell printed nothing itself: no answer, though the background process prints one later.
  const none = createExecAgent(`(sleep 0.1; echo '{"msg": "bg"}') &`, { cwd: c.dir, stderr: null });
  const err = await rejection(none.answer(request('fix', 1), opts(3000)));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'exited without writing an answer');
  await none.close!();
});

test('a shell agent that reads its request as a line (while read -r line) gets it: the request ends with a newline', async (c) => {
  const agent = createExecAgent(`while IFS= read -r line; do printf '{"got": %s}\\n' "$(printf '%s' "$line" | wc -c)"; done`, { cwd: c.dir, stderr: null });
  const req = request('fix', 1);
  assert.equal(await agent.answer(req, opts()), { got: Buffer.byteLength(JSON.stringify(req)) });
});

test.run();
