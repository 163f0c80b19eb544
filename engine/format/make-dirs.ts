/**
 * `mkdir -p`, without Node's `mkdirSync(…, { recursive: true })`: on
 * Node 20 that call never returns for some paths it cannot create (under
 * /proc, for one), and a command must fail, not hang. The missing folders
 * are found by walking up, then created one by one; an error names why.
 */
import { lstatSync, mkdirSync, readlinkSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = resolve(dir); ; ) {
    try {
      if (statSync(current).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR', path: current });
    } catch (e) {
      // A file where a folder of the path should be ("afile/sub"): said of that file, not of the leaf.
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw blocker(current) ?? e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      missing.push(current);
      const parent = dirname(current);
      if (parent === current) throw e;
      current = parent;
    }
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? undefined : { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another process made it meanwhile, or something else is there (a
      // dangling link, a file): only a directory will do.
      if (!isDirectory(folder)) throw notADirectory(folder);
    }
  }
}

/** The nearest ancestor of `path` that exists and is no directory, as an ENOTDIR naming it. */
function blocker(path: string): Error | undefined {
  for (let current = path; ; ) {
    try {
      if (!statSync(current).isDirectory()) return notADirectory(current);
      return undefined;
    } catch {
      const parent = dirname(current);
      if (parent === current) return undefined;
      current = parent;
    }
  }
}

/** Whether `path` is a directory (through links); false when nothing, or something else, is there. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // a link whose target is gone
  }
}

/** ENOTDIR naming what is in the way: a dangling link looks like a path that both exists and does not. */
function notADirectory(path: string): Error {
  let what = '';
  try {
    if (lstatSync(path).isSymbolicLink()) what = ` (a link to ${readlinkSync(path)}, which ${isDirectory(path) ? 'is' : 'does not exist or is not'} a directory)`;
  } catch {
    // gone meanwhile: the plain message will do
  }
  return Object.assign(new Error(`ENOTDIR: ${path} exists but is not a directory${what}`), { code: 'ENOTDIR', path });
}
