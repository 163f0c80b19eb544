import { isDirectory } from '../../format/make-dirs.js';
import { resolve } from 'node:path';
import { lazyStore } from '../../store/lazy.js';
import { noteRunCreated, noteStore } from '../early-exit.js';
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
 * one command, on first use: a command that fails before it touches a run
 * (a mistyped workflow file) creates no store. A command that only reads
 * passes `absent`: when no store exists there, that answers instead.
 */
export async function withEngine<T>(values: Values, io: Io, fn: (engine: Engine, store: Store) => Promise<T>, absent?: (dir: string) => T): Promise<T> {
  const location = { store: values.store as string | undefined, cwd: io.cwd, env: io.env };
  const dir = resolveStoreDir(location);
  if (absent && !storeExists(dir)) return absent(dir);
  const store = lazyStore(() => openStore(location), dir, noteRunCreated);
  noteStore(store);
  // Answer validators compiled by earlier commands are loaded instead of compiled (see validator-cache.ts).
  const { problem } = cacheLocation(io.env);
  if (problem) io.stderr.write(`countersign: warning: ${problem}\n`);
  // For this command only: main() may run in a host's process, whose own setting comes back after it.
  const previous = useValidatorCache(diskValidatorCache(io.env));
  try {
    return await fn(createEngine({ store, allowToolModules: values['allow-tool-modules'] === true }), store);
  } finally {
    // A signal that came while the store was busy (its lock waited on synchronously, up to 5 s) is queued until the
    // event loop next polls: let it be heard now, while the store can still say where the run stands (interrupted.ts),
    // never dropped once the command has finished.
    await signalsHeard();
    store.close();
    useValidatorCache(previous);
  }
}

/**
 * Resolves once the event loop has polled for signals since the call. Two
 * turns: code that runs from a poll callback (a read of stdin, a file) has
 * its first setImmediate in the same loop iteration, after that iteration's
 * poll; the second comes after the next one's.
 */
function signalsHeard(): Promise<void> {
  return new Promise((heard) => setImmediate(() => setImmediate(heard)));
}

/** --workspace must name an existing directory: agents are started in it. */
export function workspaceDir(io: Io, given: string | undefined): string {
  if (given !== undefined && given.trim() === '') {
    throw usage('--workspace needs a directory, and was given an empty value', 'name the directory (is the shell variable you passed unset?), or leave --workspace out to use the current directory');
  }
  const dir = resolve(io.cwd, given ?? '.');
  if (!isDirectory(dir)) throw usage(`--workspace ${dir} is not an existing directory`, 'create it first, or name the directory the agent should work in');
  return dir;
}
