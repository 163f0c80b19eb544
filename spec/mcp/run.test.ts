/** `countersign mcp`: running a workflow over MCP, client mistakes as tool errors, and one store shared with the CLI. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cli, LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';
import { connect, withRawSession, TWO_STEP, type McpSession } from '../fixtures/mcp/client.js';

const Run = suite<{ mcp: McpSession; store: string }>('mcp: running a workflow');

Run.before(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-run-');
  ctx.mcp = await connect(['--store', ctx.store]);
});
Run.after(async (ctx) => {
  await ctx.mcp?.close();
});

Run('a run goes to completion over MCP: a rejected answer is a normal result with the errors and the attempt, and the retry completes it', async ({ mcp }) => {
  const started = await mcp.call('start', { workflow: TWO_STEP, input: { topic: 'stdio' } });
  assert.is(started.isError, false, started.text);
  const { runId } = started.structured;
  assert.is(started.structured.status, 'waiting');
  assert.is(started.structured.seq, 1);
  assert.ok(started.text.includes(runId) && /seq 1\b/.test(started.text), 'the text names the runId and the seq to answer');
  assert.match(started.text, /Write about stdio\./);
  assert.match(started.text, /DONE WHEN\nwritten/);
  assert.match(started.text, /"minimum": 1/, 'the text carries the answer schema');
  assert.match(started.text, /call step with \{"runId": "[^"]+", "seq": 1, "answer"/);

  const rejected = await mcp.call('step', { runId, seq: 1, answer: { words: 0 } });
  assert.is(rejected.isError, false, 'a rejected answer is not a tool error');
  assert.equal(rejected.structured.rejected, { code: 'E_ANSWER_INVALID', errors: ['/words: must be >= 1'] });
  assert.is(rejected.structured.pending.attempt, 2);
  assert.match(rejected.text, /REJECTED \(E_ANSWER_INVALID\)/);
  assert.match(rejected.text, /\/words: must be >= 1/);
  assert.match(rejected.text, /attempt 2 of 4/);
  assert.match(rejected.text, /"seq": 2/);

  const done = await mcp.call('step', { runId, seq: 2, answer: { words: 150 } });
  assert.is(done.isError, false);
  assert.equal(done.structured, { runId, seq: 2, status: 'completed', endNodeId: 'long', output: { topic: 'stdio', 'write.words': 150 } });
  assert.match(done.text, /completed at end node "long"/);
  assert.match(done.text, /"write\.words": 150/);
});

Run('each client mistake is a tool error with its code and a fix, and the server keeps answering (unknown run, stale and unissued seq, bad arguments)', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: TWO_STEP })).structured;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['step', { runId: 'no-such-run', answer: { words: 3 } }, 'E_RUN_NOT_FOUND'],
    ['status', { runId: 'no-such-run' }, 'E_RUN_NOT_FOUND'],
    ['trace', { runId: 'no-such-run' }, 'E_RUN_NOT_FOUND'],
    ['step', { runId, seq: 9, answer: { words: 3 } }, 'E_SEQ'],
    ['step', { runId, seq: 0, answer: { words: 3 } }, 'E_SEQ'],
    ['step', { answer: { words: 3 } }, 'E_INPUT'], // missing runId
    ['step', { runId }, 'E_INPUT'], // missing answer
    ['step', { runId, answer: '{"words": 3}' }, 'E_INPUT'], // JSON in a string
    ['step', { runId, answer: [3] }, 'E_INPUT'],
    ['step', { runId, answer: { words: 3 }, seq: '1' }, 'E_INPUT'],
    ['step', { runId, answer: { words: 3 }, sequence: 1 }, 'E_INPUT'], // unknown argument
    ['runs', { status: 'paused' }, 'E_INPUT'],
    ['start', {}, 'E_INPUT'],
    ['start', { workflow: TWO_STEP, as: '   ' }, 'E_IDENTITY_REQUIRED'],
    ['no_such_tool', {}, 'E_USAGE'],
  ];
  for (const [tool, args, code] of cases) {
    const r = await mcp.call(tool, args);
    const label = `${tool} ${JSON.stringify(args)}`;
    assert.is(r.isError, true, label);
    assert.is(r.structured.error.code, code, label);
    assert.ok(r.structured.error.message && r.structured.error.fix, `${label} has a message and a fix`);
    assert.ok(r.text.includes(code), `${label}: the text names the code`);
    assert.not.match(`${r.structured.error.message} ${r.structured.error.fix}`, /--[a-z]|`countersign /, `${label}: no CLI flag or command in an MCP hint`);
  }
  assert.is((await mcp.call('step', { runId: 'no-such-run', answer: {} })).structured.error.fix, 'list its runs with the `runs` tool; this server reads one store, so a run started in another store is not visible here');
  assert.match((await mcp.call('step', { runId, seq: 9, answer: {} })).structured.error.fix, /^answer seq 1 \(the pending item\), or omit the "seq" argument$/);
  const missing = await mcp.call('step', { answer: {} });
  assert.match(missing.structured.error.message, /missing required argument "runId"/);
  const stringAnswer = await mcp.call('step', { runId, answer: '{"words": 3}' });
  assert.match(stringAnswer.structured.error.fix, /not as a string/);
  // Nothing above used up an attempt or moved the run, and the server still answers.
  const after = await mcp.call('status', { runId });
  assert.is(after.isError, false);
  assert.is(after.structured.seq, 1);
  assert.is(after.structured.pending.attempt, 1);
});

Run('a stale seq is replayed, not an error: the current state comes back unchanged with replayed: true (core seq rule)', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: TWO_STEP })).structured;
  await mcp.call('step', { runId, seq: 1, answer: { words: 0 } }); // rejected: now at seq 2
  const stale = await mcp.call('step', { runId, seq: 1, answer: { words: 5 } });
  assert.is(stale.isError, false);
  assert.is(stale.structured.replayed, true);
  assert.is(stale.structured.seq, 2);
  assert.is(stale.structured.status, 'waiting');
  assert.match(stale.text, /already answered[\s\S]*"seq": 2/);
  const after = await mcp.call('step', { runId, seq: 2, answer: { words: 5 } });
  assert.is(after.structured.endNodeId, 'short');
});

Run('a run that fails is a normal result naming the code and the message; answering it afterwards is E_RUN_NOT_WAITING', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: TWO_STEP })).structured;
  let last = await mcp.call('status', { runId });
  for (let seq = 1; seq <= 4; seq++) last = await mcp.call('step', { runId, seq, answer: { words: -1 } });
  assert.is(last.isError, false, 'a failed run is a result, not a tool error');
  assert.is(last.structured.status, 'failed');
  assert.is(last.structured.error.code, 'E_MAX_RETRIES');
  assert.ok(last.text.includes(`Run ${runId} failed at node "write"`), last.text);
  assert.ok(last.text.includes(`E_MAX_RETRIES: ${last.structured.error.message}`));
  const late = await mcp.call('step', { runId, answer: { words: 3 } });
  assert.is(late.isError, true);
  assert.is(late.structured.error.code, 'E_RUN_NOT_WAITING');
  assert.is(late.structured.error.fix, 'start a new run with the `start` tool');
});

Run('a step over the 10 MiB message limit is a tool error (E_INPUT with a fix) that changes nothing, and the server keeps serving', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: TWO_STEP })).structured;
  const huge = await mcp.call('step', { runId, seq: 1, answer: { words: 3, pad: 'x'.repeat(11_000_000) } });
  assert.is(huge.isError, true);
  assert.is(huge.structured.error.code, 'E_INPUT');
  assert.match(huge.structured.error.message, /is \d+ bytes; this server reads messages of up to 10485760 bytes/);
  assert.match(huge.structured.error.fix, /keep large content in files/);
  const after = await mcp.call('status', { runId });
  assert.is(after.isError, false, 'the server still answers');
  assert.is(after.structured.seq, 1);
  assert.is(after.structured.pending.attempt, 1, 'no attempt was used up');
  const done = await mcp.call('step', { runId, seq: 1, answer: { words: 3 } });
  assert.is(done.structured.status, 'completed');
});

Run('a run started over MCP is what `countersign status/trace/runs --json` show on the same store, and a run started by the CLI is what MCP status shows', async ({ mcp, store }) => {
  const started = await mcp.call('start', { workflow: TWO_STEP });
  const { runId } = started.structured;
  const status = await cli(['status', runId, '--json'], { store });
  assert.is(status.code, 0, status.stderr);
  assert.equal(status.json, started.structured);

  const byCli = await cli(['start', TWO_STEP, '--json'], { store });
  assert.is(byCli.code, 0, byCli.stderr);
  const seen = await mcp.call('status', { runId: byCli.json.runId });
  assert.is(seen.isError, false);
  assert.equal(seen.structured, byCli.json);
  const stepped = await mcp.call('step', { runId: byCli.json.runId, seq: 1, answer: { words: 2 } });
  assert.is(stepped.structured.status, 'completed');

  const runs = await mcp.call('runs', {});
  assert.equal(runs.structured, (await cli(['runs', '--json'], { store })).json);
  assert.is(runs.structured.runs[0].runId, byCli.json.runId, 'newest first');
  const completed = await mcp.call('runs', { status: 'completed' });
  assert.ok(completed.structured.runs.every((r: { status: string }) => r.status === 'completed'));
  const trace = await mcp.call('trace', { runId: byCli.json.runId });
  assert.equal(trace.structured, (await cli(['trace', byCli.json.runId, '--json'], { store })).json);
  assert.match(trace.text, /answer\.accepted write/);
});

Run.run();

const Stdio = suite('mcp: the stdio process');

Stdio('stdout holds only JSON-RPC frames, and the server exits 0 when the client closes stdin', async () => {
  const store = tempDir('countersign-mcp-raw-');
  const child = spawn(process.execPath, [LAUNCHER, 'mcp', '--store', store], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  const replies = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (out.split('\n').filter(Boolean).length >= n ? resolve() : setTimeout(check, 10));
      check();
    });
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await replies(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'start', arguments: { workflow: TWO_STEP } } });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'status', arguments: { runId: 'nope' } } });
  await replies(3);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  assert.is(await exit, 0, err);
  clearTimeout(timer);
  // Replies may come in any order (a start takes longer than a status): sort them by id.
  const frames = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: any }).sort((a, b) => a.id - b.id);
  assert.equal(frames.map((f) => [f.jsonrpc, f.id]), [['2.0', 1], ['2.0', 2], ['2.0', 3]]);
  assert.is(frames[1].result.structuredContent.status, 'waiting');
  assert.is(frames[2].result.isError, true);
  assert.match(err, /serving on stdio/);
});

Stdio('a last request written without its newline before the client closes stdin is still answered, and the server exits 0', async () => {
  await withRawSession(['--store', tempDir('countersign-mcp-unterminated-')], async (raw) => {
    raw.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'runs', arguments: {} } }));
    assert.is(await raw.close(), 0);
    assert.is((await raw.reply(3)).result.isError, false, 'answered');
  });
});

Stdio('a malformed tools/call (arguments not an object, no tool name) is a tool error with E_INPUT and a fix, not a JSON-RPC error', async () => {
  await withRawSession(['--store', tempDir('countersign-mcp-malformed-')], async (raw) => {
    const calls: Array<[number, object]> = [
      [1, { name: 'status', arguments: ['x'] }],
      [2, { name: 'status', arguments: 'runId' }],
      [3, { name: 'runs', arguments: null }],
      [4, { arguments: {} }],
      [5, { name: '', arguments: {} }],
    ];
    for (const [id, params] of calls) raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params });
    for (const [id, params] of calls) {
      const frame = await raw.reply(id);
      const label = JSON.stringify(params);
      assert.is(frame.error, undefined, `${label}: no JSON-RPC error`);
      assert.is(frame.result.isError, true, label);
      assert.is(frame.result.structuredContent.error.code, 'E_INPUT', label);
      assert.ok(frame.result.structuredContent.error.fix, `${label} has a fix`);
    }
    raw.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'runs' } });
    assert.is((await raw.reply(6)).result.isError, false, 'arguments may be left out; the server still answers');
    raw.send({ jsonrpc: '2.0', id: 7, method: 'no/such/method', params: {} });
    assert.is((await raw.reply(7)).error.code, -32601, 'an unknown method is still Method not found');
    assert.is(await raw.close(), 0);
  });
});

Stdio('an answer nested thousands of levels deep is the E_ANSWER_TOO_DEEP rejection, a normal result, not a serialisation failure; such a start input is E_INPUT with a fix', async () => {
  await withRawSession(['--store', tempDir('countersign-mcp-deep-')], async (raw) => {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: TWO_STEP } } });
    const runId = (await raw.reply(1)).result.structuredContent.runId;
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    raw.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"step","arguments":{"runId":"${runId}","seq":1,"answer":{"words":${deep}}}}}`);
    const result = (await raw.reply(2)).result;
    assert.is(result.isError, false, result.content[0].text);
    assert.is(result.structuredContent.rejected.code, 'E_ANSWER_TOO_DEEP');
    assert.match(result.structuredContent.rejected.errors[0], /^\/words(\/0){64}: the answer nests deeper than 64 levels; flatten it$/);
    assert.is(result.structuredContent.pending.attempt, 2);
    assert.match(result.content[0].text, /REJECTED \(E_ANSWER_TOO_DEEP\)/);
    // A start input that deep is a client mistake: E_INPUT with a fix, not a bare serialisation failure.
    raw.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"start","arguments":{"workflow":"${TWO_STEP}","input":{"topic":${deep}}}}}`);
    const input = (await raw.reply(3)).result;
    assert.is(input.isError, true);
    assert.is(input.structuredContent.error.code, 'E_INPUT');
    assert.match(input.structuredContent.error.message, /nests too deep[\s\S]*more than 64 levels down/);
    assert.match(input.structuredContent.error.fix, /^flatten the input/);
    assert.is(await raw.close(), 0);
  });
});

Stdio('countersign mcp refuses a --workflows folder or --workspace that does not exist (exit 2, E_USAGE)', async () => {
  for (const args of [['--workflows', '/no/such/folder'], ['--workspace', '/no/such/folder'], ['extra']]) {
    const r = await cli(['mcp', ...args], { store: tempDir('countersign-mcp-usage-') });
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, /E_USAGE/);
    assert.is(r.stdout, '');
  }
});

Stdio.run();
