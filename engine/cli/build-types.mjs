#!/usr/bin/env node
/**
 * `npm run build:types` and `prepare`: the TypeScript declaration files
 * (dist/types) for hosts that import countersign from TypeScript. An
 * install with --omit=dev has no TypeScript compiler and needs no types to
 * run: it is said on stderr and the install goes on; a compile error
 * still fails the build.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('countersign: typescript is not installed (an install with --omit=dev): the declaration files in dist/types are not built; the CLI and library run without them (install typescript and run npm run build:types for them)\n');
  process.exit(0);
}
const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json')], { cwd: root, stdio: 'inherit' });
process.exit(built.status ?? 1);
