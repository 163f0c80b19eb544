// The files of the CLI bundle: which build is current and whether it is
// as new as its sources (freshBundle), which folders running processes use
// (markInUse), and which old ones a build may remove (sweep).
//
// CommonJS on purpose: the launcher loads this on every command, and
// `require('node:fs')` is cheaper than an ES import of it (which reads
// every export, loading fs streams on the way).
//
// Every build goes to a folder of its own, dist/cli-<id>/, and
// dist/cli.json names the current one (replaced atomically). A build never
// deletes a folder another process may still be loading from: a process
// marks its folder in use with a file naming its pid, and a build sweeps
// only folders that no live process names and nobody has used for
// SWEEP_AFTER_MS.
'use strict';
const { readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '../..').replace(/[\\/]$/, '');
const DIST = join(root, 'dist');
const POINTER = join(DIST, 'cli.json');
/** The bundle's entry file inside its folder. */
const ENTRY = 'main.cjs';
const SWEEP_AFTER_MS = 10 * 60 * 1000;
const IN_USE_EVERY_MS = 60 * 1000;
const IN_USE_PREFIX = '.in-use-';

/**
 * Marks the bundle folder of `entry` as in use by this process: a file
 * named after its pid, holding when the process started (removed when it
 * exits normally), and the folder's time, renewed every minute. A stopped
 * or sleeping process keeps its mark, since the sweep asks whether the pid
 * is alive; a mark left by a killed process is dropped once its pid is gone
 * or belongs to a later process. The timer never keeps the process alive.
 */
function markInUse(entry) {
  const folder = dirname(entry);
  const mark = join(folder, `${IN_USE_PREFIX}${process.pid}`);
  const touch = () => {
    try {
      const now = new Date();
      utimesSync(folder, now, now);
    } catch {
      // Swept or read-only: nothing to keep.
    }
  };
  try {
    writeFileSync(mark, startOf(process.pid) ?? '');
    process.on('exit', () => rmSync(mark, { force: true }));
  } catch {
    // A read-only install: nothing sweeps it either.
  }
  touch();
  setInterval(touch, IN_USE_EVERY_MS).unref();
}

/** When a process started, as the kernel counts it (Linux); undefined where that cannot be read. */
function startOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'; starttime is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether a live process marked `folder` in use; marks of processes that are gone are removed. */
function inUse(folder) {
  let used = false;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(IN_USE_PREFIX)) continue;
    const pid = Number(name.slice(IN_USE_PREFIX.length));
    const mark = join(folder, name);
    let alive = false;
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        // EPERM: alive, another user's. ESRCH: gone.
        alive = e.code === 'EPERM';
      }
    }
    if (alive) {
      // The same pid, but a later process: the one that wrote the mark is gone.
      const recorded = readFileSync(mark, 'utf8');
      const now = startOf(pid);
      if (recorded && now !== undefined && recorded !== now) alive = false;
    }
    if (alive) used = true;
    else rmSync(mark, { force: true });
  }
  return used;
}

/**
 * Files outside engine/ and schemas/ that decide what a build makes: the
 * package and TypeScript settings, and the lockfiles npm rewrites whenever
 * it installs, updates or removes a dependency.
 */
const SETTINGS = ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'];

/**
 * Everything the bundle is built from that is known before building: the
 * settings files, every file under engine/ and schemas/ (whatever its
 * kind: a .js file there may be imported) and their folders, each with its
 * change time. The change time (ctime), not the modification time: every
 * write moves it and no tool can set it back, so a file copied in with an
 * older mtime (`cp -p`, `rsync`, an unpacked tarball) still counts as
 * changed. A missing file is recorded as -1, so creating it counts too.
 */
