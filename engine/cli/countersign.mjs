#!/usr/bin/env node
// The `countersign` launcher. It runs the bundled CLI (built by `npm ci` /
// `npm run build`, and rebuilt here when any source is newer) with its code
// cache, so the command always runs the current source. When the bundle
// cannot be written (a read-only install) it runs the TypeScript through
// tsx instead, with a warning; a missing dependency is E_INSTALL, a source
// that does not compile, or throws as the CLI loads, E_BUILD, each with
// where and the fix. (A command's own modules load when it runs: a source
// that throws there is that command's error, E_INTERNAL with the stack.)
// Its helpers are CommonJS, loaded with require: cheaper than ES imports of
// node:fs on a path every command takes.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { freshBundle, markInUse } = require('./bundle-files.cjs');
const { loadBundle } = require('./code-cache.cjs');
const { missingCurrentDirectory } = require('./current-directory.cjs');
const { relayWanted, runRelayed, STDOUT_FD_VAR } = require('./stdout-relay.cjs');
const argv = process.argv.slice(2);
const root = fileURLToPath(new URL('../..', import.meta.url));
const REINSTALL = `reinstall the dependencies: run \`npm ci\` (or \`npm install\`) in ${root}`;
const RESTORE = 'correct the source there (or restore it, e.g. with git checkout), then run the command again';

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
    } catch (e) {
      // Swept by a build running at the same moment, before this process marked it: build again.
      const swept = e?.code === 'ENOENT' && e?.path === fresh;
      // A bundle esbuild wrote always parses: one that does not was damaged on disk (cut short, overwritten): build again.
      const damaged = e?.name === 'SyntaxError';
      // Anything else (a missing file the source reads included) is the source failing as it loads: building again would not change that.
      if (!swept && !damaged) return sourceFailure(e);
    }
  }
  let entry;
  try {
    const { build } = await import('./build.mjs');
    entry = await build();
  } catch (e) {
    // esbuild's own message says only "Build failed with 1 error:": its first error says what.
    const why = Array.isArray(e?.errors) && e.errors[0]?.text ? e.errors[0].text : firstLine(e);
    // esbuild (or its binary package) missing: tsx needs it too.
    if (!compileErrors(e) && (/Cannot find (package|module) 'esbuild'/.test(why) || /@esbuild\/[\w-]+/.test(why))) return cannotRun('E_INSTALL', `the CLI bundle cannot be built: ${why}`, REINSTALL);
    // A dependency missing (a package name that does not resolve), or damaged (an error inside node_modules):
    // reinstalling fixes it. A relative path that does not resolve is the source's own: E_BUILD below.
    const installed = (Array.isArray(e?.errors) ? e.errors : []).filter((m) => isDependency(/^Could not resolve "([^"]*)"/.exec(m.text)?.[1]) || /(^|\/)node_modules\//.test(m.location?.file ?? ''));
    if (installed.length > 0) return cannotRun('E_INSTALL', `a dependency is missing or damaged: ${compileErrors({ errors: installed })}`, REINSTALL);
    // The source itself does not compile: tsx would fail on it too. Say where.
    const located = compileErrors(e);
    if (located) return cannotRun('E_BUILD', `the countersign source does not compile: ${located}`, RESTORE);
    // The bundle cannot be written (a read-only install): the current source, compiled on every call. Said, with the fix.
    process.stderr.write(`countersign: warning: cannot build the CLI bundle (${why}); running the TypeScript source through tsx, which is slower. Fix: run \`npm run build\` in ${root} as a user who may write its dist/ folder.\n`);
    return fromSource();
  }
  try {
    return open(entry);
  } catch (e) {
    return sourceFailure(e);
  }
}

/**
 * Whether an import that did not resolve names a package the project
 * depends on (package.json): then the install is missing it. A relative
 * path, or a package the project does not list (a typo), is the source's.
 */
function isDependency(specifier) {
  if (typeof specifier !== 'string' || /^(\.{1,2}(\/|$)|\/|node:)/.test(specifier)) return false;
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  try {
    const pkg = JSON.parse(require('node:fs').readFileSync(`${root}/package.json`, 'utf8'));
    return [pkg.dependencies, pkg.devDependencies, pkg.optionalDependencies].some((deps) => deps && Object.hasOwn(deps, name));
  } catch {
    return true; // no readable package.json: the install itself is broken
  }
}

