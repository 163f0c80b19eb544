/** `countersign mcp`: the published tools, their input schemas, and finding workflows by path or by name. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, ROOT, tempDir } from '../helpers/cli.js';
import { connect, MCP_WORKFLOWS, withRawSession, type McpSession } from '../fixtures/mcp/client.js';

const Tools = suite<{ mcp: McpSession; store: string }>('mcp: tools and workflows');

Tools.before(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-tools-');
  ctx.mcp = await connect(['--store', ctx.store, '--workflows', MCP_WORKFLOWS]);
});
Tools.after(async (ctx) => {
  await ctx.mcp?.close();
});

Tools('tools/list publishes the seven tools, each with a closed draft-07 input schema that describes every field', async ({ mcp }) => {
  const { tools } = await mcp.client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), ['list_workflows', 'runs', 'start', 'status', 'step', 'trace', 'validate']);
  for (const t of tools) {
    const schema = t.inputSchema as { type: string; additionalProperties?: boolean; properties?: Record<string, { description?: string }> };
    assert.ok(t.description && t.description.length > 20, `${t.name} has a description`);
    assert.is(schema.type, 'object', t.name);
    assert.is(schema.additionalProperties, false, `${t.name} rejects unknown arguments`);
    for (const [field, prop] of Object.entries(schema.properties ?? {})) assert.ok(prop.description, `${t.name}.${field} has a description`);
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema as { required?: string[]; properties: Record<string, { type?: string; enum?: string[] }> }]));
  assert.equal(byName.step.required, ['runId', 'answer']);
  assert.equal(Object.keys(byName.step.properties).sort(), ['answer', 'as', 'runId', 'seq']);
  assert.is(byName.step.properties.answer.type, 'object');
  assert.is(byName.step.properties.seq.type, 'integer');
  assert.equal(byName.start.required, ['workflow']);
  assert.equal(Object.keys(byName.start.properties).sort(), ['as', 'input', 'workflow', 'workspace']);
  assert.equal(byName.runs.properties.status.enum, ['waiting', 'completed', 'failed']);
  assert.equal(byName.list_workflows.properties, {});
  for (const name of ['status', 'trace']) assert.equal(byName[name].required, ['runId']);
});

Tools('tools/list annotations tell hosts the truth: step is not idempotent (seq is optional), status is not destructive, start/step/status are open-world (tool nodes), the listing tools are read-only', async ({ mcp }) => {
  const { tools } = await mcp.client.listTools();
  const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations ?? {}]));
  assert.is(hints.step.idempotentHint, false);
  assert.is(hints.step.destructiveHint, false);
  assert.match(tools.find((t) => t.name === 'step')!.description!, /Always pass the seq/);
  assert.is(hints.status.readOnlyHint, false, 'status may fire an overdue deadline');
  assert.is(hints.status.destructiveHint, false, 'destructiveHint defaults to true when readOnlyHint is false: it must be said');
  assert.is(hints.start.destructiveHint, false);
  for (const name of ['list_workflows', 'validate', 'runs', 'trace']) {
    assert.is(hints[name].readOnlyHint, true, name);
    assert.is(hints[name].openWorldHint, false, name);
  }
  // They run the tool nodes a run reaches, and a tool may act outside (post_review posts to GitHub).
  for (const name of ['start', 'step', 'status']) assert.is(hints[name].openWorldHint, true, name);
});

Tools('list_workflows lists the --workflows folder first, then the shipped workflows, with name, path, description and version', async ({ mcp }) => {
  const r = await mcp.call('list_workflows');
  assert.is(r.isError, false);
  const list = r.structured.workflows as Array<{ name: string; path: string; description: string; version: string }>;
  const names = list.map((w) => w.name);
  assert.equal(names.slice(0, 3), ['hello-world', 'notes-review', 'review-fix-loop']);
  assert.ok(names.includes('development-flow') && names.includes('bugfix'), 'the shipped workflows are listed too');
  const local = list[2];
  assert.equal(local, { name: 'review-fix-loop', path: join(MCP_WORKFLOWS, 'review-fix-loop.json'), version: '9.9.9', description: local.description });
  assert.match(local.description, /comes first/);
  assert.ok(list.some((w) => w.path === join(ROOT, 'workflows/review-fix-loop.json')), 'the shadowed shipped file is still listed by path');
  assert.match(r.text, /hello-world 0\.3\.0/);
});

Tools('a workflow is found by metadata.name, by file stem, and by path relative to the server; a name in two folders resolves to the first', async ({ mcp }) => {
  const byMeta = await mcp.call('start', { workflow: 'hello-world' });
  assert.is(byMeta.isError, false, byMeta.text);
  assert.is(byMeta.structured.pending.nodeId, 'greet');
  const byStem = await mcp.call('start', { workflow: 'notes-review', workspace: tempDir('countersign-mcp-ws-') });
  assert.is(byStem.structured.pending.nodeId, 'write');
  const byPath = await mcp.call('start', { workflow: 'spec/fixtures/cli/two-step.json' });
  assert.is(byPath.structured.pending.nodeId, 'write');
  const shadowed = await mcp.call('start', { workflow: 'review-fix-loop' });
  assert.is(shadowed.structured.pending.nodeId, 'ask', 'the --workflows copy wins over the shipped review-fix-loop');
  const shipped = await mcp.call('validate', { workflow: 'development-flow' });
  assert.is(shipped.structured.files[0].file, join(ROOT, 'workflows/development-flow.json'));
});

Tools('an unknown workflow is E_FILE_NOT_FOUND whose fix lists the known names', async ({ mcp }) => {
  const r = await mcp.call('start', { workflow: 'no-such-flow' });
  assert.is(r.isError, true);
  assert.is(r.structured.error.code, 'E_FILE_NOT_FOUND');
  assert.match(r.structured.error.fix, /hello-world, notes-review, review-fix-loop, bugfix, development-flow/);
  assert.match(r.text, /E_FILE_NOT_FOUND/);
});

Tools('validate of a misspelt workflow name (no folder, no extension) is a finding whose fix lists the known names, as start\'s error does', async ({ mcp }) => {
  const r = await mcp.call('validate', { workflow: 'bugfx' });
  assert.is(r.isError, false, 'a finding, not a tool error');
  const [finding] = r.structured.files[0].errors;
  assert.is(finding.code, 'E_FILE_NOT_FOUND');
  assert.match(finding.message, 'no workflow file or workflow name "bugfx"');
  assert.match(finding.message, /name one of: [^;]*\bbugfix\b/);
});

Tools('validate returns exactly what `countersign validate --json` prints for the same argument, run in the server\'s directory', async ({ mcp, store }) => {
  const files = ['spec/fixtures/bad/mixed-problems.json', 'spec/fixtures/bad/warnings-only.yaml', 'spec/fixtures/cli/two-step.json', './spec/fixtures/cli/two-step.json', join(ROOT, 'spec/fixtures/cli/two-step.json')];
  for (const file of files) {
    const r = await mcp.call('validate', { workflow: file });
    assert.is(r.isError, false, 'findings are a result, not a tool error');
    // The server runs in ROOT: the CLI gets the very same argument in the same directory.
    const expected = await cli(['validate', file, '--json'], { store, cwd: ROOT });
    assert.equal(r.structured, expected.json, file);
    assert.is(r.structured.files[0].file, file, 'the path as given');
  }
  const bad = await mcp.call('validate', { workflow: 'spec/fixtures/bad/no-end.json' });
  assert.is(bad.structured.files[0].ok, false);
  assert.match(bad.text, /INVALID[\s\S]*E_NO_END/);
});

Tools('start refuses a workspace that does not exist, and an invalid workflow, with a code and a fix', async ({ mcp }) => {
  const ws = await mcp.call('start', { workflow: 'hello-world', workspace: '/no/such/dir' });
  assert.is(ws.isError, true);
  assert.is(ws.structured.error.code, 'E_INPUT');
  assert.ok(ws.structured.error.fix);
  const invalid = await mcp.call('start', { workflow: 'spec/fixtures/bad/no-end.json' });
  assert.is(invalid.structured.error.code, 'E_WORKFLOW_INVALID');
  assert.ok(invalid.structured.error.details.errors.length > 0, 'the validation report comes along');
  assert.is(invalid.structured.error.fix, 'call the `validate` tool to see every finding', 'the hint names the tool, not `countersign validate`');
  const { pointer, line, col, file } = invalid.structured.error;
  assert.equal([typeof pointer, typeof line, typeof col], ['string', 'number', 'number'], 'the first finding\'s location as fields');
  assert.match(invalid.text, `Error E_WORKFLOW_INVALID: ${file}:${line}:${col}: `);
  const input = await mcp.call('start', { workflow: 'hello-world', input: 'not an object' });
  assert.is(input.structured.error.code, 'E_INPUT');
});

Tools('a workflow is found by its file name with the extension, so two files that differ only in their extension are both reachable (review-fix-loop.json, bugfix.yaml)', async () => {
  const dir = tempDir('countersign-mcp-twins-');
  const twin = (ext: string, version: string) =>
    JSON.stringify({ metadata: { name: 'twin', version, description: ext }, nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e' }] });
  writeFileSync(join(dir, 'twin.json'), twin('json', '1.0.0'));
  writeFileSync(join(dir, 'twin.yaml'), twin('yaml', '2.0.0'));
  copyFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), join(dir, 'review-fix-loop.json'));
  const mcp = await connect(['--store', tempDir('countersign-mcp-twins-store-'), '--workflows', dir], { cwd: tempDir('countersign-mcp-twins-cwd-') });
  try {
    const list = await mcp.call('list_workflows');
    assert.match(list.text, /twin 2\.0\.0 — .*twin\.yaml \(its name starts another file: start this one with "twin\.yaml"\)/);
    // The folder's review-fix-loop.json (a two-step workflow) takes the shipped file's stem and file name.
    assert.match(list.text, /review-fix-loop 2\.0\.0 — .*workflows\/review-fix-loop\.json \(its name and file name start another file: start this one by its path\)/);
    assert.match(list.text, /- bugfix 1\.1\.0 — \S+\n/, 'an entry its name reaches gets no note');
    const paths = (await Promise.all(['twin', 'twin.json', 'twin.yaml', 'bugfix.yaml', 'review-fix-loop.json'].map((w) => mcp.call('validate', { workflow: w })))).map((r) =>
      r.isError ? r.text : r.structured.files[0].file,
    );
    assert.equal(paths, [join(dir, 'twin.json'), join(dir, 'twin.json'), join(dir, 'twin.yaml'), join(ROOT, 'workflows/bugfix.yaml'), join(dir, 'review-fix-loop.json')]);
    const started = await mcp.call('start', { workflow: 'twin.yaml' });
    assert.is(started.structured.status, 'completed', started.text);
    // Every listed entry can be started by the path list_workflows gives, whatever the server's directory.
    const shipped = list.structured.workflows.find((w: { path: string }) => w.path === join(ROOT, 'workflows/review-fix-loop.json'));
    assert.is((await mcp.call('validate', { workflow: shipped.path })).structured.files[0].ok, true);
  } finally {
    await mcp.close();
  }
});

Tools('stdout carries only MCP frames: the startup log goes to stderr', async ({ mcp }) => {
  const r = await mcp.call('runs');
  assert.is(r.isError, false);
  assert.match(mcp.stderr(), /countersign mcp .*serving on stdio/);
  // Read raw: every stdout line of a session, start to end, must be a JSON-RPC frame.
  await withRawSession(['--store', tempDir('countersign-mcp-frames-')], async (raw) => {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'runs', arguments: {} } });
    await raw.reply(1);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_workflows', arguments: {} } });
    await raw.reply(2);
    await raw.close();
    assert.equal(raw.strayLines(), []);
  });
});

Tools.run();

const Texts = suite<{ mcp: McpSession; store: string }>('mcp: texts of every kind of pending item');
Texts.before.each(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-texts-');
  ctx.mcp = await connect(['--store', ctx.store]);
});
Texts.after.each(async (ctx) => {
  await ctx.mcp?.close();
});

Texts('a decision review names the workspace, the prompt and the reply to give', async ({ mcp }) => {
  const persona = { name: 'reviewer', model: 'm', max_turns: 5, tools: [], body: 'Review it.' };
  const proposal = { action: 'host_restart_service', target: { device_id: 7 }, reason: 'r', blast_radius: 'cluster', operator: 'u', context_summary: 's' };
  const r = await mcp.call('start', { workflow: 'ongrid-review-gate', input: { tool_class: 'write', persona, proposal } });
  assert.is(r.isError, false, r.text);
  assert.match(r.text, /DECISION REVIEW/);
  assert.match(r.text, /WORKSPACE: /);
  assert.match(r.text, /Blast radius: cluster/);
  assert.match(r.text, /"answer": \{"reply": /);
});

Texts.run();

const Persona = suite<{ mcp: McpSession; store: string }>('mcp: validate of a persona file');
Persona.before.each(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-persona-');
  ctx.mcp = await connect(['--store', ctx.store]);
});
Persona.after.each(async (ctx) => {
  await ctx.mcp?.close();
});

Persona('validate of a .md file checks it as a persona, with the same JSON as `countersign validate --json`', async ({ mcp }) => {
  const file = join(ROOT, 'agents/reviewer.md');
  const over = await mcp.call('validate', { workflow: file });
  const cliOut = await cli(['validate', file, '--json']);
  assert.equal(over.structured, cliOut.json);
  assert.is(over.structured.files[0].ok, true);
});

Persona.run();

const Missing = suite<{ mcp: McpSession; store: string }>('mcp: validate of a file that is not there');
Missing.before.each(async (ctx) => {
  ctx.store = tempDir('countersign-mcp-missing-');
  ctx.mcp = await connect(['--store', ctx.store]);
});
Missing.after.each(async (ctx) => {
  await ctx.mcp?.close();
});

Missing('validate of a missing file returns the same findings as `countersign validate --json` (E_FILE_NOT_FOUND, ok false), not a tool error', async ({ mcp }) => {
  const path = join(tempDir('countersign-mcp-nofile-'), 'nope.json');
  const over = await mcp.call('validate', { workflow: path });
  assert.is(over.isError, false);
  const cliOut = await cli(['validate', path, '--json']);
  assert.equal(over.structured, cliOut.json);
  assert.is(over.structured.files[0].errors[0].code, 'E_FILE_NOT_FOUND');
});

Missing.run();
