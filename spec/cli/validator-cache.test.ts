/**
 * The CLI keeps compiled answer validators in a per-user cache, so a later
 * `countersign step` loads the validator instead of loading ajv and
 * compiling it. The cache only saves time: what it holds is code, so only
 * files this user owns and nobody else can write are run, and a damaged
 * or missing entry is compiled again with the same verdict.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { cli, spawnCli, tempDir } from '../helpers/cli.js';
import { cacheDir, cacheLocation } from '../../engine/cli/validator-cache.js';
import { RUN_COMPILER } from '../../engine/nodes/answer-schema.js';
import { validatorCacheKey } from '../../engine/nodes/validator-cache.js';
import { answerValidator, useValidatorCache } from '../../engine/nodes/answer-schema.js';
import { diskValidatorCache } from '../../engine/cli/validator-cache.js';

const Cache = suite('the CLI validator cache');
const WORKFLOW = 'spec/fixtures/cli/two-step.json';

/**
 * A store and a cache of their own; returns a function that runs `start`
 * and `step` as processes of their own, as a user does, so every step
 * starts with nothing compiled in memory.
 */
function setup() {
  const store = tempDir('countersign-vc-store-');
  const cache = tempDir('countersign-vc-');
  const env = { COUNTERSIGN_CACHE: cache, COUNTERSIGN_STORE: store };
  const step = async (answer: unknown) => {
    const started = spawnCli(['start', WORKFLOW, '--json'], { env });
    const r = spawnCli(['step', JSON.parse(started.stdout).runId, '--response', JSON.stringify(answer), '--json'], { env });
    return { code: r.code, json: JSON.parse(r.stdout) };
  };
  const files = () => (existsSync(join(cache, 'validators')) ? readdirSync(join(cache, 'validators')).filter((f) => f.endsWith('.cjs')) : []);
  return { cache, env, step, files };
}

/** The cached validator of the `write` node's schema (the one that requires `words`). */
function wordsEntry(cache: string, files: string[]): string {
  const name = files.find((f) => readFileSync(join(cache, 'validators', f), 'utf8').includes('"words"'));
  assert.ok(name, `no cached validator for the write node among ${files.join(', ')}`);
  return join(cache, 'validators', name!);
}

Cache('a step stores its validator once; later steps give the same verdicts and errors (the next test shows that the stored one is what judges)', async () => {
  const { cache, step, files } = setup();
  const first = await step({ words: 0 });
  assert.is(first.code, 5);
  const entry = wordsEntry(cache, files());
  const source = readFileSync(entry, 'utf8');
  assert.match(source, /module\.exports = validate/);
  const second = await step({ words: 0 });
  assert.is(second.code, 5);
  assert.equal(second.json.rejected, first.json.rejected);
  assert.equal(second.json.pending.errors, first.json.pending.errors);
  assert.is((await step({ words: 7 })).json.status, 'completed');
  assert.is(readFileSync(entry, 'utf8'), source, 'a hit does not rewrite the entry');
});

Cache('a cached validator is what judges the answer (an entry that accepts nothing rejects a good answer)', async () => {
  const { cache, step, files } = setup();
  await step({ words: 3 });
  const entry = wordsEntry(cache, files());
  // Stands in for a stale entry: the cache is trusted as the user's own compiled code.
  writeFileSync(entry, 'module.exports = function v(d) { v.errors = [{ instancePath: "", keyword: "x", params: {}, message: "cached" }]; return false; };', { mode: 0o600 });
  const judged = await step({ words: 3 });
  assert.is(judged.code, 5);
  assert.match(judged.json.pending.errors.join('\n'), /cached/);
});

Cache('an entry others could have written, or one that does not load, is ignored: the validator is compiled again', async () => {
  const { cache, step, files } = setup();
  await step({ words: 3 });
  const entry = wordsEntry(cache, files());
  writeFileSync(entry, 'module.exports = function v() { return true; };');
  chmodSync(entry, 0o666);
  // World-writable: not run, so a bad answer is still refused.
  assert.is((await step({ words: -1 })).code, 5);
  writeFileSync(entry, 'this is not javascript {', { mode: 0o600 });
  chmodSync(entry, 0o600);
  assert.is((await step({ words: -1 })).code, 5);
  assert.is((await step({ words: 2 })).json.status, 'completed');
});

