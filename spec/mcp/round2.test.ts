/** Round-2 fixes of `countersign mcp`: results kept inside one message, hang-up, tools/list params, workspace and directory errors, trace hints. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { assertJournalFits, assertResultFits, capText } from '../../engine/hosts/mcp/result-size.js';
import { mcpJournal } from '../../engine/hosts/mcp/hints.js';
import { LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';
import { connect, withRawSession, TWO_STEP } from '../fixtures/mcp/client.js';
import { PassThrough } from 'node:stream';
import { serveStdio } from '../../engine/hosts/mcp/server.js';
import { createMemoryStore } from '../../engine/store/memory.js';

const Round2 = suite('mcp: results, hang-up and hints');

Round2('a long text block keeps its start and its end (the next step call) and says where the rest is', () => {
  const text = `Run r1 is waiting\n${'x'.repeat(1000)}\nTo answer, call step with {"runId": "r1", "seq": 3}`;
  const capped = capText(text, 600);
  assert.ok(capped.startsWith('Run r1 is waiting'));
  assert.ok(capped.endsWith('{"runId": "r1", "seq": 3}'));
  assert.match(capped, /characters left out here: .*structuredContent holds the full result/);
  assert.is(capText('short', 400), 'short');
  // The cap holds for the whole text, the note included.
  const big = capText(`Run r2\n${'y'.repeat(300_000)}\nTo answer, call step`);
  assert.ok(big.length <= 256 * 1024, String(big.length));
  assert.ok(big.endsWith('To answer, call step'));
});

Round2('a result too large for one message is E_RESULT_TOO_LARGE naming the run and how to read it in a shell', () => {
  const result = { structuredContent: { runId: 'r9', status: 'completed', seq: 7, output: 'y'.repeat(50_000) } };
  assert.not.throws(() => assertResultFits('status', result, result.structuredContent, 10_000_000));
  try {
    assertResultFits('status', result, result.structuredContent, 40_000);
    assert.unreachable('should throw');
  } catch (e) {
    const err = e as { code: string; message: string; fix: string };
    assert.is(err.code, 'E_RESULT_TOO_LARGE');
    assert.match(err.message, /run r9 is completed at seq 7/);
    assert.match(err.fix, /countersign status r9 --json/);
  }
});

Round2('a journal too large for one message is E_RESULT_TOO_LARGE naming the run, with the fix to read it in parts (from) or in a shell; trace with from returns the events from that index on', async () => {
  const result = { structuredContent: { runId: 'r9', events: Array.from({ length: 40 }, (_, i) => ({ seq: i, big: 'y'.repeat(1000) })) } };
  try {
    assertJournalFits(result, 'r9', 0, 40, 20_000);
    assert.unreachable('should throw');
  } catch (e) {
    const err = e as { code: string; message: string; fix: string };
    assert.is(err.code, 'E_RESULT_TOO_LARGE');
    assert.match(err.message, 'the journal of run r9 from event 0 on (40 events)');
    assert.match(err.fix, 'call trace with from (e.g. from: 20');
    assert.match(err.fix, 'countersign trace r9 --json');
  }
  const mcp = await connect(['--store', tempDir('countersign-mcp-trace-from-')]);
  try {
    const started = await mcp.call('start', { workflow: TWO_STEP });
    const runId = started.structured.runId as string;
    const all = (await mcp.call('trace', { runId })).structured.events as unknown[];
    const rest = await mcp.call('trace', { runId, from: 1 });
    assert.is(rest.isError, false, rest.text);
    assert.equal(rest.structured.events, all.slice(1));
  } finally {
    await mcp.close();
  }
});

Round2('a blank runId on status, step or trace is a tool error whose fix names the `runs` tool, never the CLI command', async () => {
  const mcp = await connect(['--store', tempDir('countersign-mcp-blank-')]);
  try {
    for (const [tool, args] of [['status', { runId: '  ' }], ['trace', { runId: '  ' }], ['step', { runId: '  ', answer: {} }]] as const) {
      const r = await mcp.call(tool, args);
      assert.is(r.isError, true, tool);
      assert.is(r.structured.error.code, 'E_INPUT', tool);
      assert.match(r.structured.error.fix, 'the `runs` tool', tool);
      assert.not.match(r.text, 'countersign runs', tool);
    }
  } finally {
    await mcp.close();
  }
});

Round2('trace words the hints in journal events as step does: "as" argument, not --as', () => {
  const line = '"p" produced or fixed the artifacts under review; the review must come from another identity (answer with --as <reviewer>)';
  const journal = mcpJournal({ runId: 'r', events: [
    { seq: 2, at: 't', type: 'answer.rejected', errors: [line, '/mode: must be one of "--fast"'] },
    { seq: 3, at: 't', type: 'answer.error', message: 'the agent says: run with --seq' },
  ] });
  assert.equal(journal.events[0].errors, [line.replace('--as <reviewer>', 'the "as" argument set to <reviewer>'), '/mode: must be one of "--fast"']);
  assert.is(journal.events[1].message, 'the agent says: run with --seq', 'the agent\'s own words are not reworded');
});

Round2('when the client closes stdin right after a call, the call still gets its reply before the server exits', async () => {
  const store = tempDir('countersign-mcp-hangup-');
  const child = spawn(process.execPath, [LAUNCHER, 'mcp', '--store', store], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: 'review-fix-loop' } } },
  ];
  child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  assert.is(await exit, 0);
  clearTimeout(timer);
  const start = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((f) => f.id === 1);
  assert.ok(start, `the start reply was written; stdout: ${out.slice(0, 300)}`);
  assert.is(start.result.structuredContent.status, 'waiting');
});

Round2('a signalled server exits with the signal\'s status (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), never 0 as a hang-up does, after answering the call it was running', async () => {
  for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    const store = tempDir('countersign-mcp-signal-');
    const child = spawn(process.execPath, [LAUNCHER, 'mcp', '--store', store], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: 'review-fix-loop' } } });
    for (const end = Date.now() + 10_000; !out.includes('"id":1') && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill(signal);
    assert.is(await exit, status, `${signal}: ${err}`);
    clearTimeout(timer);
    assert.ok(out.includes('"id":1'), 'the call was answered');
  }
});

Round2('tools/list with a bad cursor is JSON-RPC Invalid params in words, and the server keeps serving', async () => {
  await withRawSession(['--store', tempDir('countersign-mcp-cursor-')], async (raw) => {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } });
    const reply = await raw.reply(1);
    assert.is(reply.error.code, -32602);
    assert.match(reply.error.message, /^Invalid params: params\.cursor is a number/);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    assert.is((await raw.reply(2)).result.tools.length, 7);
    await raw.close();
  });
});

Round2('start, step and status name the run\'s absolute workspace; a directory as workflow gets the CLI\'s "is a directory" error', async () => {
  const dir = tempDir('countersign-mcp-ws-');
  const mcp = await connect(['--store', `${dir}/.countersign`, '--workspace', dir]);
  try {
    const started = await mcp.call('start', { workflow: TWO_STEP });
    assert.match(started.text, new RegExp(`WORKSPACE: ${dir} — relative paths in the directive are relative to this directory`));
    const status = await mcp.call('status', { runId: started.structured.runId });
    assert.ok(status.text.includes(`WORKSPACE: ${dir}`));
    const step = await mcp.call('step', { runId: started.structured.runId, seq: started.structured.seq, answer: { words: 5 } });
    assert.ok(step.text.includes(dir), step.text);
    for (const tool of ['start', 'validate']) {
      const r = await mcp.call(tool, { workflow: dir });
      assert.is(r.isError, true);
      assert.is(r.structured.error.code, 'E_FILE_NOT_FOUND');
      assert.match(r.structured.error.message, /is a directory, not a workflow file/);
      assert.match(r.structured.error.fix, /name a \.json, \.yaml or \.yml workflow file inside the directory/);
    }
  } finally {
    await mcp.close();
  }
});

Round2('through the server: a long text block is capped (start and end kept, the middle pointing to structuredContent), and a result over the message limit is E_RESULT_TOO_LARGE naming the run', async () => {
  const dir = tempDir('countersign-mcp-size-');
  const flow = (copies: number) => {
    const file = `${dir}/big-${copies}.json`;
    writeFileSync(file, JSON.stringify({
      metadata: { name: `big-${copies}`, version: '1.0.0', description: 'a directive rendering a large input' },
      variableRegistry: { x: { type: 'string', description: 'x' } },
      nodes: [
        { type: 'start', id: 'start', connections: { default: 'ask' } },
        { type: 'agent-directive', id: 'ask', directive: '{{x}}'.repeat(copies), completionCondition: 'c', connections: { success: 'done' } },
        { type: 'end', id: 'done' },
      ],
    }));
    return file;
  };
  const mcp = await connect(['--store', `${dir}/store`]);
  try {
    const long = await mcp.call('start', { workflow: flow(1), input: { x: 'a'.repeat(300_000) } });
    assert.is(long.isError, false);
    assert.ok(long.text.length < 300_000, `the text is capped (${long.text.length} chars)`);
    assert.is(long.structured.pending.directive.length, 300_000, 'structuredContent keeps it whole');
    const huge = await mcp.call('start', { workflow: flow(11), input: { x: 'é'.repeat(500_000) } });
    assert.is(huge.isError, true);
    assert.is(huge.structured.error.code, 'E_RESULT_TOO_LARGE');
    assert.match(huge.structured.error.message, /run [0-9a-f-]{36}/);
  } finally {
    await mcp.close();
  }
});

Round2('through the server: a batch whose results together pass the message limit goes back within it, the largest result swapped for an E_RESULT_TOO_LARGE tool error that names the run and says the call took effect', async () => {
  const dir = tempDir('countersign-mcp-batch-size-');
  const file = `${dir}/wide.json`;
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'wide', version: '1.0.0', description: 'a directive rendering a large input' },
    variableRegistry: { x: { type: 'string', description: 'x' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: '{{x}}', completionCondition: 'c', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let buffered = '';
  stdout.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  const limit = 60_000;
  const served = serveStdio({ store: createMemoryStore(), cwd: dir, workflowDirs: [dir], version: '0', stdin, stdout, maxFrameBytes: limit, log: () => {} });
  const until = async (n: number) => {
    for (let i = 0; i < 400 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(lines.length >= n, `expected ${n} lines, got ${lines.length}`);
  };
  const send = (m: unknown) => stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await until(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: file, input: { x: 'a'.repeat(20_000) } } } });
  await until(2);
  const runId = JSON.parse(lines[1]).result.structuredContent.runId as string;
  send([1, 2].map((n) => ({ jsonrpc: '2.0', id: 10 + n, method: 'tools/call', params: { name: 'status', arguments: { runId } } })));
  await until(3);
  stdin.end();
  await served;
  assert.ok(Buffer.byteLength(lines[2]) < limit, `${Buffer.byteLength(lines[2])} bytes`);
  const replies = JSON.parse(lines[2]) as Array<{ id: number; result: { isError?: boolean; structuredContent: any } }>;
  assert.equal(replies.map((r) => r.id).sort(), [11, 12]);
  const [kept, left] = [replies.find((r) => !r.result.isError), replies.find((r) => r.result.isError)];
  assert.ok(kept && left, JSON.stringify(replies.map((r) => r.result.isError)));
  assert.is(kept!.result.structuredContent.runId, runId);
  assert.is(left!.result.structuredContent.error.code, 'E_RESULT_TOO_LARGE');
  assert.match(left!.result.structuredContent.error.message, `The call itself took effect: run ${runId} is waiting at seq 1`);
  assert.match(left!.result.structuredContent.error.fix, `call status {"runId": "${runId}"} on a line of its own`);
});

Round2.run();