function sourceTree() {
  const paths = [...SETTINGS];
  const walk = (dir) => {
    paths.push(dir);
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else paths.push(rel);
    }
  };
  walk('engine');
  walk('schemas');
  // node_modules and its @scope folders: a package added, removed, or its
  // link pointed elsewhere (npm link, pnpm) changes the folder holding it.
  // esbuild names bundled files by their real path, which would miss that.
  paths.push('node_modules');
  try {
    for (const entry of readdirSync(join(root, 'node_modules'), { withFileTypes: true })) {
      if (entry.name.startsWith('@') && entry.isDirectory()) paths.push(`node_modules/${entry.name}`);
    }
  } catch {
    // No node_modules here (dependencies found further up): recorded as missing.
  }
  return Object.fromEntries(paths.map((p) => [p, changeTime(p)]));
}

/**
 * Adds the files a build read (esbuild's metafile inputs: the dependencies'
 * files in node_modules included, since they are bundled too, with each
 * such package's folder and package.json, which chose those files) to the
 * sources recorded before it, so a patched dependency makes the bundle
 * stale as an edited source does. Their times are read after the build: a
 * file changed since `startedAt` (when the build began) is recorded as
 * changed (-1), so the next command builds again rather than trust a
 * bundle made from its former text.
 */
function withInputs(sources, inputs, startedAt) {
  const all = { ...sources };
  const add = (path) => {
    if (Object.hasOwn(all, path)) return;
    const ctime = changeTime(path);
    all[path] = ctime >= startedAt ? -1 : ctime;
  };
  for (const path of inputs) {
    add(path);
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const [scope, name] = path.slice(at + 'node_modules/'.length).split('/');
    const pkg = path.slice(0, at + 'node_modules/'.length) + (scope.startsWith('@') ? `${scope}/${name}` : scope);
    add(pkg);
    add(`${pkg}/package.json`);
  }
  return all;
}

/** A path's ctime (relative to the package root), or -1 when it is gone. */
function changeTime(path) {
  // Concatenated, not path.join: the launcher checks a few hundred paths on every command.
  return statSync(`${root}/${path}`, { throwIfNoEntry: false })?.ctimeMs ?? -1;
}

/**
 * The current bundle's entry file when every source it was built from is
 * unchanged since, else undefined. The build recorded each file's and
 * folder's change time, so this is one stat each, no directory reads: a
 * file added or removed changes its folder's time, an edit its own.
 */
function freshBundle() {
  try {
    const { dir, sources, bytes } = JSON.parse(readFileSync(POINTER, 'utf8'));
    const entry = join(DIST, dir, ENTRY);
    if (!sources || typeof sources !== 'object') return undefined;
    for (const [path, ctime] of Object.entries(sources)) if (changeTime(path) !== ctime) return undefined;
    // The bundle's ajv-all.cjs too: without it the CLI would load ajv from node_modules, the slow way.
    const info = statSync(entry);
    // Not the size it was built at: cut short or overwritten on disk, so it is built again (it could fail in any way as it loads).
    if (typeof bytes === 'number' && info.size !== bytes) return undefined;
    if (info.isFile() && statSync(join(DIST, dir, 'ajv-all.cjs')).isFile()) return entry;
  } catch {
    // No bundle yet, or a damaged pointer: build.
  }
  return undefined;
}


function sweep(current) {
  for (const entry of readdirSync(DIST, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('cli-')) continue;
    const full = join(DIST, entry.name);
    try {
      const old = Date.now() - statSync(full).mtimeMs > SWEEP_AFTER_MS;
      // inUse also drops the marks of processes that are gone, in the current folder too.
      if (!inUse(full) && old && entry.name !== current) rmSync(full, { recursive: true, force: true });
    } catch {
      // Another build swept it first.
    }
  }
}

/** Makes the build in dist/<dir> the current one, recording the sources it was built from. */
function publish(dir, sources) {
  const tmp = `${POINTER}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ dir, sources, bytes: statSync(join(DIST, dir, ENTRY)).size }));
  renameSync(tmp, POINTER);
  sweep(dir);
  return join(DIST, dir, ENTRY);
}

module.exports = { root, DIST, ENTRY, markInUse, inUse, sourceTree, withInputs, freshBundle, publish };
