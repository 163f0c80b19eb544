/**
 * Each step is one transaction: a `countersign step` process killed in the
 * middle of its write leaves the run exactly as before the step, killed
 * after the commit leaves it exactly after; either way `status` and `step`
 * continue it and the journal stays consistent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { LAUNCHER, ROOT, cli, tempDir } from '../helpers/cli.js';

const WF = 'spec/fixtures/cli/two-step.json';
const PRELOAD = join(ROOT, 'spec/fixtures/crash/kill-on-write.mjs');
const Crash = suite('crash: kill a step mid-write');

function killedStep(store: string, runId: string, response: string, crashAt: 'event' | 'close') {
  return spawnSync(process.execPath, ['--import', PRELOAD, LAUNCHER, 'step', runId, '--response', response, '--json'], {
    cwd: ROOT,
    env: { ...process.env, COUNTERSIGN_STORE: store, CRASH_AT: crashAt },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

Crash('killed inside the transaction: the run is intact before the step and resumes', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const before = await cli(['trace', s.json.runId, '--json'], { store });
  const child = killedStep(store, s.json.runId, '{"words": 7}', 'event');
  assert.is(child.signal, 'SIGKILL', `the child was not killed: ${child.stderr}`);
  const status = await cli(['status', s.json.runId, '--json'], { store });
  assert.equal(status.json, s.json, 'state is exactly as before the step');
  const after = await cli(['trace', s.json.runId, '--json'], { store });
  assert.equal(after.json, before.json, 'no partial journal rows');
  const resumed = await cli(['step', s.json.runId, '--response', '{"words": 7}', '--seq', '1', '--json'], { store });
  assert.is(resumed.code, 0);
  assert.is(resumed.json.status, 'completed');
  assert.equal(resumed.json.output, { topic: 'tests', 'write.words': 7 });
});

Crash('killed after the commit: the step is durable and a retry with the same seq replays', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const child = killedStep(store, s.json.runId, '{"words": 0}', 'close');
  assert.is(child.signal, 'SIGKILL');
  const status = await cli(['status', s.json.runId, '--json'], { store });
  assert.is(status.json.seq, 2, 'the rejected answer was recorded');
  assert.is(status.json.pending.attempt, 2);
  const retry = await cli(['step', s.json.runId, '--response', '{"words": 0}', '--seq', '1', '--json'], { store });
  assert.is(retry.json.replayed, true);
  const next = await cli(['step', s.json.runId, '--response', '{"words": 200}', '--seq', '2', '--json'], { store });
  assert.is(next.json.endNodeId, 'long');
  const trace = await cli(['trace', s.json.runId, '--json'], { store });
  assert.equal(
    trace.json.events.map((e: any) => `${e.seq}:${e.type}`),
    ['0:run.started', '0:route', '1:directive.issued', '1:answer.rejected', '2:directive.issued', '2:answer.accepted', '2:route', '2:condition.evaluated', '2:route', '2:run.completed'],
  );
});

Crash.run();
