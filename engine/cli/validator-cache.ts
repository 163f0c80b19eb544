/**
 * The CLI's validator cache: compiled answer validators as files in a
 * per-user directory (`COUNTERSIGN_CACHE`, else `$XDG_CACHE_HOME/countersign`,
 * else `~/.cache/countersign`; `COUNTERSIGN_CACHE=off` turns it off). The
 * files are code the CLI runs, so they live with the user, never in a
 * project: the directory must be absolute, the cache folders owned by this
 * user and writable by nobody else, and an entry a regular file (not a
 * link) with the same owner and mode; anything else is not run.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import type { ValidatorCache } from '../nodes/validator-cache.js';
import { makeDirs } from '../format/make-dirs.js';

const caches = new Map<string, ValidatorCache>();
const OFF = /^(off|false|no|none|0)$/i;

/** Where the cache lives for an environment, or why there is none. */
export function cacheLocation(env: NodeJS.ProcessEnv): { dir?: string; problem?: string } {
  const dir = chosenDir(env);
  if (dir.dir === undefined) return dir;
  // A folder someone else can write could hold code planted for this user: not used, and said so.
  for (const folder of [dir.dir, join(dir.dir, 'validators')]) {
    const why = unusableFolder(folder);
    if (why) return { problem: `the validator cache folder ${folder} ${why}; the validator cache is off (fix: make the folder and the folders it is in yours and writable by you alone (chmod go-w), or set COUNTERSIGN_CACHE to such a folder)` };
  }
  return dir;
}

function chosenDir(env: NodeJS.ProcessEnv): { dir?: string; problem?: string } {
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
  const home = homeDir(env);
  // No usable home (HOME empty or relative, no account entry, as in some
  // containers): no per-user place, so no cache; answers are compiled as usual.
  return home ? { dir: join(home, '.cache', 'countersign') } : {};
}

/** The environment's HOME; the account's home only when the environment names none. */
function homeDir(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const home = Object.hasOwn(env, 'HOME') ? (env.HOME ?? '').trim() : userInfo().homedir;
    return isAbsolute(home) ? home : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why code under `folder` might not be this user's alone, or undefined when
 * it is: a link on the way owned by another user; a folder on its real path
 * that another user (not root) owns, or that others may write unless it is
 * sticky (as /tmp is: there nobody replaces what is not theirs); or the
 * folder itself not a folder, another user's, or writable by others. A
 * folder that does not exist yet is judged by its nearest existing parent:
 * it is created for this user only.
 */
function unusableFolder(folder: string): string | undefined {
  if (uid === undefined) return undefined; // no owners to compare (Windows)
  let prefix = '';
  for (const part of folder.split(sep).filter(Boolean)) {
    prefix = `${prefix}${sep}${part}`;
    let st;
    try {
      st = lstatSync(prefix);
    } catch {
      break; // the rest does not exist yet
    }
    if (st.isSymbolicLink() && st.uid !== uid && st.uid !== 0) return `goes through ${prefix}, a link another user owns (uid ${st.uid})`;
  }
  let existing = folder;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    return undefined;
  }
  if (existing !== folder && !statSync(real).isDirectory()) return `is inside ${existing}, which is not a folder`;
  if (existing === folder) {
    const st = statSync(real);
    if (!st.isDirectory()) return 'is not a folder';
    if (st.uid !== uid) return `belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o022) !== 0) return `is writable by other users (mode ${(st.mode & 0o777).toString(8)})`;
  }
  for (let at = existing === folder ? dirname(real) : real; ; at = dirname(at)) {
    const st = statSync(at);
    if (st.uid !== uid && st.uid !== 0) return `is inside ${at}, which belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `is inside ${at}, which other users may write (mode ${(st.mode & 0o777).toString(8)})`;
    if (dirname(at) === at) break;
  }
  return undefined;
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
      read: (key) => (unusableFolder(dir) === undefined && ownedFolder(dir) ? readOwn(join(dir, `${key}.cjs`)) : undefined),
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
    // Never write into folders others could change (what is written here is later run), nor create one inside such a folder.
    if (unusableFolder(dir)) return;
    makeDirs(dir, 0o700);
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
