/**
 * A signal that ends a command with no stop of its own (start, step,
 * status, runs, trace, validate…) still ends it by that signal, but says so
 * first: under --json the one document on stdout is E_INTERRUPTED, with
 * where the run stands and what to do (r98 a1).
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';

const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');
const Interrupted = suite('CLI: a command ended by a signal says so');

/** Runs `args` with stdin left open (the command waits on it), sends `signal` once it is waiting, and collects what it said. */
function interrupt(args: string[], signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    setTimeout(() => child.kill(signal), 1_500);
    // A command that never hears the signal must fail the test, not hang the suite.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code, sig) => {
      clearTimeout(stuck);
      done({ code, signal: sig, stdout, stderr });
    });
  });
}

Interrupted('r98 a1: step --response - --json ended by SIGTERM, SIGINT or SIGHUP while it reads its answer prints one E_INTERRUPTED document saying nothing was stored, and ends by the signal; the run is as it was', async () => {
  const store = tempDir('countersign-interrupted-');
  const runId = JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'start', WF, '--store', store, '--json'], { encoding: 'utf8' }).stdout).runId as string;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    const r = await interrupt(['step', runId, '--response', '-', '--json', '--store', store], signal);
    assert.is(r.signal, signal, `ended by the signal: ${r.code} ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    assert.is(doc.error.code, 'E_INTERRUPTED');
    assert.is(doc.error.message, `interrupted by ${signal} before step finished, before it opened the store: nothing was stored`);
    assert.is(doc.error.fix, 'give the same command again');
    assert.match(r.stderr, `countersign: E_INTERRUPTED: interrupted by ${signal}`);
  }
  const status = JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'status', runId, '--store', store, '--json'], { encoding: 'utf8' }).stdout);
  assert.is(status.seq, 1, 'no answer was taken');
});

Interrupted('r98 a1: start --input - ended by SIGTERM says no run was stored (and none is)', async () => {
  const store = tempDir('countersign-interrupted-');
  const r = await interrupt(['start', WF, '--input', '-', '--json', '--store', store], 'SIGTERM');
  assert.is(r.signal, 'SIGTERM');
  const doc = JSON.parse(r.stdout);
  assert.is(doc.error.code, 'E_INTERRUPTED');
  assert.match(doc.error.message, 'interrupted by SIGTERM before start finished, before it opened the store: nothing was stored');
  const runs = JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'runs', '--store', store, '--json'], { encoding: 'utf8' }).stdout);
  assert.equal(runs.runs, []);
});

Interrupted('r99 a2: step --response @fifo (no size to check, no writer yet) still hears the signal while it waits to read: E_INTERRUPTED, nothing stored', async () => {
  const store = tempDir('countersign-interrupted-');
  const runId = JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'start', WF, '--store', store, '--json'], { encoding: 'utf8' }).stdout).runId as string;
  const fifo = join(store, 'answer.fifo');
  assert.is(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  const r = await interrupt(['step', runId, '--response', `@${fifo}`, '--json', '--store', store], 'SIGINT');
  assert.is(r.signal, 'SIGINT', `${r.code} ${r.stdout} ${r.stderr}`);
  assert.is(JSON.parse(r.stdout).error.code, 'E_INTERRUPTED');
  const status = JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'status', runId, '--store', store, '--json'], { encoding: 'utf8' }).stdout);
  assert.is(status.seq, 1);
});

Interrupted('r99 a3: interrupted before the store was opened, a run id given is not said to exist (none may)', async () => {
  const r = await interrupt(['step', 'no-such-run', '--response', '-', '--json', '--store', tempDir('countersign-interrupted-')], 'SIGTERM');
  const doc = JSON.parse(r.stdout);
  assert.is(doc.error.code, 'E_INTERRUPTED');
  assert.not.match(doc.error.message, 'no-such-run');
});

Interrupted.run();
