/**
 * The answer schema a model reads agrees with what `step` takes. The engine
 * gives an item that asks for no fields the schema {"type": ["object",
 * "null"], "maxProperties": 0} (the CLI's `--response null`); `step`'s
 * `answer` is always an object, so the text shows the object form and the
 * answer {}, and a null answer's fix names {}.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { stepAnswerSchema } from '../../engine/hosts/mcp/text.js';
import { tempDir } from '../helpers/cli.js';
import { connect, MCP_FIXTURES, type McpSession } from '../fixtures/mcp/client.js';

const EMPTY_ANSWER = join(MCP_FIXTURES, 'empty-answer.json');

const Schema = suite<{ mcp: McpSession }>('mcp: the answer schema shown and the answer step takes');

Schema.before(async (ctx) => {
  ctx.mcp = await connect(['--store', tempDir('countersign-mcp-answer-schema-')]);
});
Schema.after(async (ctx) => {
  await ctx.mcp?.close();
});

Schema('an item that asks for no fields shows its answer schema as an object (no null) and the step call with "answer": {}; that answer completes it', async ({ mcp }) => {
  const started = await mcp.call('start', { workflow: EMPTY_ANSWER });
  const { runId } = started.structured;
  // structuredContent is the CLI's JSON: the engine's schema, null included.
  assert.equal(started.structured.pending.inputSchema, { type: ['object', 'null'], maxProperties: 0 });
  assert.match(started.text, /ANSWER SCHEMA \(this item asks for no fields: answer with the empty object \{\}\)\n\{\n {2}"type": "object",\n {2}"maxProperties": 0\n\}/);
  assert.not.match(started.text, /"null"/);
  assert.ok(started.text.includes(`{"runId": "${runId}", "seq": 1, "answer": {}}`), started.text);
  const done = await mcp.call('step', { runId, seq: 1, answer: {} });
  assert.is(done.structured.status, 'completed');
});

Schema('answer: null is an E_INPUT tool error whose fix names {} as the empty answer, and it uses up nothing', async ({ mcp }) => {
  const { runId } = (await mcp.call('start', { workflow: EMPTY_ANSWER })).structured;
  const refused = await mcp.call('step', { runId, seq: 1, answer: null });
  assert.is(refused.isError, true);
  assert.is(refused.structured.error.code, 'E_INPUT');
  assert.match(refused.structured.error.fix, /^pass answer as a JSON object, never null: \{\} when the pending item asks for no fields/);
  const mixed = await mcp.call('step', { runId, seq: 1.5, answer: null });
  assert.match(mixed.structured.error.fix, /never null[\s\S]*; and call step with \{runId, answer, seq\?, as\?\}/, 'with other mistakes the fix covers them too');
  const after = await mcp.call('status', { runId });
  assert.is(after.structured.pending.attempt, 1);
  assert.is(after.structured.seq, 1);
});

Schema('the text\'s answer schema drops only a top-level "null" type next to another type; every other schema is shown as the engine gives it', () => {
  assert.equal(stepAnswerSchema({ type: ['object', 'null'], maxProperties: 0 }), { type: 'object', maxProperties: 0 });
  const plain = { type: 'object', properties: { v: { type: ['integer', 'null'] } } };
  assert.is(stepAnswerSchema(plain), plain, 'a nested null stays: it is a field\'s value');
  assert.equal(stepAnswerSchema({ type: ['object', 'array', 'null'] }), { type: ['object', 'array'] });
  assert.equal(stepAnswerSchema({ type: ['null'] }), { type: ['null'] });
});

Schema.run();
