import { createEngine, type Engine } from '../../run/engine.js';
import { openStore } from '../../store/open.js';
import type { Io } from '../io.js';

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

/** Opens the store named by --store / $COUNTERSIGN_STORE / ./.countersign for one command. */
export async function withEngine<T>(values: Values, io: Io, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const store = openStore({ store: values.store as string | undefined, cwd: io.cwd, env: io.env });
  try {
    return await fn(createEngine({ store }));
  } finally {
    store.close();
  }
}