Cache('an entry that is a link, or a cache folder others can write, is not run', async () => {
  const { cache, step, files } = setup();
  await step({ words: 3 });
  const entry = wordsEntry(cache, files());
  // A link to a file this user owns (any file: a cloned repository's, say) that accepts everything.
  const target = join(cache, 'accept-all.cjs');
  writeFileSync(target, 'module.exports = function v() { return true; };', { mode: 0o600 });
  renameSync(entry, `${entry}.real`);
  symlinkSync(target, entry);
  assert.is((await step({ words: -1 })).code, 5, 'the linked file was run');
  // The real entry back, but in a folder others can write: another user could have swapped it.
  renameSync(`${entry}.real`, `${entry}.new`);
  renameSync(`${entry}.new`, entry);
  writeFileSync(entry, 'module.exports = function v() { return true; };', { mode: 0o600 });
  chmodSync(join(cache, 'validators'), 0o777);
  assert.is((await step({ words: -1 })).code, 5, 'an entry in a world-writable folder was run');
  chmodSync(join(cache, 'validators'), 0o700);
  assert.is((await step({ words: -1 })).code, 0, 'the same entry in the user\'s own folder is run (this is how the cases above would fail)');
});

Cache('off (any case, or false/0/no) writes nothing anywhere; the default is $XDG_CACHE_HOME/countersign, else ~/.cache/countersign', () => {
  const home = tempDir('countersign-vc-home-');
  const cwd = tempDir('countersign-vc-cwd-');
  for (const off of ['off', 'OFF', 'false', '0', 'no']) {
    const env = { COUNTERSIGN_CACHE: off, HOME: home, XDG_CACHE_HOME: '', COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
    const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env, cwd });
    const stepped = spawnCli(['step', JSON.parse(started.stdout).runId, '--response', '{"words":1}', '--json'], { env, cwd });
    assert.is(JSON.parse(stepped.stdout).status, 'completed', off);
    assert.not.match(started.stderr + stepped.stderr, /warning/, `"${off}" is read as off, not as a path`);
  }
  assert.equal(readdirSync(home), [], 'nothing under HOME');
  assert.equal(readdirSync(cwd), [], 'no folder named after the value in the working directory');
  // Unset: the user's ~/.cache/countersign.
  const env = { COUNTERSIGN_CACHE: '', HOME: home, XDG_CACHE_HOME: '', COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
  const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env, cwd });
  spawnCli(['step', JSON.parse(started.stdout).runId, '--response', '{"words":1}', '--json'], { env, cwd });
  assert.ok(readdirSync(join(home, '.cache', 'countersign', 'validators')).some((f) => f.endsWith('.cjs')));
  assert.is(cacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/countersign');
  assert.is(cacheDir({ COUNTERSIGN_CACHE: '/y/c', XDG_CACHE_HOME: '/x/cache' }), '/y/c');
});

Cache('an entry that is a named pipe is refused without waiting for a writer (the step does not hang)', async () => {
  const { cache, step, files } = setup();
  await step({ words: 3 });
  const entry = wordsEntry(cache, files());
  renameSync(entry, `${entry}.gone`);
  execFileSync('mkfifo', ['-m', '600', entry]);
  const t = Date.now();
  assert.is((await step({ words: -1 })).code, 5);
  assert.ok(Date.now() - t < 30_000);
});

Cache('without a usable home (HOME empty or relative) there is no cache, and commands work as before', () => {
  const cwd = tempDir('countersign-vc-cwd-');
  for (const home of ['', 'relative-home']) {
    const env = { COUNTERSIGN_CACHE: '', XDG_CACHE_HOME: '', HOME: home, COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
    const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env, cwd });
    assert.is(started.code, 0, started.stderr);
    const stepped = spawnCli(['step', JSON.parse(started.stdout).runId, '--response', '{"words":1}', '--json'], { env, cwd });
    assert.is(JSON.parse(stepped.stdout).status, 'completed');
  }
  assert.equal(readdirSync(cwd), [], 'nothing written into the working directory');
});

