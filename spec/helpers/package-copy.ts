/**
 * A copy of the package for suites that build, touch or sweep bundles: the
 * repository's own dist/ and file times are never changed, so commands run
 * from the checkout at the same time never rebuild because of a test.
 */
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, tempDir } from './cli.js';

/**
 * Its sources and settings, and a node_modules of links to this
 * repository's packages, except those named in `copied` (real copies, so a
 * test may edit them) and `left` (missing).
 */
export function copyOfPackage(opts: { copied?: string[]; left?: string[] } = {}): string {
  const dir = tempDir('countersign-pkg-');
  for (const name of ['engine', 'schemas', 'package.json', 'package-lock.json', 'tsconfig.json']) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (opts.left?.includes(name)) continue;
    const from = join(ROOT, 'node_modules', name);
    if (opts.copied?.includes(name)) cpSync(from, join(dir, 'node_modules', name), { recursive: true });
    else symlinkSync(from, join(dir, 'node_modules', name));
  }
  return dir;
}

/**
 * Runs `body` (an async function body given `m`, the copy's build.mjs) in a
 * child process inside the copy and returns what it returned: build.mjs
 * finds its folders from its own location, so only a process that loads
 * the copy's file works on the copy.
 */
export function inCopy<T>(pkg: string, body: string): T {
  const script = `const m = await import('./engine/cli/build.mjs'); const r = await (async () => { ${body} })(); process.stdout.write(JSON.stringify(r ?? null));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: pkg, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`in the package copy: ${body}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
