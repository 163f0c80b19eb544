/**
 * A signal that ends a command with no stop of its own (start, step,
 * status, runs, trace, validate…) still ends it by that signal, but says so
 * first: under --json the one document on stdout is E_INTERRUPTED, with
 * where the run stands and what to do (r98 a1).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

Interrupted('r107 a3: run --input - ended by SIGINT, SIGTERM or SIGHUP while it reads its input says E_INTERRUPTED (one document under --json, the line on stderr) and ends by the signal; no run is stored', async () => {
  const store = tempDir('countersign-interrupted-');
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const r = await interrupt(['run', WF, '--agent', `exec:echo '{"words": 5}'`, '--input', '-', '--json', '--store', store], signal);
    assert.is(r.signal, signal, `ended by the signal: ${r.code} ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    assert.is(doc.error.code, 'E_INTERRUPTED');
    assert.is(doc.error.message, `interrupted by ${signal} before run finished, before it opened the store: nothing was stored`);
    assert.is(doc.error.fix, 'give the same command again');
    assert.match(r.stderr, `countersign: E_INTERRUPTED: interrupted by ${signal} before run finished`);
  }
  const plain = await interrupt(['run', WF, '--agent', `exec:echo '{"words": 5}'`, '--input', '-', '--store', store], 'SIGINT');
  assert.is(plain.signal, 'SIGINT');
  assert.is(plain.stdout, '');
  assert.match(plain.stderr, 'countersign: E_INTERRUPTED: interrupted by SIGINT before run finished, before it opened the store: nothing was stored');
  const runs = spawnSync(process.execPath, [LAUNCHER, 'runs', '--store', store, '--json'], { encoding: 'utf8' });
  assert.equal(runs.stdout.trim() === '' ? [] : JSON.parse(runs.stdout).runs ?? [], []);
});

/** Holds the store's write lock (another countersign process mid-step) for `ms`, from a child process; resolves once it holds it. */
function holdStoreLock(store: string, ms: number): Promise<ChildProcess> {
  const code = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.exec('BEGIN IMMEDIATE'); process.stdout.write('held\\n'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', code, join(store, 'countersign.db')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done) => child.stdout!.once('data', () => done(child)));
}

Interrupted('r107 a4: a step whose Ctrl-C came while it waited on a busy store is interrupted once the wait returns: E_INTERRUPTED saying whether the step was stored, ended by the signal', async () => {
  const store = tempDir('countersign-interrupted-');
  const start = () => JSON.parse(spawnSync(process.execPath, [LAUNCHER, 'start', WF, '--store', store, '--json'], { encoding: 'utf8' }).stdout).runId as string;
  // The lock is let go within the store's 5 s wait: the step is stored, and the interrupt says so.
  const stored = start();
  const shortLock = await holdStoreLock(store, 3_000);
  const r = await interrupt(['step', stored, '--response', '{"words": 5}', '--json', '--store', store], 'SIGINT');
  shortLock.kill();
  assert.is(r.signal, 'SIGINT', `ended by the signal: ${r.code} ${r.stderr}`);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.error.code, 'E_INTERRUPTED');
  assert.match(doc.error.message, `interrupted by SIGINT before step finished, after it stored its step: run ${stored} now is completed`);
  assert.match(doc.error.fix, `countersign status ${stored} --store ${store}`);
  assert.match(r.stderr, 'countersign: E_INTERRUPTED: interrupted by SIGINT');
  // The lock outlasts the wait: nothing is stored, and the interrupt (not E_STORE's retry) is what is said.
  const waiting = start();
  const longLock = await holdStoreLock(store, 9_000);
  const late = await interrupt(['step', waiting, '--response', '{"words": 5}', '--json', '--store', store], 'SIGTERM');
  longLock.kill();
  assert.is(late.signal, 'SIGTERM', `ended by the signal: ${late.code} ${late.stderr}`);
  const lateDoc = JSON.parse(late.stdout);
  assert.is(lateDoc.error.code, 'E_INTERRUPTED');
  assert.match(lateDoc.error.message, `interrupted by SIGTERM before step finished: nothing of this command was stored, and run ${waiting} waits at node "write"`);
  assert.is(lateDoc.error.fix, 'give the same command again');
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
