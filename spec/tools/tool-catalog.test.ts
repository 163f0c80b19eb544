/**
 * The tool catalog (issue 5, ADR-019): the built-ins, a host's tools
 * (`createEngine({ tools })`) and a workflow's tool modules, one name each.
 * A host may hand over plain tool specs as a module may; anything that is
 * not a tool is refused when the engine is made, naming `tools[i]`. A name
 * clash says where both tools came from, down to the module file and its
 * `/toolModules/<i>`, and starts no run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, defineTool, type Workflow } from '../../engine/index.js';
import type { CountersignError } from '../../engine/errors.js';
import { BUILTIN_TOOLS } from '../../engine/tools/builtin/index.js';
import { createToolCatalog } from '../../engine/tools/catalog.js';
import { loadToolModules } from '../../engine/tools/modules.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { tempDir } from './standin.js';

const SHOUT_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };

/** A plain spec, as a JavaScript host (or a module) writes one: no defineTool. */
function shoutSpec(name = 'shout') {
  return { name, class: 'read' as const, inputSchema: SHOUT_SCHEMA, run: async ({ text }: { text: string }) => ({ loud: text.toUpperCase() }) };
}

/** start → one tool node → done, its text argument from a registry default (templated) or literal. */
function shoutFlow(text: string, tool = 'shout', toolModules?: string[]): Workflow {
  return {
    metadata: { name: 'shout', version: '1.0.0', description: 'one tool node' },
    variableRegistry: { word: { type: 'string', description: 'what to shout', default: 'hi' } },
    ...(toolModules ? { toolModules } : {}),
    nodes: [
      { type: 'start', id: 'start', connections: { default: 't' } },
      { type: 'tool', id: 't', tool, args: { text }, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['t.result'] },
    ],
  } as unknown as Workflow;
}

/** A folder with the given tool modules and a workflow naming them (each module exports `tools` as written). */
function project(modules: Record<string, string>, tool = 'shout'): string {
  const dir = tempDir('catalog');
  mkdirSync(join(dir, 'tools'));
  for (const [name, source] of Object.entries(modules)) writeFileSync(join(dir, 'tools', name), source);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify(shoutFlow('hi', tool, Object.keys(modules).map((m) => `./tools/${m}`)), null, 2));
  return file;
}

const moduleOf = (...names: string[]) =>
  `export const tools = [${names.map((n) => `{ name: '${n}', class: 'read', inputSchema: { type: 'object' }, run: async () => ({ from: '${n}' }) }`).join(', ')}];\n`;

const Catalog = suite('tools: the catalog of built-ins, host tools and tool modules');

Catalog('createEngine({tools}) takes a plain tool spec as toolModules do: its templated and literal args are checked and it runs', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [shoutSpec() as never] });
  const templated = await engine.start(shoutFlow('{{word}}'));
  assert.equal(templated.status === 'completed' && templated.output, { 't.result': { loud: 'HI' } });
  const literal = await engine.start(shoutFlow('hey'));
  assert.equal(literal.status === 'completed' && literal.output, { 't.result': { loud: 'HEY' } });
  // The spec got defineTool's argument check: a wrong literal is refused before the run starts.
  const code = await engine.start(shoutFlow(5 as never)).then(() => 'started', (e: { code?: string }) => e.code);
  assert.is(code, 'E_WORKFLOW_INVALID');
  const catalog = createToolCatalog([shoutSpec() as never]);
  assert.equal(catalog.get('shout')!.argProblems({}).map((p) => p.missing), ['text']);
});

Catalog('createEngine({tools}) refuses what is not a tool at once, with E_TOOL_DEFINITION naming tools[i], instead of a TypeError at the first call', () => {
  const ok = defineTool(shoutSpec('fine'));
  const notObject = thrownWithCode(() => createEngine({ store: createMemoryStore(), tools: [ok, 42 as never] }), 'E_TOOL_DEFINITION');
  assert.match(notObject.message, /^tools\[1\] is not a tool: /);
  const badClass = thrownWithCode(() => createEngine({ store: createMemoryStore(), tools: [{ ...shoutSpec(), class: 'Write' } as never] }), 'E_TOOL_DEFINITION');
  assert.match(badClass.message, 'tools[0] is not a tool: tool "shout": class "Write" is not one of read, write, destructive');
  assert.ok(badClass.fix);
  const noRun = thrownWithCode(() => createToolCatalog(BUILTIN_TOOLS, [ok, { name: 'half', class: 'read', inputSchema: {} } as never]), 'E_TOOL_DEFINITION');
  assert.match(noRun.message, 'tools[1] is not a tool: tool "half": run is not a function');
});

Catalog('H34 H35: a host tool named like a built-in or like another host tool is E_TOOL_DEFINITION naming tools[i] and what it clashes with', () => {
  const builtin = thrownWithCode(() => createEngine({ store: createMemoryStore(), tools: [defineTool({ ...shoutSpec(), name: 'post_review' })] }), 'E_TOOL_DEFINITION');
  assert.is(builtin.message, 'tools[0] is named "post_review", which is already a built-in tool');
  const twice = thrownWithCode(() => createEngine({ store: createMemoryStore(), tools: [defineTool(shoutSpec()), defineTool(shoutSpec('x')), shoutSpec() as never] }), 'E_TOOL_DEFINITION');
  assert.is(twice.message, 'tools[2] is named "shout", which is already a host tool (tools[0] of createEngine)');
});

