/** `countersign mcp`: two server processes on one store, two clients answering the same seq at once. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { cli, tempDir } from '../helpers/cli.js';
import { connect, withRawSession, TWO_STEP, type McpSession } from '../fixtures/mcp/client.js';

const Concurrency = suite<{ a: McpSession; b: McpSession; store: string }>('mcp: concurrency');

Concurrency.before(async (ctx) => {
  ctx.store = join(tempDir('countersign-mcp-race-'), 'store');
  const [a, b] = await Promise.allSettled([connect(['--store', ctx.store]), connect(['--store', ctx.store])]);
  // One server failing to start must not leave the other running (it would keep the test run alive).
  if (a.status === 'rejected' || b.status === 'rejected') {
    await Promise.all([a, b].map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
    const reason = a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
    // uvu drops a before hook's error without a word: shown here, so a failure says why.
    console.error('mcp: concurrency: a server did not start:', reason);
    throw reason;
  }
  [ctx.a, ctx.b] = [a.value, b.value];
});
Concurrency.after(async (ctx) => {
  await Promise.all([ctx.a?.close(), ctx.b?.close()]);
});

Concurrency('two clients on two servers answering the same seq at once never both advance the run: one is replayed (core seq rule)', async ({ a, b, store }) => {
  for (let round = 0; round < 8; round++) {
    const { runId } = (await a.call('start', { workflow: TWO_STEP })).structured;
    const [ra, rb] = await Promise.all([
      a.call('step', { runId, seq: 1, answer: { words: 5 } }),
      b.call('step', { runId, seq: 1, answer: { words: 500 } }),
    ]);
    assert.is(ra.isError || rb.isError, false, `${ra.text}\n${rb.text}`);
    const replayed = [ra, rb].filter((r) => r.structured.replayed === true);
    assert.is(replayed.length, 1, `round ${round}: exactly one of the two answers is replayed`);
    const winner = ra.structured.replayed ? rb : ra;
    assert.is(winner.structured.status, 'completed');
    // The loser sees the winner's result, not its own answer.
    assert.equal(replayed[0].structured.output, winner.structured.output);
    const trace = await cli(['trace', runId, '--json'], { store });
    assert.is(trace.json.events.filter((e: { type: string }) => e.type === 'answer.accepted').length, 1, 'one answer was taken');
  }
});

Concurrency('a run started on one server is answered through the other', async ({ a, b }) => {
  const { runId } = (await a.call('start', { workflow: TWO_STEP })).structured;
  const seen = await b.call('status', { runId });
  assert.is(seen.structured.seq, 1);
  const done = await b.call('step', { runId, seq: 1, answer: { words: 7 } });
  assert.is(done.structured.status, 'completed');
  assert.is((await a.call('status', { runId })).structured.endNodeId, 'short');
});

Concurrency('two step calls without seq that arrive together (in one write) at one server answer the same item: one advances the run, the other is replayed, never answering the next item (a step without seq is pinned to the item pending when it arrives)', async ({ store }) => {
  // Two items in a row: an unpinned second call would answer the second one.
  const file = join(tempDir('countersign-mcp-pin-'), 'two-items.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'two-items', version: '1.0.0', description: 'two directives in a row' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'one' } },
      { type: 'agent-directive', id: 'one', directive: 'first', completionCondition: 'c', connections: { success: 'two' } },
      { type: 'agent-directive', id: 'two', directive: 'second', completionCondition: 'c', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  await withRawSession(['--store', store], async (raw) => {
    for (let round = 0; round < 4; round++) {
      const base = 100 + round * 10;
      raw.send({ jsonrpc: '2.0', id: base, method: 'tools/call', params: { name: 'start', arguments: { workflow: file } } });
      const runId = (await raw.reply(base)).result.structuredContent.runId as string;
      const step = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'step', arguments: { runId, answer: {} } } });
      raw.write(`${step(base + 1)}\n${step(base + 2)}\n`);
      const [r1, r2] = [await raw.reply(base + 1), await raw.reply(base + 2)];
      assert.is(r1.result.isError || r2.result.isError, false, JSON.stringify([r1, r2]));
      assert.is([r1, r2].filter((r) => r.result.structuredContent.replayed === true).length, 1, `round ${round}: one of the two is a replay`);
      const trace = await cli(['trace', runId, '--json'], { store });
      assert.equal(trace.json.events.filter((e: { type: string }) => e.type === 'answer.accepted').map((e: { nodeId: string }) => e.nodeId), ['one'], 'only the first item was answered');
    }
  });
});

Concurrency.run();
