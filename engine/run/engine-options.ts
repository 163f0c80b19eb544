/**
 * createEngine's options and the option objects of its calls, checked
 * before anything runs: a wrong value is E_INPUT naming it, with the fix,
 * never a bare TypeError deep inside a step.
 */
import { randomUUID } from 'node:crypto';
import { CountersignError } from '../errors.js';
import type { Store } from '../store/store.js';
import { checkToolList } from '../tools/catalog.js';
import { checkOptionKeys, refuseExtraArguments } from './option-keys.js';
import { said, shown } from '../format/said.js';
import { ENGINE_OPTION_KEYS, type EngineOptions } from './engine-api.js';

/** What createEngine needs of a store (the Store interface's methods). */
const STORE_METHODS = ['putWorkflow', 'getWorkflow', 'create', 'get', 'update', 'list', 'events', 'eventCount', 'appendRows', 'rows', 'close'] as const;

/**
 * Options given as null or a non-object would be a bare TypeError deep
 * inside, or (a number, a string) read as no options at all. `example` is
 * the object the fix suggests instead.
 */
export function optionsObject(opts: unknown, call: string, example = 'an options object such as {}, or leave it out'): void {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new CountersignError('E_INPUT', `${call}() options must be an object, got ${shown(opts)}`, { fix: `pass ${example}` });
  }
}

/**
 * An `as` given to start() or submit() is a string (blank is E_IDENTITY_REQUIRED
 * there): null or a number is a value of the wrong type, E_INPUT naming the
 * option as run() says it, never taken for a missing identity.
 */
export function identityOption(id: unknown, call: 'start' | 'submit'): asserts id is string | undefined {
  if (id === undefined || typeof id === 'string') return;
  throw new CountersignError('E_INPUT', `${call}()'s as must be a non-empty string (an identity), got ${id === null ? 'null' : typeof id === 'object' ? (Array.isArray(id) ? 'a list' : 'an object') : said(id) ?? typeof id}`, {
    fix: call === 'start' ? 'pass as as a non-empty string, or leave it out (local by default)' : 'pass as as a non-empty string (the answering identity), or leave it out outside a review loop (local by default)',
  });
}

/** The longest interval a Node timer keeps: a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The engine's store, clock and run-id source from createEngine's options (and `extra`, arguments past them, refused). */
export function engineSettings(options: EngineOptions, extra: unknown[]): { store: Store; now: () => Date; newRunId: () => string } {
  refuseExtraArguments('createEngine', 'one options object', extra, 'put every option in the one object: createEngine({ store, now?, newRunId?, tools?, allowToolModules?, toolHeartbeatMs? })');
  // A misspelt option first: { stor } is said as such, never as "no store".
  if (options !== null && typeof options === 'object') checkOptionKeys(options, ENGINE_OPTION_KEYS, 'createEngine');
  const store = options?.store;
  // Checked here, not at the first call: a missing store would be a bare TypeError there.
  // `in` and own descriptors, never a read of the methods: a lazy store (the CLI's) opens on its first read.
  const missing = store === null || typeof store !== 'object' ? undefined : STORE_METHODS.filter((m) => {
    if (!(m in store)) return true;
    const own = Object.getOwnPropertyDescriptor(store, m);
    return own !== undefined && 'value' in own && typeof own.value !== 'function';
  });
  if (missing === undefined || missing.length > 0) {
    throw new CountersignError('E_INPUT', `createEngine needs a store: an object with the Store methods (${STORE_METHODS.join(', ')})${missing?.length ? `; this one has no ${missing.join(', ')}` : ''}`, {
      fix: 'pass { store: createSqliteStore(dir) } for durable runs, or { store: createMemoryStore() } for tests and embedding',
    });
  }
  for (const name of ['now', 'newRunId'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new CountersignError('E_INPUT', `createEngine's ${name} must be a function, got ${shown(options[name])}`, { fix: name === 'now' ? 'pass now: () => new Date(), or leave it out' : 'pass newRunId: () => "<a unique id>", or leave it out' });
    }
  }
  checkToolList(options.tools, 'createEngine');
  if (options.allowToolModules !== undefined && typeof options.allowToolModules !== 'boolean') {
    throw new CountersignError('E_INPUT', `createEngine's allowToolModules must be true or false, got ${said(options.allowToolModules) ?? typeof options.allowToolModules}`, {
      fix: 'pass allowToolModules: true to load workflows\' toolModules (it runs their code), or leave it out',
    });
  }
  // A heartbeat that is no positive whole number of milliseconds (or past what a timer keeps) would renew the claim every millisecond.
  const heartbeat: unknown = options.toolHeartbeatMs;
  if (heartbeat !== undefined && (typeof heartbeat !== 'number' || !Number.isInteger(heartbeat) || heartbeat <= 0 || heartbeat > MAX_TIMER_MS)) {
    throw new CountersignError('E_INPUT', `createEngine's toolHeartbeatMs must be a positive whole number of milliseconds (at most ${MAX_TIMER_MS}), got ${typeof heartbeat === 'number' ? String(heartbeat) : said(heartbeat) ?? typeof heartbeat}`, {
      fix: 'pass toolHeartbeatMs as a whole number of milliseconds, well under the 10-minute claim, or leave it out (60000: a running tool node renews its claim every minute)',
    });
  }
  const clock = options.now;
  // The clock a host gives is read as it is used: a time that is no Date would be a bare TypeError inside a step.
  const now = clock === undefined ? () => new Date() : () => {
    const t = clock();
    if (!(t instanceof Date) || !Number.isFinite(t.getTime())) {
      throw new CountersignError('E_INPUT', `createEngine's now() gave ${t instanceof Date ? 'an invalid Date' : said(t) ?? String(t)}, not a valid Date`, { fix: 'make now return a valid Date, e.g. () => new Date()' });
    }
    return t;
  };
  const newRunId = options.newRunId ?? (() => randomUUID());
  return { store, now, newRunId };
}
