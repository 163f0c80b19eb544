/**
 * Where the CLI's store lives: `--store DIR`, else `COUNTERSIGN_STORE`,
 * else `.countersign/` under the working directory. Relative paths are
 * taken from the working directory.
 */
import { isDirectory } from '../format/make-dirs.js';
import { shellWord } from '../format/shell-word.js';
import { shown } from '../format/said.js';
import { existsSync, lstatSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CountersignError } from '../errors.js';
import { DATABASE_FILE, createSqliteStore } from './sqlite.js';
import { refuseNonFile } from './store-file-kind.js';
import type { Store } from './store.js';
import { checkOptionKeys, keysOf } from '../run/option-keys.js';

export interface StoreLocation {
  /** The `--store DIR` flag. */
  store?: string;
  cwd: string;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export const STORE_LOCATION_KEYS = keysOf<StoreLocation>({ store: true, cwd: true, env: true });

export const DEFAULT_STORE_DIR = '.countersign';

export function resolveStoreDir(opts: StoreLocation): string {
  checkLocationTypes(opts);
  // { dir } or { stor } for { store } would otherwise open the default store without a word.
  checkOptionKeys(opts, STORE_LOCATION_KEYS, 'openStore');
  const env = opts.env ?? process.env;
  // An empty value is what an unset variable gives: refused, never taken as "the default". The CLI
  // refuses an empty --store itself (E_USAGE, main.ts); this is a library caller's option.
  if (opts.store !== undefined && opts.store.trim() === '') {
    throw new CountersignError('E_INPUT', `openStore's store must name a directory, got ${shown(opts.store)}`, {
      fix: `pass the store directory (is the variable you passed it from unset?), or leave store out to use $COUNTERSIGN_STORE or ./${DEFAULT_STORE_DIR}`,
    });
  }
  // Blank but not empty ("   ") is no unset variable: a value meant as a directory that names none, never the default instead.
  const variable = env.COUNTERSIGN_STORE;
  if (opts.store === undefined && typeof variable === 'string' && variable !== '' && variable.trim() === '') {
    throw new CountersignError('E_INPUT', `COUNTERSIGN_STORE holds only blanks (${JSON.stringify(variable)}), which names no store directory`, {
      fix: `set COUNTERSIGN_STORE to the store directory, or unset it (or pass --store DIR) to use ./${DEFAULT_STORE_DIR}`,
    });
  }
  const chosen = nonEmpty(opts.store) ?? nonEmpty(variable) ?? DEFAULT_STORE_DIR;
  const dir = resolve(opts.cwd, chosen);
  // The store is a directory: a file there (countersign.db itself, named by mistake) would read as an empty store.
  if (existsSync(dir) && !isDirectory(dir)) {
    const from = nonEmpty(opts.store) !== undefined ? 'flag' : nonEmpty(env.COUNTERSIGN_STORE) !== undefined ? 'env' : 'default';
    const named = { flag: '--store', env: 'COUNTERSIGN_STORE', default: 'the default store' }[from];
    throw new CountersignError('E_STORE', `${named} names ${dir}, which is a file, not a store directory`, {
      file: dir,
      fix: fileAsStoreFix(from, dir),
    });
  }
  return dir;
}

/** Each option of the wrong type is E_INPUT naming that option and the value as given (5n, NaN, "  "), never one message for them all. */
function checkLocationTypes(opts: StoreLocation): void {
  const wrong = (message: string, fix: string) => new CountersignError('E_INPUT', message, { fix });
  const example = 'e.g. openStore({ cwd: process.cwd(), store: values.store })';
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw wrong(`openStore needs an options object { cwd, store?, env? }, got ${shown(opts)}`, `pass the working directory the store is found from, and --store's value as store when one was given: ${example}`);
  }
  if (typeof opts.cwd !== 'string' || opts.cwd.trim() === '') {
    throw wrong(`openStore's cwd must be a non-empty string (the directory the store is found from), got ${shown(opts.cwd)}`, `pass the working directory, e.g. openStore({ cwd: process.cwd() }): a relative store path and ./${DEFAULT_STORE_DIR} are found from it`);
  }
  if (opts.store !== undefined && typeof opts.store !== 'string') {
    throw wrong(`openStore's store must be a string (a directory), got ${shown(opts.store)}`, `pass the store directory as a string (--store's value), or leave store out for $COUNTERSIGN_STORE or ./${DEFAULT_STORE_DIR}`);
  }
  if (opts.env !== undefined && (opts.env === null || typeof opts.env !== 'object' || Array.isArray(opts.env))) {
    throw wrong(`openStore's env must be an object of strings (process.env, say), got ${shown(opts.env)}`, 'pass the environment to read COUNTERSIGN_STORE from, e.g. env: process.env, or leave env out for process.env');
  }
  const variable = opts.env?.COUNTERSIGN_STORE as unknown;
  if (variable !== undefined && typeof variable !== 'string') {
    throw wrong(`openStore's env.COUNTERSIGN_STORE must be a string, got ${shown(variable)}`, 'set it to the store directory as a string, or leave it out for ./.countersign');
  }
}

