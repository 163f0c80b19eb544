/**
 * With --allow-tool-modules the command runs under the launcher with
 * descriptor 1 a pipe copied to stderr, so whatever a module does with
 * descriptor 1 — a socket on it, a worker thread, a child given it in any
 * stdio slot, a shell reopening /dev/stdout — never reaches the --json
 * document, and nothing already on stderr is truncated (r87 a1–a4). Signals
 * sent to the launcher alone reach the command; Ctrl-C (the whole process
 * group) counts once.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, tempDir } from '../helpers/cli.js';

const One = suite('cli: a tool module using descriptor 1 directly (--allow-tool-modules)');

const HEADER = "import cp from 'node:child_process'; import net from 'node:net'; import { Worker } from 'node:worker_threads';";

function project(body: string, askFirst = false): { dir: string; file: string } {
  const dir = tempDir('countersign-fd-one-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'w.mjs'), `${HEADER}
export const tools = [{ name: 'w', class: 'read', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: async () => { ${body}; return {}; } },
  { name: 'q', class: 'read', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, run: async () => ({}) }];
`);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'fd-one', version: '1.0.0', description: 'a tool that uses descriptor 1' },
    toolModules: ['./tools/w.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: askFirst ? 'quick' : 'w' } },
      // A quick tool first: the engine records it as an answer of its own, never a step.
      ...(askFirst ? [{ type: 'tool', id: 'quick', tool: 'q', args: {}, connections: { success: 'ask' } }] : []),
      ...(askFirst ? [{ type: 'agent-directive', id: 'ask', directive: 'first', completionCondition: 'done', inputSchema: { type: 'object', properties: { m: { type: 'string' } }, required: ['m'] }, connections: { success: 'w' } }] : []),
      { type: 'tool', id: 'w', tool: 'w', args: {}, connections: { success: 'wait' } },
      { type: 'agent-directive', id: 'wait', directive: 'answer', completionCondition: 'done', inputSchema: { type: 'object', properties: { m: { type: 'string' } }, required: ['m'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  return { dir, file };
}

/** `start --json` through the real launcher; stderr into a file opened as `2>err.txt` does, holding a line from before. */
function start(p: { dir: string; file: string }, env: NodeJS.ProcessEnv = process.env) {
  const errFile = join(p.dir, 'err.txt');
  const fd = openSync(errFile, 'w');
  writeFileSync(fd, 'before countersign\n');
  const r = spawnSync(process.execPath, [LAUNCHER, 'start', p.file, '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], {
    stdio: ['ignore', 'pipe', fd],
    cwd: p.dir,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  closeSync(fd);
  return { code: r.status, stdout: r.stdout, stderr: readFileSync(errFile, 'utf8') };
}

function assertOnStderrOnly(r: ReturnType<typeof start>, mark: string) {
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).status, 'waiting', `stdout is exactly one JSON document:\n${r.stdout}`);
  assert.not.match(r.stdout, mark);
  assert.match(r.stderr, `${mark}\n`, `${mark} is on stderr`);
  assert.ok(r.stderr.startsWith('before countersign\n'), `what stderr held before is kept:\n${JSON.stringify(r.stderr)}`);
  assert.not.match(r.stderr, '\0', 'no hole of NUL bytes');
}

One('a child\'s shell redirect `> /dev/stdout` (stdio inherit) reaches stderr and truncates nothing written there before (r87 a1)', () => {
  const r = start(project("console.error('BEFORE-LINE'); const s = cp.spawnSync('sh', ['-c', 'echo MARK-REDIRECT > /dev/stdout'], { stdio: 'inherit' }); console.error('AFTER status=' + s.status)"));
  assertOnStderrOnly(r, 'MARK-REDIRECT');
  assert.match(r.stderr, 'BEFORE-LINE\n');
  assert.match(r.stderr, 'AFTER status=0\n', 'the redirect worked: the child could open /dev/stdout');
});

One('a net.Socket on descriptor 1 writes to stderr, not into the --json document (r87 a2)', () => {
  assertOnStderrOnly(start(project("await new Promise((done) => new net.Socket({ fd: 1, readable: false, writable: true }).write('MARK-SOCKET\\n', done))")), 'MARK-SOCKET');
});

