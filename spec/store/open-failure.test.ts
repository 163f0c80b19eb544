/**
 * r97: a store that cannot be opened because of where it lies (a read-only
 * file system, a full disk) is E_STORE saying that cause, with a fix that
 * can work for it: never a permission problem no access right would solve,
 * nor "check that the file is a countersign store". Nothing is mounted: the
 * file system's answer is stubbed (node:fs for the whole open path, a fake
 * probe for SQLite's own codes, which only a real full disk gives).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openFailure, type DiskProbe } from '../../engine/store/open-failure.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import { thrownWithCode } from '../helpers/errors.js';

const test = suite<{ dir: string }>('a store its disk will not let open', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-open-failure-'));
});
test.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

/** Runs `fn` while write access checks of paths under `dir` fail with `code`, as on a read-only mount; the real check is put back after. */
function withWriteRefused<T>(dir: string, code: string, fn: () => T): T {
  const real = fs.accessSync;
  fs.accessSync = ((path: import('node:fs').PathLike, mode?: number) => {
    if (String(path).startsWith(dir) && mode !== undefined && (mode & fs.constants.W_OK) !== 0) {
      throw Object.assign(new Error(`${code}: refused, access '${String(path)}'`), { code, path: String(path) });
    }
    return real(path, mode);
  }) as typeof fs.accessSync;
  syncBuiltinESMExports();
  try {
    return fn();
  } finally {
    fs.accessSync = real;
    syncBuiltinESMExports();
  }
}

/** A file system as the probe describes it: `refusal` for every write check, `free` bytes free. */
const disk = (refusal: string | undefined, free: number | undefined): DiskProbe => ({ writeRefusal: () => refusal, freeBytes: () => free });

test('an existing store on a read-only file system (EROFS) is E_STORE saying the file system is read-only, with a fix to copy the store to a writable directory or remount, never one about access rights', (c) => {
  const store = join(c.dir, 'ro');
  createSqliteStore(store).close();
  const file = join(store, 'countersign.db');
  const e = withWriteRefused(store, 'EROFS', () => thrownWithCode(() => createSqliteStore(store), 'E_STORE'));
  assert.match(e.message, `cannot open the store ${file}`);
  assert.match(e.message, 'read-only');
  assert.match(e.message, 'file system');
  assert.not.match(e.message, 'may read the file but not write it');
  assert.match(e.fix!, 'writable directory');
  assert.match(e.fix!, '--store DIR');
  assert.match(e.fix!, 'remount');
  assert.not.match(e.fix!, 'give this user write access');
  // Once the file system may be written again, the same store opens.
  createSqliteStore(store).close();
});

test('a new store directory that cannot be made on a read-only file system (EROFS) or a full disk (ENOSPC) is E_STORE whose fix says so: remount or another file system, free space or another disk', (c) => {
  const real = fs.mkdirSync;
  for (const [code, words] of [['EROFS', ['writable file system', 'remount']], ['ENOSPC', ['free space', 'disk with room']]] as const) {
    fs.mkdirSync = ((path: import('node:fs').PathLike) => {
      throw Object.assign(new Error(`${code}: refused, mkdir '${String(path)}'`), { code, path: String(path) });
    }) as typeof fs.mkdirSync;
    syncBuiltinESMExports();
    try {
      const e = thrownWithCode(() => createSqliteStore(join(c.dir, 'new')), 'E_STORE');
      assert.match(e.message, `cannot create the store directory ${join(c.dir, 'new')}: ${code}`);
      for (const w of words) assert.match(e.fix!, w);
      assert.match(e.fix!, '--store DIR');
    } finally {
      fs.mkdirSync = real;
      syncBuiltinESMExports();
    }
  }
});

test('an existing store this user may not write (EACCES) is still the permission problem it is, with the write access fix', (c) => {
  const store = join(c.dir, 'st');
  createSqliteStore(store).close();
  const e = withWriteRefused(store, 'EACCES', () => thrownWithCode(() => createSqliteStore(store), 'E_STORE'));
  assert.match(e.message, 'this user may read the file but not write it');
  assert.match(e.fix!, 'give this user write access');
});

test('SQLite unable to open or write the file (CANTOPEN, READONLY) on a read-only file system is said to be the read-only file system', () => {
  const file = '/mnt/ro/countersign.db';
  for (const code of ['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY']) {
    const e = openFailure(file, new Database.SqliteError('unable to open database file', code), disk('EROFS', 10_000_000));
    assert.is(e.code, 'E_STORE');
    assert.match(e.message, `cannot open the store ${file}: the file system it is on is read-only`);
    assert.match(e.fix!, 'remount');
    assert.not.match(e.fix!, 'give this user write access');
  }
  // A directory this user may not write is the access problem it is.
  const denied = openFailure(file, new Database.SqliteError('unable to open database file', 'SQLITE_CANTOPEN'), disk('EACCES', 10_000_000));
  assert.match(denied.fix!, 'give this user write access to /mnt/ro');
});

test('a full disk when the store is opened (SQLITE_FULL, ENOSPC, or "disk I/O error" with no space left) is E_STORE saying the disk is full, with a fix to free space, never "check that the file is a countersign store"', () => {
  const file = '/mnt/full/st/countersign.db';
  const cases: Array<[unknown, DiskProbe]> = [
    [new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_SHMSIZE'), disk(undefined, 0)],
    [new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'), disk(undefined, 4096)],
    [new Database.SqliteError('database or disk is full', 'SQLITE_FULL'), disk(undefined, undefined)],
    [Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }), disk(undefined, 0)],
  ];
  for (const [err, probe] of cases) {
    const e = openFailure(file, err, probe);
    assert.is(e.code, 'E_STORE');
    assert.is(e.file, file);
    assert.match(e.message, `cannot open the store ${file}: the disk is full`);
    assert.match(e.message, '-wal and -shm');
    assert.match(e.fix!, 'free space on the disk holding /mnt/full/st');
    assert.match(e.fix!, 'left as they were');
    assert.not.match(e.fix!, 'is a countersign store');
  }
});

test('a "disk I/O error" on a disk with room, or whose free space cannot be told, names free space and disk errors as what to check, never "is a countersign store"', () => {
  for (const free of [50_000_000, undefined]) {
    const e = openFailure('/s/countersign.db', new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_SHMSIZE'), disk(undefined, free));
    assert.match(e.message, 'disk I/O error');
    assert.not.match(e.message, 'the disk is full');
    assert.match(e.fix!, 'free space');
    assert.match(e.fix!, 'errors');
    assert.not.match(e.fix!, 'is a countersign store');
  }
});

test.run();
