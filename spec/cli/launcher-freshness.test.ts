/**
 * The launcher runs the bundled CLI only while it is as new as every
 * source it was built from, so an edited checkout never runs stale code.
 * The check is one stat per listed file and folder.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: build.mjs is plain JavaScript without type declarations
import { build, freshBundle, markInUse } from '../../engine/cli/build.mjs';
import { createRequire } from 'node:module';

const { withInputs, inUse } = createRequire(import.meta.url)('../../engine/cli/bundle-files.cjs') as {
  withInputs: (sources: Record<string, number>, inputs: string[], startedAt: number) => Record<string, number>;
  inUse: (dir: string) => boolean;
};

const Fresh = suite('launcher: bundle freshness');

// The builds below would leave a bundle folder each until a later build sweeps it: the suite removes its own.
const bundles = () => readdirSync(join(ROOT, 'dist')).filter((n) => n.startsWith('cli-'));
let before: string[] = [];
Fresh.before(() => {
  before = existsSync(join(ROOT, 'dist')) ? bundles() : [];
});
Fresh.after(() => {
  const current = basename(dirname(freshBundle() ?? ''));
  // A folder a running command marked in use (another suite's `countersign mcp`, a user's command) is left to the launcher's own sweep.
  for (const name of bundles()) {
    if (!before.includes(name) && name !== current && !inUse(join(ROOT, 'dist', name))) rmSync(join(ROOT, 'dist', name), { recursive: true, force: true });
  }
});

/** Sets a path's modification time to `when` for the duration of `fn`, then puts the time back. */
function touched(rel: string, when: Date, fn: () => void) {
  const path = join(ROOT, rel);
  const { atimeMs, mtimeMs } = statSync(path);
  utimesSync(path, new Date(atimeMs), when);
  try {
    fn();
  } finally {
    utimesSync(path, new Date(atimeMs), new Date(mtimeMs));
  }
}

Fresh('an edited source, one copied in with an older time (cp -p), or a changed folder (a file added or removed) makes the bundle stale', async () => {
  if (!freshBundle()) await build();
  assert.ok(freshBundle(), 'fresh right after a build');
  const later = new Date(Date.now() + 60_000);
  const earlier = new Date(Date.now() - 86_400_000);
  touched('engine/nodes/condition.ts', later, () => assert.is(freshBundle(), undefined, 'a source edited after the build'));
  await build();
  touched('engine/nodes/condition.ts', earlier, () => assert.is(freshBundle(), undefined, 'a source replaced by one with an older modification time'));
  await build();
  touched('schemas/workflow.schema.json', later, () => assert.is(freshBundle(), undefined, 'a published schema edited after the build'));
  await build();
  touched('engine/format/ajv-all.cjs', later, () => assert.is(freshBundle(), undefined, 'the CommonJS source bundled beside the chunks'));
  await build();
  touched('engine/cli/build.mjs', later, () => assert.is(freshBundle(), undefined, 'the build script, which sets every bundling option'));
  await build();
  touched('engine/run', later, () => assert.is(freshBundle(), undefined, 'a folder whose entries changed after the build'));
  // Restoring a time is a change too: the next command rebuilds, and the bundle is fresh again.
  assert.is(freshBundle(), undefined);
  await build();
  assert.ok(freshBundle(), 'fresh again after a rebuild');
});

Fresh('a build sweeps old bundle folders no live process marked, never one a live process marked (even one stopped for an hour)', async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const folder = (name: string) => {
    const dir = join(ROOT, 'dist', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main.cjs'), 'module.exports = {};\n');
    return dir;
  };
  const unused = folder('cli-spec-unused');
  const inUse = folder('cli-spec-in-use');
  const deadOwner = folder('cli-spec-dead-owner');
  const reused = folder('cli-spec-reused');
  try {
    markInUse(join(inUse, 'main.cjs'));
    assert.ok(existsSync(join(inUse, `.in-use-${process.pid}`)), 'the mark names this process');
    // A process that has exited: its pid no longer names a live process.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(deadOwner, `.in-use-${dead}`), '');
    // This pid, but recorded with another start time: a later process that reuses a killed one's pid.
    if (existsSync('/proc/self/stat')) writeFileSync(join(reused, `.in-use-${process.pid}`), 'not-this-start');
    // A killed command's mark in the current bundle folder.
    const current = dirname(freshBundle() ?? (await build()));
    writeFileSync(join(current, `.in-use-${dead}`), '');
    // As if nobody had touched any of them for an hour (a stopped or sleeping process renews nothing).
    for (const dir of [unused, inUse, deadOwner, reused]) utimesSync(dir, hourAgo, hourAgo);
    await build();
    assert.not.ok(existsSync(unused), 'an hour-old folder nobody marked is swept');
    assert.not.ok(existsSync(deadOwner), 'a folder marked only by a process that has exited is swept');
    if (existsSync('/proc/self/stat')) assert.not.ok(existsSync(reused), 'a mark whose pid now belongs to another process does not keep a folder');
    assert.ok(existsSync(inUse), 'a folder a live process marked is kept, however old its time');
    assert.not.ok(existsSync(join(current, `.in-use-${dead}`)), 'a dead process\'s mark is removed from the current folder too');
  } finally {
    for (const dir of [unused, inUse, deadOwner, reused]) rmSync(dir, { recursive: true, force: true });
  }
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

Fresh('a bundle whose ajv-all.cjs is gone is not fresh (the CLI would load ajv the slow way): the next command builds again', async () => {
  const entry = freshBundle() ?? (await build());
  rmSync(join(dirname(entry), 'ajv-all.cjs'));
  assert.is(freshBundle(), undefined);
  await build();
  assert.ok(freshBundle());
});

Fresh.run();
