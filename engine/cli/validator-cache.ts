/**
 * The CLI's validator cache: compiled answer validators as files in a
 * per-user directory (`COUNTERSIGN_CACHE`, else `$XDG_CACHE_HOME/countersign`,
 * else `~/.cache/countersign`; `COUNTERSIGN_CACHE=off` turns it off). The
 * files are code the CLI runs, so they live with the user, never in a
 * project: the directory must be absolute, the cache folders owned by this
 * user and writable by nobody else, and an entry a regular file (not a
 * link) with the same owner and mode; anything else is not run.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ValidatorCache } from '../nodes/validator-cache.js';
import { makeDirs } from '../format/make-dirs.js';

const caches = new Map<string, ValidatorCache>();
const OFF = /^(off|false|no|none|0)$/i;

/** Where the cache lives for an environment, or why there is none. */
export function cacheLocation(env: NodeJS.ProcessEnv): { dir?: string; problem?: string } {
  const given = env.COUNTERSIGN_CACHE?.trim();
  if (given && OFF.test(given)) return {};
  if (given) {
    // A relative path would put code the CLI runs into whatever project it runs in.
    if (!isAbsolute(given)) return { problem: `COUNTERSIGN_CACHE must be an absolute path, got "${given}"; the validator cache is off` };
    return { dir: given };
  }
  // The XDG spec: a relative XDG_CACHE_HOME is ignored.
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return { dir: join(xdg, 'countersign') };
  const home = homeDir();
  // No usable home (HOME empty or relative, no account entry, as in some
  // containers): no per-user place, so no cache; answers are compiled as usual.
  return home ? { dir: join(home, '.cache', 'countersign') } : {};
}

function homeDir(): string | undefined {
  try {
    const home = homedir();
    return isAbsolute(home) ? home : undefined;
  } catch {
    return undefined;
  }
}

/** The cache directory for an environment, or undefined when caching is off. */
export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  return cacheLocation(env).dir;
}

/** One cache object per directory, so repeated commands in one process share compiled validators. */
export function diskValidatorCache(env: NodeJS.ProcessEnv): ValidatorCache | undefined {
  const base = cacheDir(env);
  if (base === undefined) return undefined;
  let cache = caches.get(base);
  if (!cache) {
    const dir = join(base, 'validators');
    cache = {
      read: (key) => (ownedFolder(base) && ownedFolder(dir) ? readOwn(join(dir, `${key}.cjs`)) : undefined),
      write: (key, source) => writeAtomically(base, dir, `${key}.cjs`, source),
    };
    caches.set(base, cache);
  }
  return cache;
}

const uid = process.getuid?.();

/** Owned by this user and writable by nobody else (what makes its files this user's alone). */
function ownedBySelf(st: { uid: number; mode: number }): boolean {
  return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

function ownedFolder(dir: string): boolean {
  try {
    const st = statSync(dir);
    return st.isDirectory() && ownedBySelf(st);
  } catch {
    return false;
  }
}

function readOwn(file: string): string | undefined {
  let fd: number | undefined;
  try {
    // O_NOFOLLOW: an entry that is a link could point at any file this user owns.
    // O_NONBLOCK: opening a named pipe must not wait for a writer (it is then refused as not a file).
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || !ownedBySelf(st)) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeAtomically(base: string, dir: string, name: string, source: string): void {
  try {
    makeDirs(dir, 0o700);
    // Never write into folders others could change: what is written here is later run.
    if (!ownedFolder(base) || !ownedFolder(dir)) return;
    const temp = join(dir, `.${name}.${process.pid}.tmp`);
    try {
      writeFileSync(temp, source, { mode: 0o600 });
      // A reader sees the old file or the whole new one, never half of it.
      renameSync(temp, join(dir, name));
    } catch (e) {
      // A full disk or a failed rename: no half-written file stays behind.
      rmSync(temp, { force: true });
      throw e;
    }
  } catch {
    // Unwritable (read-only home, full disk): the next process compiles again.
  }
}
