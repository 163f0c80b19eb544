/** Folders the engine creates (the store, review report folders, the validator cache): made, or refused with a reason, never a hang. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from '../../engine/format/make-dirs.js';
import { spawnCli, tempDir } from '../helpers/cli.js';

const Dirs = suite('makeDirs');

Dirs('creates every missing folder, with the mode asked for; an existing folder is fine', () => {
  const base = tempDir('countersign-dirs-');
  const deep = join(base, 'a', 'b', 'c');
  makeDirs(deep, 0o700);
  assert.ok(statSync(deep).isDirectory());
  assert.is(statSync(join(base, 'a')).mode & 0o777, 0o700 & ~process.umask());
  makeDirs(deep);
});

Dirs('a file in the way is ENOTDIR naming that file as what is no directory, never only the leaf it blocks', () => {
  const base = tempDir('countersign-dirs-');
  writeFileSync(join(base, 'file'), 'x');
  for (const below of [join(base, 'file', 'below'), join(base, 'file', 'below', 'deeper')]) {
    assert.throws(() => makeDirs(below), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR' && e.message === `ENOTDIR: ${join(base, 'file')} exists but is not a directory`, below);
  }
});

Dirs('a dangling link where a folder should be is refused (ENOTDIR, saying it is a link to a missing folder), not taken for a folder; the CLI reports E_STORE for it', () => {
  const base = tempDir('countersign-dirs-');
  symlinkSync(join(base, 'nowhere'), join(base, 'store'));
  assert.throws(() => makeDirs(join(base, 'store')), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR' && e.message.includes(`a link to ${join(base, 'nowhere')}, which does not exist`));
  const r = spawnCli(['start', 'spec/fixtures/cli/two-step.json', '--store', join(base, 'store'), '--json']);
  assert.is(r.code, 2);
  const error = JSON.parse(r.stdout).error;
  assert.is(error.code, 'E_STORE');
  assert.match(error.message, /cannot create the store directory .*exists but is not a directory \(a link to/);
});

// Node's own recursive mkdirSync never returns for this path on Linux.
if (existsSync('/proc/self')) {
  Dirs('a folder that cannot be made under /proc throws instead of hanging; the CLI reports E_STORE and a cache there only costs time', () => {
    assert.throws(() => makeDirs('/proc/countersign-nope/validators'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
    const store = spawnCli(['start', 'spec/fixtures/cli/two-step.json', '--store', '/proc/countersign-nope', '--json']);
    assert.is(store.code, 2);
    assert.is(JSON.parse(store.stdout).error.code, 'E_STORE');
    const cached = spawnCli(['start', 'spec/fixtures/cli/two-step.json', '--json'], { env: { COUNTERSIGN_CACHE: '/proc/countersign-nope', COUNTERSIGN_STORE: tempDir('countersign-dirs-store-') } });
    assert.is(cached.code, 0, cached.stderr);
    assert.is(JSON.parse(cached.stdout).status, 'waiting');
  });
}

Dirs.run();
