/**
 * `run --resume` as a user meets it after a stop: the fix for a missing
 * --agent carries --allow-tool-modules when the run's workflow names tool
 * modules (r82 a4), and a run that has ended is reported as it stands even
 * when its workspace is gone (r82 a5), or when its workflow names tool
 * modules and the command was not allowed to load them (r84 a2).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, tempDir } from '../helpers/cli.js';

const Resume = suite('run --resume: hints and ended runs');

const twoAsks = {
  metadata: { name: 'two', version: '1.0.0', description: 'two directives' },
  nodes: [
    { type: 'start', id: 'start', connections: { default: 'one' } },
    { type: 'agent-directive', id: 'one', directive: 'One.', completionCondition: 'ok', connections: { success: 'two' } },
    { type: 'agent-directive', id: 'two', directive: 'Two.', completionCondition: 'ok', connections: { success: 'done' } },
    { type: 'end', id: 'done' },
  ],
};

Resume('r82 a4: run --resume without --agent on a run whose workflow names toolModules: the fix carries --allow-tool-modules, so run as printed it is not refused', async () => {
  const dir = tempDir('countersign-resume-hint-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'noop.mjs'), 'export const tools = [{ name: "noop", class: "read", inputSchema: { type: "object" }, run: async () => ({}) }];\n');
  writeFileSync(join(dir, 'wf.json'), JSON.stringify({ ...twoAsks, toolModules: ['./tools/noop.mjs'] }));
  const store = join(dir, 'store');
  const started = await cli(['start', 'wf.json', '--allow-tool-modules', '--json'], { store, cwd: dir });
  assert.is(started.code, 0, started.stderr);
  const r = await cli(['run', '--resume', started.json.runId, '--json'], { store, cwd: dir });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_USAGE');
  assert.match(r.json.error.fix, `countersign run --resume ${started.json.runId} --allow-tool-modules --agent <adapter>`);
});

Resume('r82 a5: run --resume of a run that has completed reports it (exit 0) even when its workspace is gone; a waiting run still needs it (E_FILE_NOT_FOUND)', async () => {
  const dir = tempDir('countersign-resume-ended-');
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(dir, 'wf.json'), JSON.stringify(twoAsks));
  writeFileSync(join(dir, 'script.yaml'), 'one: [{}]\ntwo: [{}]\n');
  const store = join(dir, 'store');
  const ended = await cli(['run', 'wf.json', '--agent', 'scripted:script.yaml', '--workspace', ws, '--json'], { store, cwd: dir });
  assert.is(ended.json.status, 'completed', ended.stderr);
  const waiting = await cli(['start', 'wf.json', '--workspace', ws, '--json'], { store, cwd: dir });
  rmSync(ws, { recursive: true });
  const again = await cli(['run', '--resume', ended.json.runId, '--agent', 'scripted:script.yaml', '--json'], { store, cwd: dir });
  assert.is(again.code, 0, again.stderr);
  assert.equal([again.json.status, again.json.steps], ['completed', 0]);
  // r83 a1: --workspace naming the run's own workspace is no move, from any directory.
  mkdirSync(ws);
  const same = await cli(['run', '--resume', ended.json.runId, '--agent', 'scripted:script.yaml', '--workspace', ws, '--json'], { store, cwd: dir });
  assert.is(same.code, 0, same.stderr);
  rmSync(ws, { recursive: true });
  const stuck = await cli(['run', '--resume', waiting.json.runId, '--agent', 'scripted:script.yaml', '--json'], { store, cwd: dir });
  assert.is(stuck.code, 2);
  assert.is(stuck.json.error.code, 'E_FILE_NOT_FOUND');
});

Resume('r84 a2: run --resume of an ended run whose workflow names toolModules, without --allow-tool-modules: reported as it stands (completed exit 0, failed exit 1), never E_TOOL_MODULE_BLOCKED; no module is loaded', async () => {
  const dir = tempDir('countersign-resume-ended-modules-');
  mkdirSync(join(dir, 'tools'));
  const marker = join(dir, 'LOADED');
  writeFileSync(join(dir, 'tools', 'echo.mjs'), `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, 'loaded');
export const tools = [{ name: 'echo', class: 'read', inputSchema: { type: 'object' }, run: async ({ fail }) => { if (fail) throw new Error('boom'); return 'ok'; } }];
`);
  const flow = (fail: boolean) => ({
    metadata: { name: 'echo', version: '1.0.0', description: 'a module tool after a directive' },
    toolModules: ['./tools/echo.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'one' } },
      { type: 'agent-directive', id: 'one', directive: 'One.', completionCondition: 'ok', connections: { success: 'echo' } },
      { type: 'tool', id: 'echo', tool: 'echo', args: { fail }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  });
  writeFileSync(join(dir, 'ok.json'), JSON.stringify(flow(false)));
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(flow(true)));
  writeFileSync(join(dir, 'script.yaml'), 'one: [{}]\n');
  const store = join(dir, 'store');
  const completed = await cli(['run', 'ok.json', '--agent', 'scripted:script.yaml', '--allow-tool-modules', '--json'], { store, cwd: dir });
  assert.is(completed.json.status, 'completed', completed.stderr);
  const failed = await cli(['run', 'bad.json', '--agent', 'scripted:script.yaml', '--allow-tool-modules', '--json'], { store, cwd: dir });
  assert.is(failed.json.status, 'failed', failed.stderr);
  rmSync(marker);
  for (const [ended, status, code] of [[completed, 'completed', 0], [failed, 'failed', 1]] as const) {
    const again = await cli(['run', '--resume', ended.json.runId, '--agent', 'scripted:script.yaml', '--json'], { store, cwd: dir });
    assert.is(again.code, code, again.stderr);
    assert.equal([again.json.status, again.json.steps], [status, 0]);
    assert.not.match(again.stderr, 'E_TOOL_MODULE_BLOCKED');
    const human = await cli(['run', '--resume', ended.json.runId, '--agent', 'scripted:script.yaml'], { store, cwd: dir });
    assert.is(human.code, code, human.stderr);
    assert.match(human.stdout, status === 'completed' ? 'completed at "done" after 0 step(s)' : 'failed at "echo"');
    assert.not.match(human.stderr, 'E_TOOL_MODULE_BLOCKED');
  }
  assert.not.ok(existsSync(marker), 'no module was loaded for a run that runs nothing more');
});

Resume('r112 a1: run --resume "" (an unset shell variable) is E_USAGE naming the empty run id, with or without a workflow file, and starts no run', async () => {
  const dir = tempDir('countersign-resume-empty-');
  writeFileSync(join(dir, 'wf.json'), JSON.stringify(twoAsks));
  writeFileSync(join(dir, 'script.yaml'), 'one: [{}]\ntwo: [{}]\n');
  const store = join(dir, 'store');
  for (const args of [['run', '--resume', '', 'wf.json'], ['run', '--resume', ' '], ['run', '--resume=']]) {
    const r = await cli([...args, '--agent', 'scripted:script.yaml', '--json'], { store, cwd: dir });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.is(r.json.error.code, 'E_USAGE');
    assert.match(r.json.error.message, '--resume needs a run id, and was given an empty value');
    assert.match(r.json.error.fix, 'countersign runs');
    assert.match(r.stderr, 'countersign: E_USAGE: --resume needs a run id');
  }
  const runs = await cli(['runs', '--json'], { store, cwd: dir });
  assert.equal(runs.json.runs ?? [], [], 'no run was started');
});

Resume.run();
