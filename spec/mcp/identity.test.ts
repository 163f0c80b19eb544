/** A blank `as` is the same mistake on every tool: E_IDENTITY_REQUIRED, saying the identity is blank and how to fix it. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/cli.js';
import { connect, TWO_STEP, type McpSession } from '../fixtures/mcp/client.js';

const Identity = suite<{ mcp: McpSession }>('mcp: a blank identity');

Identity.before(async (ctx) => {
  ctx.mcp = await connect(['--store', tempDir('countersign-mcp-identity-')]);
});
Identity.after(async (ctx) => {
  await ctx.mcp?.close();
});

const FIX = 'pass a non-empty identity with the "as" argument set to <identity>, or leave it out';
const STEP_FIX = 'pass a non-empty identity with the "as" argument set to <identity> (in a review loop every answer must name one; elsewhere you may leave it out)';

Identity('a blank as is E_IDENTITY_REQUIRED on start and on step alike: the message says the identity is blank, the fix says to pass a non-empty as or leave it out', async ({ mcp }) => {
  const start = await mcp.call('start', { workflow: TWO_STEP, as: ' \t' });
  assert.is(start.isError, true);
  assert.equal(start.structured.error, { code: 'E_IDENTITY_REQUIRED', message: 'the starting identity " \\t" is blank', fix: FIX });
  assert.is((await mcp.call('runs')).structured.runs.length, 0, 'no run was started');

  const { runId } = (await mcp.call('start', { workflow: TWO_STEP, as: 'writer' })).structured;
  const step = await mcp.call('step', { runId, seq: 1, answer: { words: 3 }, as: '  ' });
  assert.is(step.isError, true);
  assert.equal(step.structured.error, { code: 'E_IDENTITY_REQUIRED', message: 'the answering identity "  " is blank', fix: STEP_FIX });
  assert.is((await mcp.call('status', { runId })).structured.pending.attempt, 1, 'nothing was used up');
});

Identity('a blank as next to other mistakes is one E_INPUT line among the others, in words', async ({ mcp }) => {
  const r = await mcp.call('start', { workflow: '', as: ' ' });
  assert.is(r.structured.error.code, 'E_INPUT');
  assert.match(r.structured.error.message, /as: the identity is blank; give a non-empty identity or leave "as" out/);
  assert.not.match(r.structured.error.message, /pattern/);
});

Identity('tools/list publishes as as not blank on both start and step, so the schema a client reads is the rule it is held to', async ({ mcp }) => {
  const { tools } = await mcp.client.listTools();
  for (const name of ['start', 'step']) {
    const as = (tools.find((t) => t.name === name)!.inputSchema as { properties: Record<string, { pattern?: string }> }).properties.as;
    assert.is(as.pattern, '\\S', name);
  }
});

Identity.run();