/** main() from the TypeScript source through tsx; `failure`: what already went wrong, said first if tsx is missing too. */
async function fromSource(failure) {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (e) {
    if (failure) return cannotRun('E_BUILD', `${failure} (and tsx, which would show where in the source, is not installed: ${firstLine(e)})`, RESTORE);
    return cannotRun('E_INSTALL', `the source cannot be run through tsx (${firstLine(e)})`, REINSTALL);
  }
  try {
    register();
    const { main } = await import('./main.ts');
    return { main, keepCache() {} };
  } catch (e) {
    // A folder tsx (or the source) may not write, such as its cache under TMPDIR: the machine's setup, not the source.
    if (e && ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR'].includes(e.code) && typeof e.path === 'string' && !e.path.startsWith(join(root, 'engine'))) {
      return cannotRun('E_INSTALL', `the source cannot be run through tsx: ${firstLine(e)}`, `let this user write ${e.path} (tsx keeps its cache under TMPDIR: point TMPDIR at a folder this user may write), or run \`npm run build\` in ${root} as a user who may write its dist/ folder`);
    }
    return cannotRun('E_BUILD', `the countersign source does not load: ${firstLine(e)}${sourceFrame(e)}`, RESTORE);
  }
}

/**
 * The bundle compiled but throws as it loads. Where, in the source: the
 * same modules loaded through tsx name their TypeScript file and line (the
 * bundle's own frames name one long line of main.cjs); E_BUILD says so.
 */
async function sourceFailure(e) {
  const fromTs = await fromSource(`the countersign source does not load: ${firstLine(e)}`);
  if (!fromTs.failed) {
    // The source loads where the bundle does not: run it, and say so.
    process.stderr.write(`countersign: warning: the CLI bundle does not load (${firstLine(e)}); running the TypeScript source through tsx, which is slower. Fix: run \`npm run build\` in ${root}.\n`);
  }
  return fromTs;
}

/** ` (at engine/…/file.ts:line:col)` from a stack, when one of its frames is in the source. */
function sourceFrame(e) {
  const m = /(engine\/[^\s():]+\.ts):(\d+):(\d+)/.exec(String(e?.stack ?? ''));
  return m ? ` (at ${m[1]}:${m[2]}:${m[3]})` : '';
}

/** esbuild's errors as `file:line:col: text` (the first three), or undefined when none names a place in a file. */
function compileErrors(e) {
  const errors = (Array.isArray(e?.errors) ? e.errors : []).filter((m) => m.location);
  if (errors.length === 0) return undefined;
  return errors.slice(0, 3).map((m) => `${m.location.file}:${m.location.line}:${m.location.column + 1}: ${m.text}`).join('; ');
}

function firstLine(e) {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}

/** The command cannot run at all: reported like any command failure (`countersign: E_CODE`, or one JSON document under --json), exit 2. */
function cannotRun(code, message, fix) {
  // Run relayed (stdout-relay.cjs), the real stdout is the descriptor named; else 1.
  if (argv.includes('--json')) require('node:fs').writeSync(Number(process.env[STDOUT_FD_VAR] ?? 1), `${JSON.stringify({ error: { code, message, fix } }, null, 2)}\n`);
  process.stderr.write(`countersign: ${code}: ${message}\n  fix: ${fix}\n`);
  return { main: async () => 2, keepCache() {}, failed: true };
}

// Checked first: without a current directory neither esbuild nor tsx can
// even load, so no bundle could be built; main() says the same when run alone.
const gone = missingCurrentDirectory(process.env);
// A stderr that cannot be written (a full disk) leaves nowhere to say anything: its failures are dropped, never a
// crash that turns the command's status into 1 (io.ts does the same once a command runs).
process.stderr.on('error', () => undefined);
// A command that may load a workflow's tool modules runs in a child whose descriptor 1 is copied to stderr (stdout-relay.cjs).
const relayed = !gone && relayWanted(argv, process.env) ? await runRelayed(fileURLToPath(import.meta.url), argv) : undefined;
if (!relayed) {
  const { main, keepCache } = gone ? cannotRun(gone.code, gone.message, gone.fix) : await load();
  process.exitCode = await main(argv);
  keepCache();
}
