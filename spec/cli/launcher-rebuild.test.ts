/**
 * The `countersign` launcher always runs the current source: after an edit
 * to a source file or to a bundled dependency, the next command rebuilds
 * the bundle (and the library) and behaves as edited; when no bundle can be
 * built, it says so and runs the source through tsx. Each test works on a
 * copy of the package, so the repository's own bundle is never touched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { copyOfPackage } from '../helpers/package-copy.js';

const Rebuild = suite('launcher: rebuilds and fallback');

function countersign(pkg: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [join(pkg, 'engine/cli/countersign.mjs'), ...args], { cwd: pkg, encoding: 'utf8', timeout: 120_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A workflow whose end node shows what json-logic-js answers for 1 == 1. */
function logicWorkflow(pkg: string): string {
  const workflow = join(pkg, 'logic.json');
  writeFileSync(
    workflow,
    JSON.stringify({
      metadata: { name: 'logic', version: '1.0.0', description: 'a JSON Logic condition' },
      nodes: [
        { type: 'start', id: 'start', connections: { default: 'same' } },
        { type: 'condition', id: 'same', condition: { jsonLogic: { '==': [1, 1] } }, connections: { true: 'yes', false: 'no' } },
        { type: 'end', id: 'yes' },
        { type: 'end', id: 'no' },
      ],
    }),
  );
  return workflow;
}

const bundleDirs = (pkg: string) => readdirSync(join(pkg, 'dist')).filter((n) => n.startsWith('cli-'));

Rebuild('an edited source takes effect on the next command: the launcher rebuilds the bundle, and the library with it', () => {
  const pkg = copyOfPackage();
  const first = countersign(pkg, ['--version']);
  assert.is(first.code, 0, first.stderr);
  const version = first.stdout.trim();
  const built = bundleDirs(pkg);
  assert.is(countersign(pkg, ['--version']).stdout.trim(), version);
  assert.equal(bundleDirs(pkg), built, 'nothing changed: no rebuild, the same bundle');
  const help = join(pkg, 'engine/cli/help.ts');
  writeFileSync(help, readFileSync(help, 'utf8').replace('export const VERSION: string = pkg.version;', "export const VERSION: string = `${pkg.version}-edited`;"));
  const edited = countersign(pkg, ['--version']);
  assert.is(edited.code, 0, edited.stderr);
  assert.is(edited.stdout.trim(), `${version}-edited`);
  assert.is(edited.stderr, '', 'a rebuild is silent');
  assert.ok(bundleDirs(pkg).some((d) => !built.includes(d)), 'a new bundle folder');
  assert.ok(statSync(join(pkg, 'dist/index.mjs')).mtimeMs >= statSync(help).mtimeMs, 'the library was rebuilt after the edit');
});

Rebuild('a bundled dependency changed in node_modules (not through npm) makes the next command rebuild and use it', () => {
  const pkg = copyOfPackage({ copied: ['json-logic-js'] });
  const workflow = logicWorkflow(pkg);
  const store = join(pkg, 'store');
  const before = countersign(pkg, ['start', workflow, '--store', store, '--json']);
  assert.is(before.code, 0, before.stderr);
  assert.is(JSON.parse(before.stdout).endNodeId, 'yes');
  const logic = join(pkg, 'node_modules/json-logic-js/logic.js');
  const source = readFileSync(logic, 'utf8');
  assert.ok(source.includes('return a == b;'));
  writeFileSync(logic, source.replace('return a == b;', 'return false;'));
  const after = countersign(pkg, ['start', workflow, '--store', store, '--json']);
  assert.is(after.code, 0, after.stderr);
  assert.is(JSON.parse(after.stdout).endNodeId, 'no', 'the patched dependency is the one that ran');
});

