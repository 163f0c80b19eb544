/**
 * A run keeps the workflow copy it stored when it started, toolModules
 * included. When one of those modules cannot be loaded any more, the error
 * says the path comes from that stored copy (never the file as it reads
 * now, which may be correct), and its fix is true for this run: put the
 * module back, or start a new run (r84 a2).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { shoutProject } from '../fixtures/shout-module.js';

const Stored = suite('tool modules of a run\'s stored workflow');

/** The shout project with a directive `ask` before the tool node, so a started run waits for an answer. */
function askThenShout(prefix: string) {
  const { dir, file } = shoutProject(prefix);
  const flow = JSON.parse(readFileSync(file, 'utf8'));
  flow.nodes[0].connections = { default: 'ask' };
  flow.nodes.splice(1, 0, { type: 'agent-directive', id: 'ask', directive: 'Say text', completionCondition: 'done', inputSchema: { type: 'object', properties: { t: { type: 'string' } }, required: ['t'] }, connections: { success: 'shout' } });
  flow.nodes[2].args = { text: '{{ask.t}}' };
  writeFileSync(file, JSON.stringify(flow, null, 2));
  return { dir, file, flow, store: join(dir, 'store') };
}

Stored('a module the stored copy names, since removed while the file now names another: E_TOOL_MODULE names the stored copy and the missing module, no file or pointer on disk, and a fix to restore it or start a new run', async () => {
  const { dir, file, flow, store } = askThenShout('countersign-stored-module-');
  const started = await cli(['start', file, '--allow-tool-modules', '--json'], { store });
  assert.is(started.code, 0, started.stderr);
  const runId = started.json.runId as string;
  // The file is edited to a module that exists (and validates); the one the run started with is deleted.
  const shout = join(dir, 'tools', 'shout.mjs');
  const shoutSource = readFileSync(shout, 'utf8');
  writeFileSync(join(dir, 'tools', 'loud.mjs'), shoutSource.replace("name: 'shout'", "name: 'loud'"));
  writeFileSync(file, JSON.stringify({ ...flow, toolModules: ['./tools/loud.mjs'], nodes: flow.nodes.map((n: { id: string }) => n.id === 'shout' ? { ...n, tool: 'loud' } : n) }, null, 2));
  rmSync(shout);
  const valid = await cli(['validate', file, '--allow-tool-modules']);
  assert.is(valid.code, 0, valid.stdout);
  const script = join(dir, 'answers.yaml');
  writeFileSync(script, 'ask:\n  - {"t": "x"}\n');
  for (const args of [['step', runId, '--response', '{"t":"x"}'], ['run', '--resume', runId, '--agent', `scripted:${script}`]]) {
    const r = await cli([...args, '--allow-tool-modules', '--json'], { store });
    const error = r.json.error;
    assert.is(r.code, 2, `${args[0]}: ${r.stderr}`);
    assert.is(error.code, 'E_TOOL_MODULE', args[0]);
    assert.match(error.message, `run ${runId}'s stored workflow (started from ${file})`, args[0]);
    assert.match(error.message, '"./tools/shout.mjs"', args[0]);
    assert.match(error.message, `${shout} does not exist`, args[0]);
    // Neither the file (whose /toolModules/0 is loud.mjs) nor a pointer into a copy the user cannot open.
    assert.is(error.file, undefined, args[0]);
    assert.is(error.pointer, undefined, args[0]);
    assert.match(error.fix, `restore ${shout}`, args[0]);
    assert.match(error.fix, 'start a new run', args[0]);
    assert.not.match(error.fix, 'check the path', args[0]);
    assert.not.match(r.stderr, `E_TOOL_MODULE: ${file}:`, args[0]);
  }
  // The fix is true: with the module restored, the same answer is taken and the run completes.
  writeFileSync(shout, shoutSource);
  const restored = await cli(['step', runId, '--response', '{"t":"x"}', '--allow-tool-modules', '--json'], { store });
  assert.is(restored.code, 0, restored.stderr);
  assert.equal(restored.json.output, { 'shout.result': { loud: 'X' } });
});

Stored('E_TOOL_MODULE_BLOCKED for a stored run carries no pointer without a file: the modules are named in the message, and no file on disk is pointed into', async () => {
  const { file, store } = askThenShout('countersign-stored-blocked-');
  const started = await cli(['start', file, '--allow-tool-modules', '--json'], { store });
  const runId = started.json.runId as string;
  const r = await cli(['step', runId, '--response', '{"t":"hi"}', '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_TOOL_MODULE_BLOCKED');
  assert.match(r.json.error.message, `run ${runId}'s stored workflow (started from ${file}) names tool modules (./tools/shout.mjs)`);
  assert.is(r.json.error.file, undefined);
  assert.is(r.json.error.pointer, undefined);
});

Stored.run();
