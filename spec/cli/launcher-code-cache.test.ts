/**
 * The launcher runs the CLI bundle with a V8 code cache per command
 * (engine/cli/code-cache.cjs). A cache only ever makes a command start
 * faster: a damaged one is replaced, one that cannot be written is not
 * kept, and a command's result is the same with or without it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnCli, tempDir } from '../helpers/cli.js';
import { shoutProject } from '../fixtures/shout-module.js';
// @ts-expect-error: build.mjs is plain JavaScript without type declarations
import { build, freshBundle } from '../../engine/cli/build.mjs';

const { cacheFile: cacheFileOf, loadBundle } = createRequire(import.meta.url)('../../engine/cli/code-cache.cjs') as {
  cacheFile: (entry: string, command: string | undefined, source: Buffer) => string;
  loadBundle: (entry: string, argv: string[], importer: (url: string) => Promise<unknown>) => { main: (argv: string[]) => Promise<number> };
};
/** The cache file the launcher uses for `command` with the bundle at `bundle` as it is now. */
const cacheFile = (bundle: string, command: string) => cacheFileOf(bundle, command, readFileSync(bundle));

const Cache = suite('launcher: code cache');

let entry = '';
const caches = () => readdirSync(dirname(entry)).filter((n) => n.endsWith('.v8cache') || n.endsWith('.tmp'));
Cache.before(async () => {
  entry = freshBundle() ?? (await build());
});

/** Runs `countersign status <unknown> --json` (a known command, exit 2) with no cache for `status` to start from. */
const store = tempDir();
function statusRun() {
  return spawnCli(['status', 'no-such-run', '--json'], { env: { COUNTERSIGN_STORE: store } });
}

Cache('a command writes its own cache on its first run and starts from it later (V8 accepts it: the file is not rewritten)', () => {
  const file = cacheFile(entry, 'status');
  rmSync(file, { force: true });
  const first = statusRun();
  assert.is(first.code, 2, first.stderr);
  assert.is(JSON.parse(first.stdout).error.code, 'E_RUN_NOT_FOUND');
  assert.ok(existsSync(file), 'written after the first run');
  const { ino, mtimeMs } = statSync(file);
  const second = statusRun();
  assert.is(second.code, 2);
  assert.is(second.stdout, first.stdout, 'the same result from the cached code');
  assert.is(second.stderr, first.stderr);
  assert.is(statSync(file).ino, ino, 'an accepted cache is kept as it is');
  assert.is(statSync(file).mtimeMs, mtimeMs);
});

Cache('a mistyped command or none at all leaves no cache file', () => {
  const before = caches();
  const r = spawnCli(['stauts', 'x']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /unknown command "stauts"/);
  assert.is(spawnCli(['--version']).code, 0);
  assert.equal(caches(), before);
});

Cache('a damaged cache is never handed to V8 (which trusts all but its header): it is replaced, and the command runs as it would without it', () => {
  const file = cacheFile(entry, 'status');
  rmSync(file, { force: true });
  const clean = statusRun();
  const intact = readFileSync(file);
  assert.ok(createHash('sha256').update(intact.subarray(32)).digest().equals(intact.subarray(0, 32)), 'the file starts with the sha256 of its payload');
  // Bytes flipped well past V8's header, as a bad disk block would: V8 alone would crash on it (SIGSEGV).
  const damaged = Buffer.from(intact);
  for (let i = 0; i < 20; i++) damaged[32 + 64 + Math.floor(((damaged.length - 96) * (i + 1)) / 21)] ^= 0xa5;
  for (const bytes of [damaged, Buffer.from('not a V8 code cache')]) {
    writeFileSync(file, bytes);
    const r = statusRun();
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stdout, clean.stdout);
    assert.is(r.stderr, clean.stderr, 'no warning: a cache is only a speed-up');
    const now = readFileSync(file);
    assert.not.ok(now.equals(bytes), 'replaced');
    assert.ok(createHash('sha256').update(now.subarray(32)).digest().equals(now.subarray(0, 32)), 'by an intact cache');
  }
});

Cache('a cache that cannot be written is not kept, and the command\'s result and exit status are unchanged (no temp file left)', () => {
  const file = cacheFile(entry, 'status');
  rmSync(file, { force: true });
  const clean = statusRun();
  rmSync(file, { force: true });
  mkdirSync(file); // the rename onto it fails, as on a read-only install
  try {
    const r = statusRun();
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stdout, clean.stdout);
    assert.is(r.stderr, clean.stderr);
    assert.equal(caches().filter((n) => n.endsWith('.tmp')), [], 'the temp file is removed');
  } finally {
    rmSync(file, { recursive: true, force: true });
  }
});

Cache('a bundle file replaced by another text never meets the cache of its former text (V8 itself compares only the length)', () => {
  const dir = tempDir();
  const file = join(dir, 'main.cjs');
  writeFileSync(file, 'module.exports = 1;');
  const first = cacheFile(file, 'step');
  assert.is(cacheFile(file, 'step'), first, 'the same text: the same cache');
  // The same length, and rewritten in place (same inode, possibly the same ctime tick): only the text tells them apart.
  writeFileSync(file, 'module.exports = 2;');
  assert.is.not(cacheFile(file, 'step'), first, 'another text: another cache');
  writeFileSync(file, 'module.exports = 1;');
  assert.is(cacheFile(file, 'step'), first, 'the first text again: its cache again');
  assert.is.not(cacheFile(file, 'status'), cacheFile(file, 'step'), 'one cache per command');
});

Cache('a workflow\'s tool modules load from the cached bundle too (import() comes from the launcher)', () => {
  const { file: workflow } = shoutProject('countersign-cache-modules-');
  const store = tempDir();
  for (const pass of ['first run (writes the cache)', 'second run (from the cache)']) {
    const r = spawnCli(['start', workflow, '--allow-tool-modules', '--json'], { env: { COUNTERSIGN_STORE: store } });
    assert.is(r.code, 0, `${pass}: ${r.stderr}`);
    const run = JSON.parse(r.stdout);
    assert.is(run.status, 'completed', pass);
    assert.equal(run.output, { 'shout.result': { loud: 'HI' } }, pass);
  }
  assert.ok(existsSync(cacheFile(entry, 'start')));
});

Cache('the bundle is ASCII (read as latin1, the fast way), and a bundle holding other characters is read as UTF-8, so its text means what it says', async () => {
  assert.ok(isAscii(readFileSync(entry)), 'the build keeps the CLI bundle ASCII');
  const dir = tempDir();
  const file = join(dir, 'main.cjs');
  // A regular expression literal with characters outside ASCII, as esbuild leaves them.
  writeFileSync(file, "exports.useModuleImporter = () => {}; exports.knownCommand = () => false; exports.main = async () => (/^[\u2713✓]$/u.test('✓') && '✓–'.length === 2 ? 7 : 3);\n", 'utf8');
  const { main } = loadBundle(file, ['x'], (url) => import(url));
  assert.is(await main(['x']), 7);
});

Cache.run();
