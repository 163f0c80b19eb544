/**
 * An answer that arrives after its item's deadline. The engine fires the
 * deadline first and drops the answer; over MCP the step result must say
 * so, or the model takes the state the deadline left for its own progress.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers/cli.js';
import { connect, MCP_FIXTURES, type McpSession } from '../fixtures/mcp/client.js';

const TIMEOUT_ROUTE = join(MCP_FIXTURES, 'deadline/timeout-route.json');
const NO_TIMEOUT_ROUTE = join(MCP_FIXTURES, 'deadline/no-timeout-route.json');
const IN_TIME = join(MCP_FIXTURES, 'deadline/in-time.json');

const Deadline = suite<{ mcp: McpSession; store: string }>('mcp: answers after the deadline');

Deadline.before(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-deadline-');
  ctx.mcp = await connect(['--store', ctx.store]);
});
Deadline.after(async (ctx) => {
  await ctx.mcp?.close();
});

/** Waits until the ISO time has passed, with a margin. */
async function pastDeadline(deadline: string): Promise<void> {
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(deadline) - Date.now()) + 100));
}

Deadline('an answer that arrives after its deadline is reported as not taken: the step text names the deadline and the timeout route the run took instead', async ({ mcp, store }) => {
  const started = await mcp.call('start', { workflow: TIMEOUT_ROUTE });
  const { runId, pending } = started.structured;
  assert.ok(pending.deadline, 'the item has a deadline');
  await pastDeadline(pending.deadline);
  const late = await mcp.call('step', { runId, seq: 1, answer: { v: 1 } });
  assert.is(late.isError, false, 'the run moved on normally: not a tool error');
  // structuredContent stays the CLI's JSON: the state the deadline left, marked late as `step --json` marks it.
  const cli1 = await cli(['status', runId, '--json'], { store });
  const { late: lateMark, ...state } = late.structured;
  assert.equal(state, cli1.json);
  assert.is(lateMark.code, 'E_TIMEOUT');
  assert.is(late.structured.pending.nodeId, 'apologise');
  assert.is(late.structured.rejected, undefined);
  assert.match(late.text, /^Your answer was NOT TAKEN: it arrived after the DEADLINE of node "ask" \(seq 1, deadline /);
  assert.ok(late.text.includes(`deadline ${pending.deadline})`), 'the text names the deadline');
  assert.match(late.text, /answer was discarded/);
  assert.match(late.text, /took node "ask"'s timeout route to "apologise"/);
  assert.match(late.text, /waiting at node "apologise": seq 2/, 'then the item the run waits for now');
  const events = (await mcp.call('trace', { runId })).structured.events as Array<{ type: string }>;
  assert.not.ok(events.some((e) => e.type.startsWith('answer.')), 'the journal holds no answer: it really was dropped');
});

Deadline('a late answer is reported as not taken also when another client already answered the item the timeout route led to (the engine said it dropped it)', async ({ mcp }) => {
  const started = await mcp.call('start', { workflow: TIMEOUT_ROUTE });
  const { runId, pending } = started.structured;
  await pastDeadline(pending.deadline);
  await mcp.call('status', { runId });
  const other = await mcp.call('step', { runId, seq: 2, answer: { why: 'slow' } });
  assert.is(other.structured.status, 'completed');
  const late = await mcp.call('step', { runId, seq: 1, answer: { v: 1 } });
  assert.is(late.structured.late?.code, 'E_TIMEOUT');
  assert.match(late.text, /^Your answer was NOT TAKEN: it arrived after the DEADLINE of node "ask" \(seq 1, deadline /);
  assert.match(late.text, /took node "ask"'s timeout route to "apologise"/);
});

Deadline('a late answer to a node with no timeout route is reported as not taken, and the run as failed with E_TIMEOUT', async ({ mcp }) => {
  const started = await mcp.call('start', { workflow: NO_TIMEOUT_ROUTE });
  const { runId, pending } = started.structured;
  await pastDeadline(pending.deadline);
  const late = await mcp.call('step', { runId, answer: { v: 1 } });
  assert.is(late.isError, false);
  assert.is(late.structured.status, 'failed');
  assert.is(late.structured.error.code, 'E_TIMEOUT');
  assert.match(late.text, /^Your answer was NOT TAKEN: it arrived after the DEADLINE of node "ask"/);
  assert.match(late.text, /Node "ask" has no timeout route, so the run failed with E_TIMEOUT\./);
  assert.match(late.text, /failed at node "ask" \(seq 1\): E_TIMEOUT/);
});

Deadline('an answer within its deadline reads as taken: no deadline note', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: IN_TIME })).structured;
  const done = await mcp.call('step', { runId, seq: 1, answer: { v: 1 } });
  assert.is(done.structured.endNodeId, 'on_time');
  assert.not.match(done.text, /NOT TAKEN|DEADLINE of node/);
});

Deadline('after a status call fired the deadline, a step for that item is told its answer came late (never "replayed", which means an answer already taken)', async ({ mcp }) => {
  const { runId, pending } = (await mcp.call('start', { workflow: TIMEOUT_ROUTE })).structured;
  await pastDeadline(pending.deadline);
  const seen = await mcp.call('status', { runId });
  assert.is(seen.structured.pending.nodeId, 'apologise');
  const stale = await mcp.call('step', { runId, seq: 1, answer: { v: 1 } });
  assert.is(stale.structured.replayed, undefined);
  assert.is(stale.structured.late.code, 'E_TIMEOUT');
  assert.is(stale.structured.pending.nodeId, 'apologise', 'the run is where the timeout route led');
  // The model reads the text: it says so there too.
  assert.match(stale.text, /^Your answer was NOT TAKEN: it arrived after the DEADLINE of node "ask"/);
});

Deadline('after a status call fired the deadline of a node with no timeout route (the run failed at that seq), a step for that item is still told its answer was NOT TAKEN', async ({ mcp }) => {
  const { runId, pending } = (await mcp.call('start', { workflow: NO_TIMEOUT_ROUTE })).structured;
  await pastDeadline(pending.deadline);
  const seen = await mcp.call('status', { runId });
  assert.is(seen.structured.status, 'failed');
  const stale = await mcp.call('step', { runId, seq: 1, answer: { v: 1 } });
  assert.is(stale.structured.late?.code, 'E_TIMEOUT');
  assert.match(stale.text, /^Your answer was NOT TAKEN: it arrived after the DEADLINE of node "ask"/);
});

Deadline.run();
