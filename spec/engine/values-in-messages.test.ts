/**
 * A refused value is named as it was given. JSON would say `null` for NaN
 * and Infinity (null is a wrong value of its own), nothing for a symbol or
 * a function, and throws a bare TypeError on a BigInt: every message says
 * NaN, Infinity, 5n, Symbol(…) or "a function" instead, with its code.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore, validateWorkflow, type Store, type Workflow } from '../../engine/index.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { ROOT } from '../helpers/cli.js';

const Said = suite('values named in messages');
const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

/** Each odd value, and how a message must show it. */
const ODD: readonly (readonly [unknown, string])[] = [
  [Number.NaN, 'NaN'],
  [Number.POSITIVE_INFINITY, 'Infinity'],
  [Number.NEGATIVE_INFINITY, '-Infinity'],
  [5n, '5n'],
  [Symbol('tag'), 'Symbol(tag)'],
  [() => 1, 'a function'],
];

function withStores(body: (store: Store, name: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-said-'));
  const stores: [Store, string][] = [[createMemoryStore(), 'memory'], [createSqliteStore(dir), 'sqlite']];
  try {
    for (const [store, name] of stores) body(store, name);
  } finally {
    for (const [store] of stores) store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

Said('trace({ from }) names NaN, Infinity, 5n, a symbol or a function as given, never null or undefined', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  for (const [from, shown] of ODD) {
    const e = await rejection(engine.trace(s.runId, { from } as never));
    assert.is(e.code, 'E_INPUT', shown);
    assert.is(e.message, `trace from ${shown} is not an event index`);
  }
});

Said('runs({ status }), start({ as, workspace }), submit({ as, madeAt }) and createEngine({ allowToolModules }) name NaN and Infinity as given', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  const said = async (p: Promise<unknown>, code: string, text: string) => {
    const e = await rejection(p);
    assert.is(e.code, code, text);
    assert.match(e.message, text);
    assert.not.match(e.message, 'null');
  };
  await said(Promise.resolve().then(() => engine.runs({ status: Number.NaN } as never)), 'E_INPUT', 'runs() status NaN is not a run status');
  await said(engine.start(TWO_STEP, { as: Number.NaN } as never), 'E_INPUT', 'got NaN');
  await said(engine.start(TWO_STEP, { workspace: Number.NaN } as never), 'E_INPUT', 'got NaN');
  await said(engine.submit(s.runId, { words: 5 }, { as: Number.POSITIVE_INFINITY } as never), 'E_INPUT', 'got Infinity');
  await said(engine.submit(s.runId, { words: 5 }, { madeAt: Number.NaN } as never), 'E_INPUT', 'got NaN');
  await said(Promise.resolve().then(() => createEngine({ store, allowToolModules: Number.NaN } as never)), 'E_INPUT', 'got NaN');
  await said(Promise.resolve().then(() => createEngine({ store, allowToolModules: 5n } as never)), 'E_INPUT', 'got 5n');
  assert.is(store.list().length, 1, 'nothing more was started');
});

Said('a store\'s events(runId, from) names the index given (NaN, Infinity, 5n, a symbol, a function) with E_INPUT, in both stores', () => {
  withStores((store, name) => {
    for (const [from, shown] of ODD) {
      const e = thrownWithCode(() => store.events('r1', from as never), 'E_INPUT');
      assert.is(e.message, `events(runId, from): ${shown} is not an index into a journal`, `${name}: ${shown}`);
    }
  });
});

Said('a store\'s rows(table, { limit, since }) names the value given with E_LEDGER_QUERY, in both stores; a BigInt is no TypeError', () => {
  withStores((store, name) => {
    for (const [limit, shown] of ODD) {
      const e = thrownWithCode(() => store.rows('audit_test', { limit } as never), 'E_LEDGER_QUERY');
      assert.is(e.message, `limit ${shown} is not a positive whole number`, `${name}: ${shown}`);
    }
    for (const [since, shown] of ODD) {
      const e = thrownWithCode(() => store.rows('audit_test', { since } as never), 'E_LEDGER_QUERY');
      assert.is(e.message, `since ${shown} is not an ISO-8601 time`, `${name}: ${shown}`);
    }
    const table = thrownWithCode(() => store.rows(5n as never), 'E_LEDGER_TABLE');
    assert.match(table.message, 'ledger table name 5n is not allowed');
  });
});

Said('validateWorkflow(workflow, 5n) is E_INPUT naming 5n as the file given, never a bare TypeError; options of 5n are named too', () => {
  const file = thrownWithCode(() => validateWorkflow(TWO_STEP, 5n as never), 'E_INPUT');
  assert.is(file.message, 'validateWorkflow()\'s second argument is the file name (a string), got 5n');
  const symbol = thrownWithCode(() => validateWorkflow(TWO_STEP, Symbol('f') as never), 'E_INPUT');
  assert.is(symbol.message, 'validateWorkflow()\'s second argument is the file name (a string), got Symbol(f)');
  const opts = thrownWithCode(() => validateWorkflow(TWO_STEP, 'x.json', 5n as never), 'E_INPUT');
  assert.is(opts.message, 'validateWorkflow() options must be an object, got 5n');
});

Said.run();
