/**
 * stdout that cannot be written (a full disk: /dev/full) is said on stderr
 * as E_OUTPUT, with the command's own exit status, never a stack trace or a
 * status that says the command itself failed (r106 e1). A reader that went
 * away (EPIPE) is no failure, and stays silent.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';

const Unwritable = suite('cli: stdout that cannot be written');
const FULL = '/dev/full';

/** The launcher with stdout on /dev/full; undefined where the machine has none. */
function intoFull(args: string[]): { status: number | null; stderr: string } | undefined {
  if (!existsSync(FULL)) return undefined;
  const fd = openSync(FULL, 'w');
  try {
    const r = spawnSync(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, stderr: r.stderr };
  } finally {
    closeSync(fd);
  }
}

Unwritable('r106 e1: a run that completes with stdout on a full disk exits 0 and says E_OUTPUT on stderr (the run is stored as completed), never a stack trace', () => {
  const store = tempDir('countersign-full-');
  const r = intoFull(['run', join(ROOT, 'spec/fixtures/cli/two-step.json'), '--agent', `exec:echo '{"words": 5}'`, '--store', store, '--json']);
  if (r === undefined) return console.log(`  (skipped: no ${FULL} on this machine)`);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, 'countersign: E_OUTPUT: could not write the result to stdout (ENOSPC');
  assert.match(r.stderr, 'the command itself finished, with status 0');
  assert.match(r.stderr, 'fix: send stdout where it can be written');
  assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  assert.ok(r.stderr.length < 4_000, `no dump of the bundle (${r.stderr.length} characters)`);
  const runs = spawnSync(process.execPath, [LAUNCHER, 'runs', '--json', '--store', store], { encoding: 'utf8' });
  assert.is(JSON.parse(runs.stdout).runs[0].status, 'completed');
});

Unwritable('r106 e1: a failing command (an unknown run) keeps its own status 2 and its error line, with E_OUTPUT after it', () => {
  const r = intoFull(['status', 'no-such-run', '--json', '--store', tempDir('countersign-full-')]);
  if (r === undefined) return console.log(`  (skipped: no ${FULL} on this machine)`);
  assert.is(r.status, 2);
  assert.match(r.stderr, 'countersign: E_RUN_NOT_FOUND');
  assert.match(r.stderr, 'countersign: E_OUTPUT:');
  assert.not.match(r.stderr, /\n\s+at /);
});

Unwritable('r107 a2: a command that involves no run (validate, graph, --help, a usage error, a status of an unknown run) is told to run again with stdout somewhere writable, never to look up a run', () => {
  if (!existsSync(FULL)) return console.log(`  (skipped: no ${FULL} on this machine)`);
  const store = tempDir('countersign-full-');
  const wf = join(ROOT, 'spec/fixtures/cli/two-step.json');
  for (const args of [['validate', wf, '--json'], ['graph', wf], ['--help'], ['bogus', '--json'], ['status', 'no-such-run', '--json', '--store', store]]) {
    const r = intoFull(args)!;
    assert.match(r.stderr, 'countersign: E_OUTPUT:', args.join(' '));
    assert.match(r.stderr, 'fix: send stdout where it can be written (free space on its device, or another file), then give the same command again', args.join(' '));
    assert.not.match(r.stderr, 'countersign status', args.join(' '));
    assert.not.match(r.stderr, '<runId>', args.join(' '));
  }
});

Unwritable('r107 a2: start, run and step with stdout on a full disk name the run they created or advanced, and how to see it (with the --store given)', () => {
  if (!existsSync(FULL)) return console.log(`  (skipped: no ${FULL} on this machine)`);
  const store = tempDir('countersign-full-');
  const wf = join(ROOT, 'spec/fixtures/cli/two-step.json');
  const runsNow = (): Array<{ runId: string; status: string }> => JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'runs', '--json', '--store', store], { encoding: 'utf8' }).stdout).runs;
  const started = intoFull(['start', wf, '--store', store])!;
  assert.is(started.status, 0, started.stderr);
  const [runId] = runsNow().map((r) => r.runId);
  assert.match(started.stderr, `the command itself finished, with status 0: it started run ${runId}`);
  assert.match(started.stderr, `fix: send stdout where it can be written (free space on its device, or another file), then see where run ${runId} stands with countersign status ${runId} --store ${store}`);
  assert.not.match(started.stderr, '<runId>');
  const stepped = intoFull(['step', runId, '--response', '{"words": 5}', '--store', store, '--json'])!;
  assert.is(stepped.status, 0, stepped.stderr);
  assert.match(stepped.stderr, `countersign status ${runId} --store ${store}`);
  const ran = intoFull(['run', wf, '--agent', `exec:echo '{"words": 5}'`, '--store', store, '--json'])!;
  assert.is(ran.status, 0, ran.stderr);
  const made = runsNow().map((r) => r.runId).find((id) => id !== runId)!;
  assert.match(ran.stderr, `it started run ${made}`);
  assert.match(ran.stderr, `countersign status ${made} --store ${store}`);
});

Unwritable('a confirmation recorded with stdout on a full disk says it was recorded and needs no giving again (never "the same command again", which would record a second one)', () => {
  const r = intoFull(['confirm', '--operator', 'u1', '--action', 'host_restart_service', '--target', '{"device_id": 7}', '--store', tempDir('countersign-full-')]);
  if (r === undefined) return console.log(`  (skipped: no ${FULL} on this machine)`);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, 'countersign: E_OUTPUT:');
  assert.match(r.stderr, 'this confirmation was recorded');
  assert.not.match(r.stderr, 'give the same command again');
});

Unwritable('a reader that went away (EPIPE) is no failure: no E_OUTPUT', () => {
  const r = spawnSync('sh', ['-c', `"${process.execPath}" "${LAUNCHER}" graph "${join(ROOT, 'workflows/bugfix.yaml')}" | head -c 1 > /dev/null`], { encoding: 'utf8', timeout: 60_000 });
  assert.not.match(r.stderr, 'E_OUTPUT');
  assert.not.match(r.stderr, /\n\s+at /);
});

Unwritable.run();
