/**
 * Where the CLI's store lives: `--store DIR`, else `COUNTERSIGN_STORE`,
 * else `.countersign/` under the working directory. Relative paths are
 * taken from the working directory.
 */
import { resolve } from 'node:path';
import { createSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export interface StoreLocation {
  /** The `--store DIR` flag. */
  store?: string;
  cwd: string;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_STORE_DIR = '.countersign';

export function resolveStoreDir(opts: StoreLocation): string {
  const env = opts.env ?? process.env;
  const chosen = nonEmpty(opts.store) ?? nonEmpty(env.COUNTERSIGN_STORE) ?? DEFAULT_STORE_DIR;
  return resolve(opts.cwd, chosen);
}

export function openStore(opts: StoreLocation): Store {
  return createSqliteStore(resolveStoreDir(opts));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