One('a child given descriptor 1 as its stderr (stdio[2] = 1) writes to stderr (r87 a3)', () => {
  assertOnStderrOnly(start(project("cp.spawnSync('sh', ['-c', 'echo MARK-SLOT2 >&2'], { stdio: ['ignore', 'pipe', 1] })")), 'MARK-SLOT2');
});

One('a child given descriptor 1 as an extra stdio slot (stdio[3] = 1) writes to stderr (r87 a4)', () => {
  assertOnStderrOnly(start(project("cp.spawnSync('sh', ['-c', 'echo MARK-SLOT3 >&3'], { stdio: ['ignore', 'pipe', 'inherit', 1] })")), 'MARK-SLOT3');
});

One('a worker thread\'s fs.writeSync(1, …) writes to stderr, not into the --json document', () => {
  const body = "await new Promise((done) => new Worker(\"require('node:fs').writeSync(1, 'MARK-WORKER\\\\n')\", { eval: true }).on('exit', done))";
  assertOnStderrOnly(start(project(body)), 'MARK-WORKER');
});

One('a background process a module leaves holding descriptor 1 does not keep the command from ending', () => {
  const p = project("cp.spawn('sh', ['-c', 'sleep 30'], { stdio: 'inherit', detached: true }).unref()");
  const began = Date.now();
  const r = start(p);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).status, 'waiting');
  assert.ok(Date.now() - began < 20_000, 'ended long before the background process');
  spawnSync('pkill', ['-f', 'sleep 30']);
});

One('r88 a1: a TMPDIR that cannot be used, or a PATH without mkfifo, does not cost the relay: a worker\'s writes to descriptor 1 still reach stderr, never the --json document', () => {
  const body = "await new Promise((done) => new Worker(\"require('node:fs').writeSync(1, 'MARK-WORKER\\\\n')\", { eval: true }).on('exit', done))";
  assertOnStderrOnly(start(project(body), { ...process.env, TMPDIR: '/nonexistent/countersign-tmp' }), 'MARK-WORKER');
  assertOnStderrOnly(start(project(body), { ...process.env, PATH: '/nonexistent' }), 'MARK-WORKER');
});