Cache('a relative cache path never puts the cache in the project: a relative XDG_CACHE_HOME is ignored (XDG), a relative COUNTERSIGN_CACHE turns the cache off with a warning', () => {
  assert.is(cacheDir({ XDG_CACHE_HOME: '.cache', HOME: '/home/h' }), '/home/h/.cache/countersign');
  assert.match(cacheLocation({ COUNTERSIGN_CACHE: 'cache' }).problem ?? '', /must be an absolute path/);
  const cwd = tempDir('countersign-vc-cwd-');
  const home = tempDir('countersign-vc-home-');
  mkdirSync(join(cwd, '.cache'));
  const env = { COUNTERSIGN_CACHE: 'cache', XDG_CACHE_HOME: '.cache', HOME: home, COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
  // A start input is checked against its registry entry: that compiles a validator, so the cache is used.
  const r = spawnCli(['start', join(process.cwd(), WORKFLOW), '--input', '{"topic":"x"}', '--json'], { env, cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /countersign: warning: COUNTERSIGN_CACHE must be an absolute path, got "cache"; the validator cache is off/);
  assert.equal(readdirSync(cwd), ['.cache']);
  assert.equal(readdirSync(join(cwd, '.cache')), []);
  assert.equal(readdirSync(home), []);
  const xdgOnly = spawnCli(['start', join(process.cwd(), WORKFLOW), '--input', '{"topic":"x"}', '--json'], { env: { ...env, COUNTERSIGN_CACHE: '' }, cwd });
  assert.is(xdgOnly.code, 0, xdgOnly.stderr);
  assert.equal(readdirSync(join(cwd, '.cache')), [], 'a relative XDG_CACHE_HOME is not used');
  assert.ok(existsSync(join(home, '.cache', 'countersign')), 'the default under HOME is used instead');
});

Cache('a schema $id holding "*/" runs nothing, with the cache on or off, and such a schema is never cached', () => {
  const dir = tempDir('countersign-vc-id-');
  const marker = join(dir, 'ran');
  const payload = `x*/require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');/*`;
  const wf = {
    metadata: { name: 'id-comment', version: '1.0.0', description: 'an $id that would end a comment' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Answer.', completionCondition: 'done', inputSchema: { $id: payload, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  };
  const file = join(dir, 'wf.json');
  writeFileSync(file, JSON.stringify(wf));
  for (const cache of [join(dir, 'cache'), 'off']) {
    const env = { COUNTERSIGN_CACHE: cache, COUNTERSIGN_STORE: join(dir, `store-${cache === 'off' ? 'off' : 'on'}`) };
    for (const answer of ['{"n":"no"}', '{"n":1}']) {
      const started = spawnCli(['start', file, '--json'], { env });
      assert.is(started.code, 0, started.stderr);
      const stepped = spawnCli(['step', JSON.parse(started.stdout).runId, '--response', answer, '--json'], { env });
      assert.is(stepped.code, answer === '{"n":1}' ? 0 : 5, stepped.stderr);
    }
  }
  assert.not.ok(existsSync(marker), 'the $id ran as code');
  const cached = existsSync(join(dir, 'cache', 'validators')) ? readdirSync(join(dir, 'cache', 'validators')) : [];
  assert.not.ok(cached.some((f) => readFileSync(join(dir, 'cache', 'validators', f), 'utf8').includes('sourceURL')), 'a schema with an $id was cached');
});

Cache('library: a schema whose validator was cached compiles nothing in a fresh compiler, and validates alike', () => {
  const dir = tempDir('countersign-vc-lib-');
  const schema = { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false };
  try {
    useValidatorCache(diskValidatorCache({ COUNTERSIGN_CACHE: dir }));
    const compiled = answerValidator(structuredClone(schema));
    assert.is(readdirSync(join(dir, 'validators')).length, 1);
    // Another cache object (a new process, as far as the compiler knows) finds the entry.
    useValidatorCache({ read: diskValidatorCache({ COUNTERSIGN_CACHE: dir })!.read, write: () => assert.unreachable('a hit must not write') });
    const loaded = answerValidator(structuredClone(schema));
    assert.is.not(loaded, compiled);
    for (const answer of [{ n: 1 }, { n: 0 }, { n: 2, at: 'yesterday' }, { n: 2, at: '2026-12-03T10:00:00Z' }, { n: 1, extra: true }, {}]) {
      assert.is(loaded(answer), compiled(answer), JSON.stringify(answer));
      assert.equal(loaded.errors ?? null, compiled.errors ?? null, JSON.stringify(answer));
    }
  } finally {
    useValidatorCache(undefined);
  }
});

Cache('the home is the environment\'s HOME (the account\'s only when the environment names none); an empty one means no cache', () => {
  assert.is(cacheDir({ HOME: '/home/someone-else' }), '/home/someone-else/.cache/countersign');
  assert.is(cacheDir({ HOME: '' }), undefined);
  assert.is(cacheDir({ HOME: 'relative' }), undefined);
  assert.is(cacheDir({}), join(userInfo().homedir, '.cache', 'countersign'));
});

Cache('a cache folder others can write (group-writable, as mkdir under umask 002 makes it) is not used, creates nothing, and is named in a warning', () => {
  const cache = tempDir('countersign-vc-gw-');
  chmodSync(cache, 0o775);
  const env = { COUNTERSIGN_CACHE: cache, COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
  assert.match(cacheLocation(env).problem ?? '', /is writable by other users \(mode 775\); the validator cache is off/);
  const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env });
  assert.is(started.code, 0, started.stderr);
  assert.match(started.stderr, new RegExp(`countersign: warning: the validator cache folder ${cache} is writable by other users \\(mode 775\\); the validator cache is off \\(fix: make the folder and the folders it is in yours`));
  const stepped = spawnCli(['step', JSON.parse(started.stdout).runId, '--response', '{"words":1}', '--json'], { env });
  assert.is(JSON.parse(stepped.stdout).status, 'completed');
  assert.equal(readdirSync(cache), [], 'no validators/ folder, no entry');
  chmodSync(cache, 0o700);
  assert.is(cacheLocation(env).problem, undefined, 'usable once only its owner can write it');
});

Cache('a cache path that goes through a file (COUNTERSIGN_CACHE=<file>/sub) is named in a warning, never a cache silently off; the file is left alone', () => {
  const dir = tempDir('countersign-vc-file-');
  const file = join(dir, 'afile');
  writeFileSync(file, 'x');
  const env = { COUNTERSIGN_CACHE: join(file, 'sub'), COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
  assert.match(cacheLocation(env).problem ?? '', new RegExp(`is inside ${file}, which is not a folder; the validator cache is off`));
  const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env });
  assert.is(started.code, 0, started.stderr);
  assert.match(started.stderr, `countersign: warning: the validator cache folder ${join(file, 'sub')} is inside ${file}, which is not a folder`);
  assert.is(readFileSync(file, 'utf8'), 'x');
});

Cache('a validator is stored under how it was compiled (ajv\'s options and formats), so validators compiled under other options are never loaded', () => {
  const compiler = JSON.parse(RUN_COMPILER);
  assert.equal(compiler.options, { allErrors: true, ownProperties: true, verbose: true, logger: false, validateSchema: false });
  assert.equal(compiler.formats, { mode: 'full' });
  const schema = '{"type":"object"}';
  assert.is(validatorCacheKey(schema, RUN_COMPILER), validatorCacheKey(schema, RUN_COMPILER));
  const other = JSON.stringify({ ...compiler, options: { ...compiler.options, allErrors: false } });
  assert.is.not(validatorCacheKey(schema, other), validatorCacheKey(schema, RUN_COMPILER));
});

Cache('a cache reached through a link another user owns, or inside a folder another user owns or may write (not sticky), is refused: code there is not run (needs root to hand files to another user)', async () => {
  if (process.getuid?.() !== 0) return; // only root can give a file to another user
  const nobody = 65534;
  const base = tempDir('countersign-vc-links-');
  chmodSync(base, 0o700);
  const mine = join(base, 'mine');
  mkdirSync(mine, { mode: 0o700 });
  const link = join(base, 'planted');
  symlinkSync(mine, link);
  lchownSync(link, nobody, nobody);
  assert.match(cacheLocation({ COUNTERSIGN_CACHE: link }).problem ?? '', /goes through .*planted, a link another user owns \(uid 65534\)/);
  assert.is(cacheLocation({ COUNTERSIGN_CACHE: mine }).problem, undefined, 'the same folder, named directly');
  const theirs = join(base, 'theirs');
  mkdirSync(theirs, { mode: 0o755 });
  chownSync(theirs, nobody, nobody);
  assert.match(cacheLocation({ COUNTERSIGN_CACHE: join(theirs, 'cache') }).problem ?? '', /is inside .*theirs, which belongs to another user \(uid 65534\)/);
  const open = join(base, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  assert.match(cacheLocation({ COUNTERSIGN_CACHE: join(open, 'cache') }).problem ?? '', /is inside .*open, which other users may write \(mode 777\)/);
  chmodSync(open, 0o1777);
  assert.is(cacheLocation({ COUNTERSIGN_CACHE: join(open, 'cache') }).problem, undefined, 'a sticky folder (like /tmp) is fine: nobody replaces what is not theirs');
  // Through the CLI: a planted validator behind the link is never run.
  const env = { COUNTERSIGN_CACHE: link, COUNTERSIGN_STORE: tempDir('countersign-vc-store-') };
  const started = spawnCli(['start', join(process.cwd(), WORKFLOW), '--json'], { env });
  assert.match(started.stderr, /a link another user owns/);
  assert.equal(readdirSync(mine), [], 'nothing written behind the link');
});

Cache('a command run in a host\'s process (main() in process) puts the host\'s validator cache setting back when it ends', async () => {
  const hosts = { read: () => undefined, write: () => {} };
  const before = useValidatorCache(hosts);
  try {
    const r = await cli(['start', WORKFLOW, '--json'], { store: tempDir('countersign-vc-store-') });
    assert.is(r.code, 0, r.stderr);
    assert.is(useValidatorCache(hosts), hosts, 'the host\'s cache is in use again');
  } finally {
    useValidatorCache(before);
  }
});

Cache.run();
