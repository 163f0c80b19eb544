#!/usr/bin/env node
// The `countersign` launcher. It runs the bundled CLI (built by `npm ci` /
// `npm run build`, and rebuilt here when any source is newer) with its code
// cache, and falls back to compiling the TypeScript through tsx (with a
// warning) when it cannot build one, so the command always runs the
// current source.
// Its helpers are CommonJS, loaded with require: cheaper than ES imports of
// node:fs on a path every command takes.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { freshBundle, markInUse } = require('./bundle-files.cjs');
const { loadBundle } = require('./code-cache.cjs');
const argv = process.argv.slice(2);

/** Loads the bundle at `entry`, marked in use so a rebuild by another command does not sweep it while this one runs. */
function open(entry) {
  markInUse(entry);
  return loadBundle(entry, argv, (url) => import(url));
}

async function load() {
  const fresh = freshBundle();
  if (fresh) {
    try {
      return open(fresh);
    } catch {
      // Swept by a build running at the same moment, before this process marked it: build again.
    }
  }
  const root = fileURLToPath(new URL('../..', import.meta.url));
  try {
    const { build } = await import('./build.mjs');
    return open(await build());
  } catch (e) {
    // The source itself does not compile: tsx would fail on it too. Say where.
    const located = compileErrors(e);
    if (located) return cannotRun('E_BUILD', `the countersign source does not compile: ${located}`, `correct the source there (or restore it, e.g. with git checkout), then run the command again`);
    // Still the current source, but compiled on every call: say so, why, and what fixes it.
    const why = firstLine(e);
    const fix = /esbuild/.test(why) && e?.code === 'ERR_MODULE_NOT_FOUND'
      ? `reinstall the dependencies (esbuild is one): run \`npm ci\` in ${root}`
      : `run \`npm run build\` in ${root} as a user who may write its dist/ folder, which shows the cause`;
    process.stderr.write(`countersign: warning: cannot build the CLI bundle (${why}); running the TypeScript source through tsx, which is slower. Fix: ${fix}.\n`);
    let register;
    try {
      ({ register } = await import('tsx/esm/api'));
    } catch (e2) {
      return cannotRun('E_INSTALL', `no CLI bundle could be built (${why}), and the source cannot be run through tsx (${firstLine(e2)})`, `reinstall the dependencies (esbuild and tsx are two): run \`npm ci\` (or \`npm install\`) in ${root}`);
    }
    try {
      register();
      const { main } = await import('./main.ts');
      return { main, keepCache() {} };
    } catch (e3) {
      return cannotRun('E_BUILD', `the countersign source does not load: ${firstLine(e3)}`, `correct the source (or restore it, e.g. with git checkout), then run the command again`);
    }
  }
}

/** esbuild's errors as `file:line:col: text` (the first three), or undefined when `e` is no compile failure. */
function compileErrors(e) {
  const errors = Array.isArray(e?.errors) ? e.errors : [];
  if (errors.length === 0) return undefined;
  const at = (m) => (m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ` : '');
  return errors.slice(0, 3).map((m) => `${at(m)}${m.text}`).join('; ');
}

function firstLine(e) {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}

/** The command cannot run at all: reported like any command failure (`countersign: E_CODE`, or one JSON document under --json), exit 2. */
function cannotRun(code, message, fix) {
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code, message, fix } }, null, 2)}\n`);
  process.stderr.write(`countersign: ${code}: ${message}\n  fix: ${fix}\n`);
  return { main: async () => 2, keepCache() {} };
}

const { main, keepCache } = await load();
process.exitCode = await main(argv);
keepCache();
