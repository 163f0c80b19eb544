/**
 * `mkdir -p`, without Node's `mkdirSync(…, { recursive: true })`: on
 * Node 20 that call never returns for some paths it cannot create (under
 * /proc, for one), and a command must fail, not hang. The missing folders
 * are found by walking up, then created one by one; an error names why.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = resolve(dir); ; ) {
    try {
      if (statSync(current).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR', path: current });
    } catch (e) {
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
      if (!statSync(folder).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${folder}'`), { code: 'ENOTDIR', path: folder });
    }
  }
}
