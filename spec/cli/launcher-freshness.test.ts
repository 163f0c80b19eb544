/**
 * The launcher runs the bundled CLI only while it is as new as every
 * source it was built from, so an edited checkout never runs stale code.
 * The check is one stat per listed file and folder.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: build.mjs is plain JavaScript without type declarations
import { build, freshBundle, markInUse } from '../../engine/cli/build.mjs';

const Fresh = suite('launcher: bundle freshness');

/**
 * Sets a path's modification time into the future for the duration of
 * `fn`, then puts it back a millisecond early: utimes cannot restore a
 * nanosecond time exactly, and a restored time that rounded up would
 * leave the bundle stale.
 */
function touched(rel: string, fn: () => void) {
  const path = join(ROOT, rel);
  const { atimeMs, mtimeMs } = statSync(path);
  utimesSync(path, new Date(atimeMs), new Date(Date.now() + 60_000));
  try {
    fn();
  } finally {
    utimesSync(path, new Date(atimeMs), new Date(Math.floor(mtimeMs) - 1));
  }
}

Fresh('an edited source file or a changed folder (a file added or removed) makes the bundle stale', async () => {
  if (!freshBundle()) await build();
  assert.ok(freshBundle(), 'fresh right after a build');
  touched('engine/nodes/condition.ts', () => assert.is(freshBundle(), undefined, 'a source edited after the build'));
  touched('schemas/workflow.schema.json', () => assert.is(freshBundle(), undefined, 'a published schema edited after the build'));
  touched('engine/format/ajv-all.cjs', () => assert.is(freshBundle(), undefined, 'the CommonJS source bundled beside the chunks'));
  touched('engine/run', () => assert.is(freshBundle(), undefined, 'a folder whose entries changed after the build'));
  assert.ok(freshBundle(), 'fresh again once the times are back');
});

Fresh('a build sweeps old bundle folders nobody uses, never one a running process marked in use', async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const folder = (name: string) => {
    const dir = join(ROOT, 'dist', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main.js'), 'export {};\n');
    utimesSync(dir, hourAgo, hourAgo);
    return dir;
  };
  const unused = folder('cli-spec-unused');
  const inUse = folder('cli-spec-in-use');
  try {
    markInUse(join(inUse, 'main.js'));
    await build();
    assert.not.ok(existsSync(unused), 'an hour-old folder nobody marked is swept');
    assert.ok(existsSync(inUse), 'a folder a live process marked is kept');
  } finally {
    rmSync(unused, { recursive: true, force: true });
    rmSync(inUse, { recursive: true, force: true });
  }
});

Fresh.run();