/** `run --json` with an agent that answers only after 30 s, in a process group of its own; `signal` sent once it waits. */
async function interrupted(send: (pid: number) => unknown, body = '', how: { command?: 'run' | 'start'; askFirst?: boolean } = {}): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; store: string }> {
  const p = project(body, how.askFirst);
  const agent = how.askFirst ? `exec:cat > /dev/null; echo '{"m": "x"}'` : 'exec:sleep 30';
  const args = how.command === 'start' ? ['start', p.file] : ['run', p.file, '--agent', agent];
  const child = spawn(process.execPath, [LAUNCHER, ...args, '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], {
    cwd: p.dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const waitingAt = body === '' ? '▸ wait' : 'MARK-TOOL-STARTED';
  for (const end = Date.now() + 30_000; !stderr.includes(waitingAt) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  await send(child.pid!);
  const [code, signal] = await new Promise<[number | null, string | null]>((done) => child.once('close', (c, s) => done([c, s])));
  return { code, signal, stdout, stderr, store: join(p.dir, 'store') };
}

One('SIGTERM sent to the launcher alone reaches the command: the run stops waiting, said in the document (exit 143)', async () => {
  const r = await interrupted((pid) => process.kill(pid, 'SIGTERM'));
  assert.is(r.code, 143, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.status, 'waiting');
  assert.is(doc.error.code, 'E_INTERRUPTED');
});

One('Ctrl-C (SIGINT to the whole process group) counts once: the run stops cleanly with its document, not forced (exit 130)', async () => {
  const r = await interrupted((pid) => process.kill(-pid, 'SIGINT'));
  assert.is(r.code, 130, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.error.code, 'E_INTERRUPTED');
  assert.is(doc.stopped, true);
});

One('r88 a2: a second SIGTERM sent to the launcher alone ends the command at once, as without the launcher (not after the 5 s fallback)', async () => {
  const slow = "console.error('MARK-TOOL-STARTED'); await new Promise((r) => setTimeout(r, 20000))";
  const began = Date.now();
  const r = await interrupted(async (pid) => {
    process.kill(pid, 'SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
    process.kill(pid, 'SIGTERM');
  }, slow);
  assert.is(r.code, 143, r.stderr);
  assert.ok(Date.now() - began < 4_500, `ended by the second signal, not the fallback: ${Date.now() - began} ms`);
});

One('r88 a3: ended while a tool node still runs (the 5 s fallback), `run --json` still prints its document: the run id, still waiting at the tool node, E_INTERRUPTED with how to go on; and the countersign: line on stderr', async () => {
  const slow = "console.error('MARK-TOOL-STARTED'); await new Promise((r) => setTimeout(r, 20000))";
  const r = await interrupted((pid) => process.kill(pid, 'SIGTERM'), slow);
  assert.is(r.code, 143, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.type(doc.runId, 'string');
  assert.is(doc.status, 'waiting');
  assert.is(doc.stopped, true);
  assert.is(doc.error.code, 'E_INTERRUPTED');
  assert.is(doc.error.nodeId, 'w');
  assert.match(doc.error.message, `run ${doc.runId} still waits at node "w"`);
  assert.match(doc.error.fix, 'E_TOOL_INTERRUPTED');
  assert.match(doc.error.fix, `countersign run --resume ${doc.runId}`);
  assert.match(doc.error.fix, '--allow-tool-modules');
  assert.match(r.stderr, `countersign: E_INTERRUPTED: interrupted`);
});

One('r91 a1: a tool module that calls process.exit() never ends the command silently: E_TOOL_MODULE as the --json document and on stderr, exit 2, whatever status the module chose', () => {
  for (const status of [0, 3]) {
    const r = start(project(`process.exit(${status})`));
    assert.is(r.code, 2, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.is(doc.error.code, 'E_TOOL_MODULE');
    assert.match(doc.error.message, `the process ended (status ${status}) before the command finished`);
    assert.match(r.stderr, 'countersign: E_TOOL_MODULE:');
  }
});

/** The runs in `store`, as `countersign runs --json` lists them. */
function runsIn(store: string): Array<{ runId: string; status: string }> {
  const r = spawnSync(process.execPath, [LAUNCHER, 'runs', '--json', '--store', store], { encoding: 'utf8' });
  return JSON.parse(r.stdout).runs;
}

One('r94 a1 a2: start whose tool ends the process names the run it created (and the commands to see it), the tool, its module and the workflow file', () => {
  const p = project('process.exit(0)');
  const r = start(p);
  assert.is(r.code, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  const [run] = runsIn(join(p.dir, 'store'));
  assert.is(run.status, 'waiting');
  assert.match(doc.error.message, `run ${run.runId} now waits at tool node "w" (seq 1), whose tool may have been cut short`);
  assert.match(doc.error.message, `tool "w" of tool module ${join(p.dir, 'tools', 'w.mjs')} (its /toolModules entry 0 in ${p.file}) called process.exit()`);
  assert.match(doc.error.fix, `fix ${join(p.dir, 'tools', 'w.mjs')}`);
  assert.match(doc.error.fix, `countersign status ${run.runId} --store ${join(p.dir, 'store')} --allow-tool-modules`);
  assert.not.match(doc.error.fix, 'countersign runs');
});

One('r94 a1 a2: start whose tool module ends the process while it loads says no run was stored (none is) and to start again, naming the module', () => {
  const p = project('');
  writeFileSync(join(p.dir, 'tools', 'w.mjs'), 'process.exit(0);\n');
  const r = start(p);
  assert.is(r.code, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.error.message, `the top-level code of tool module ${join(p.dir, 'tools', 'w.mjs')} (its /toolModules entry 0 in ${p.file}) called process.exit()`);
  assert.match(doc.error.message, 'no run was stored');
  assert.match(doc.error.fix, 'then start the workflow again');
  assert.not.match(doc.error.fix, 'countersign runs');
  assert.equal(runsIn(join(p.dir, 'store')), []);
});

One('r93 a1: validate over several files whose tool module ends the process while it loads keeps the files checked before, puts E_TOOL_MODULE at that file\'s toolModules entry, and names the files not reached', () => {
  const p = project('');
  writeFileSync(join(p.dir, 'tools', 'w.mjs'), 'process.exit(0);\n');
  const good = join(p.dir, 'good.json');
  writeFileSync(good, JSON.stringify({ metadata: { name: 'g', version: '1.0.0', description: 'd' }, nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e' }] }));
  const r = spawnSync(process.execPath, [LAUNCHER, 'validate', 'good.json', 'flow.json', 'good.json', '--allow-tool-modules', '--json'], { cwd: p.dir, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.files.map((f: { file: string; ok: boolean }) => [f.file, f.ok]), [['good.json', true], ['flow.json', false], ['good.json', false]]);
  const [fault] = doc.files[1].errors;
  assert.is(fault.code, 'E_TOOL_MODULE');
  assert.is(fault.pointer, '/toolModules/0');
  const lines = readFileSync(p.file, 'utf8').split('\n');
  assert.ok(fault.line >= 1 && lines[fault.line - 1].slice(fault.col - 1).startsWith('"./tools/w.mjs"'), `line:col at the entry: ${fault.line}:${fault.col}`);
  assert.match(fault.message, 'the top-level code of tool module');
  assert.match(doc.files[2].errors[0].message, 'not checked: the process ended before its turn, by the tool module of flow.json');
  assert.not.match(r.stderr, 'run it was stepping');
});

One('r95 a1 a2: step or run --resume whose tool module ends the process while it loads says nothing was stored and where the run still waits, and to give the same command again', () => {
  const p = project('', true);
  writeFileSync(join(p.dir, 'tools', 'w.mjs'), `if (process.env.EXIT_AT_LOAD) process.exit(0);\n${readFileSync(join(p.dir, 'tools', 'w.mjs'), 'utf8')}`);
  const store = join(p.dir, 'store');
  const runId = JSON.parse(start(p).stdout).runId as string;
  const env = { ...process.env, EXIT_AT_LOAD: '1' };
  writeFileSync(join(p.dir, 'script.yaml'), 'ask: [{m: x}]\nwait: [{m: y}]\n');
  for (const args of [['step', runId, '--response', '{"m":"x"}'], ['run', '--resume', runId, '--agent', 'scripted:script.yaml']]) {
    const r = spawnSync(process.execPath, [LAUNCHER, ...args, '--allow-tool-modules', '--json', '--store', store], { cwd: p.dir, env, encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 2, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.match(doc.error.message, `nothing of this command was stored: run ${runId} waits at node "ask" for an answer (seq 2), as before`, args[0]);
    assert.not.match(doc.error.message, 'tool node');
    assert.match(doc.error.fix, 'then give the same command again');
  }
  const status = spawnSync(process.execPath, [LAUNCHER, 'status', runId, '--json', '--store', store], { encoding: 'utf8' });
  assert.is(JSON.parse(status.stdout).pending.nodeId, 'ask');
});

One('r95 a3: a timer a module left while it loaded that ends `run` is told as that module\'s top-level code, and the run is said to wait where it does (not at a tool node)', () => {
  const p = project('');
  writeFileSync(join(p.dir, 'tools', 'w.mjs'), `setTimeout(() => process.exit(7), 300);\n${readFileSync(join(p.dir, 'tools', 'w.mjs'), 'utf8')}`);
  const flow = JSON.parse(readFileSync(p.file, 'utf8'));
  flow.nodes[0].connections.default = 'wait';
  writeFileSync(p.file, JSON.stringify(flow));
  const r = spawnSync(process.execPath, [LAUNCHER, 'run', p.file, '--agent', 'exec:sleep 2; echo \'{"m":"x"}\'', '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], { cwd: p.dir, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.error.message, `a timer or callback left by the top-level code of tool module ${join(p.dir, 'tools', 'w.mjs')}`);
  assert.match(doc.error.message, /now waits at node "wait" for an answer \(seq 1\)/);
  assert.not.match(doc.error.message, 'tool "w"');
});

One('r95 a4: validate over several files: a timer the first file\'s module left, firing while the next file\'s module loads, is put on the first file (not ok), and the next is not checked', () => {
  const a = project('');
  writeFileSync(join(a.dir, 'tools', 'w.mjs'), `setTimeout(() => process.exit(0), 1);\n${readFileSync(join(a.dir, 'tools', 'w.mjs'), 'utf8')}`);
  const b = project('');
  writeFileSync(join(b.dir, 'tools', 'w.mjs'), `await new Promise((r) => setTimeout(r, 400));\n${readFileSync(join(b.dir, 'tools', 'w.mjs'), 'utf8')}`);
  const r = spawnSync(process.execPath, [LAUNCHER, 'validate', a.file, b.file, '--allow-tool-modules', '--json'], { encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.files[0].ok, false);
  assert.is(doc.files[0].errors[0].pointer, '/toolModules/0');
  assert.match(doc.files[0].errors[0].message, `fix ${join(a.dir, 'tools', 'w.mjs')}`);
  assert.is(doc.files[1].ok, false);
  assert.match(doc.files[1].errors[0].message, 'not checked');
  assert.not.match(r.stdout, `fix ${join(b.dir, 'tools', 'w.mjs')}`);
});

One('r92 a1 a3: after the command finished, a module\'s timer that calls process.exit keeps the command\'s status (said on stderr), and one that keeps the process alive does not hang it', () => {
  const exits = start(project('setTimeout(() => process.exit(3), 300)'));
  assert.is(exits.code, 0, exits.stderr);
  assert.is(JSON.parse(exits.stdout).status, 'waiting');
  assert.match(exits.stderr, "a tool module ended the process (status 3) after the command finished; the command's status 0 is kept");
  const began = Date.now();
  const lingers = start(project('setInterval(() => {}, 1000)'));
  assert.is(lingers.code, 0, lingers.stderr);
  assert.ok(Date.now() - began < 8_000, `ended soon after the result: ${Date.now() - began} ms`);
  assert.match(lingers.stderr, 'a tool module left something running');
});

const BLOCKING = "console.error('MARK-TOOL-STARTED'); cp.execSync('sleep 4')";

One('r89 a1, r101 a1: SIGTERM sent to the launcher while a tool blocks the event loop (execSync) ends `start` within a second, by SIGTERM, saying so: E_INTERRUPTED as the --json document and on stderr, naming the run and how to see it; the run is not completed', async () => {
  const began = Date.now();
  const r = await interrupted((pid) => process.kill(pid, 'SIGTERM'), BLOCKING, { command: 'start' });
  assert.is(r.signal, 'SIGTERM', `ended by the signal: code ${r.code}\n${r.stderr}`);
  assert.ok(Date.now() - began < 3_500, `soon, not after the tool: ${Date.now() - began} ms`);
  const runs = spawnSync(process.execPath, [LAUNCHER, 'runs', '--json', '--store', r.store], { encoding: 'utf8' });
  const run = JSON.parse(runs.stdout).runs[0];
  assert.is(run.status, 'waiting');
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INTERRUPTED');
  assert.match(error.message, "interrupted by SIGTERM before start finished, while a tool module's code held the process");
  assert.match(error.message, `run ${run.runId} may be left waiting at a tool node`);
  assert.match(error.fix, `countersign status ${run.runId} --store ${r.store} --allow-tool-modules`);
  assert.match(r.stderr, 'countersign: E_INTERRUPTED: interrupted by SIGTERM');
});

One('r89 a2, r101 a1: Ctrl-C (SIGINT to the launcher\'s group) while a tool blocks the event loop ends the command by SIGINT, said as E_INTERRUPTED; the run is never recorded as failed', async () => {
  const r = await interrupted((pid) => process.kill(-pid, 'SIGINT'), BLOCKING, { command: 'start' });
  assert.is(r.signal, 'SIGINT', `code ${r.code}\n${r.stderr}`);
  assert.is(JSON.parse(r.stdout).error.code, 'E_INTERRUPTED');
  const runs = spawnSync(process.execPath, [LAUNCHER, 'runs', '--json', '--store', r.store], { encoding: 'utf8' });
  assert.is(JSON.parse(runs.stdout).runs[0].status, 'waiting');
});

One('r101 a1: a `step --response -` under --allow-tool-modules ended by a signal while it reads its answer says so as without the flag: the E_INTERRUPTED document, nothing stored, ended by the signal', async () => {
  const p = project('');
  const store = join(p.dir, 'store');
  const started = start(p);
  const runId = JSON.parse(started.stdout).runId as string;
  const child = spawn(process.execPath, [LAUNCHER, 'step', runId, '--response', '-', '--allow-tool-modules', '--json', '--store', store], { cwd: p.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  await new Promise((r) => setTimeout(r, 2_500));
  child.kill('SIGINT');
  const [, signal] = await new Promise<[number | null, string | null]>((done) => child.once('close', (c, s) => done([c, s])));
  assert.is(signal, 'SIGINT', stderr);
  const { error } = JSON.parse(stdout);
  assert.is(error.code, 'E_INTERRUPTED');
  assert.match(error.message, 'interrupted by SIGINT before step finished');
  assert.match(stderr, 'countersign: E_INTERRUPTED: interrupted by SIGINT before step finished');
  const status = spawnSync(process.execPath, [LAUNCHER, 'status', runId, '--json', '--store', store, '--allow-tool-modules'], { encoding: 'utf8', cwd: p.dir });
  assert.is(JSON.parse(status.stdout).seq, JSON.parse(started.stdout).seq, 'nothing was stored');
});

/** Whether process `pid` is gone (polled for up to 3 s: the kernel reaps it a moment after the signal). */
async function goneSoon(pid: number): Promise<boolean> {
  for (const end = Date.now() + 3_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
  }
  return false;
}

One('r103 a1 a2: `start` ended by SIGTERM while its tool awaits a child process: the fix\'s status command carries --allow-tool-modules (run as printed it is not refused), and the tool\'s child process is ended with the command', async () => {
  const body = "console.error('MARK-TOOL-STARTED'); const c = cp.spawn('sleep', ['37']); (await import('node:fs')).writeFileSync('tool-child.pid', String(c.pid)); await new Promise((r) => c.on('exit', r))";
  const r = await interrupted((pid) => process.kill(pid, 'SIGTERM'), body, { command: 'start' });
  assert.is(r.signal, 'SIGTERM', r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INTERRUPTED');
  assert.match(error.fix, /countersign status \S+ --store \S+ --allow-tool-modules/);
  const printed = /countersign status .*--allow-tool-modules/.exec(error.fix)![0].split(' ').slice(1);
  const status = spawnSync(process.execPath, [LAUNCHER, ...printed, '--json'], { encoding: 'utf8', cwd: join(r.store, '..') });
  assert.is(status.status, 0, status.stderr);
  const child = Number(readFileSync(join(r.store, '..', 'tool-child.pid'), 'utf8'));
  assert.ok(await goneSoon(child), `the tool's sleep (pid ${child}) was ended with the command`);
});

One('r103 a2: a command held by a tool (execSync) and ended by the launcher takes what the tool started with it', async () => {
  const body = "console.error('MARK-TOOL-STARTED'); cp.execSync('sleep 37 & echo $! > tool-child.pid; wait')";
  const r = await interrupted((pid) => process.kill(pid, 'SIGTERM'), body, { command: 'start' });
  assert.is(r.signal, 'SIGTERM', r.stderr);
  assert.is(JSON.parse(r.stdout).error.code, 'E_INTERRUPTED');
  const child = Number(readFileSync(join(r.store, '..', 'tool-child.pid'), 'utf8'));
  assert.ok(await goneSoon(child), `the tool's sleep (pid ${child}) was ended with the command`);
});

One('r89 a3: Ctrl-C, then a kill sent to the launcher 0.5 s later: the second signal ends `run` at once, with its report', async () => {
  const slow = "console.error('MARK-TOOL-STARTED'); await new Promise((r) => setTimeout(r, 20000))";
  const began = Date.now();
  const r = await interrupted(async (pid) => {
    process.kill(-pid, 'SIGINT');
    await new Promise((done) => setTimeout(done, 500));
    process.kill(pid, 'SIGINT');
  }, slow);
  assert.is(r.code, 130, r.stderr);
  assert.ok(Date.now() - began < 4_500, `ended by the second signal: ${Date.now() - began} ms`);
  assert.is(JSON.parse(r.stdout).error.code, 'E_INTERRUPTED');
});

One('r89 a4: a forced stop counts the answers the drive gave (from the journal), the one whose tool nodes were still running included', async () => {
  const slow = "console.error('MARK-TOOL-STARTED'); await new Promise((r) => setTimeout(r, 20000))";
  const r = await interrupted(async (pid) => {
    process.kill(pid, 'SIGTERM');
    await new Promise((done) => setTimeout(done, 300));
    process.kill(pid, 'SIGTERM');
  }, slow, { askFirst: true });
  assert.is(r.code, 143, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.is(doc.steps, 1, 'the answer to "ask" was taken; the tool nodes the engine ran are no steps');
  assert.is(doc.error.nodeId, 'w');
});

One.run();
