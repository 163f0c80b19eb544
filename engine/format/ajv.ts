/**
 * ajv, loaded on first use. Every schema compiler in the engine reaches
 * ajv through here instead of a static import, so a command that never
 * compiles a schema (a CLI `step` whose answer validator is already
 * compiled on disk, `status`, `trace`) never loads ajv: about a tenth of a
 * CLI process. The module is ajv-all.cjs: beside a bundle, the build's
 * single-file copy of it; under tsx, the source file.
 */
import { createRequire } from 'node:module';
import type * as AjvCore from 'ajv';
import type * as Ajv2020Module from 'ajv/dist/2020.js';

export interface AjvModules {
  Ajv: typeof AjvCore.Ajv;
  Ajv2020: typeof Ajv2020Module.Ajv2020;
  addFormats: (ajv: AjvCore.Ajv, options?: { mode?: 'fast' | 'full' }) => AjvCore.Ajv;
  /** ajv's standalone code generator (ajv/dist/standalone). */
  standaloneCode: (ajv: AjvCore.Ajv, validate: AjvCore.ValidateFunction) => string;
}

/** Loads what ajv's standalone code requires (its runtime helpers, ajv-formats' formats), and ajv itself. */
export const ajvRuntimeRequire: (id: string) => unknown = createRequire(import.meta.url);

let versions: string | undefined;
/** The ajv and ajv-formats versions, read without loading either (compiled validators are cached per version). */
export function ajvVersions(): string {
  const version = (id: string) => (ajvRuntimeRequire(`${id}/package.json`) as { version: string }).version;
  return (versions ??= `ajv@${version('ajv')} ajv-formats@${version('ajv-formats')}`);
}

let loaded: AjvModules | undefined;

export function ajvModules(): AjvModules {
  if (!loaded) {
    try {
      loaded = ajvRuntimeRequire('./ajv-all.cjs') as AjvModules;
    } catch (e) {
      // Bundled by someone else's bundler without our copy beside it: the packages themselves.
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes('ajv-all.cjs')) throw e;
      loaded = {
        Ajv: (ajvRuntimeRequire('ajv') as typeof AjvCore).Ajv,
        Ajv2020: (ajvRuntimeRequire('ajv/dist/2020') as typeof Ajv2020Module).Ajv2020,
        addFormats: (ajvRuntimeRequire('ajv-formats') as { default: AjvModules['addFormats'] }).default,
        standaloneCode: (ajvRuntimeRequire('ajv/dist/standalone') as { default: AjvModules['standaloneCode'] }).default,
      };
    }
  }
  return loaded;
}
