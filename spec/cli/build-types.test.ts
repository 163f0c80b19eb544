/**
 * The declaration-file build that `prepare` runs (r79 a1): an install with
 * --omit=dev has no TypeScript compiler and must still install (the CLI and
 * library need no types to run); with the compiler, a type error still
 * fails the build.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/cli.js';
import { copyOfPackage } from '../helpers/package-copy.js';

const Types = suite('build-types.mjs (prepare, npm run build:types)');

const buildTypes = (pkg: string) => spawnSync(process.execPath, [join(pkg, 'engine', 'cli', 'build-types.mjs')], { cwd: pkg, encoding: 'utf8', timeout: 120_000 });

Types('r79 a1: without typescript (npm ci --omit=dev) it says so on stderr and exits 0, so the install goes on; nothing is built', () => {
  const pkg = copyOfPackage({ left: ['typescript'] });
  copyFileSync(join(ROOT, 'tsconfig.types.json'), join(pkg, 'tsconfig.types.json'));
  const r = buildTypes(pkg);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, 'countersign: typescript is not installed (an install with --omit=dev): the declaration files in dist/types are not built');
  assert.not.ok(existsSync(join(pkg, 'dist', 'types')));
});

Types('r79 a1: with typescript, a type error fails the build (never passed over as "not installed")', () => {
  const pkg = copyOfPackage();
  copyFileSync(join(ROOT, 'tsconfig.types.json'), join(pkg, 'tsconfig.types.json'));
  writeFileSync(join(pkg, 'engine', 'broken-for-test.ts'), 'export const n: number = "not a number";\n');
  const r = buildTypes(pkg);
  assert.is.not(r.status, 0);
  assert.match(r.stdout + r.stderr, 'broken-for-test.ts');
  assert.not.match(r.stderr, 'not installed');
});

Types.run();