Rebuild('without esbuild (a damaged install; tsx needs it too) a command is E_INSTALL with the fix, one JSON document under --json', () => {
  const pkg = copyOfPackage({ left: ['esbuild', '@esbuild'] });
  const r = countersign(pkg, ['status', 'no-such-run', '--store', join(pkg, 'store'), '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL');
  assert.match(error.message, /esbuild/);
  assert.match(error.fix, /run `npm ci`/);
});

Rebuild('when the bundle cannot be written (a read-only install) the command runs from the source through tsx, and says so on stderr with the fix', () => {
  const pkg = copyOfPackage();
  writeFileSync(join(pkg, 'dist'), 'not a folder');
  const r = countersign(pkg, ['status', 'no-such-run', '--store', join(pkg, 'store'), '--json']);
  assert.is(r.code, 2, r.stderr);
  assert.is(JSON.parse(r.stdout).error.code, 'E_RUN_NOT_FOUND', 'the command ran: stdout holds only its result');
  assert.match(r.stderr, /^countersign: warning: cannot build the CLI bundle \(.*\); running the TypeScript source through tsx, which is slower\. Fix: run `npm run build` in .* as a user who may write its dist\/ folder\.\n/);
});

Rebuild('r80: when tsx, run instead of an unwritable bundle, cannot write its own cache (TMPDIR) it is E_INSTALL naming the folder and the fix, never E_BUILD telling the user to correct the source', () => {
  const pkg = copyOfPackage();
  writeFileSync(join(pkg, 'dist'), 'not a folder');
  writeFileSync(join(pkg, 'tmp-is-a-file'), '');
  const r = countersign(pkg, ['status', 'no-such-run', '--store', join(pkg, 'store'), '--json'], { ...process.env, TMPDIR: join(pkg, 'tmp-is-a-file') });
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL', JSON.stringify(error));
  assert.match(error.message, 'the source cannot be run through tsx');
  assert.match(error.fix, 'point TMPDIR at a folder this user may write');
});

Rebuild('a source that compiles but throws as it loads is E_BUILD naming its file and line, and commands do not rebuild over and over', () => {
  const pkg = copyOfPackage();
  assert.is(countersign(pkg, ['--version']).code, 0);
  const help = join(pkg, 'engine/cli/help.ts');
  writeFileSync(help, `throw new Error('help is broken');\n${readFileSync(help, 'utf8')}`);
  const first = countersign(pkg, ['status', 'x', '--json']);
  assert.is(first.code, 2, first.stderr);
  const { error } = JSON.parse(first.stdout);
  assert.is(error.code, 'E_BUILD');
  assert.match(error.message, /^the countersign source does not load: help is broken \(at engine\/cli\/help\.ts:1:\d+\)$/);
  const built = bundleDirs(pkg);
  assert.is(countersign(pkg, ['status', 'x', '--json']).code, 2);
  assert.equal(bundleDirs(pkg), built, 'the broken bundle is not rebuilt on every command');
});

Rebuild('a bundle damaged on disk (cut short) is built again by the next command, silently, and used from then on: no slow fallback on every command', () => {
  const pkg = copyOfPackage();
  assert.is(countersign(pkg, ['--version']).code, 0);
  const [damaged] = bundleDirs(pkg);
  const main = join(pkg, 'dist', damaged, 'main.cjs');
  writeFileSync(main, readFileSync(main, 'latin1').slice(0, 500_000), 'latin1');
  const first = countersign(pkg, ['runs', '--json']);
  assert.is(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout), { runs: [] });
  assert.is(first.stderr, '', 'no warning: the bundle was rebuilt, not bypassed');
  const rebuilt = bundleDirs(pkg).filter((d) => d !== damaged);
  assert.is(rebuilt.length, 1, 'one new bundle folder');
  const pointer = JSON.parse(readFileSync(join(pkg, 'dist/cli.json'), 'utf8')) as { dir: string };
  assert.is(pointer.dir, rebuilt[0]);
  assert.is(countersign(pkg, ['runs', '--json']).stderr, '');
  assert.equal(bundleDirs(pkg).filter((d) => d !== damaged), rebuilt, 'no further rebuild');
});

