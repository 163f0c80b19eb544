/**
 * Where the CLI keeps runs: --store DIR, else COUNTERSIGN_STORE, else
 * .countersign/ under the working directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore, resolveStoreDir } from '../../engine/store/open.js';

const test = suite('store location');

test('the default store directory is .countersign/ under the working directory', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: {} }), '/work/project/.countersign');
});

test('COUNTERSIGN_STORE overrides the default, relative to the working directory', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: '/var/runs' } }), '/var/runs');
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: 'state' } }), '/work/project/state');
});

test('--store DIR wins over COUNTERSIGN_STORE', () => {
  assert.is(resolveStoreDir({ store: 'flag-dir', cwd: '/work/project', env: { COUNTERSIGN_STORE: '/var/runs' } }), '/work/project/flag-dir');
});

test('an empty COUNTERSIGN_STORE counts as unset', () => {
  assert.is(resolveStoreDir({ cwd: '/work/project', env: { COUNTERSIGN_STORE: '' } }), '/work/project/.countersign');
});

test('openStore opens SQLite at DIR/countersign.db in the resolved directory', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-open-'));
  try {
    const store = openStore({ cwd, env: {} });
    assert.equal(store.list(), []);
    store.close();
    assert.ok(existsSync(join(cwd, '.countersign', 'countersign.db')));
    openStore({ cwd, store: 'custom', env: {} }).close();
    assert.ok(existsSync(join(cwd, 'custom', 'countersign.db')));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test.run();
