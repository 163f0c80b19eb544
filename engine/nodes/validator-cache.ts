/**
 * Answer validators kept compiled between processes. Compiling a schema
 * needs ajv loaded and costs milliseconds; a short-lived process (one CLI
 * `step`) spent a sixth of its time on that. ajv's standalone code for a
 * schema is stored under a key naming the schema and the ajv and
 * ajv-formats versions, and a later process loads it instead. The cache
 * only saves time: a validator it cannot read or load is compiled again.
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { ajvRuntimeRequire, ajvVersions } from '../format/ajv.js';

export interface ValidatorCache {
  /** The module source stored under `key`, if there is a usable one. */
  read(key: string): string | undefined;
  /** Stores `source` under `key`. A cache that cannot write skips it: a later process compiles again. */
  write(key: string, source: string): void;
}

/** Bumped when what is stored changes meaning (the module shape). */
const CACHE_FORMAT = 'countersign-validator-3';

/**
 * The key of a schema's validator: its JSON text, compiled as `compiler`
 * says (ajv's options and the formats added, as text), under these library
 * versions.
 */
export function validatorCacheKey(schemaText: string, compiler: string): string {
  return createHash('sha256').update(`${CACHE_FORMAT}\n${compiler}\n${ajvVersions()}\n${schemaText}`).digest('hex');
}

/** The stored validator, or undefined when there is none or it does not load. */
export function loadValidator(cache: ValidatorCache, key: string): ValidateFunction | undefined {
  const source = cache.read(key);
  if (source === undefined) return undefined;
  try {
    const module = { exports: {} as unknown };
    // ajv's standalone output is a CommonJS module; its requires are ajv's runtime helpers and ajv-formats' formats.
    new Function('require', 'module', 'exports', source)(ajvRuntimeRequire, module, module.exports);
    return typeof module.exports === 'function' ? (module.exports as ValidateFunction) : undefined;
  } catch {
    return undefined;
  }
}

/** Generates and stores a validator's source; a failure to generate or write only costs a later compile. */
export function saveValidator(cache: ValidatorCache, key: string, source: () => string): void {
  let text: string;
  try {
    text = source();
  } catch {
    return;
  }
  cache.write(key, text);
}
