/**
 * The CLI's validator cache: compiled answer validators as files in a
 * per-user directory (`COUNTERSIGN_CACHE`, else `$XDG_CACHE_HOME/countersign`,
 * else `~/.cache/countersign`; `COUNTERSIGN_CACHE=off` turns it off). The
 * files are code the CLI runs, so they live with the user, never in a
 * project's store, and a file another user owns or could have written is
 * ignored.
 */
import { closeSync, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ValidatorCache } from '../nodes/validator-cache.js';
import { makeDirs } from '../format/make-dirs.js';

const caches = new Map<string, ValidatorCache>();

/** The cache directory for an environment, or undefined when caching is off. */
export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.COUNTERSIGN_CACHE?.trim();
  if (given === 'off') return undefined;
  if (given) return resolve(given);
  const xdg = env.XDG_CACHE_HOME?.trim();
  return join(xdg ? resolve(xdg) : join(homedir(), '.cache'), 'countersign');
}

/** One cache object per directory, so repeated commands in one process share compiled validators. */
export function diskValidatorCache(env: NodeJS.ProcessEnv): ValidatorCache | undefined {
  const base = cacheDir(env);
  if (base === undefined) return undefined;
  const dir = join(base, 'validators');
  let cache = caches.get(dir);
  if (!cache) {
    cache = { read: (key) => readOwn(join(dir, `${key}.cjs`)), write: (key, source) => writeAtomically(dir, `${key}.cjs`, source) };
    caches.set(dir, cache);
  }
  return cache;
}

function readOwn(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    // Code is only run from a file this user owns and nobody else can write.
    if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeAtomically(dir: string, name: string, source: string): void {
  try {
    makeDirs(dir, 0o700);
    const temp = join(dir, `.${name}.${process.pid}.tmp`);
    writeFileSync(temp, source, { mode: 0o600 });
    // A reader sees the old file or the whole new one, never half of it.
    renameSync(temp, join(dir, name));
  } catch {
    // Unwritable (read-only home, full disk): the next process compiles again.
  }
}
