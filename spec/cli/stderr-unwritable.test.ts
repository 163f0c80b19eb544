/**
 * A stderr that cannot be written (a full disk: 2>/dev/full) changes
 * nothing: nothing can be said then, so the command stays silent there,
 * never crashes with a stack trace, and exits with its own status (r107 a1).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';

const StderrFull = suite('cli: stderr that cannot be written');
const FULL = '/dev/full';
const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');

/** The launcher with stderr on /dev/full; undefined where the machine has none. */
function stderrIntoFull(args: string[]): { status: number | null; stdout: string } | undefined {
  if (!existsSync(FULL)) return undefined;
  const fd = openSync(FULL, 'w');
  try {
    const r = spawnSync(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', 'pipe', fd], encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, stdout: r.stdout };
  } finally {
    closeSync(fd);
  }
}

StderrFull('r107 a1: each command keeps its own exit status when stderr is a full disk (valid 0, unknown run 2, usage 2, rejected answer 5, completed run 0, stopped run 3)', () => {
  if (!existsSync(FULL)) return console.log(`  (skipped: no ${FULL} on this machine)`);
  const store = tempDir('countersign-stderr-full-');
  assert.is(stderrIntoFull(['validate', WF])!.status, 0, 'a valid workflow');
  assert.is(stderrIntoFull(['status', 'no-such-run', '--store', store])!.status, 2, 'E_RUN_NOT_FOUND');
  assert.is(stderrIntoFull(['bogus'])!.status, 2, 'an unknown command');
  assert.is(stderrIntoFull([])!.status, 2, 'no command');
  const started = stderrIntoFull(['start', WF, '--store', store, '--json'])!;
  assert.is(started.status, 0);
  const runId = JSON.parse(started.stdout).runId as string;
  const rejected = stderrIntoFull(['step', runId, '--response', '{"words":"x"}', '--store', store, '--json'])!;
  assert.is(rejected.status, 5, 'rejected, still waiting');
  assert.is(JSON.parse(rejected.stdout).status, 'waiting');
  const completed = stderrIntoFull(['run', WF, '--agent', `exec:echo '{"words": 5}'`, '--store', store, '--json'])!;
  assert.is(completed.status, 0);
  assert.is(JSON.parse(completed.stdout).status, 'completed');
  const stopped = stderrIntoFull(['run', WF, '--agent', `exec:echo '{"words": "x"}'`, '--store', store, '--max-steps', '1'])!;
  assert.is(stopped.status, 3, 'stopped while still waiting');
});

StderrFull.run();
