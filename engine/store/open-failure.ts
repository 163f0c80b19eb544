/**
 * Why a store's database file could not be opened, said as its cause: the
 * file system read-only, the disk full, this user without write access, the
 * file damaged. The cause is read from the error's code (Node's errno code,
 * or SQLite's extended result code) and, where SQLite's code alone cannot
 * tell (it says "disk I/O error" or "unable to open" for several causes),
 * from a look at the file system itself. Every command opens its store for
 * writing (SQLite keeps a write-ahead log and a shared-memory file beside
 * countersign.db, even to read), so each of these stops every command.
 */
import { accessSync, constants, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CountersignError } from '../errors.js';
import { shellWord } from '../format/shell-word.js';

/** What the open path may ask of the file system about the store's place; a fake one in tests. */
export interface DiskProbe {
  /** The errno code (EROFS, EACCES…) a write access check of `path` fails with, or undefined when it may be written. */
  writeRefusal(path: string): string | undefined;
  /** Bytes free to this user on the file system holding `dir`, or undefined when that cannot be told. */
  freeBytes(dir: string): number | undefined;
}

export const realDisk: DiskProbe = {
  writeRefusal(path) {
    try {
      accessSync(path, constants.W_OK);
      return undefined;
    } catch (err) {
      return typeof (err as NodeJS.ErrnoException).code === 'string' ? (err as NodeJS.ErrnoException).code : 'EACCES';
    }
  },
  freeBytes(dir) {
    try {
      const fs = statfsSync(dir);
      return fs.bavail * fs.bsize;
    } catch {
      return undefined;
    }
  },
};

/** Below this, SQLite cannot be sure of room for the -wal and -shm files (the -shm alone takes 32 KiB). */
const NEARLY_FULL = 1024 * 1024;

const NEEDS_WRITE = 'countersign writes to its store, even to read runs: SQLite keeps a write-ahead log and a shared-memory file beside it';

/**
 * The E_STORE error for `err`, thrown while opening `file` (the write access
 * check before SQLite opens it, or SQLite itself). A CountersignError or an
 * addon failure is the caller's to handle; this says what the store's place
 * is wrong with and the fix that can work for that cause.
 */
export function openFailure(file: string, err: unknown, disk: DiskProbe = realDisk): CountersignError {
  const dir = dirname(file);
  const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
  const detail = (err as Error).message?.split('\n')[0] ?? String(err);
  const fail = (why: string, fix: string) => new CountersignError('E_STORE', `cannot open the store ${file}: ${why}`, { file, cause: err, fix });

  // SQLite's "cannot write" codes do not say why: the file system is asked whether it is read-only.
  const sqliteReadOnly = /^SQLITE_(READONLY|CANTOPEN)/.test(code);
  const errno = /^E[A-Z]+$/.test(code) ? code : sqliteReadOnly ? disk.writeRefusal(file) ?? disk.writeRefusal(dir) : undefined;
  if (errno === 'EROFS') {
    return fail(`the file system it is on is read-only (${NEEDS_WRITE})`,
      `copy the store to a writable directory (cp -r ${shellWord(dir)} DIR) and pass it with --store DIR (or COUNTERSIGN_STORE), or remount the file system read-write; no change of access rights can help`);
  }

  // A full disk: SQLite's own code says so, or a "disk I/O error" on a disk with no room left (the -shm file is extended by mapping it, which fails as an I/O error).
  const free = /^SQLITE_(FULL|IOERR)/.test(code) || code === 'ENOSPC' ? disk.freeBytes(dir) : undefined;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || (code.startsWith('SQLITE_IOERR') && free !== undefined && free < NEARLY_FULL)) {
    return fail(`the disk is full (${detail}${free !== undefined ? `; ${free} bytes free on the file system of ${dir}` : ''}): SQLite needs room for the -wal and -shm files beside countersign.db, even to read runs`,
      `free space on the disk holding ${dir}, then run the command again (the store and its runs are left as they were), or copy the store to a disk with room and pass it with --store DIR`);
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return fail(`${detail} (SQLite could not read or write the file, or the -wal and -shm files beside it)`,
      `check that the disk holding ${dir} has free space (SQLite needs room for the -wal and -shm files, even to read runs) and reports no errors (the system log names them), then run the command again; or pass another directory with --store DIR`);
  }

  if (errno === 'EACCES' || errno === 'EPERM') {
    // The write access check before SQLite opens an existing file: SQLite would open it read-only without a word, and every write be refused later.
    return code === errno
      ? fail(`this user may read the file but not write it (${NEEDS_WRITE})`,
        `give this user write access to ${file} (and the -wal and -shm files beside it), or copy the store to a directory it may write and pass it with --store DIR`)
      : fail(`${detail} (${NEEDS_WRITE})`,
        `give this user write access to ${dir} and the files in it, or copy the store to a directory it may write and pass it with --store DIR`);
  }
  if (sqliteReadOnly) {
    return fail(`${detail} (${NEEDS_WRITE})`,
      `give this user write access to ${dir} and the files in it, or copy the store to a directory it may write and pass it with --store DIR`);
  }
  // A file SQLite reads as damaged (truncated, overwritten) is a store to restore, not one to re-check.
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return fail(detail, 'the file is damaged: restore countersign.db from a backup, or move the store aside and start again (pass another directory with --store DIR)');
  }
  return fail(detail, 'check that the file is a countersign store and writable, or pass another directory with --store DIR');
}
