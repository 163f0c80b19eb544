/**
 * README's "Agent hosts" section is checked against the product: the host
 * config entries start a server with flags `countersign mcp` accepts, the
 * tool table is the published schemas, and the walkthrough runs as written
 * over MCP on the shipped review-fix-loop, found by name in the default
 * workflow folders.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { COMMANDS } from '../../engine/cli/commands/index.js';
import { TOOLS } from '../../engine/hosts/mcp/schemas.js';
import { cli, LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';
import { connect } from '../fixtures/mcp/client.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of one README section, from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = readme.indexOf(`${heading}\n`);
  assert.ok(start >= 0, `README has "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const rest = readme.slice(start + heading.length + 1);
  const next = new RegExp(`^#{1,${level}} `, 'm').exec(rest);
  return rest.slice(0, next ? next.index : undefined);
}

const hosts = section('## Agent hosts');
const configure = section('### Configure your host');
const walkthrough = section('### Walkthrough: the review→fix loop from an MCP client');

interface ServerEntry {
  type?: string;
  command: string;
  args: string[];
}

/** Every ```json block of the "Configure your host" section, parsed. */
const configBlocks = [...configure.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]) as Record<string, any>);

async function checkMcpFlags(entry: ServerEntry, label: string): Promise<string[]> {
  const at = entry.args.indexOf('mcp');
  assert.ok(at >= 0, `${label}: the args run "mcp"`);
  const flags = entry.args.slice(at + 1);
  const { command } = await COMMANDS.mcp();
  // The CLI parses exactly like this: an unknown flag or a positional would be a usage error.
  parseArgs({ args: flags, options: command.options as ParseArgsConfig['options'], allowPositionals: false, strict: true });
  return flags;
}

const Config = suite('README: Agent hosts configuration');

