// Bundles the CLI (engine/cli/main.ts and everything it imports) with
// esbuild into one CommonJS file, so a command loads prebuilt code instead
// of compiling TypeScript through tsx on every call. One file, not ES
// chunks: the launcher runs it with a V8 code cache (code-cache.cjs), which
// only a script can have in Node 20. Commands stay lazy inside it: each
// one's modules run only when it is called.
// It builds the library (dist/index.mjs, `import … from 'countersign'`) too.
// `npm run build` (and `prepare`, so `npm ci` / `npm install` / `npm pack`)
// runs it; the launcher also rebuilds a stale bundle by itself. Where builds
// go and which are current: bundle-files.cjs.
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import files from './bundle-files.cjs';

const { root, DIST, ENTRY, publish, withInputs } = files;
export const { freshBundle, markInUse, sourceTree } = files;
/** The library for plain-Node consumers (`import … from 'countersign'`); dependencies stay external. */
export const LIBRARY = join(DIST, 'index.mjs');

/**
 * Builds the CLI bundle, and the library beside it so both run the same
 * source; returns the CLI's entry file. The bundle is recorded with every
 * file it was built from (bundle-files.cjs), so any change to one of them
 * makes the launcher build again.
 */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  // Read before building: an edit made while esbuild runs leaves the bundle stale, and the next command rebuilds.
  const sources = sourceTree();
  // Less a margin: file times follow the kernel's coarse clock, which may lag Date.now() by a tick.
  const startedAt = Date.now() - 50;
  const dir = `cli-${Date.now().toString(36)}-${process.pid}`;
  const cli = await esbuild({
    entryPoints: [join(root, 'engine/cli/main.ts')],
    outfile: join(DIST, dir, ENTRY),
    absWorkingDir: root,
    metafile: true,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Non-ASCII characters escaped, and comments (which esbuild keeps as
    // written) dropped: an ASCII bundle is read as latin1, at a fraction of
    // UTF-8 decoding's cost (code-cache.cjs checks, and decodes UTF-8 when it
    // is not: esbuild leaves regular expression literals as written).
    charset: 'ascii',
    minifyWhitespace: true,
    // A map beside the bundle (no comment pointing at it, so Node never
    // reads it while a command runs): an E_INTERNAL stack is mapped back to
    // the TypeScript source through it (bundle-stack.ts).
    sourcemap: 'external',
    // Dependencies go into the bundle too (better-sqlite3's JavaScript as
    // well): resolving and loading a hundred CommonJS files costs more than
    // the command. Only the native SQLite addon is loaded from node_modules,
    // by path (engine/store/sqlite-schema.ts).
    mainFields: ['module', 'main'],
    // The sources find files beside them through import.meta.url: the bundle's own URL.
    define: { 'import.meta.url': '__countersignUrl' },
    banner: { js: "const __countersignUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'silent',
  });
  const ajv = await buildAjv(join(DIST, dir));
  await buildLibrary();
  return publish(dir, withInputs(sources, [...Object.keys(cli.metafile.inputs), ...Object.keys(ajv.metafile.inputs)], startedAt));
}

/**
 * engine/format/ajv-all.cjs as one file in `outdir`, where the bundles'
 * engine/format/ajv.ts looks for it: ajv is loaded only when a schema is
 * compiled, and then from one file.
 */
async function buildAjv(outdir, write = true) {
  const { build: esbuild } = await import('esbuild');
  return esbuild({
    entryPoints: [join(root, 'engine/format/ajv-all.cjs')],
    outfile: join(outdir, 'ajv-all.cjs'),
    absWorkingDir: root,
    metafile: true,
    write,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
  });
}

/**
 * dist/index.mjs (and its ajv-all.cjs), each file replaced in one rename:
 * a program importing the library while a build runs reads the old file
 * or the new one, never half of one.
 */
export async function buildLibrary() {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  const library = await esbuild({
    entryPoints: [join(root, 'engine/index.ts')],
    outfile: LIBRARY,
    absWorkingDir: root,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  const ajv = await buildAjv(DIST, false);
  for (const out of [...library.outputFiles, ...ajv.outputFiles]) {
    const tmp = `${out.path}.${process.pid}.tmp`;
    writeFileSync(tmp, out.contents);
    renameSync(tmp, out.path);
  }
}

// Run as a script (`npm run build`, and `prepare` on every `npm ci` /
// `npm install`). esbuild is a dependency, so it is there; an install that
// lacks it anyway (a damaged one) only warns here, and the command then
// says E_INSTALL with the fix. Any other failure is real.
// argv[1] may name this file through a link: compared by real path.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  try {
    await build();
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !/esbuild/.test(String(e.message))) throw e;
    process.stderr.write('countersign: warning: esbuild is not installed, so no CLI bundle was built; the countersign command will fail with E_INSTALL until it is. Fix: run `npm ci` (esbuild is a dependency).\n');
  }
}
