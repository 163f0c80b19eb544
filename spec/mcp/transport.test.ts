/** The stdio transport of `countersign mcp`: one line per message, and a message over the size limit refused without ending the session. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { frameFacts, GuardedStdioTransport, type OversizedFrame } from '../../engine/hosts/mcp/stdio-transport.js';

const Transport = suite('mcp: stdio transport');

function harness(maxFrameBytes = 200) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const messages: JSONRPCMessage[] = [];
  const refused: OversizedFrame[] = [];
  const errors: string[] = [];
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const transport = new GuardedStdioTransport(stdin, stdout, {
    maxFrameBytes,
    refuse: (frame) => {
      refused.push(frame);
      return { jsonrpc: '2.0', id: frame.id, error: { code: -32600, message: `too large: ${frame.bytes}` } };
    },
  });
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  return { stdin, transport, messages, refused, errors, out: () => out };
}

const tick = () => new Promise((r) => setImmediate(r));

Transport('an oversized request is refused by its id and skipped; the messages around it, split across chunks, still arrive', async () => {
  const h = harness(200);
  await h.transport.start();
  const big = JSON.stringify({ method: 'tools/call', params: { name: 'step', arguments: { answer: { pad: 'x'.repeat(1000) } } }, jsonrpc: '2.0', id: 7 });
  const before = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' });
  const after = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' });
  const stream = `${before}\n${big}\r\n${after}\n`;
  for (let i = 0; i < stream.length; i += 97) h.stdin.write(stream.slice(i, i + 97));
  await tick();
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [6, 8]);
  assert.equal(h.refused, [{ id: 7, method: 'tools/call', bytes: Buffer.byteLength(big) + 1, limit: 200 }]);
  assert.equal(JSON.parse(h.out()), { jsonrpc: '2.0', id: 7, error: { code: -32600, message: `too large: ${Buffer.byteLength(big) + 1}` } });
  assert.match(h.errors[0], /skipped a \d+-byte message \(tools\/call\): the limit is 200 bytes/);
  await h.transport.close();
});

Transport('an oversized notification (no id) is skipped without a reply', async () => {
  const h = harness(50);
  await h.transport.start();
  h.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { pad: 'y'.repeat(100) } })}\n`);
  await tick();
  assert.equal(h.refused, []);
  assert.is(h.out(), '');
  assert.is(h.errors.length, 1);
});

Transport('a line that is JSON but not JSON-RPC gets Invalid Request when it has an id; a line cut short gets Parse error to the id it still shows; garbage with no id is only logged, in one readable line', async () => {
  const h = harness();
  await h.transport.start();
  h.stdin.write('{"id": 3, "method": 5}\n{ not json\n{"jsonrpc":"2.0","id":2,"method":"tools/call"\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
  await tick();
  const replies = h.out().trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(replies.map((r) => [r.id, r.error.code]), [[3, -32600], [2, -32700]]);
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [4]);
  assert.is(h.errors.length, 3);
  assert.match(h.errors[0], 'is not a JSON-RPC 2.0 message');
  assert.match(h.errors[1], /is not JSON \(.*\): "\{ not json"$/);
  assert.ok(h.errors.every((e) => !e.includes('\n')), 'each log is one line');
});

Transport('a line cut short is answered only at a top-level id: an "id" inside params (another request\'s, or an answer\'s field) gets no Parse error', async () => {
  const h = harness();
  await h.transport.start();
  h.stdin.write('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"step","arguments":{"runId":"r","answer":{"id":4}}},"id":7\n');
  h.stdin.write('{"method":"tools/call","params":{"arguments":{"answer":{"id":5,\n');
  await tick();
  assert.is(h.out(), '', 'no reply to an id read from inside params');
  assert.is(h.errors.length, 2, 'both lines are logged');
});

Transport('a last message without its newline is read when the client closes its end (flush), never dropped unread', async () => {
  const h = harness();
  await h.transport.start();
  h.stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping"}');
  await tick();
  assert.equal(h.messages, []);
  h.transport.flush();
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [9]);
});

Transport('the id of an oversized frame is read only at the top level, wherever it sits among the keys; an "id" nested in params is not taken', () => {
  assert.equal(frameFacts('{"method":"tools/call","params":{', ',"jsonrpc":"2.0","id":12}', 9, 1), { id: 12, method: 'tools/call', bytes: 9, limit: 1 });
  assert.equal(frameFacts('{"jsonrpc":"2.0","id":"a\\"b","method":"tools/call",', 'x"}}}', 9, 1).id, 'a"b');
  // The Java SDK's order (jsonrpc, method, id, params), and an id between method and params with jsonrpc last.
  assert.equal(frameFacts('{"jsonrpc":"2.0","method":"tools/call","id":3,"params":{"name":"step"', 'x"}}}', 9, 1), { id: 3, method: 'tools/call', bytes: 9, limit: 1 });
  assert.equal(frameFacts('{"method":"tools/call","id":2,"params":{', 'x"}},"jsonrpc":"2.0"}', 9, 1), { id: 2, method: 'tools/call', bytes: 9, limit: 1 });
  assert.equal(frameFacts('{"params":{"a":', '"}},"id":"r-9","method":"tools/call","jsonrpc":"2.0"}', 9, 1), { id: 'r-9', method: 'tools/call', bytes: 9, limit: 1 });
  assert.is(frameFacts('{"params":{"a":', '"x":{"id":5,"b":2}}}', 9, 1).id, undefined);
  assert.is(frameFacts('{"method":"tools/call","params":{"answer":', '"answer":{"id":5}}}', 9, 1).id, undefined);
  assert.is(frameFacts('{"params":{"id":5,"method":"x"', 'zz"}}}', 9, 1).method, undefined);
});

async function initialized(h: ReturnType<typeof harness>, protocolVersion: string) {
  await h.transport.send({ jsonrpc: '2.0', id: 0, result: { protocolVersion, capabilities: {}, serverInfo: { name: 'countersign', version: '0' } } });
}

Transport('a JSON-RPC batch under protocol 2025-03-26 is answered as JSON-RPC 2.0 says: one array once every request in it is answered, invalid elements (with their id, or null) in it; an empty batch is one Invalid Request', async () => {
  const h = harness(10_000);
  await h.transport.start();
  await initialized(h, '2025-03-26');
  h.stdin.write('[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"id":8,"method":5},5]\n');
  await tick();
  assert.equal(h.messages.map((m) => (m as { method: string }).method), ['ping', 'notifications/x']);
  assert.is(h.out().trim().split('\n').length, 1, 'nothing is written while ping is unanswered');
  await h.transport.send({ jsonrpc: '2.0', id: 7, result: {} });
  const lines = h.out().trim().split('\n').slice(1).map((l) => JSON.parse(l));
  assert.is(lines.length, 1, 'one line');
  assert.equal(lines[0].map((r: { id: unknown; error?: { code: number } }) => [r.id, r.error?.code ?? 'result']), [[8, -32600], [null, -32600], [7, 'result']]);
  h.stdin.write('[]\n');
  await tick();
  const empty = JSON.parse(h.out().trim().split('\n').at(-1)!);
  assert.equal([empty.id, empty.error.code], [null, -32600]);
});

Transport('a JSON-RPC batch under protocol 2025-06-18 (which has no batches) gets an Invalid Request error for each request in it', async () => {
  const h = harness(10_000);
  await h.transport.start();
  await initialized(h, '2025-06-18');
  h.stdin.write('[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]\n');
  await tick();
  assert.equal(h.messages, []);
  const replies = h.out().trim().split('\n').slice(1).map((l) => JSON.parse(l));
  assert.equal(replies.map((r) => r.id), [7, 'b']);
  assert.ok(replies.every((r) => r.error.code === -32600 && /batches are not part of MCP protocol version 2025-06-18/.test(r.error.message)));
});

Transport('a batch sent right behind initialize, before its reply, is judged by the version that initialize asks for (an unsupported one: the latest, which has no batches)', async () => {
  for (const [asked, answered] of [['2025-03-26', true], ['1999-01-01', false]] as const) {
    const h = harness(10_000);
    await h.transport.start();
    h.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"${asked}","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n`);
    await tick();
    assert.equal(h.messages.map((m) => (m as { method: string }).method), answered ? ['initialize', 'ping'] : ['initialize'], asked);
    if (!answered) assert.match(h.out(), 'batches are not part of MCP protocol version');
  }
});

Transport('a batch whose replies together pass the frame limit is sent within it: the largest replies are swapped for a short E_RESULT_TOO_LARGE error until the line fits', async () => {
  const h = harness(1200);
  await h.transport.start();
  await initialized(h, '2025-03-26');
  h.stdin.write('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]\n');
  await tick();
  await h.transport.send({ jsonrpc: '2.0', id: 1, result: { pad: 'a'.repeat(600) } });
  await h.transport.send({ jsonrpc: '2.0', id: 2, result: { pad: 'b'.repeat(500) } });
  await h.transport.send({ jsonrpc: '2.0', id: 3, result: {} });
  const line = h.out().trim().split('\n').at(-1)!;
  assert.ok(Buffer.byteLength(line) + 1 <= 1200, `${Buffer.byteLength(line)} bytes`);
  const replies = JSON.parse(line) as Array<{ id: number; result?: { pad?: string }; error?: { code: number; message: string } }>;
  assert.equal(replies.map((r) => r.id), [1, 2, 3]);
  assert.is(replies[0].error?.code, -32603);
  assert.match(replies[0].error!.message, /^E_RESULT_TOO_LARGE: the replies to this batch are \d+ bytes together, more than the 1200 bytes/);
  assert.is(replies[1].result?.pad, 'b'.repeat(500), 'only as many replies as needed are left out');
  assert.equal(replies[2].result, {});
});

Transport('an oversized batch is refused at the ids its ends show (its first and last request), in one array, and reading goes on', async () => {
  const h = harness(300);
  await h.transport.start();
  await initialized(h, '2025-03-26');
  const big = JSON.stringify([
    { jsonrpc: '2.0', id: 71, method: 'tools/call', params: { name: 'step', arguments: { answer: { pad: 'y'.repeat(600) } } } },
    { jsonrpc: '2.0', id: 72, method: 'ping' },
  ]);
  h.stdin.write(`${big}\n{"jsonrpc":"2.0","id":73,"method":"ping"}\n`);
  await tick();
  assert.equal(h.refused.map((f) => [f.id, f.method]), [[71, 'tools/call'], [72, 'ping']]);
  const reply = JSON.parse(h.out().trim().split('\n').at(-1)!) as Array<{ id: number }>;
  assert.ok(Array.isArray(reply), 'answered as a batch: one array');
  assert.equal(reply.map((r) => r.id), [71, 72]);
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [73]);
  assert.match(h.errors.join('\n'), /skipped a \d+-byte batch: the limit is 300 bytes per message; answering the request\(s\) its ends show \(id 71, 72\)/);
  const noBatches = harness(300);
  await noBatches.transport.start();
  await initialized(noBatches, '2025-06-18');
  noBatches.stdin.write(`${big}\n`);
  await tick();
  const lines = noBatches.out().trim().split('\n').slice(1).map((l) => JSON.parse(l));
  assert.equal(lines.map((r) => [r.id, r.error.code]), [[71, -32600], [72, -32600]]);
});

Transport('a request of a batch that the client cancels (notifications/cancelled, which MCP answers with nothing) no longer holds the batch: the other replies go back as its array', async () => {
  const h = harness(10_000);
  await h.transport.start();
  await initialized(h, '2025-03-26');
  h.stdin.write('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}]\n');
  await tick();
  await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  assert.is(h.out().trim().split('\n').length, 1, 'held while 2 is awaited');
  h.stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}\n');
  await tick();
  const reply = JSON.parse(h.out().trim().split('\n').at(-1)!) as Array<{ id: number }>;
  assert.equal(reply.map((r) => r.id), [1]);
});

Transport('close stops reading and reports the close once', async () => {
  const h = harness();
  let closed = 0;
  h.transport.onclose = () => closed++;
  await h.transport.start();
  await h.transport.close();
  await h.transport.close();
  h.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await tick();
  assert.is(closed, 1, 'closed twice, reported once');
  assert.equal(h.messages, []);
});

Transport('a message that repeats a key in one object (an answer {"n":1,"n":2}) is refused with Invalid Request naming the key and its columns, never carried out with the last value (r83 e2)', async () => {
  const h = harness(10_000);
  await h.transport.start();
  const line = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"step","arguments":{"runId":"r","answer":{"n":1,"n":2}}}}';
  h.stdin.write(`${line}\n{"jsonrpc":"2.0","id":6,"method":"ping"}\n`);
  await tick();
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [6], 'the repeat is not passed on; the next message is');
  const reply = JSON.parse(h.out().trim());
  assert.equal([reply.id, reply.error.code], [5, -32600]);
  assert.match(reply.error.message, `repeats the key "n" in one object (column ${line.lastIndexOf('"n"') + 1}; the first at column ${line.indexOf('"n"') + 1})`);
  assert.match(reply.error.message, 'send each key once');
  assert.match(h.errors[0], 'skipped a message that repeats the key "n"');
  // The same key in two different objects is no repeat.
  h.stdin.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"step","arguments":{"answer":{"n":1,"o":{"n":2}}}}}\n');
  await tick();
  assert.equal(h.messages.map((m) => (m as { id: number }).id), [6, 7]);
});

Transport('a batch holding a repeated key is refused whole: each request in it gets Invalid Request, none is carried out (r83 e2)', async () => {
  const h = harness(10_000);
  await h.transport.start();
  await initialized(h, '2025-03-26');
  h.stdin.write('[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{"answer":{"n":1,"n":2}}}}]\n');
  await tick();
  assert.equal(h.messages, []);
  const replies = JSON.parse(h.out().trim().split('\n').at(-1)!);
  assert.equal(replies.map((r: { id: number; error: { code: number } }) => [r.id, r.error.code]), [[7, -32600], [8, -32600]]);
});

Transport.run();
