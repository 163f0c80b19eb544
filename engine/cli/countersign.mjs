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
  try {
    const { build } = await import('./build.mjs');
    return open(await build());
  } catch (e) {
    // Still the current source, but compiled on every call: say so, why, and what fixes it.
    const why = firstLine(e);
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const fix = /esbuild/.test(why) && e?.code === 'ERR_MODULE_NOT_FOUND'
      ? `reinstall the dependencies (esbuild is one): run \`npm ci\` in ${root}`
      : `run \`npm run build\` in ${root} as a user who may write its dist/ folder, which shows the cause`;
    process.stderr.write(`countersign: warning: cannot build the CLI bundle (${why}); running the TypeScript source through tsx, which is slower. Fix: ${fix}.\n`);
    try {
      const { register } = await import('tsx/esm/api');
      register();
      const { main } = await import('./main.ts');
      return { main, keepCache() {} };
    } catch (e2) {
      return cannotRun(`no CLI bundle could be built (${why}), and the source cannot be run through tsx (${firstLine(e2)})`);
    }
  }
}

function firstLine(e) {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}

/** A broken install: reported like any command failure (`countersign: E_CODE`, or one JSON document under --json), exit 2. */
function cannotRun(message) {
  const fix = `reinstall the dependencies (esbuild and tsx are two): run \`npm ci\` (or \`npm install\`) in ${fileURLToPath(new URL('../..', import.meta.url))}`;
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code: 'E_INSTALL', message, fix } }, null, 2)}\n`);
  process.stderr.write(`countersign: E_INSTALL: ${message}\n  fix: ${fix}\n`);
  return { main: async () => 2, keepCache() {} };
}

const { main, keepCache } = await load();
process.exitCode = await main(argv);
keepCache();
