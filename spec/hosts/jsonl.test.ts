/**
 * The jsonl adapter against real child processes: one long-lived agent,
 * one request line and one answer line per pending item, and every
 * infrastructure fault reported with its own code and the node id.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import type { Agent } from '../../engine/hosts/agent.js';
import { createJsonlAgent } from '../../engine/hosts/jsonl.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { rejection } from '../helpers/errors.js';
import { agentRequest } from '../helpers/agent-request.js';
import { aliveThenReaped, pidFrom } from '../helpers/processes.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/agents/jsonl-agent.mjs', import.meta.url));
const cmd = (mode: string) => `node '${FIXTURE}' ${mode}`;

function request(nodeId: string, seq: number): AgentRequest {
  return agentRequest(nodeId, seq, { directive: 'Review the change', completionCondition: 'issues listed' });
}

const opts = (timeoutMs = 5000, signal = new AbortController().signal) => ({ signal, timeoutMs });


const test = suite<{ agent?: Agent; dir: string }>('jsonl adapter', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-jsonl-'));
});
test.after.each(async (c) => {
  await c.agent?.close?.();
  c.agent = undefined;
  rmSync(c.dir, { recursive: true, force: true });
});

test('answers several requests in order from ONE process, and the agent sees EOF on close', async (c) => {
  const mark = join(c.dir, 'eof');
  c.agent = createJsonlAgent(cmd('echo'), { cwd: c.dir, env: { ...process.env, EOF_MARK: mark } });
  const a = (await c.agent.answer(request('review', 1), opts())) as Record<string, number | string>;
  const b = (await c.agent.answer(request('fix', 2), opts())) as Record<string, number | string>;
  const d = (await c.agent.answer(request('review', 3), opts())) as Record<string, number | string>;
  assert.equal([a.seq, b.seq, d.seq], [1, 2, 3]);
  assert.equal([a.nodeId, b.nodeId, d.nodeId], ['review', 'fix', 'review']);
  assert.equal([a.n, b.n, d.n], [1, 2, 3]);
  assert.ok(a.pid === b.pid && b.pid === d.pid, 'one process answers every request');
  assert.is(existsSync(mark), false);
  await c.agent.close!();
  assert.is(readFileSync(mark, 'utf8'), 'eof');
});

test('the request line is the pending item with runId and seq at the top level', async (c) => {
  const script = `const l=require('readline').createInterface({input:process.stdin});l.on('line',x=>{process.stdout.write(JSON.stringify({got:JSON.parse(x)})+'\\n')})`;
  c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir });
  const req = { ...request('review', 4), errors: ['/issues: must be array'] } as AgentRequest;
  const answer = (await c.agent.answer(req, opts())) as { got: unknown };
  assert.equal(answer.got, req);
});

test('the agent runs in the given working directory and inherits the environment (given no env, E r80: a variable only this process holds reaches it)', async (c) => {
  const script = `require('readline').createInterface({input:process.stdin}).on('line',()=>console.log(JSON.stringify({cwd:process.cwd(),v:process.env.CS_TEST_VAR})))`;
  process.env.CS_TEST_VAR = `inherited-${process.pid}`;
  try {
    c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir });
    assert.equal(await c.agent.answer(request('n', 1), opts()), { cwd: c.dir, v: `inherited-${process.pid}` });
  } finally {
    delete process.env.CS_TEST_VAR;
  }
});

test('an {"$error": …} line is an answer, not a fault', async (c) => {
  c.agent = createJsonlAgent(`node -e "require('readline').createInterface({input:process.stdin}).on('line',()=>console.log('{\\"\\$error\\": \\"cannot reach the repo\\"}'))"`, { cwd: c.dir });
  assert.equal(await c.agent.answer(request('n', 1), opts()), { $error: 'cannot reach the repo' });
});

test('an agent that exits before answering is E_AGENT_CRASHED with its exit code and the node id', async (c) => {
  c.agent = createJsonlAgent(cmd('crash'), { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('review', 1), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'code 7');
  assert.is(err.nodeId, 'review');
});

test('r103 e1: a crash with its stderr piped (the CLI) quotes that stderr\'s last lines, or says it wrote none; inherited, the fix says where it went (never "shown above" when nothing was)', async (c) => {
  const sink = { text: '', write(chunk: string) { this.text += chunk; return true; } };
  c.agent = createJsonlAgent(`sh -c 'echo "cannot find the model key" >&2; exit 7'`, { cwd: c.dir, stderr: sink as never });
  const said = await rejection(c.agent.answer(request('ask', 1), opts()));
  assert.is(said.code, 'E_AGENT_CRASHED');
  assert.match(said.message, 'its stderr ended with:\n  cannot find the model key');
  assert.match(sink.text, 'cannot find the model key', 'still echoed as it arrived');
  await c.agent.close?.();
  c.agent = createJsonlAgent('exit 7', { cwd: c.dir, stderr: sink as never });
  const silent = await rejection(c.agent.answer(request('ask', 1), opts()));
  assert.match(silent.message, 'exited with code 7 before answering node "ask"; it wrote nothing to stderr');
  assert.not.match(silent.fix ?? '', 'shown above');
  await c.agent.close?.();
  c.agent = createJsonlAgent('exit 7', { cwd: c.dir });
  const inherited = await rejection(c.agent.answer(request('ask', 1), opts()));
  assert.match(inherited.fix ?? '', "what it wrote to stderr went to this process's stderr");
  assert.not.match(inherited.fix ?? '', 'shown above');
});

test('r105 e1: an agent that exits between requests, its stderr piped, is E_AGENT_CRASHED quoting that stderr\'s last lines (or saying it wrote none)', async (c) => {
  const sink = { text: '', write(chunk: string) { this.text += chunk; return true; } };
  const script = `read line; echo '{"ok": true}'; echo "quota exhausted, stopping" >&2; exit 0`;
  c.agent = createJsonlAgent(`sh -c '${script.replaceAll("'", "'\\''")}'`, { cwd: c.dir, stderr: sink as never });
  assert.equal(await c.agent.answer(request('ask', 1), opts()), { ok: true });
  await new Promise((r) => setTimeout(r, 300));
  const e = await rejection(c.agent.answer(request('ask', 2), opts()));
  assert.is(e.code, 'E_AGENT_CRASHED');
  assert.match(e.message, 'after its last answer, before the request for node "ask"; its stderr ended with:\n  quota exhausted, stopping');
});

test('a crash before answering is reported once: the next request (a resume with the same agent) starts a fresh process and is answered', async (c) => {
  // Exits 1 on its first start (before answering), answers from then on.
  const mark = join(c.dir, 'started-once');
  const script = `const fs=require('fs');if(!fs.existsSync(process.env.MARK)){fs.writeFileSync(process.env.MARK,'');process.exit(1)}require('readline').createInterface({input:process.stdin}).on('line',()=>console.log(JSON.stringify({pid:process.pid})))`;
  c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir, env: { ...process.env, MARK: mark } });
  const err = await rejection(c.agent.answer(request('ask', 1), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'exited with code 1 before answering node "ask"');
  const next = (await c.agent.answer(request('ask', 1), opts())) as { pid: number };
  assert.type(next.pid, 'number');
});

test('an agent that closes its stdout and runs on is E_AGENT_CRASHED once, stopped, and the next request starts a fresh process', async (c) => {
  const mark = join(c.dir, 'closed-once');
  const answering = `require('readline').createInterface({input:process.stdin}).on('line',()=>console.log(JSON.stringify({pid:process.pid})))`;
  c.agent = createJsonlAgent(`if [ ! -e "$MARK" ]; then echo $$ > "$MARK"; exec 1>&-; sleep 30; else exec node -e "${answering}"; fi`, { cwd: c.dir, env: { ...process.env, MARK: mark } });
  const err = await rejection(c.agent.answer(request('ask', 1), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'closed its stdout before answering node "ask"');
  const stale = Number(readFileSync(mark, 'utf8'));
  const alive = () => { try { process.kill(stale, 0); return true; } catch { return false; } };
  for (const end = Date.now() + 3000; alive() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  assert.not.ok(aliveThenReaped(stale), 'the process that closed its stdout was stopped');
  const next = (await c.agent.answer(request('ask', 1), opts())) as { pid: number };
  assert.is.not(next.pid, stale);
});

test('an answer may echo its request\'s seq as "$seq" (removed before the engine sees it); a line whose $seq is another request\'s — a stray or late line, however late — is E_AGENT_OUTPUT, never the answer', async (c) => {
  // Answers the first request, then writes a stray line for it 100 ms later; the second answer comes 300 ms after its request.
  // (The key is built from its char code: the script runs through sh -c, where "$seq" would be expanded.)
  const script = `const K=String.fromCharCode(36)+'seq';let n=0;require('readline').createInterface({input:process.stdin}).on('line',(l)=>{const r=JSON.parse(l);n++;if(n===1){console.log(JSON.stringify({[K]:r.seq,v:1}));setTimeout(()=>console.log(JSON.stringify({[K]:r.seq,v:99})),100)}else setTimeout(()=>console.log(JSON.stringify({[K]:r.seq,v:2})),300)})`;
  c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir });
  assert.equal(await c.agent.answer(request('a', 1), opts()), { v: 1 }, '$seq is the protocol\'s, not part of the answer');
  await new Promise((r) => setTimeout(r, 30));
  const err = await rejection(c.agent.answer(request('b', 2), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'answers seq 1, but the request for node "b" is seq 2');
});

test('a "$seq" that is not a number is E_AGENT_OUTPUT saying so, never "answers seq \"1\" but the request is seq 1"', async () => {
  const { withoutSeq } = await import('../../engine/hosts/agent-process.js');
  const e = (() => { try { withoutSeq({ $seq: '1', v: 1 }, { nodeId: 'a', seq: 1 }, 'the line'); } catch (x) { return x as CountersignError; } return undefined; })();
  assert.is(e?.code, 'E_AGENT_OUTPUT');
  assert.match(e?.message ?? '', '"$seq": "1", which is not a number');
  assert.equal(withoutSeq({ $seq: 1, v: 1 }, { nodeId: 'a', seq: 1 }, 'the line'), { v: 1 });
});

test('with "$seq", the answer to the request after a timed-out one is taken at once, and the late line (whenever it comes) is skipped, never an answer or a fault', async (c) => {
  // Never answers seq 1 in time (its answer comes 600 ms late); answers seq 2 at once, seq 3 after the late line.
  const script = `const K=String.fromCharCode(36)+'seq';require('readline').createInterface({input:process.stdin}).on('line',(l)=>{const r=JSON.parse(l);if(r.seq===1)setTimeout(()=>console.log(JSON.stringify({[K]:1,v:'late'})),600);else if(r.seq===2)console.log(JSON.stringify({[K]:2,v:'two'}));else setTimeout(()=>console.log(JSON.stringify({[K]:r.seq,v:'three'})),900)})`;
  c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir });
  assert.is((await rejection(c.agent.answer(request('a', 1), opts(200)))).code, 'E_AGENT_TIMEOUT');
  assert.equal(await c.agent.answer(request('b', 2), opts(2000)), { v: 'two' }, 'taken at once, not skipped as the late line');
  assert.equal(await c.agent.answer(request('c', 3), opts(3000)), { v: 'three' }, 'the late seq-1 line that came meanwhile was skipped');
});

test('with "$seq", a timed-out request\'s late line that comes after a later request was answered, before the next one is asked, is skipped too: the next request is answered, no fault', async (c) => {
  // Answers seq 1 600 ms late; every other request at once.
  const script = `const K=String.fromCharCode(36)+'seq';require('readline').createInterface({input:process.stdin}).on('line',(l)=>{const r=JSON.parse(l);if(r.seq===1)setTimeout(()=>console.log(JSON.stringify({[K]:1,v:'late'})),600);else console.log(JSON.stringify({[K]:r.seq,v:r.seq}))})`;
  c.agent = createJsonlAgent(`node -e "${script}"`, { cwd: c.dir });
  assert.is((await rejection(c.agent.answer(request('a', 1), opts(200)))).code, 'E_AGENT_TIMEOUT');
  assert.equal(await c.agent.answer(request('b', 2), opts(2000)), { v: 2 });
  await new Promise((r) => setTimeout(r, 900));
  assert.equal(await c.agent.answer(request('c', 3), opts(2000)), { v: 3 }, 'the seq-1 line that came between requests was skipped');
  assert.equal(await c.agent.answer(request('d', 4), opts(2000)), { v: 4 }, 'and the stream stays in step');
});

test('an answer line over 16 MiB is E_AGENT_OUTPUT saying so, whether or not it arrives in one piece', async (c) => {
  // Written with one write() call: the pipe may hand it over in one chunk or many.
  const agent = join(c.dir, 'big.cjs');
  writeFileSync(agent, `require('readline').createInterface({ input: process.stdin }).once('line', () => process.stdout.write('{"x":"' + 'y'.repeat(17 * 1024 * 1024) + '"}\\n'));\n`);
  c.agent = createJsonlAgent(`node '${agent}'`, { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('big', 1), opts(20_000)));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'wrote a line longer than 16777216 bytes (16 MiB) for node "big"');
});

test('a command that cannot run is E_AGENT_CRASHED', async (c) => {
  c.agent = createJsonlAgent('definitely-not-a-command-countersign 2>/dev/null', { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('review', 1), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'code 127');
});

test('a line that is not JSON is E_AGENT_OUTPUT quoting what came', async (c) => {
  c.agent = createJsonlAgent(cmd('garbage'), { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('review', 1), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'this is not json');
  assert.is(err.nodeId, 'review');
});

test('an agent let go after a fault (a line that is not JSON) sees its stdin close, as at the end of a run, before it is stopped: it can save its state', async (c) => {
  const mark = join(c.dir, 'eof');
  c.agent = createJsonlAgent(cmd('garbage'), { cwd: c.dir, env: { ...process.env, EOF_MARK: mark } });
  assert.is((await rejection(c.agent.answer(request('review', 1), opts()))).code, 'E_AGENT_OUTPUT');
  await c.agent.close!();
  assert.is(readFileSync(mark, 'utf8'), 'eof');
});

test('a JSON line that is not an object is E_AGENT_OUTPUT', async (c) => {
  c.agent = createJsonlAgent(cmd('array'), { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('review', 1), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'array');
});

test('silence past timeoutMs is E_AGENT_TIMEOUT, and an agent that does not echo "$seq" is let go gently (end of input, not a kill) before close is called', async (c) => {
  const mark = join(c.dir, 'eof');
  c.agent = createJsonlAgent(cmd('silent'), { cwd: c.dir, env: { ...process.env, EOF_MARK: mark } });
  const started = Date.now();
  const err = await rejection(c.agent.answer(request('review', 1), opts(300)));
  assert.is(err.code, 'E_AGENT_TIMEOUT');
  assert.is(err.nodeId, 'review');
  assert.ok(Date.now() - started < 2000);
  // Let go at the timeout: it gets end of input (which it records) without close() being called.
  for (const end = Date.now() + 5000; !existsSync(mark) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  assert.is(readFileSync(mark, 'utf8'), 'eof');
  await c.agent.close!();
});

test('aborting the signal stops the wait with E_AGENT_TIMEOUT', async (c) => {
  c.agent = createJsonlAgent(cmd('silent'), { cwd: c.dir });
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 100);
  const err = await rejection(c.agent.answer(request('review', 1), opts(60_000, ctl.signal)));
  assert.is(err.code, 'E_AGENT_TIMEOUT');
});

test('a late answer to a timed-out request is not taken as the answer to the next one', async (c) => {
  c.agent = createJsonlAgent(cmd('slow-first'), { cwd: c.dir });
  const err = await rejection(c.agent.answer(request('review', 1), opts(200)));
  assert.is(err.code, 'E_AGENT_TIMEOUT');
  const next = (await c.agent.answer(request('review', 2), opts(3000))) as { seq: number };
  assert.is(next.seq, 2);
});

test('an agent that exits between requests is never replaced silently: the next request is E_AGENT_CRASHED saying so, and the one after starts a fresh process', async (c) => {
  c.agent = createJsonlAgent(`node -e "require('readline').createInterface({input:process.stdin}).on('line',()=>{console.log(JSON.stringify({pid:process.pid}));process.exit(1)})"`, { cwd: c.dir });
  const first = (await c.agent.answer(request('n', 1), opts())) as { pid: number };
  await new Promise((r) => setTimeout(r, 200));
  const err = await rejection(c.agent.answer(request('m', 2), opts()));
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'exited with code 1 after its last answer, before the request for node "m"');
  assert.match(err.fix ?? '', 'from one process');
  const third = (await c.agent.answer(request('m', 2), opts())) as { pid: number };
  assert.is.not(first.pid, third.pid);
});

test('a line the agent writes unasked (a second answer, a line between requests) is E_AGENT_OUTPUT before the next request, never taken as its answer', async (c) => {
  c.agent = createJsonlAgent(`node -e "require('readline').createInterface({input:process.stdin}).on('line',()=>{console.log(JSON.stringify({n:1}));console.log(JSON.stringify({n:2}))})"`, { cwd: c.dir });
  assert.equal(await c.agent.answer(request('a', 1), opts()), { n: 1 });
  await new Promise((r) => setTimeout(r, 200));
  const err = await rejection(c.agent.answer(request('b', 2), opts()));
  assert.is(err.code, 'E_AGENT_OUTPUT');
  assert.match(err.message, 'wrote a line nobody asked for before the request for node "b": "{\\"n\\":2}"');
  // The process was stopped: the next request starts afresh and is answered in turn.
  assert.equal(await c.agent.answer(request('b', 2), opts()), { n: 1 });
});

test('a second close while the first is still in its grace period (Ctrl-C as the run stops) waits for it: the agent is gone when either returns', async (c) => {
  const pidFile = join(c.dir, 'agent.pid');
  // Ignores EOF on stdin: close() must give its grace period, then kill the group.
  c.agent = createJsonlAgent(`echo $$ > ${pidFile}; exec sleep 300`, { cwd: c.dir });
  const pending = c.agent.answer(request('review', 1), opts(60_000)).catch(() => undefined);
  const pid = await pidFrom(pidFile, 10_000);
  const first = c.agent.close!();
  await new Promise((r) => setTimeout(r, 100));
  await c.agent.close!();
  assert.not.ok(aliveThenReaped(pid), 'the second close returned only once the agent was stopped');
  await first;
  await pending;
});

test.run();
