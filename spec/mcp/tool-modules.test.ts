/**
 * `countersign mcp` and a workflow's `toolModules` (issue 5): loading a
 * module runs its code, so the server refuses such a workflow by default
 * (E_TOOL_MODULE_BLOCKED) and loads it only when started with
 * --allow-tool-modules. The module here writes a marker file as it is
 * imported, so "refused" can be checked as "its code never ran".
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnCli, tempDir } from '../helpers/cli.js';
import { connect, withRawSession } from '../fixtures/mcp/client.js';
import { shoutProject } from '../fixtures/shout-module.js';

function project(): { dir: string; workflow: string; marker: string } {
  const marker = join(tempDir('countersign-mcp-marker-'), 'module-ran.txt');
  const { dir, file } = shoutProject('countersign-mcp-modules-', `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(marker)}, 'imported\\n');\n`);
  return { dir, workflow: file, marker };
}

const Modules = suite('mcp: a workflow\'s toolModules');

Modules('by default the server refuses a workflow naming toolModules with E_TOOL_MODULE_BLOCKED: no run is stored and the module\'s code never ran', async () => {
  const p = project();
  const mcp = await connect(['--store', join(p.dir, 'store')], { cwd: p.dir });
  try {
    const started = await mcp.call('start', { workflow: p.workflow });
    assert.is(started.isError, true, started.text);
    assert.is(started.structured.error.code, 'E_TOOL_MODULE_BLOCKED');
    assert.match(started.structured.error.message, 'shout.mjs');
    assert.ok(started.text.includes('E_TOOL_MODULE_BLOCKED'), 'the text names the code');
    // No call can give a server start flag: the fix says whose it is, and nothing tells the model to retry the call.
    assert.match(started.structured.error.fix, 'this server was started without --allow-tool-modules, and no tool call can change that');
    assert.not.match(started.text, 'correct the call and try again');
    const validated = await mcp.call('validate', { workflow: p.workflow });
    assert.is(validated.isError, false, validated.text);
    assert.equal((await mcp.call('runs', {})).structured.runs, []);
  } finally {
    await mcp.close();
  }
  assert.not.ok(existsSync(p.marker), 'the module was never imported, by start or by validate');
});

Modules('with --allow-tool-modules the server loads the module, relative to the workflow file, and the tool node runs it', async () => {
  const p = project();
  const elsewhere = tempDir('countersign-mcp-modules-cwd-');
  const mcp = await connect(['--store', join(p.dir, 'store'), '--allow-tool-modules'], { cwd: elsewhere });
  try {
    const started = await mcp.call('start', { workflow: p.workflow });
    assert.is(started.isError, false, started.text);
    assert.equal([started.structured.status, started.structured.output], ['completed', { 'shout.result': { loud: 'HI' } }]);
  } finally {
    await mcp.close();
  }
  assert.is(readFileSync(p.marker, 'utf8'), 'imported\n');
});

Modules('a tool module that prints to stdout (console.log while debugging) never corrupts the MCP frames or a --json document: its output goes to stderr', async () => {
  const preamble = "console.log('debug: module loaded');\n";
  const { dir, file } = shoutProject('countersign-mcp-chatty-', preamble);
  await withRawSession(['--store', join(dir, 'store'), '--allow-tool-modules'], async (raw) => {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: file } } });
    const reply = await raw.reply(1);
    assert.is(reply.result.isError, false, JSON.stringify(reply));
    assert.equal(raw.strayLines(), [], 'stdout carries only MCP frames');
    assert.match(raw.stderr(), 'debug: module loaded');
  });
  // The real launcher in its own process: stdout as a user's pipe sees it.
  const r = spawnCli(['run', file, '--allow-tool-modules', '--json', '--store', join(dir, 'cli-store')]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).output, { 'shout.result': { loud: 'HI' } }, 'stdout is exactly one JSON document');
  assert.match(r.stderr, 'debug: module loaded');
});

Modules('a tool module whose child process shares stdout (stdio: inherit, fork) or that writes to file descriptor 1 never corrupts a --json document or the MCP frames: that output goes to stderr', async () => {
  const preamble = [
    "import { execSync, spawnSync, fork } from 'node:child_process';",
    "import { writeSync, writeFileSync } from 'node:fs';",
    "import { tmpdir } from 'node:os';",
    "import { join } from 'node:path';",
    "execSync('echo child-noise', { stdio: 'inherit' });",
    "spawnSync('echo', ['spawned-noise'], { stdio: ['ignore', 'inherit', 'inherit'] });",
    "writeSync(1, 'fd1-noise\\n');",
    "const child = join(tmpdir(), `countersign-fork-${process.pid}.cjs`);",
    "writeFileSync(child, 'console.log(\"forked-noise\")');",
    "await new Promise((done) => fork(child).on('exit', done));",
    "writeFileSync('/dev/stdout', 'devstdout-noise\\n');",
    "writeFileSync(1, 'fd1file-noise\\n');",
    "import('node:fs').then((fs) => fs.writevSync(1, [Buffer.from('writev-noise\\n')]));",
    "writeFileSync(new URL('file:///dev/stdout'), 'url-noise\\n');",
    "writeFileSync('/dev/./stdout', 'dotpath-noise\\n');",
    '',
  ].join('\n');
  const { dir, file } = shoutProject('countersign-fd1-', preamble);
  const noises = ['child-noise', 'spawned-noise', 'fd1-noise', 'forked-noise', 'devstdout-noise', 'fd1file-noise', 'writev-noise', 'url-noise', 'dotpath-noise'];
  for (const args of [['run', file, '--json', '--store', join(dir, 'cli-store')], ['start', file, '--json', '--store', join(dir, 'cli-store')], ['validate', file, '--json']]) {
    const r = spawnCli([...args, '--allow-tool-modules']);
    assert.is(r.code, 0, r.stderr);
    JSON.parse(r.stdout); // exactly one JSON document
    for (const noise of noises) assert.match(r.stderr, noise, `${args[0]}: ${noise}`);
  }
  // Into a file (stdout written through fs there): still only the document.
  const out = join(dir, 'out.json');
  const r = spawnCli(['run', file, '--allow-tool-modules', '--json', '--store', join(dir, 'file-store')], { stdoutFile: out });
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).output, { 'shout.result': { loud: 'HI' } });
  await withRawSession(['--store', join(dir, 'store'), '--allow-tool-modules'], async (raw) => {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start', arguments: { workflow: file } } });
    const reply = await raw.reply(1);
    assert.is(reply.result.isError, false, JSON.stringify(reply));
    assert.equal(raw.strayLines(), [], 'stdout carries only MCP frames');
  });
});

Modules('with --allow-tool-modules, MCP validate checks the module tools as start will (literal args against the module tool\'s schema), as validate --allow-tool-modules does', async () => {
  const p = project();
  const bad = join(p.dir, 'bad.json');
  const wf = JSON.parse(readFileSync(p.workflow, 'utf8'));
  wf.nodes[1].args = { text: 7 };
  writeFileSync(bad, JSON.stringify(wf, null, 2));
  const mcp = await connect(['--store', join(p.dir, 'store'), '--allow-tool-modules'], { cwd: p.dir });
  try {
    const v = await mcp.call('validate', { workflow: bad });
    const [file] = v.structured.files;
    assert.is(file.ok, false, v.text);
    assert.equal(file.errors.map((e: { code: string; pointer: string }) => [e.code, e.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/text']]);
  } finally {
    await mcp.close();
  }
});

Modules('a start without a required input tells an MCP client to use start\'s "input" argument, not a CLI flag', async () => {
  const p = project();
  const req = join(p.dir, 'req.json');
  writeFileSync(req, JSON.stringify({
    metadata: { name: 'req', version: '1.0.0', description: 'required input' },
    variableRegistry: { pr_number: { type: 'integer', minimum: 1, description: 'the PR' } },
    requiredInputs: ['pr_number'],
    nodes: [{ type: 'start', id: 'start', connections: { default: 'done' } }, { type: 'end', id: 'done' }],
  }));
  const mcp = await connect(['--store', join(p.dir, 'store')], { cwd: p.dir });
  try {
    const started = await mcp.call('start', { workflow: req });
    assert.is(started.structured.error.code, 'E_INPUT');
    assert.match(started.structured.error.fix, `the start tool's "input" argument: {"pr_number": <integer ≥ 1>}`);
    assert.not.match(started.structured.error.fix, '--input');
  } finally {
    await mcp.close();
  }
});

Modules.run();