Rebuild('npm\'s prepare (the build script) without esbuild warns and succeeds, so a damaged install still completes; run through a link, it builds as well', () => {
  const pkg = copyOfPackage({ left: ['esbuild', '@esbuild'] });
  const r = spawnSync(process.execPath, [join(pkg, 'engine/cli/build.mjs')], { cwd: pkg, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /^countersign: warning: esbuild is not installed, so no CLI bundle was built; the countersign command will fail with E_INSTALL until it is\. Fix: run `npm ci`/);
  const linked = join(tempDir(), 'linked');
  const pkg2 = copyOfPackage();
  symlinkSync(pkg2, linked);
  const viaLink = spawnSync(process.execPath, [join(linked, 'engine/cli/build.mjs')], { cwd: linked, encoding: 'utf8', timeout: 120_000 });
  assert.is(viaLink.status, 0, viaLink.stderr);
  assert.is(bundleDirs(pkg2).length, 1, 'a bundle was built');
});

Rebuild('a dependency whose node_modules link is pointed at another copy makes the next command rebuild and use it', () => {
  const pkg = copyOfPackage();
  const workflow = logicWorkflow(pkg);
  const store = join(pkg, 'store');
  assert.is(JSON.parse(countersign(pkg, ['start', workflow, '--store', store, '--json']).stdout).endNodeId, 'yes');
  const patched = join(tempDir(), 'json-logic-js');
  cpSync(join(ROOT, 'node_modules/json-logic-js'), patched, { recursive: true });
  writeFileSync(join(patched, 'logic.js'), readFileSync(join(patched, 'logic.js'), 'utf8').replace('return a == b;', 'return false;'));
  const link = join(pkg, 'node_modules/json-logic-js');
  rmSync(link);
  symlinkSync(patched, link);
  const after = countersign(pkg, ['start', workflow, '--store', store, '--json']);
  assert.is(after.code, 0, after.stderr);
  assert.is(JSON.parse(after.stdout).endNodeId, 'no', 'the package the link now names is the one that ran');
});

Rebuild('with neither a bundler nor tsx (a broken install) a command fails as E_INSTALL with its fix: one JSON document under --json, exit 2', () => {
  const pkg = copyOfPackage({ left: ['esbuild', '@esbuild', 'tsx'] });
  const r = countersign(pkg, ['status', 'no-such-run', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL');
  assert.match(error.message, /esbuild/);
  assert.match(error.fix, /run `npm ci`/);
  assert.match(r.stderr, /^countersign: E_INSTALL: /);
  const plain = countersign(pkg, ['status', 'no-such-run']);
  assert.is(plain.code, 2);
  assert.is(plain.stdout, '');
  assert.match(plain.stderr, /countersign: E_INSTALL: .*\n  fix: reinstall the dependencies/);
});

Rebuild('three launchers that find the bundle stale at the same moment all run, and every build goes to a folder of its own (named by its process), each complete', async () => {
  const pkg = copyOfPackage();
  const runs = await Promise.all(
    [1, 2, 3].map(
      () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const c = spawn(process.execPath, [join(pkg, 'engine/cli/countersign.mjs'), 'help', 'status'], { cwd: pkg });
          let out = '';
          let err = '';
          c.stdout.on('data', (d) => (out += d));
          c.stderr.on('data', (d) => (err += d));
          c.on('exit', (code) => resolve({ code, out, err }));
        }),
    ),
  );
  for (const r of runs) {
    assert.is(r.code, 0, r.err);
    assert.match(r.out, /^countersign status <runId>/);
  }
  const built = bundleDirs(pkg);
  // How many built depends on how the three overlapped; whatever built, built apart: one folder per building process.
  assert.ok(built.length >= 1 && built.length <= 3, built.join(', '));
  const builders = built.map((d) => /^cli-[0-9a-z]+-(\d+)$/.exec(d)?.[1]);
  assert.ok(builders.every((pid) => pid !== undefined), `folders are named by their builder: ${built.join(', ')}`);
  assert.is(new Set(builders).size, built.length, 'no two builds shared a folder');
  const pointer = JSON.parse(readFileSync(join(pkg, 'dist/cli.json'), 'utf8')) as { dir: string };
  assert.ok(built.includes(pointer.dir), 'the current bundle is one of them');
  for (const dir of built) assert.ok(existsSync(join(pkg, 'dist', dir, 'main.cjs')), `${dir} is complete`);
});

Rebuild('a source edited into a syntax error is E_BUILD naming file:line:col (not a broken install), one JSON document under --json, exit 2', () => {
  const pkg = copyOfPackage();
  const help = join(pkg, 'engine/cli/help.ts');
  writeFileSync(help, `${readFileSync(help, 'utf8')}\nexport const broken = (;\n`);
  const r = countersign(pkg, ['status', 'x', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_BUILD');
  assert.match(error.message, /^the countersign source does not compile: engine\/cli\/help\.ts:\d+:\d+: /);
  assert.match(error.fix, /correct the source there/);
  assert.not.match(r.stderr, /warning|tsx/, 'no fallback that would fail the same way');
});

Rebuild('a command whose module fails to load is reported as countersign: E_INTERNAL (a JSON document under --json) with a stack naming the source file and line, exit 2, not a crash', () => {
  const pkg = copyOfPackage();
  const graph = join(pkg, 'engine/cli/commands/graph.ts');
  writeFileSync(graph, `throw new Error('graph module is broken');\n${readFileSync(graph, 'utf8')}`);
  const r = countersign(pkg, ['graph', 'x.json', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INTERNAL');
  assert.match(error.message, /graph module is broken/);
  // The stack names the TypeScript source (through the bundle's source map), not a column of main.cjs.
  assert.match(error.message, /engine\/cli\/commands\/graph\.ts:1:7/);
  assert.match(r.stderr, /^countersign: E_INTERNAL: /m);
  const help = countersign(pkg, ['help', 'graph']);
  assert.is(help.code, 2);
  assert.match(help.stderr, /countersign: E_INTERNAL: .*graph module is broken/);
});

Rebuild('a dependency damaged in node_modules (a syntax error there) is E_INSTALL with npm ci, not a source edit to undo', () => {
  const pkg = copyOfPackage({ copied: ['json-logic-js'] });
  const logic = join(pkg, 'node_modules/json-logic-js/logic.js');
  writeFileSync(logic, `${readFileSync(logic, 'utf8')}\nconst broken = (;\n`);
  const r = countersign(pkg, ['status', 'x', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL');
  assert.match(error.message, /^a dependency is missing or damaged: node_modules\/json-logic-js\/logic\.js:\d+:\d+: /);
  assert.match(error.fix, /npm ci/);
});

Rebuild('a source importing a file of its own that does not exist (a typo, a deleted module) is E_BUILD naming the import, not E_INSTALL: reinstalling cannot fix it; a missing package is E_INSTALL', () => {
  const pkg = copyOfPackage();
  const help = join(pkg, 'engine/cli/help.ts');
  const original = readFileSync(help, 'utf8');
  writeFileSync(help, `import { x } from './no-such-helper.js';\nvoid x;\n${original}`);
  const r = countersign(pkg, ['--version', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_BUILD');
  assert.match(error.message, /engine\/cli\/help\.ts:1:\d+: Could not resolve "\.\/no-such-helper\.js"/);
  assert.match(error.fix, /correct the source there/);
  // A package the project does not depend on is a typo in the source, not a missing install.
  writeFileSync(help, `import { x } from 'yamll';\nvoid x;\n${original}`);
  const typo = JSON.parse(countersign(pkg, ['--version', '--json']).stdout).error;
  assert.is(typo.code, 'E_BUILD');
  assert.match(typo.message, /Could not resolve "yamll"/);
});

Rebuild('a package the project depends on but the install lacks is E_INSTALL with npm ci', () => {
  const pkg = copyOfPackage({ left: ['json-logic-js'] });
  const r = countersign(pkg, ['--version', '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL');
  assert.match(error.message, /Could not resolve "json-logic-js"/);
  assert.match(error.fix, /npm ci/);
});

Rebuild('a source that fails to load on a missing file of its own (ENOENT, not a swept bundle) is E_BUILD, and commands do not rebuild over and over', () => {
  const pkg = copyOfPackage();
  const help = join(pkg, 'engine/cli/help.ts');
  writeFileSync(help, `import { readFileSync as gone } from 'node:fs';\ngone('/no/such/countersign/file');\n${readFileSync(help, 'utf8')}`);
  const first = countersign(pkg, ['status', 'x', '--json']);
  assert.is(first.code, 2, first.stderr);
  const { error } = JSON.parse(first.stdout);
  assert.is(error.code, 'E_BUILD');
  assert.match(error.message, /ENOENT.*\/no\/such\/countersign\/file/);
  const built = bundleDirs(pkg);
  assert.is(countersign(pkg, ['status', 'x', '--json']).code, 2);
  assert.equal(bundleDirs(pkg), built, 'no new bundle folder per command');
});

Rebuild('a SQLite addon that is missing (or built for another Node) is E_INSTALL with the rebuild fix, not a store fault', () => {
  const pkg = copyOfPackage({ copied: ['better-sqlite3'] });
  rmSync(join(pkg, 'node_modules/better-sqlite3/build'), { recursive: true, force: true });
  const r = countersign(pkg, ['start', join(ROOT, 'spec/fixtures/cli/two-step.json'), '--store', join(pkg, 'store'), '--json']);
  assert.is(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.is(error.code, 'E_INSTALL');
  assert.match(error.message, /^the SQLite addon \(better-sqlite3\) cannot be loaded: /);
  assert.match(error.fix, /npm rebuild better-sqlite3/);
});

Rebuild.run();
