/**
 * Where the CLI's store is and what it reads (issue 2 §5–6): commands that
 * only read never create a store; an unknown run names the store searched;
 * an empty --store or --workspace is a usage error, never the default;
 * `@file` arguments are read relative to the command's directory, with a
 * byte-order mark ignored as in workflow files.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, ROOT, tempDir } from '../helpers/cli.js';

const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');
const S = suite('CLI: store location and inputs');

S('status, step, trace and run --resume on a store that does not exist are E_RUN_NOT_FOUND naming the directory (exit 2), and create nothing', async () => {
  const missing = join(tempDir(), 'typo-store');
  for (const args of [
    ['status', 'some-run', '--json'],
    ['step', 'some-run', '--response', '{"words":5}', '--json'],
    ['trace', 'some-run', '--json'],
    ['run', '--resume', 'some-run', '--agent', 'scripted:nothing.yaml', '--json'],
  ]) {
    const r = await cli([...args, '--store', missing]);
    assert.is(r.code, 2, `${args[0]}: ${r.stderr}`);
    assert.is(r.json.error.code, 'E_RUN_NOT_FOUND');
    assert.match(r.json.error.message, `there is no store in ${missing}`);
    assert.match(r.json.error.fix, /--store DIR or COUNTERSIGN_STORE/);
  }
  const runs = await cli(['runs', '--store', missing]);
  assert.is(runs.code, 0);
  assert.match(runs.stderr, `no runs yet in ${missing} (no store there yet)`);
  // The command it suggests names that store: run as printed, it starts the run there.
  assert.match(runs.stderr, `start one with \`countersign start <file> --store ${missing}\``);
  const json = await cli(['runs', '--json', '--store', missing]);
  assert.equal(json.json, { runs: [] });
  const audit = await cli(['audit', '--json', '--store', missing]);
  assert.is(audit.code, 0);
  assert.equal(audit.json, { proposals: [], executions: [] });
  assert.not.ok(existsSync(missing), 'no store was created by reading');
});

S('--store naming the database file (not its folder) is E_STORE saying so, with the folder to name, for reads and writes alike (never read as an empty store)', async () => {
  const store = tempDir();
  assert.is((await cli(['start', WF], { store })).code, 0);
  const db = join(store, 'countersign.db');
  for (const args of [['runs', '--json'], ['start', WF, '--json']]) {
    const r = await cli([...args, '--store', db]);
    assert.is(r.code, 2, r.stderr);
    assert.is(r.json.error.code, 'E_STORE');
    assert.match(r.json.error.message, `--store names ${db}, which is a file, not a store directory`);
    assert.match(r.json.error.fix, `--store ${store}`);
  }
});

S('a file or folder in the store\'s way (./.countersign a file, COUNTERSIGN_STORE a file, --store afile/sub, countersign.db a folder) is E_STORE (exit 2) whose fix says what to move aside or which setting to change, never a permission fix', async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, '.countersign'), '');
  writeFileSync(join(cwd, 'afile'), '');
  mkdirSync(join(cwd, 'weird', 'countersign.db'), { recursive: true });
  const cases: [string[], { env?: NodeJS.ProcessEnv }, string][] = [
    [['runs', '--json'], {}, `move ${join(cwd, '.countersign')} aside`],
    [['runs', '--json'], { env: { COUNTERSIGN_STORE: 'afile' } }, 'set COUNTERSIGN_STORE to a directory'],
    [['start', WF, '--json', '--store', 'afile/sub'], {}, `move ${join(cwd, 'afile')} aside`],
    [['runs', '--json', '--store', 'weird'], {}, `move ${join(cwd, 'weird', 'countersign.db')} aside`],
    [['start', WF, '--json', '--store', 'weird'], {}, `move ${join(cwd, 'weird', 'countersign.db')} aside`],
  ];
  for (const [args, opts, fix] of cases) {
    const r = await cli(args, { cwd, ...opts });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.json.error.code, 'E_STORE', args.join(' '));
    assert.match(r.json.error.fix, fix, args.join(' '));
    assert.not.match(r.json.error.fix, 'write access', args.join(' '));
    assert.not.match(r.json.error.fix, 'writable', args.join(' '));
  }
});

S('an unknown run in an existing store names that store', async () => {
  const store = tempDir();
  assert.is((await cli(['start', WF], { store })).code, 0);
  const r = await cli(['status', 'nope', '--json'], { store });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_RUN_NOT_FOUND');
  assert.match(r.json.error.message, `no run "nope" in the store ${store}`);
});

S('r79 d8: runs on a store where one run\'s record is not JSON is E_STORE naming the run and countersign.db (exit 2, with --status too), never that run listed as waiting; status still reads the other runs', async () => {
  const { default: Database } = await import('better-sqlite3');
  const store = tempDir();
  const broken = (await cli(['start', WF, '--json'], { store })).json.runId as string;
  const fine = (await cli(['start', WF, '--json'], { store })).json.runId as string;
  const db = new Database(join(store, 'countersign.db'));
  db.prepare("UPDATE runs SET record = 'garbage' WHERE run_id = ?").run(broken);
  db.close();
  for (const args of [['runs', '--json'], ['runs', '--status', 'waiting', '--json'], ['runs', '--status', 'failed', '--json']]) {
    const r = await cli(args, { store });
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.json.error.code, 'E_STORE');
    assert.match(r.json.error.message, `the summary row of run "${broken}" in ${join(store, 'countersign.db')}`);
    assert.match(r.json.error.message, 'its record is not valid JSON');
    assert.match(r.json.error.fix, 'restore countersign.db from a backup');
  }
  const other = await cli(['status', fine, '--json'], { store });
  assert.is(other.code, 0, other.stderr);
  assert.is(other.json.status, 'waiting');
});

S('runs --status with no such run says so and how many runs the store has, not "no runs yet"', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  assert.is((await cli(['step', s.json.runId, '--response', '{"words":5}'], { store })).code, 0);
  const r = await cli(['runs', '--status', 'failed'], { store });
  assert.is(r.code, 0);
  assert.is(r.stdout, '');
  assert.match(r.stderr, 'no failed runs (1 run in the store');
  assert.not.match(r.stderr, 'no runs yet');
  const named = await cli(['runs', '--status', 'failed', '--store', store]);
  assert.match(named.stderr, `\`countersign runs --store ${store}\` lists them`);
});

S('an empty --store or --workspace (an unset shell variable) is E_USAGE, exit 2, and nothing is stored in the default place', async () => {
  const cwd = tempDir();
  for (const args of [['start', WF, '--store', ''], ['start', WF, '--store', '  '], ['runs', '--store', ''], ['start', WF, '--workspace', ''], ['run', WF, '--agent', 'scripted:x.yaml', '--workspace', '']]) {
    const r = await cli([...args, '--json'], { cwd });
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.json.error.code, 'E_USAGE');
    assert.match(r.json.error.message, /needs a directory, and was given an empty value/);
  }
  assert.not.ok(existsSync(join(cwd, '.countersign')), 'no default store was made');
});

S('r113 a2: an empty workflow file name (an unset shell variable) is E_USAGE naming it, never the working directory read as the file; so is --input @ with no file after the @', async () => {
  const cwd = tempDir();
  for (const args of [['start', ''], ['graph', ''], ['run', '', '--agent', 'scripted:x.yaml'], ['validate', ''], ['validate', WF, ' ']]) {
    const r = await cli([...args, '--json'], { cwd });
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.json.error.code, 'E_USAGE');
    assert.is(r.json.error.message, `${args[0]} was given an empty workflow file name`);
    assert.match(r.json.error.fix, 'is the shell variable you passed unset?');
    assert.not.match(r.stdout + r.stderr, cwd, 'the working directory is not named as the file');
    const human = await cli(args, { cwd });
    assert.match(human.stderr, `countersign: E_USAGE: ${args[0]} was given an empty workflow file name`);
  }
  for (const value of ['@', '@  ']) {
    const r = await cli(['start', WF, '--input', value, '--json'], { cwd });
    assert.is(r.code, 2);
    assert.equal([r.json.error.code, r.json.error.message], ['E_USAGE', '--input @ names no file after the @']);
  }
  assert.not.ok(existsSync(join(cwd, '.countersign')), 'no run was stored');
});

S('step on a run that has ended is E_RUN_NOT_WAITING, exit 2, as step --help says', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  await cli(['step', s.json.runId, '--response', '{"words":5}'], { store });
  const r = await cli(['step', s.json.runId, '--response', '{"words":5}', '--json'], { store });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_RUN_NOT_WAITING');
  const help = await cli(['step', '--help']);
  assert.match(help.stdout + help.stderr, 'E_RUN_NOT_WAITING');
});

S('--input @file and --response @file and - ignore a leading UTF-8 byte-order mark, as workflow files do', async () => {
  const store = tempDir();
  const dir = tempDir();
  writeFileSync(join(dir, 'input.json'), '\uFEFF{"topic":"boms"}');
  writeFileSync(join(dir, 'answer.json'), '\uFEFF{"words":3}');
  const s = await cli(['start', WF, '--input', `@${join(dir, 'input.json')}`, '--json'], { store });
  assert.is(s.code, 0, s.stderr);
  assert.is(s.json.pending.directive, 'Write about boms.');
  const r = await cli(['step', s.json.runId, '--response', `@${join(dir, 'answer.json')}`, '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.output, { topic: 'boms', 'write.words': 3 });
  const t = await cli(['start', WF, '--json'], { store });
  const piped = await cli(['step', t.json.runId, '--response', '-', '--json'], { store, stdin: '\uFEFF{"words":4}' });
  assert.is(piped.code, 0, piped.stderr);
});

S('a malformed --input @file is E_INPUT naming the file with its line:col (in the fields and the stderr prefix), and the fix points into that file', async () => {
  const dir = tempDir();
  const bad = join(dir, 'trail.json');
  writeFileSync(bad, '{\n  "topic": "x",\n}\n');
  const r = await cli(['start', WF, '--input', `@${bad}`, '--json'], { store: tempDir() });
  assert.is(r.code, 2);
  assert.equal([r.json.error.code, r.json.error.file, r.json.error.line, r.json.error.col], ['E_INPUT', bad, 3, 1]);
  assert.match(r.json.error.fix, `correct the JSON in ${bad} at line 3, column 1`);
  assert.match(r.stderr, `countersign: E_INPUT: ${bad}:3:1: the --input file is not valid JSON`);
});

S('a malformed inline JSON argument names one place: the column it gives is where the token it quotes stands', async () => {
  const tru = await cli(['start', WF, '--input', '{"a": tru}', '--json'], { store: tempDir() });
  assert.is(tru.json.error.message, 'the --input argument is not valid JSON (line 1, column 7): unexpected "tru"');
  const after = await cli(['start', WF, '--input', '{"a": 1} x', '--json'], { store: tempDir() });
  assert.is(after.json.error.message, 'the --input argument is not valid JSON (line 1, column 10): Unexpected non-whitespace character');
});

S('a fault inside a JSON string (a raw tab) is placed at that character, never at the string\'s opening quote: --input and pr-status --comments alike', async () => {
  const dir = tempDir();
  const input = join(dir, 'tab.json');
  writeFileSync(input, '{"topic": "x\ty"}');
  const r = await cli(['start', WF, '--input', `@${input}`, '--json'], { store: tempDir() });
  assert.equal([r.json.error.code, r.json.error.line, r.json.error.col], ['E_INPUT', 1, 13]);
  const comments = join(dir, 'comments.json');
  writeFileSync(comments, '["x\ty"]');
  const c = await cli(['pr-status', '--comments', comments, '--json']);
  assert.equal([c.json.error.code, c.json.error.line, c.json.error.col], ['E_INPUT', 1, 4]);
});

S('a malformed @file\'s message is one line without the file\'s text (line:col says where); an @file that is a folder or missing says which, and what to do', async () => {
  const dir = tempDir();
  const bad = join(dir, 'token.json');
  writeFileSync(bad, '{"topic":\n  x,\n  "more": "text"}\n');
  const r = await cli(['start', WF, '--input', `@${bad}`, '--json'], { store: tempDir() });
  assert.equal([r.code, r.json.error.message], [2, "the --input file is not valid JSON: Unexpected token 'x'"]);
  assert.is(r.stderr.split('\n')[0], `countersign: E_INPUT: ${bad}:2:3: the --input file is not valid JSON: Unexpected token 'x'`);
  const folder = join(dir, 'answers');
  mkdirSync(folder);
  const f = await cli(['start', WF, '--input', `@${folder}`, '--json'], { store: tempDir() });
  assert.equal([f.code, f.json.error.code, f.json.error.message, f.json.error.fix], [2, 'E_FILE_NOT_FOUND', `cannot read --input file ${folder}: it is a directory`, 'name a file after @, not a folder']);
  const gone = await cli(['start', WF, '--input', `@${join(dir, 'nope.json')}`, '--json'], { store: tempDir() });
  assert.equal([gone.json.error.message, gone.json.error.fix], [`cannot read --input file ${join(dir, 'nope.json')}: no such file`, 'check the path after @']);
});

S('in a host with its own directory (io.cwd), validate and @file read relative to it, as graph and start do', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'two-step.json'), readFileSync(WF, 'utf8'));
  writeFileSync(join(dir, 'input.json'), '{"topic":"hosts"}');
  const v = await cli(['validate', 'flows/two-step.json', '--json'], { cwd: dir });
  assert.is(v.code, 0, v.stdout);
  assert.is(v.json.files[0].file, 'flows/two-step.json', 'reported as the user named it');
  assert.is((await cli(['graph', 'flows/two-step.json'], { cwd: dir })).code, 0);
  const store = tempDir();
  const s = await cli(['start', 'flows/two-step.json', '--input', '@input.json', '--json'], { cwd: dir, store });
  assert.is(s.code, 0, s.stderr);
  assert.is(s.json.pending.directive, 'Write about hosts.');
});

S('run --agent "scripted : file" (spaces around the colon) reads the script from the current directory, as "scripted:file" does, whatever --workspace says', async () => {
  const root = tempDir();
  mkdirSync(join(root, 'ws'));
  mkdirSync(join(root, 'proj'));
  writeFileSync(join(root, 'proj', 'answers.yaml'), 'write:\n  - { words: 5 }\n');
  for (const spec of ['scripted:answers.yaml', 'scripted : answers.yaml']) {
    const r = await cli(['run', WF, '--workspace', '../ws', '--agent', spec, '--json'], { cwd: join(root, 'proj'), store: tempDir() });
    assert.is(r.code, 0, `${spec}: ${r.stderr}`);
    assert.is(r.json.status, 'completed');
  }
});

S('a step after its node\'s deadline says its answer was not applied: late E_TIMEOUT in the output, the error on stderr, exit 5 while the run waits where the timeout route led', async () => {
  const wf = JSON.parse(readFileSync(WF, 'utf8'));
  wf.nodes[1].timeoutMs = 300;
  wf.nodes[1].connections.timeout = 'late';
  wf.nodes.push({ type: 'agent-directive', id: 'late', directive: 'You were late', completionCondition: 'x', inputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } }, connections: { success: 'short' } });
  const file = join(tempDir(), 'deadline.json');
  writeFileSync(file, JSON.stringify(wf));
  const store = tempDir();
  const s = await cli(['start', file, '--json'], { store });
  await new Promise((r) => setTimeout(r, 400));
  const r = await cli(['step', s.json.runId, '--seq', '1', '--response', '{"words":3}', '--json'], { store });
  assert.is(r.code, 5, r.stderr);
  assert.is(r.json.pending.nodeId, 'late');
  assert.is(r.json.late.code, 'E_TIMEOUT');
  assert.match(r.json.late.errors[0], 'was not applied');
  assert.match(r.stderr, /countersign: E_TIMEOUT: the answer came after node "write"'s deadline/);
  // r80 c3: when the timeout route leads to an end the run is completed: 0, as the table gives a completed run, with late in the output and E_TIMEOUT on stderr.
  const ended = JSON.parse(readFileSync(WF, 'utf8'));
  ended.nodes[1].timeoutMs = 300;
  ended.nodes[1].connections.timeout = ended.nodes.find((n: { type: string }) => n.type === 'end').id;
  const endFile = join(tempDir(), 'deadline-end.json');
  writeFileSync(endFile, JSON.stringify(ended));
  const e = await cli(['start', endFile, '--json'], { store });
  await new Promise((res) => setTimeout(res, 400));
  const late = await cli(['step', e.json.runId, '--seq', '1', '--response', '{"words":3}', '--json'], { store });
  assert.is(late.code, 0, late.stderr);
  assert.match(late.stderr, 'countersign: E_TIMEOUT');
  assert.equal([late.json.status, late.json.late.code], ['completed', 'E_TIMEOUT']);
  // The same when a status fired the deadline first: never "replayed" (that means an answer already taken).
  const f = await cli(['start', endFile, '--json'], { store });
  await new Promise((res) => setTimeout(res, 400));
  await cli(['status', f.json.runId, '--json'], { store });
  const after = await cli(['step', f.json.runId, '--seq', '1', '--response', '{"words":3}', '--json'], { store });
  assert.is(after.code, 0, after.stderr);
  assert.is(after.json.replayed, undefined);
  assert.is(after.json.late.code, 'E_TIMEOUT');
  assert.match(after.stderr, 'E_TIMEOUT');
});

S('start or run that fails before any run is stored (a mistyped or invalid workflow, a missing script) leaves no store behind; an existing store is kept', async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'invalid.json'), '{"nodes": []}');
  for (const args of [['start', 'typo.json'], ['start', 'invalid.json'], ['run', 'typo.json', '--agent', 'scripted:x.yaml'], ['run', WF, '--agent', 'scripted:missing.yaml']]) {
    const r = await cli([...args, '--json'], { cwd });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.not.ok(existsSync(join(cwd, '.countersign')), `${args.join(' ')} left a store behind`);
  }
  const store = tempDir();
  assert.is((await cli(['start', WF], { store })).code, 0);
  assert.is((await cli(['start', join(cwd, 'typo.json')], { store })).code, 2);
  assert.ok(existsSync(join(store, 'countersign.db')), 'a store in use is never removed');
  assert.is((await cli(['runs', '--json'], { store })).json.runs.length, 1);
});

S('r78: a store whose database this user may only read is E_STORE at open, for reads too, saying so and how to fix it (never opened read-only to fail later)', async () => {
  const { chmodSync, chownSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  // Right under /tmp, which any user may traverse (the suite's own scratch folder is this user's alone).
  const store = mkdtempSync(join(existsSync('/tmp') ? '/tmp' : ROOT, 'countersign-readonly-'));
  await cli(['start', 'spec/fixtures/cli/two-step.json', '--store', store]);
  const db = join(store, 'countersign.db');
  chmodSync(db, 0o444);
  // Root may write any file: the command runs as another user then (setpriv), else as this one.
  const asRoot = process.getuid?.() === 0;
  // As root, the check needs another user who can reach the launcher: a checkout under a private folder (mktemp -d) has none.
  const { accessSync, constants } = await import('node:fs');
  if (asRoot && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'test', '-r', join(ROOT, 'engine/cli/countersign.mjs')]).status !== 0) {
    accessSync(db, constants.R_OK);
    console.log('  (skipped the other-user run: the checkout is not readable by another user)');
    rmSync(store, { recursive: true, force: true });
    return;
  }
  if (asRoot) for (const f of [store, db]) chownSync(f, 65534, 65534);
  const launcher = join(ROOT, 'engine/cli/countersign.mjs');
  const command = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, launcher] : [process.execPath, launcher];
  const r = spawnSync(command[0], [...command.slice(1), 'runs', '--store', store, '--json'], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, COUNTERSIGN_CACHE: tempDir(), TMPDIR: '/tmp' } });
  assert.is(r.status, 2, r.stderr);
  const error = JSON.parse(r.stdout).error;
  assert.is(error.code, 'E_STORE', JSON.stringify(error));
  assert.match(error.message, 'this user may read the file but not write it');
  assert.match(error.fix, `give this user write access to ${db}`);
  rmSync(store, { recursive: true, force: true });
});

S('start or run refusing the start input (an undeclared variable, a value of the wrong type) creates no store, as README says', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'answers.json'), JSON.stringify({ write: [{ words: 5 }] }));
  const cases: Array<[string[], string]> = [
    [['start', WF, '--input', '{"nope":1}'], 'nope'],
    [['start', WF, '--input', '{"topic":5}'], 'topic'],
    [['run', WF, '--agent', 'scripted:answers.json', '--input', '{"nope":1}'], 'nope'],
  ];
  for (const [i, [args, named]] of cases.entries()) {
    const store = join(dir, `mistyped-${i}`);
    const r = await cli([...args, '--store', store], { cwd: dir });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, 'E_INPUT');
    assert.match(r.stderr, named);
    assert.not.ok(existsSync(store), `${args.join(' ')} left ${store} behind`);
  }
  // The default store, too: nothing under the working directory.
  const r = await cli(['start', WF, '--input', '{"nope":1}'], { cwd: dir, env: {} });
  assert.is(r.code, 2);
  assert.not.ok(existsSync(join(dir, '.countersign')), 'the default store was created');
});

S.run();