async function refusedStart(file: string): Promise<{ e: CountersignError; runs: number }> {
  const store = createMemoryStore();
  const engine = createEngine({ store, allowToolModules: true, tools: [defineTool(shoutSpec('host_tool'))] });
  const e = await rejection(engine.start(file));
  return { e, runs: (await engine.runs()).length };
}

Catalog('H35: a module tool named like a built-in is E_TOOL_DEFINITION naming the module file and /toolModules/<i>; no run starts', async () => {
  const file = project({ 'ok.mjs': moduleOf('shout'), 'mine.mjs': moduleOf('post_review') });
  const { e, runs } = await refusedStart(file);
  assert.is(e.code, 'E_TOOL_DEFINITION');
  const mine = join(file, '..', 'tools', 'mine.mjs');
  assert.is(e.message, `tool module ${mine} (/toolModules/1) defines "post_review", which is already a built-in tool`);
  // file and pointer locate the workflow's entry; the module is named in the message.
  assert.equal([e.file, e.pointer], [file, '/toolModules/1']);
  assert.match(e.fix!, `rename the tool in ${mine}`);
  assert.is(runs, 0);
});

Catalog('H35: a module tool named like a host tool, or like another module\'s tool, names both; a module defining a name twice says so', async () => {
  const host = await refusedStart(project({ 'a.mjs': moduleOf('shout', 'host_tool') }));
  assert.match(host.e.message, /tools\/a\.mjs \(\/toolModules\/0\) defines "host_tool", which is already a host tool/);
  assert.is(host.e.pointer, '/toolModules/0');
  assert.is(host.runs, 0);

  const file = project({ 'a.mjs': moduleOf('shout'), 'b.mjs': moduleOf('shout') });
  const other = await refusedStart(file);
  const [a, b] = ['a.mjs', 'b.mjs'].map((m) => join(file, '..', 'tools', m));
  assert.is(other.e.message, `tool module ${b} (/toolModules/1) defines "shout", which is also defined by tool module ${a} (/toolModules/0)`);
  assert.equal([other.e.file, other.e.pointer, other.runs], [file, '/toolModules/1', 0]);
  assert.match(other.e.message, b);

  const twice = await refusedStart(project({ 'a.mjs': moduleOf('shout', 'shout') }));
  assert.match(twice.e.message, /tools\/a\.mjs \(\/toolModules\/0\) defines "shout" twice$/);
});

Catalog('loadToolModules keeps returning tools, so the engine\'s createToolCatalog(hostTools, modules) call is unchanged; a tool-like object without argProblems is defined anew', async () => {
  // Such an object comes from a module built against an older countersign: it has checkArgs and run, not argProblems.
  const file = project({
    'old.mjs': `export const tools = [{ name: 'shout', class: 'read', inputSchema: ${JSON.stringify(SHOUT_SCHEMA)}, checkArgs: (a) => a, run: async ({ text }) => ({ loud: text + '!' }) }];\n`,
  });
  const tools = await loadToolModules(['./tools/old.mjs'], file, true);
  assert.equal(tools[0].argProblems({ text: 1 }).map((p) => p.pointer), ['/text']);
  const catalog = createToolCatalog([...BUILTIN_TOOLS], tools);
  assert.equal([...catalog.keys()], ['post_review', 'post_docs_review', 'pr_status', 'shout']);
  const s = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file);
  assert.equal(s.status === 'completed' && s.output, { 't.result': { loud: 'hi!' } });
});

Catalog('a module entry that is not a tool is E_TOOL_DEFINITION naming the module file and its /toolModules/<i>', async () => {
  const file = project({ 'ok.mjs': moduleOf('shout'), 'bad.mjs': `export const tools = [{ name: 'bad one', class: 'read', inputSchema: {}, run() {} }];\n` });
  const e = await rejection(loadToolModules(['./tools/ok.mjs', './tools/bad.mjs'], file, true));
  assert.is(e.code, 'E_TOOL_DEFINITION');
  assert.equal([e.file, e.pointer], [file, '/toolModules/1']);
  assert.match(e.message, join(file, '..', 'tools', 'bad.mjs'));
});

Catalog('a plain spec the host edits (its class, its schema) is defined as it now reads in the next catalog: a tool made write is never kept read, out of the review gate', () => {
  const spec: { name: string; class: 'read' | 'write'; inputSchema: { type: string; properties: Record<string, { type: string }> }; run: (a: unknown) => unknown } = {
    name: 'deploy', class: 'read', inputSchema: { type: 'object', properties: { tag: { type: 'integer' } } }, run: (a) => a,
  };
  const first = createToolCatalog([spec]).get('deploy')!;
  assert.is(first.class, 'read');
  assert.is(createToolCatalog([spec]).get('deploy'), first, 'an unchanged spec gives the same tool');
  spec.class = 'write';
  spec.inputSchema.properties.tag = { type: 'string' };
  const second = createToolCatalog([spec]).get('deploy')!;
  assert.is(second.class, 'write');
  assert.equal(second.argProblems({ tag: 'v1' }), []);
  assert.is(second.argProblems({ tag: 1 }).length, 1);
});

Catalog.run();
