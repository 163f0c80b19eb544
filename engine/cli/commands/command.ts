import { existsSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATABASE_FILE } from '../../store/sqlite.js';
import { createEngine, type Engine } from '../../run/engine.js';
import { openStore, resolveStoreDir, storeExists } from '../../store/open.js';
import { useValidatorCache } from '../../nodes/answer-schema.js';
import { cacheLocation, diskValidatorCache } from '../validator-cache.js';
import type { Store } from '../../store/store.js';
import { usage, type Io } from '../io.js';

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;
  run(values: Values, positionals: string[], io: Io): Promise<number>;
}

export const STORE_OPTIONS = {
  store: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** For the commands that may reach a tool node: a workflow's toolModules run code, so they load only when the user says so. */
export const TOOL_MODULE_OPTIONS = {
  'allow-tool-modules': { type: 'boolean' },
} as const;

/**
 * Opens the store named by --store / $COUNTERSIGN_STORE / ./.countersign for
 * one command. A command that only reads passes `absent`: when no store
 * exists there, that answers instead and nothing is created. A store this
 * command created is removed again when the command fails before any run
 * was stored in it (a mistyped workflow file leaves no .countersign behind).
 */
export async function withEngine<T>(values: Values, io: Io, fn: (engine: Engine, store: Store) => Promise<T>, absent?: (dir: string) => T): Promise<T> {
  const location = { store: values.store as string | undefined, cwd: io.cwd, env: io.env };
  const dir = resolveStoreDir(location);
  const existed = storeExists(dir);
  if (absent && !existed) return absent(dir);
  const dirExisted = existsSync(dir);
  const store = openStore(location);
  let unused = false;
  // Answer validators compiled by earlier commands are loaded instead of compiled (see validator-cache.ts).
  const { problem } = cacheLocation(io.env);
  if (problem) io.stderr.write(`countersign: warning: ${problem}\n`);
  // For this command only: main() may run in a host's process, whose own setting comes back after it.
  const previous = useValidatorCache(diskValidatorCache(io.env));
  try {
    return await fn(createEngine({ store, allowToolModules: values['allow-tool-modules'] === true }), store);
  } catch (e) {
    try {
      unused = !existed && store.list().length === 0;
    } catch {
      unused = false; // the command's own error is the one to report
    }
    throw e;
  } finally {
    store.close();
    useValidatorCache(previous);
    if (unused) discardStore(dir, dirExisted);
  }
}

/** Removes a store this command made and never used: its database files, and its folder if the command made that too. */
function discardStore(dir: string, keepDir: boolean): void {
  for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-journal`]) rmSync(join(dir, name), { force: true });
  if (!keepDir) {
    try {
      rmdirSync(dir); // only when empty: anything else there is not ours
    } catch {
      // not empty, or gone: left as it is
    }
  }
}

/** --workspace must name an existing directory: agents are started in it. */
export function workspaceDir(io: Io, given: string | undefined): string {
  if (given !== undefined && given.trim() === '') {
    throw usage('--workspace needs a directory, and was given an empty value', 'name the directory (is the shell variable you passed unset?), or leave --workspace out to use the current directory');
  }
  const dir = resolve(io.cwd, given ?? '.');
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw usage(`--workspace ${dir} is not an existing directory`, 'create it first, or name the directory the agent should work in');
  return dir;
}
