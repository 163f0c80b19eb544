// Bundles the CLI (engine/cli/main.ts and everything it imports) with
// esbuild into one CommonJS file, so a command loads prebuilt code instead
// of compiling TypeScript through tsx on every call. One file, not ES
// chunks: the launcher runs it with a V8 code cache (code-cache.cjs), which
// only a script can have in Node 20. Commands stay lazy inside it: each
// one's modules run only when it is called.
// `npm run build` (and `prepare`, so `npm ci` / `npm install`) runs it; the
// launcher also rebuilds a stale bundle by itself. Where builds go and
// which are current: bundle-files.cjs.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import files from './bundle-files.cjs';

const { root, DIST, ENTRY, publish } = files;
export const { freshBundle, markInUse, sourceTree } = files;
/** The library for plain-Node consumers (`import … from 'countersign'`); dependencies stay external. */
export const LIBRARY = join(DIST, 'index.mjs');

/** Builds the CLI bundle and returns its entry file. */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  // Read before building: an edit made while esbuild runs leaves the bundle stale, and the next command rebuilds.
  const sources = sourceTree();
  const dir = `cli-${Date.now().toString(36)}-${process.pid}`;
  await esbuild({
    entryPoints: [join(root, 'engine/cli/main.ts')],
    outfile: join(DIST, dir, ENTRY),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Non-ASCII characters escaped: the launcher reads the bundle as latin1 (code-cache.cjs).
    charset: 'ascii',
    // Dependencies go into the bundle too (better-sqlite3's JavaScript as
    // well): resolving and loading a hundred CommonJS files costs more than
    // the command. Only the native SQLite addon is loaded from node_modules,
    // by path (engine/store/sqlite-schema.ts).
    mainFields: ['module', 'main'],
    // The sources find files beside them through import.meta.url: the bundle's own URL.
    define: { 'import.meta.url': '__countersignUrl' },
    banner: { js: "const __countersignUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'error',
  });
  await buildAjv(join(DIST, dir));
  return publish(dir, sources);
}

/**
 * engine/format/ajv-all.cjs as one file in `outdir`, where the bundles'
 * engine/format/ajv.ts looks for it: ajv is loaded only when a schema is
 * compiled, and then from one file.
 */
async function buildAjv(outdir) {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [join(root, 'engine/format/ajv-all.cjs')],
    outfile: join(outdir, 'ajv-all.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
}

export async function buildLibrary() {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  await esbuild({
    entryPoints: [join(root, 'engine/index.ts')],
    outfile: LIBRARY,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  await buildAjv(DIST);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build();
  await buildLibrary();
}