Config('the Claude Code, Cursor and VS Code entries are valid JSON in each host\'s format and start `countersign mcp` with flags it accepts', async () => {
  assert.ok(configBlocks.length >= 3, 'three host entries');
  const [claude, cursor, vscode] = configBlocks;
  const entries: Array<[string, ServerEntry]> = [
    ['Claude Code', claude.mcpServers.countersign],
    ['Cursor', cursor.mcpServers.countersign],
    ['VS Code', vscode.servers.countersign],
  ];
  assert.is(claude.mcpServers.countersign.type, 'stdio');
  assert.is(vscode.servers.countersign.type, 'stdio');
  for (const [label, entry] of entries) {
    assert.is(entry.command, 'npx', label);
    // Cursor and VS Code may start the server outside the project: --prefix names the project whose countersign runs.
    const npx = label === 'Claude Code' ? ['--no', 'countersign', 'mcp'] : ['--prefix', '${workspaceFolder}', '--no', 'countersign', 'mcp'];
    assert.equal(entry.args.slice(0, npx.length), npx, `${label}: npx --no runs the project's own countersign`);
    const flags = await checkMcpFlags(entry, label);
    if (label !== 'Claude Code') assert.ok(flags.includes('--store') && flags.every((f) => !f.startsWith('./')), `${label}: paths named from \${workspaceFolder}`);
  }
  // `claude mcp add … -- <command>` writes the same entry.
  const add = /`claude mcp add --scope project countersign -- ([^`]+)`/.exec(configure);
  assert.ok(add, 'the claude mcp add line');
  assert.equal(add![1].split(' '), [claude.mcpServers.countersign.command, ...claude.mcpServers.countersign.args]);
});

Config('the in-repository entry runs the launcher from any directory: ${workspaceFolder} paths, its own store and workspace', async () => {
  const relative = /"args": \["(engine\/cli\/countersign\.mjs)", "mcp"\]/.exec(configure);
  assert.ok(relative && existsSync(join(ROOT, relative[1])), 'the relative launcher path names the launcher');
  const entry = configBlocks.find((b) => b.command === 'node') as ServerEntry | undefined;
  assert.ok(entry, 'the in-repository entry');
  await checkMcpFlags(entry!, 'in-repository');
  assert.is(entry!.args[0], '${workspaceFolder}/engine/cli/countersign.mjs');
  // The host fills in ${workspaceFolder}: here the launcher is this checkout's, the store and workspace a temp folder's.
  const folder = tempDir('countersign-readme-folder-');
  const args = entry!.args.map((a) => (a === '${workspaceFolder}/engine/cli/countersign.mjs' ? LAUNCHER : a.replaceAll('${workspaceFolder}', folder)));
  const elsewhere = tempDir('countersign-readme-cwd-');
  const mcp = await connect(args.slice(args.indexOf('mcp') + 1), { cwd: elsewhere });
  try {
    const started = await mcp.call('start', { workflow: 'review-fix-loop' });
    assert.is(started.isError, false, started.text);
    assert.ok(started.structured.pending.requiresIdentity);
    assert.ok(existsSync(join(folder, '.countersign')), 'runs go to ${workspaceFolder}/.countersign, not the server\'s directory');
    assert.not.ok(existsSync(join(elsewhere, '.countersign')));
  } finally {
    await mcp.close();
  }
});

Config('the Cursor and VS Code entries start the project\'s countersign from another directory, offline, and find the project\'s workflows by name', async () => {
  const [, cursor] = configBlocks;
  const entry = cursor.mcpServers.countersign as ServerEntry;
  // A project with countersign installed the way npm installs (or `npm link countersign` links) it.
  const folder = tempDir('countersign-readme-project-');
  mkdirSync(join(folder, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(folder, 'node_modules', 'countersign'), 'dir');
  symlinkSync('../countersign/engine/cli/countersign.mjs', join(folder, 'node_modules', '.bin', 'countersign'));
  writeFileSync(join(folder, 'package.json'), '{"name": "readme-project", "private": true}\n');
  mkdirSync(join(folder, 'workflows'));
  const own = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8'));
  writeFileSync(join(folder, 'workflows', 'my-flow.json'), JSON.stringify({ ...own, metadata: { ...own.metadata, name: 'my-flow' } }));
  const elsewhere = tempDir('countersign-readme-elsewhere-');
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args.map((a) => a.replaceAll('${workspaceFolder}', folder)),
    cwd: elsewhere,
    // Offline: npx must find the project's copy and never ask the registry.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_offline: 'true' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'countersign-spec', version: '1.0.0' });
  await client.connect(transport);
  try {
    const started = (await client.callTool({ name: 'start', arguments: { workflow: 'my-flow' } })) as { isError?: boolean; structuredContent?: any };
    assert.is(started.isError, false, JSON.stringify(started));
    assert.is(started.structuredContent.status, 'waiting');
    assert.ok(existsSync(join(folder, '.countersign')), 'runs go to ${workspaceFolder}/.countersign');
  } finally {
    await client.close();
  }
});

Config.run();

const Table = suite('README: Agent hosts tool table');

Table('the tool table lists every published tool with exactly its inputs, optional ones marked "?"', () => {
  const rows = [...hosts.matchAll(/^\| `(\w+)` \| `\{([^}]*)\}` \|/gm)].map((m) => ({ name: m[1], inputs: m[2].split(',').map((s) => s.trim()).filter(Boolean) }));
  assert.equal(rows.map((r) => r.name).sort(), TOOLS.map((t) => t.name).sort());
  for (const row of rows) {
    const tool = TOOLS.find((t) => t.name === row.name)!;
    const required = tool.inputSchema.required ?? [];
    const published = Object.keys(tool.inputSchema.properties).map((p) => (required.includes(p) ? p : `${p}?`));
    assert.equal([...row.inputs].sort(), published.sort(), row.name);
  }
});

Table('the reviewer subagent may call the status and step tools by their Claude Code names', () => {
  const tools = /tools: (.+)/.exec(walkthrough)![1].split(',').map((t) => t.trim()).filter((t) => t.startsWith('mcp__'));
  assert.equal(tools, ['mcp__countersign__status', 'mcp__countersign__step']);
  for (const t of tools) assert.ok(TOOLS.some((d) => `mcp__countersign__${d.name}` === t), t);
});

Table.run();

const Walkthrough = suite('README: Agent hosts walkthrough');

Walkthrough('seed 003 G1 G4 G7 G8: the walkthrough runs as written over MCP on the shipped review-fix-loop, started by name: 2 findings, a fix, 0, and trace shows review review: 2 → 0', async () => {
  const project = tempDir('countersign-walkthrough-');
  mkdirSync(join(project, 'lib'));
  writeFileSync(join(project, 'lib/math.mjs'), 'export function add(a, b) {\n  return a + b;\n}\n\nexport function multiply(a, b) {\n  return a * b;\n}\n');
  const store = join(project, '.countersign');
  // The default folders: the project has no workflows/ folder, so only the shipped workflows are searched.
  const mcp = await connect([], { cwd: project });
  try {
    const listed = (await mcp.call('list_workflows')).structured.workflows as Array<{ name: string; path: string }>;
    assert.ok(listed.every((w) => w.path.startsWith(join(ROOT, 'workflows'))), 'only the shipped workflows: no fixture shadows a shipped name');
    assert.is(listed.find((w) => w.name === 'review-fix-loop')!.path, join(ROOT, 'workflows/review-fix-loop.json'));

    // 1. start, exactly as the README writes the call.
    const startArgs = JSON.parse(/1\. \*\*`start`\*\* `(\{[^`]+\})`/.exec(walkthrough)![1]);
    assert.equal(startArgs, { workflow: 'review-fix-loop', input: { artifact_path: 'docs/api.md', context_path: 'lib' } });
    const started = await mcp.call('start', startArgs);
    assert.is(started.isError, false, started.text);
    const { runId } = started.structured;
    assert.is(started.structured.pending.nodeId, 'produce');
    assert.is(started.structured.seq, 1);
    assert.match(started.text, /IDENTITY REQUIRED/);

    // 2. The producer writes docs/api.md and steps as README's call says.
    const produce = (seq: number) => JSON.parse(/calls \*\*`step`\*\*\n\s+`(\{[^`]+\})`/.exec(walkthrough)![1].replace('"…"', JSON.stringify(runId)).replace('"seq": 1', `"seq": ${seq}`));
    assert.is((await mcp.call('step', { runId, seq: 1, answer: {} })).structured.error.code, 'E_IDENTITY_REQUIRED', 'without as: E_IDENTITY_REQUIRED');
    mkdirSync(join(project, 'docs'));
    writeFileSync(join(project, 'docs/api.md'), '# API\n\n## add(a, b)\n\nReturns a + b.\n\n## multiply\n\nTODO\n');
    const review = await mcp.call('step', produce(1));
    assert.is(review.isError, false, review.text);
    assert.is(review.structured.pending.kind, 'review');
    const reportPath = /report file\n\s+\(`([^`]+)`\)/.exec(walkthrough)![1].replace('<runId>', runId);
    assert.is(review.structured.pending.report, join(project, reportPath), 'the report file is where the README says');
    assert.ok(review.text.includes(review.structured.pending.prompt) && review.text.includes(reportPath));
    assert.match(review.text, /another identity/);

    // The independence rules as README lists them: the producer's answer to the review is E_SELF_REVIEW and costs no attempt.
    writeFileSync(review.structured.pending.report, JSON.stringify({ issues: [] }));
    const self = await mcp.call('step', { runId, seq: 2, as: 'producer', answer: { issues_count: 0 } });
    assert.is(self.structured.rejected.code, 'E_SELF_REVIEW');
    assert.is(self.structured.pending.attempt, 1);
    assert.is(self.structured.seq, 2, 'the item stays issued under its seq');

    // 3. The reviewer, as "reviewer", writes two findings and answers the count.
    const reviewer = (seq: number, n: number) => ({ runId, seq, as: 'reviewer', answer: { issues_count: n } });
    writeFileSync(review.structured.pending.report, JSON.stringify({ issues: ['multiply is documented without its signature multiply(a, b)', 'the multiply section holds placeholder text'] }));
    const fix = await mcp.call('step', reviewer(2, 2));
    assert.is(fix.isError, false, fix.text);
    assert.is(fix.structured.pending.nodeId, 'fix');

    // 4. The producer fixes the same file; the same review comes round again (iteration 2).
    writeFileSync(join(project, 'docs/api.md'), '# API\n\n## add(a, b)\n\nReturns a + b.\n\n## multiply(a, b)\n\nReturns a × b.\n');
    const again = await mcp.call('step', produce(3));
    assert.is(again.structured.pending.kind, 'review');
    assert.is(again.structured.pending.iteration, 2);

    // 5. Zero findings: the run completes and the text gives the output.
    writeFileSync(again.structured.pending.report, JSON.stringify({ issues: [] }));
    const done = await mcp.call('step', reviewer(4, 0));
    assert.is(done.structured.status, 'completed', done.text);
    assert.equal(Object.keys(done.structured.output).sort(), ['artifact_path', 'issues_count', 'review.report']);
    assert.is(done.structured.output.issues_count, 0);
    assert.match(done.text, /OUTPUT/);

    // From a terminal, on the same store: status and trace see the run; trace ends with the convergence line.
    const status = await cli(['status', runId, '--json'], { store });
    assert.is(status.json.status, 'completed');
    const trace = await cli(['trace', runId], { store });
    assert.is(trace.code, 0, trace.stderr);
    assert.ok(walkthrough.includes('`review review: 2 → 0`'), 'README names the convergence line');
    assert.match(trace.stdout, /review review: 2 → 0/);
  } finally {
    await mcp.close();
  }
});

Walkthrough.run();
