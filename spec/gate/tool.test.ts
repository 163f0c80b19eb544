import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineTool, DEFAULT_BLAST_RADIUS, isGated, type ToolSpec } from '../../engine/tools/tool.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { RESTART_SCHEMA, spyTool } from './fixtures.js';

const Tool = suite('gate/tool: the tool model');

const spec = (over: Partial<ToolSpec>): ToolSpec => ({
  name: 'host_restart_service',
  class: 'write',
  inputSchema: RESTART_SCHEMA,
  run: () => 'ran',
  ...over,
});

Tool('a defined tool keeps its metadata, frozen, and only write and destructive are gated (A4, A16)', () => {
  const { tool } = spyTool('write', { blastRadius: 'cluster' });
  assert.is(tool.name, 'host_restart_service');
  assert.is(tool.class, 'write');
  assert.is(tool.blastRadius, 'cluster');
  assert.ok(Object.isFrozen(tool));
  assert.equal(['read', 'write', 'destructive'].map((c) => isGated({ class: c as 'read' })), [false, true, true]);
  assert.is(DEFAULT_BLAST_RADIUS, 'single_device');
});

Tool('a malformed definition is refused with E_TOOL_DEFINITION: class, blast radius, name, run, schema type, schema that does not compile', () => {
  const cases: Partial<ToolSpec>[] = [
    { class: 'mutating' as 'write' },
    { blastRadius: 'planet' as 'cluster' },
    { name: 'exec_*' },
    { name: '' },
    { run: 'nope' as unknown as ToolSpec['run'] },
    { inputSchema: { type: 'array' } },
    { inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } },
    { inputSchema: { type: 'object', minPropertees: 1 } },
  ];
  for (const c of cases) {
    const e = thrownWithCode(() => defineTool(spec(c)), 'E_TOOL_DEFINITION');
    assert.ok(e.fix, `a fix for ${JSON.stringify(c)}`);
  }
});

Tool('arguments that miss the schema fail with E_TOOL_ARGS naming the JSON pointer and the fix, and the tool does not run (§4.13, H41)', async () => {
  const { tool, calls } = spyTool('write');
  const e = await rejection(tool.run({ device_id: 'seven', service: 'nginx' }));
  assert.is(e.code, 'E_TOOL_ARGS');
  assert.is(e.pointer, '/device_id');
  assert.match(e.message, '/device_id: must be integer');
  assert.match(e.fix!, 'call host_restart_service again with arguments that satisfy its inputSchema (required: device_id, service)');
  assert.is(calls.length, 0);
});

Tool('E_TOOL_ARGS lists every problem: a missing property, an extra one, and a non-object call', async () => {
  const { tool } = spyTool('write');
  const e = await rejection(tool.run({ service: 'nginx', force: true }));
  assert.match(e.message, '(root): missing required property "device_id"');
  assert.match(e.message, '/force: property "force" is not allowed here');
  for (const bad of [null, [1], 'restart', 7]) {
    const notObject = await rejection(tool.run(bad));
    assert.is(notObject.code, 'E_TOOL_ARGS');
    assert.is(notObject.pointer, '');
    assert.match(notObject.message, 'tool arguments must be a JSON object');
  }
});

Tool('checkArgs returns the arguments and has no side effect; enums are case-sensitive (§4.13)', () => {
  let ran = 0;
  const tool = defineTool({
    name: 'post_review',
    class: 'write',
    inputSchema: { type: 'object', properties: { verdict: { enum: ['APPROVE', 'REQUEST_CHANGES'] } }, required: ['verdict'] },
    run: () => ran++,
  });
  const args = { verdict: 'APPROVE' };
  assert.is(tool.checkArgs(args), args);
  thrownWithCode(() => tool.checkArgs({ verdict: 'approve' }), 'E_TOOL_ARGS');
  assert.is(ran, 0);
});

Tool('a 2020-12 inputSchema compiles with the 2020 dialect', async () => {
  const tool = defineTool({
    name: 'get_sop_text',
    class: 'read',
    inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { action: { type: 'string' }, window: { type: 'array', prefixItems: [{ type: 'integer' }] } } },
    run: (args) => `SOP for ${String(args.action)}`,
  });
  assert.is(await tool.run({ action: 'restart' }), 'SOP for restart');
});

Tool('the schema is compiled once: two tools sharing an $id do not clash', async () => {
  const a = defineTool(spec({ name: 'a', inputSchema: { $id: 'https://example.com/args.json', type: 'object', required: ['x'] } }));
  const b = defineTool(spec({ name: 'b', inputSchema: { $id: 'https://example.com/args.json', type: 'object', required: ['y'] } }));
  assert.is(await a.run({ x: 1 }), 'ran');
  assert.is(await b.run({ y: 1 }), 'ran');
});

Tool.run();
