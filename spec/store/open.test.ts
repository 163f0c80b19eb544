/**
 * Where the CLI keeps runs: --store DIR, else COUNTERSIGN_STORE, else
 * .countersign/ under the working directory.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore, resolveStoreDir } from '../../engine/store/open.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import { thrownWithCode } from '../helpers/errors.js';
import { spawnSync } from 'node:child_process';
import { LAUNCHER } from '../helpers/cli.js';

const test = suite('store location');

test('the default store directory is .countersign/ under the working directory', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: {} }), '/work/project/.countersign');
});

test('COUNTERSIGN_STORE overrides the default, relative to the working directory', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: '/var/runs' } }), '/var/runs');
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: 'state' } }), '/work/project/state');
});

test('--store DIR wins over COUNTERSIGN_STORE', () => {
  assert.is(resolveStoreDir({ store: 'flag-dir', cwd: '/work/project', env: { COUNTERSIGN_STORE: '/var/runs' } }), '/work/project/flag-dir');
});

test('an empty COUNTERSIGN_STORE counts as unset', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: '' } }), '/work/project/.countersign');
});

test('r103 d2: a COUNTERSIGN_STORE of blanks only is E_INPUT naming it, never the default store in its place (the CLI too); --store still wins over it', () => {
  const e = thrownWithCode(() => resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: '   ' } }), 'E_INPUT');
  assert.match(e.message, 'COUNTERSIGN_STORE holds only blanks ("   "), which names no store directory');
  assert.match(e.fix ?? '', 'unset it');
  assert.is(resolveStoreDir({ store: 'flag-dir', cwd: '/work/project', env: { COUNTERSIGN_STORE: '   ' } }), '/work/project/flag-dir');
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-blank-store-'));
  try {
    const r = spawnSync(process.execPath, [LAUNCHER, 'runs', '--json'], { cwd, env: { ...process.env, COUNTERSIGN_STORE: '  ' }, encoding: 'utf8' });
    assert.is(r.status, 2, r.stderr);
    assert.is(JSON.parse(r.stdout).error.code, 'E_INPUT');
    assert.match(r.stderr, 'countersign: E_INPUT: COUNTERSIGN_STORE holds only blanks');
    assert.not.ok(existsSync(join(cwd, '.countersign')), 'no default store was made');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('r105 d2: openStore with a cwd that does not exist (or is a file) is E_INPUT naming it, and creates nothing there', () => {
  const base = mkdtempSync(join(tmpdir(), 'countersign-open-cwd-'));
  try {
    const missing = join(base, 'not', 'there');
    const e = thrownWithCode(() => openStore({ cwd: missing }), 'E_INPUT');
    assert.match(e.message, `openStore's cwd ${JSON.stringify(missing)} is no directory that exists (nothing was created there)`);
    assert.not.ok(existsSync(join(base, 'not')), 'no folder was made');
    const file = join(base, 'a-file');
    writeFileSync(file, 'x');
    assert.match(thrownWithCode(() => openStore({ cwd: file }), 'E_INPUT').message, 'is not a directory');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('openStore opens SQLite at DIR/countersign.db in the resolved directory', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const store = openStore({ cwd, env: {} });
    assert.equal(store.list(), []);
    store.close();
    assert.ok(existsSync(join(cwd, '.countersign', 'countersign.db')));
    openStore({ cwd, store: 'custom', env: {} }).close();
    assert.ok(existsSync(join(cwd, 'custom', 'countersign.db')));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('a file where the default store goes (./.countersign) is E_STORE whose fix says to move that file aside or keep the store elsewhere (--store DIR, COUNTERSIGN_STORE)', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const file = join(cwd, '.countersign');
    writeFileSync(file, '');
    const e = thrownWithCode(() => resolveStoreDir({ cwd, env: {} }), 'E_STORE');
    assert.is(e.message, `the default store names ${file}, which is a file, not a store directory`);
    assert.match(e.fix!, `move ${file} aside`);
    assert.match(e.fix!, '--store DIR');
    assert.match(e.fix!, 'COUNTERSIGN_STORE');
    assert.not.match(e.fix!, 'name the directory');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('COUNTERSIGN_STORE naming a file is E_STORE whose fix says to point the variable at a directory (its folder, when it names countersign.db), unset it, or pass --store DIR', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const file = join(cwd, 'afile');
    writeFileSync(file, '');
    const e = thrownWithCode(() => resolveStoreDir({ cwd, env: { COUNTERSIGN_STORE: 'afile' } }), 'E_STORE');
    assert.is(e.message, `COUNTERSIGN_STORE names ${file}, which is a file, not a store directory`);
    assert.match(e.fix!, 'set COUNTERSIGN_STORE to a directory');
    assert.match(e.fix!, 'unset COUNTERSIGN_STORE');
    assert.match(e.fix!, '--store DIR');
    const store = join(cwd, 'st');
    createSqliteStore(store).close();
    const db = thrownWithCode(() => resolveStoreDir({ cwd, env: { COUNTERSIGN_STORE: join(store, 'countersign.db') } }), 'E_STORE');
    assert.match(db.fix!, `COUNTERSIGN_STORE=${store}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('--store naming a file (not countersign.db) is E_STORE whose fix says to pass a directory or move the file aside', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const file = join(cwd, 'notes.txt');
    writeFileSync(file, '');
    const e = thrownWithCode(() => resolveStoreDir({ cwd, store: 'notes.txt', env: {} }), 'E_STORE');
    assert.is(e.message, `--store names ${file}, which is a file, not a store directory`);
    assert.match(e.fix!, '--store DIR');
    assert.match(e.fix!, `move ${file} aside`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('a file in the way of the store path (afile/sub) is E_STORE saying that file is no directory, with a fix to move it aside or choose another directory, never one about writability', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const file = join(cwd, 'afile');
    writeFileSync(file, '');
    const e = thrownWithCode(() => openStore({ cwd, store: 'afile/sub', env: {} }), 'E_STORE');
    assert.match(e.message, `cannot create the store directory ${join(file, 'sub')}`);
    assert.match(e.message, `${file} exists but is not a directory`);
    assert.match(e.fix!, `move ${file} aside`);
    assert.match(e.fix!, '--store DIR');
    assert.not.match(e.fix!, 'writable');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('a directory named countersign.db in the store is E_STORE saying so, with a fix to move it aside, never a permission problem', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const db = join(cwd, 'weird', 'countersign.db');
    mkdirSync(db, { recursive: true });
    const e = thrownWithCode(() => openStore({ cwd, store: 'weird', env: {} }), 'E_STORE');
    assert.is(e.message, `cannot open the store ${db}: it is a directory, not the store's database file`);
    assert.match(e.fix!, `move ${db} aside`);
    assert.not.match(e.message, 'write');
    assert.not.match(e.fix!, 'write access');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('r85: a countersign.db that is a link to nothing is E_STORE naming the link and its target, with a fix to move it aside, never a permission problem; nothing is created where it points', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    mkdirSync(join(cwd, 'st'));
    mkdirSync(join(cwd, 'elsewhere'));
    const db = join(cwd, 'st', 'countersign.db');
    const target = join(cwd, 'elsewhere', 'gone.db');
    symlinkSync(target, db);
    for (const open of [() => openStore({ cwd, store: 'st', env: {} }), () => createSqliteStore(join(cwd, 'st'))]) {
      const e = thrownWithCode(open, 'E_STORE');
      assert.is(e.message, `cannot open the store ${db}: it is a link to ${target}, which does not exist`);
      assert.match(e.fix!, `move ${db} aside`);
      assert.not.match(e.fix!, 'write access');
    }
    assert.not.ok(existsSync(target));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('r85: an openStore option of the wrong type is E_INPUT naming that option and the value as given', () => {
  const cases: [unknown, string][] = [
    [{ cwd: '/tmp', store: 5n }, "openStore's store must be a string (a directory), got 5n"],
    [{ cwd: '/tmp', env: { COUNTERSIGN_STORE: 5 } }, "openStore's env.COUNTERSIGN_STORE must be a string, got 5"],
    [{ cwd: 5n }, "openStore's cwd must be a non-empty string (the directory the store is found from), got 5n"],
    [{ cwd: '  ' }, "openStore's cwd must be a non-empty string (the directory the store is found from), got \"  \""],
    [{ cwd: '/tmp', env: 'x' }, "openStore's env must be an object of strings (process.env, say), got \"x\""],
    [{ cwd: '/tmp', store: NaN }, "openStore's store must be a string (a directory), got NaN"],
    [null, 'openStore needs an options object { cwd, store?, env? }, got null'],
  ];
  for (const [options, message] of cases) {
    const e = thrownWithCode(() => openStore(options as never), 'E_INPUT');
    assert.is(e.message, message);
    assert.ok(e.fix, `a fix for ${message}`);
  }
});

test('r86: an empty or blank store given to openStore is E_INPUT naming openStore\'s store, never a CLI usage error about a --store flag the caller never used; nothing is created', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-empty-'));
  try {
    for (const [store, shown] of [['', '""'], ['  ', '"  "']]) {
      const e = thrownWithCode(() => openStore({ cwd, store }), 'E_INPUT');
      assert.match(e.message, `openStore's store`);
      assert.match(e.message, shown);
      assert.not.match(`${e.message} ${e.fix}`, '--store');
      assert.ok(e.fix);
    }
    assert.not.ok(existsSync(join(cwd, '.countersign')), 'no default store was made');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test.run();
