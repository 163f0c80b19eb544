/**
 * `run --resume` as a user meets it after a stop: the fix for a missing
 * --agent carries --allow-tool-modules when the run's workflow names tool
 * modules (A4 r82), and a run that has ended is reported as it stands even
 * when its workspace is gone (A5 r82).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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

Resume('A4 r82: run --resume without --agent on a run whose workflow names toolModules: the fix carries --allow-tool-modules, so run as printed it is not refused', async () => {
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

Resume('A5 r82: run --resume of a run that has completed reports it (exit 0) even when its workspace is gone; a waiting run still needs it (E_FILE_NOT_FOUND)', async () => {
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
  // A1 r83: --workspace naming the run's own workspace is no move, from any directory.
  mkdirSync(ws);
  const same = await cli(['run', '--resume', ended.json.runId, '--agent', 'scripted:script.yaml', '--workspace', ws, '--json'], { store, cwd: dir });
  assert.is(same.code, 0, same.stderr);
  rmSync(ws, { recursive: true });
  const stuck = await cli(['run', '--resume', waiting.json.runId, '--agent', 'scripted:script.yaml', '--json'], { store, cwd: dir });
  assert.is(stuck.code, 2);
  assert.is(stuck.json.error.code, 'E_FILE_NOT_FOUND');
});

Resume.run();
