/**
 * The launcher runs the bundled CLI only while it is as new as every
 * source it was built from, so an edited checkout never runs stale code.
 * The check is one stat per listed file and folder.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { copyOfPackage, inCopy } from '../helpers/package-copy.js';
// @ts-expect-error: build.mjs is plain JavaScript without type declarations
import { markInUse } from '../../engine/cli/build.mjs';
import { createRequire } from 'node:module';

const { withInputs } = createRequire(import.meta.url)('../../engine/cli/bundle-files.cjs') as {
  withInputs: (sources: Record<string, number>, inputs: string[], startedAt: number) => Record<string, number>;
};

// Every test builds, touches and sweeps in a copy of the package: the checkout's own bundle and file times stay as they are.
const Fresh = suite('launcher: bundle freshness');

/** The copy's current bundle entry, or null when a command would build again. */
const freshBundle = (pkg: string) => inCopy<string | null>(pkg, 'return m.freshBundle();');
const build = (pkg: string) => inCopy<string>(pkg, 'return m.build();');

/** Sets a path's modification time to `when` for the duration of `fn`, then puts the time back. */
function touched(pkg: string, rel: string, when: Date, fn: () => void) {
  const path = join(pkg, rel);
  const { atimeMs, mtimeMs } = statSync(path);
  utimesSync(path, new Date(atimeMs), when);
  try {
    fn();
  } finally {
    utimesSync(path, new Date(atimeMs), new Date(mtimeMs));
  }
}

Fresh('an edited source, one copied in with an older time (cp -p), or a changed folder (a file added or removed) makes the bundle stale', () => {
  const pkg = copyOfPackage();
  build(pkg);
  assert.ok(freshBundle(pkg), 'fresh right after a build');
  const later = new Date(Date.now() + 60_000);
  const earlier = new Date(Date.now() - 86_400_000);
  touched(pkg, 'engine/nodes/condition.ts', later, () => assert.is(freshBundle(pkg), null, 'a source edited after the build'));
  build(pkg);
  touched(pkg, 'engine/nodes/condition.ts', earlier, () => assert.is(freshBundle(pkg), null, 'a source replaced by one with an older modification time'));
  build(pkg);
  touched(pkg, 'schemas/workflow.schema.json', later, () => assert.is(freshBundle(pkg), null, 'a published schema edited after the build'));
  build(pkg);
  touched(pkg, 'engine/format/ajv-all.cjs', later, () => assert.is(freshBundle(pkg), null, 'the CommonJS source bundled beside the chunks'));
  build(pkg);
  touched(pkg, 'engine/cli/build.mjs', later, () => assert.is(freshBundle(pkg), null, 'the build script, which sets every bundling option'));
  build(pkg);
  touched(pkg, 'engine/run', later, () => assert.is(freshBundle(pkg), null, 'a folder whose entries changed after the build'));
  // Restoring a time is a change too: the next command rebuilds, and the bundle is fresh again.
  assert.is(freshBundle(pkg), null);
  build(pkg);
  assert.ok(freshBundle(pkg), 'fresh again after a rebuild');
});

Fresh('a build sweeps old bundle folders no live process marked, never one a live process marked (even one stopped for an hour)', () => {
  const pkg = copyOfPackage();
  const current = dirname(build(pkg));
  const hourAgo = new Date(Date.now() - 3_600_000);
  const folder = (name: string) => {
    const dir = join(pkg, 'dist', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main.cjs'), 'module.exports = {};\n');
    return dir;
  };
  const unused = folder('cli-spec-unused');
  const inUse = folder('cli-spec-in-use');
  const deadOwner = folder('cli-spec-dead-owner');
  const reused = folder('cli-spec-reused');
  // This process is the live one that marks a folder; the build runs in another.
  markInUse(join(inUse, 'main.cjs'));
  assert.ok(existsSync(join(inUse, `.in-use-${process.pid}`)), 'the mark names this process');
  // A process that has exited: its pid no longer names a live process.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(join(deadOwner, `.in-use-${dead}`), '');
  // This pid, but recorded with another start time: a later process that reuses a killed one's pid.
  if (existsSync('/proc/self/stat')) writeFileSync(join(reused, `.in-use-${process.pid}`), 'not-this-start');
  // A killed command's mark in the current bundle folder.
  writeFileSync(join(current, `.in-use-${dead}`), '');
  // As if nobody had touched any of them for an hour (a stopped or sleeping process renews nothing).
  for (const dir of [unused, inUse, deadOwner, reused]) utimesSync(dir, hourAgo, hourAgo);
  build(pkg);
  assert.not.ok(existsSync(unused), 'an hour-old folder nobody marked is swept');
  assert.not.ok(existsSync(deadOwner), 'a folder marked only by a process that has exited is swept');
  if (existsSync('/proc/self/stat')) assert.not.ok(existsSync(reused), 'a mark whose pid now belongs to another process does not keep a folder');
  assert.ok(existsSync(inUse), 'a folder a live process marked is kept, however old its time');
  assert.not.ok(existsSync(join(current, `.in-use-${dead}`)), 'a dead process\'s mark is removed from the current folder too');
});

Fresh('a build records each bundled dependency with its package\'s folder and package.json (which chose the file), and a file changed while it ran as changed', () => {
  const recorded = withInputs({}, ['node_modules/json-logic-js/logic.js', 'node_modules/@modelcontextprotocol/sdk/dist/esm/types.js', 'engine/errors.ts'], Date.now() + 60_000);
  assert.equal(Object.keys(recorded).sort(), [
    'engine/errors.ts',
    'node_modules/@modelcontextprotocol/sdk',
    'node_modules/@modelcontextprotocol/sdk/dist/esm/types.js',
    'node_modules/@modelcontextprotocol/sdk/package.json',
    'node_modules/json-logic-js',
    'node_modules/json-logic-js/logic.js',
    'node_modules/json-logic-js/package.json',
  ]);
  assert.ok(Object.values(recorded).every((t) => t > 0), 'times of files that did not change during the build');
  // Changed after the build began: recorded as changed, so the next command builds again.
  const during = withInputs({}, ['engine/errors.ts'], statSync(join(ROOT, 'engine/errors.ts')).ctimeMs - 1);
  assert.is(during['engine/errors.ts'], -1);
  // What sourceTree recorded before the build is kept as it was.
  assert.is(withInputs({ 'engine/errors.ts': 5 }, ['engine/errors.ts'], 0)['engine/errors.ts'], 5);
});

Fresh('a bundle whose ajv-all.cjs is gone is not fresh (the CLI would load ajv the slow way): the next command builds again', () => {
  const pkg = copyOfPackage();
  const entry = build(pkg);
  assert.ok(freshBundle(pkg));
  rmSync(join(dirname(entry), 'ajv-all.cjs'));
  assert.is(freshBundle(pkg), null);
  build(pkg);
  assert.ok(freshBundle(pkg));
});

Fresh.run();