/**
 * What to do about a file where the store directory should be, said for
 * where that path came from: the flag or the variable to change (to the
 * folder that holds countersign.db, when that is what was named), or, for
 * the default, the file to move aside — no path was given to change.
 */
function fileAsStoreFix(from: 'flag' | 'env' | 'default', dir: string): string {
  const aside = `move ${shellWord(dir)} aside`;
  const holder = shellWord(dirname(dir));
  const isDatabase = basename(dir) === DATABASE_FILE;
  if (from === 'flag') {
    return isDatabase
      ? `name the folder that holds it: --store ${holder}`
      : `pass a directory with --store DIR (one that holds countersign.db, or a new one to create), or ${aside} to keep the store at that path`;
  }
  if (from === 'env') {
    return isDatabase
      ? `set COUNTERSIGN_STORE to the folder that holds it: export COUNTERSIGN_STORE=${holder}`
      : `set COUNTERSIGN_STORE to a directory (one that holds countersign.db, or a new one to create), unset COUNTERSIGN_STORE for ./${DEFAULT_STORE_DIR}, or pass --store DIR; or ${aside} to keep the store at that path`;
  }
  return `${aside} (./${DEFAULT_STORE_DIR} is where the store is kept by default), or keep the store elsewhere: pass --store DIR or set COUNTERSIGN_STORE`;
}

export function openStore(opts: StoreLocation): Store {
  const dir = resolveStoreDir(opts);
  // A working directory that is not there would be made, store and all, where no one meant one: a mistyped cwd is said.
  if (!isDirectory(opts.cwd)) {
    throw new CountersignError('E_INPUT', `openStore's cwd ${JSON.stringify(opts.cwd)} is ${existsSync(opts.cwd) ? 'not a directory' : 'no directory that exists'} (nothing was created there)`, {
      fix: 'pass an existing working directory, e.g. openStore({ cwd: process.cwd() })',
    });
  }
  return createSqliteStore(dir);
}

/**
 * Whether `dir` holds a store already: commands that only read never create
 * one (a mistyped --store would leave an empty store behind). A path where
 * no store can ever be — a file among its folders (`afile/sub`), a link to
 * nothing, a countersign.db that is a link to nothing — is E_STORE naming
 * what is in the way, as `start` says it: never "no store there yet",
 * which would suggest a `start` that must fail.
 */
export function storeExists(dir: string): boolean {
  // countersign.db that is no file (a link to nothing, a folder): E_STORE saying so, as opening it would.
  refuseNonFile(join(dir, DATABASE_FILE));
  // A folder this user may not look into reads as "no such file": said as what it is, never "no runs yet".
  try {
    statSync(join(dir, DATABASE_FILE));
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new CountersignError('E_STORE', `cannot read the store in ${dir}: this user may not look into ${dir} or a folder above it (${code})`, {
        file: dir,
        fix: `give this user read and search access to ${shellWord(dir)} (and the folders above it), run countersign as the user the store belongs to, or pass another directory with --store DIR or COUNTERSIGN_STORE`,
      });
    }
  }
  const blocker = inTheWay(dir);
  if (blocker === undefined) return false;
  throw new CountersignError('E_STORE', `no store can be in ${dir}: ${blocker.path} exists but is not a directory${blocker.link === undefined ? '' : ` (a link to ${blocker.link}, which does not exist or is not a directory)`}`, {
    file: dir,
    fix: `move ${shellWord(blocker.path)} aside (it stands where a folder of the store path goes${blocker.link === undefined ? '' : '; for a link, create the folder it points to'}), or pass another directory with --store DIR or COUNTERSIGN_STORE`,
  });
}

/** The nearest entry of `dir` or its parent folders that exists and is no directory (a file, a link to nothing); undefined when the path could be created. */
function inTheWay(dir: string): { path: string; link?: string } | undefined {
  for (let current = dir; ; current = dirname(current)) {
    let entry: Stats;
    try {
      entry = lstatSync(current);
    } catch (e) {
      // Not there (or below a file: ENOTDIR): its parent says more. Anything else (no access) is left to opening the store.
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(current) !== current) continue;
      return undefined;
    }
    if (isDirectory(current)) return undefined;
    if (!entry.isSymbolicLink()) return { path: current };
    try {
      return { path: current, link: readlinkSync(current) };
    } catch {
      return { path: current }; // gone meanwhile: still no folder there
    }
  }
}

/** What a command that reads one run says when the store it was pointed at does not exist. */
export function noStore(runId: string, dir: string): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}": there is no store in ${dir} (no ${DATABASE_FILE})`, {
    fix: 'a run lives in the store it was started with: name it with --store DIR or COUNTERSIGN_STORE (the default is .countersign under the directory the command runs in)',
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
