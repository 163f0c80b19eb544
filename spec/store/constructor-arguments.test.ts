/**
 * The store constructors and createEngine refuse arguments they do not
 * take (E_INPUT naming the value), never ignore them: a host asking for a
 * read-only or persistent store must not be handed a different kind of
 * store without a word.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';

const S = suite('store constructors: arguments they do not take');

function refusal(fn: () => unknown): { code?: string; message: string; fix?: string } {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; message: string; fix?: string };
  }
  assert.unreachable('the call was accepted');
  throw new Error('unreachable');
}

S('createMemoryStore({ persist: true }) is E_INPUT naming the argument: it takes none', () => {
  const e = refusal(() => (createMemoryStore as (...a: unknown[]) => unknown)({ persist: true }));
  assert.is(e.code, 'E_INPUT');
  assert.match(e.message, 'createMemoryStore');
  assert.match(e.message, 'persist');
  assert.match(e.fix ?? '', 'createSqliteStore');
});

S('createSqliteStore(dir, { readonly: true }) is E_INPUT and creates nothing: no store is opened read-write instead', () => {
  const dir = join(tempDir(), 'st');
  const e = refusal(() => (createSqliteStore as (...a: unknown[]) => unknown)(dir, { readonly: true }));
  assert.is(e.code, 'E_INPUT');
  assert.match(e.message, 'createSqliteStore');
  assert.match(e.message, 'readonly');
  assert.match(e.fix ?? '', 'createSqliteStore(dir)');
  assert.not.ok(existsSync(dir), 'the store directory was created');
});

S('createEngine({ store }, { x: 1 }) is E_INPUT: every option goes in the one object', () => {
  const e = refusal(() => (createEngine as (...a: unknown[]) => unknown)({ store: createMemoryStore() }, { x: 1 }));
  assert.is(e.code, 'E_INPUT');
  assert.match(e.message, 'createEngine');
  assert.match(e.message, '"x"');
  assert.match(e.fix ?? '', 'createEngine({ store');
});

S('the calls as documented still work (an undefined argument is one left out)', () => {
  const engine = createEngine({ store: createMemoryStore() });
  assert.type(engine.start, 'function');
  const store = createSqliteStore(join(tempDir(), 'ok'));
  store.close();
});

S.run();
