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
import { answersTaken, createEngine, createMemoryStore, createSqliteStore, readSource, validateFile, validateWorkflow, type Store, type Workflow } from '../../engine/index.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { ROOT } from '../helpers/cli.js';
import { createScriptedAgent, defineTool, auditDecorator, chain, metricDecorator, rateLimitDecorator, reviewGateDecorator, tenantBindDecorator, timeoutDecorator } from '../../engine/index.js';
import { ARGS, fullChain, memorySink, spyTool } from '../gate/fixtures.js';

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

/** ODD and null: a value of the wrong type is named, never by its typeof ("object" for null, "number" for NaN). */
const WRONG: readonly (readonly [unknown, string])[] = [[null, 'null'], ...ODD];

Said('answersTaken names an event or nodeId of NaN, Infinity, 5n, a symbol or a function as given, with E_INPUT, never null or a bare TypeError', () => {
  for (const [odd, shown] of ODD) {
    const whole = thrownWithCode(() => answersTaken([odd] as never), 'E_INPUT');
    assert.match(whole.message, `event 0 is ${shown}, not a journal event`, shown);
    const nodeId = thrownWithCode(() => answersTaken([{ seq: 1, at: 'x', type: 'answer.accepted', nodeId: odd }] as never), 'E_INPUT');
    assert.match(nodeId.message, `whose nodeId is ${shown}, not a string`, shown);
  }
});

Said('an answer or start input holding a BigInt is E_INPUT at its pointer naming 5n; a symbol or function as the whole answer is named at (root)', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  for (const [extra, pointer] of [[5n, '/extra'], [[5n], '/extra/0'], [{ deep: 5n }, '/extra/deep']] as const) {
    const e = await rejection(engine.submit(s.runId, { words: 5, extra }));
    assert.is(e.code, 'E_INPUT');
    assert.is(e.pointer, pointer);
    assert.is(e.message, `submit()'s answer for run ${s.runId} (node "write", seq 1) is not plain JSON: ${pointer} is 5n, a BigInt, which JSON has no number for`);
  }
  const input = await rejection(engine.start(TWO_STEP, { input: { topic: 5n } as never }));
  assert.is(input.pointer, '/topic');
  assert.match(input.message, 'the start input is not plain JSON: /topic is 5n, a BigInt');
  for (const [whole, shown] of [[Symbol('x'), 'Symbol(x), a symbol'], [() => 1, 'a function'], [5n, '5n, a BigInt']] as const) {
    const e = await rejection(engine.submit(s.runId, whole as never));
    assert.is(e.code, 'E_INPUT', shown);
    assert.is(e.pointer, '', shown);
    assert.match(e.message, `is not plain JSON: (root) is ${shown}`);
  }
  // r101 c1: an answer left out is named as the answer, for its run and node, with what to pass.
  const missing = await rejection(engine.submit(s.runId, undefined as never));
  assert.is(missing.message, `submit()'s answer for run ${s.runId} (node "write", seq 1) was not given (undefined)`);
  assert.match(missing.fix ?? '', 'pass the answer as a plain JSON object of the fields its inputSchema asks for');
  assert.is((await engine.status(s.runId)).seq, 1, 'nothing was answered');
  const ran = await engine.run(TWO_STEP, { agent: { answer: async () => ({ words: 5n }) as never } });
  assert.is(ran.error?.code, 'E_AGENT_OUTPUT');
  assert.match(ran.error!.message, '/words is 5n, a BigInt');
  assert.not.match(ran.error!.message, 'serialize');
});

Said('createSqliteStore names the directory given: 5n, a function, NaN, a symbol, null', () => {
  for (const [dir, shown] of WRONG) {
    const e = thrownWithCode(() => createSqliteStore(dir as never), 'E_INPUT');
    assert.is(e.message, `createSqliteStore needs the store directory, got ${shown}`);
  }
});

Said('createEngine\'s now and newRunId, run()\'s onProgress, runs()\' filter, a run id, a start input and a workflow path name null, NaN, 5n, a symbol or a function as given, never their typeof', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const agent = { answer: async () => ({ words: 5 }) };
  for (const [odd, shown] of WRONG) {
    const said = async (call: () => unknown, text: string) => {
      const e = await rejection(Promise.resolve().then(call));
      assert.is(e.code, 'E_INPUT', text);
      assert.match(e.message, text);
    };
    await said(() => engine.start(TWO_STEP, { input: odd } as never), `the start input must be a JSON object of variables, got ${shown}`);
    await said(() => engine.runs(odd as never), `runs() takes a filter object, got ${shown}`);
    for (const call of [() => engine.status(odd as never), () => engine.info(odd as never), () => engine.trace(odd as never)]) {
      await said(call, `a run id is a non-empty string, got ${shown}`);
    }
    await said(() => validateFile(odd as never), `a workflow file is named by its path (a non-empty string), got ${shown}`);
    await said(() => readSource(odd as never), `a workflow file is named by its path (a non-empty string), got ${shown}`);
    if (typeof odd === 'function') continue; // a function is what now, newRunId and onProgress take
    await said(() => createEngine({ store, now: odd } as never), `createEngine's now must be a function, got ${shown}`);
    await said(() => createEngine({ store, newRunId: odd } as never), `createEngine's newRunId must be a function, got ${shown}`);
    await said(() => engine.run(TWO_STEP, { agent, onProgress: odd } as never), `run()'s onProgress must be a function, got ${shown}`);
  }
  assert.is(store.list().length, 0, 'nothing was started');
});

Said('the chain\'s decorators and a chained tool name an option, a user id or a context of NaN, Infinity, 5n, a symbol or a function as given: never null, a typeof or a bare TypeError', async () => {
  const decide = async () => ({ outcome: 'approved' as const, proposalId: 'p' });
  const f = fullChain(spyTool('write').tool, { outcome: 'approved', proposalId: 'p1' });
  for (const [odd, shown] of ODD) {
    const invalid = (make: () => unknown, text: string) => assert.match(thrownWithCode(make, 'E_CHAIN_INVALID').message, text, text);
    invalid(() => timeoutDecorator({ ms: odd } as never), `ms must be a positive number of milliseconds up to 2147483647 (about 24.8 days, the longest timer Node keeps), got ${shown}`);
    invalid(() => timeoutDecorator({ perTool: { slow: odd } } as never), `perTool.slow must be a positive number of milliseconds up to 2147483647 (about 24.8 days, the longest timer Node keeps), got ${shown}`);
    invalid(() => rateLimitDecorator({ perTool: { q: { capacity: odd } } } as never), `got {"capacity":${shown}}`);
    invalid(() => reviewGateDecorator({ decide, skip: odd } as never), `skip must be a list of tool names, got ${shown}`);
    const ctx = await rejection(f.chained.run(ARGS, odd as never));
    assert.is(ctx.code, 'E_INPUT', shown);
    assert.match(ctx.message, `called with a context that is ${shown}, not an object`);
    if (typeof odd === 'function') continue; // a function is what now and resolve take
    invalid(() => auditDecorator({ sink: memorySink(), now: odd } as never), `auditDecorator: now, if given, must be a function, got ${shown}`);
    invalid(() => metricDecorator({ now: odd } as never), `got now ${shown}`);
    invalid(() => metricDecorator(odd as never), `got ${shown}`);
    invalid(() => tenantBindDecorator({ resolve: odd } as never), `got resolve ${shown}`);
    const operator = await rejection(chain(spyTool('read').tool, { tenantBind: tenantBindDecorator({ resolve: () => odd as never }) }).run(ARGS, {}));
    assert.is(operator.code, 'E_OPERATOR_REQUIRED', shown);
    assert.match(operator.message, `tenant_bind's resolve returned a ${typeof odd} (${shown}), not a user id string`);
  }
});

Said('createScriptedAgent\'s options and a script entry, a ledger row\'s value and a tool\'s arguments name 5n, NaN, a symbol or a function as given, each with its code', async () => {
  const tool = defineTool({ name: 'count', class: 'read', inputSchema: { type: 'object' }, run: async () => ({ ok: true }) });
  for (const [odd, shown] of ODD) {
    const opts = thrownWithCode(() => createScriptedAgent({}, odd as never), 'E_INPUT');
    assert.is(opts.message, `createScriptedAgent's options must be an object, got ${shown}`);
    const agent = createScriptedAgent({ write: [odd] });
    const entry = await rejection(agent.answer({ kind: 'directive', nodeId: 'write' } as never, {} as never));
    assert.is(entry.code, 'E_AGENT_OUTPUT', shown);
    assert.match(entry.message, `the script answers node "write" with ${typeof odd === 'function' ? shown : `the ${typeof odd} ${shown}`} (answer 1, at /write/0), not a JSON object`);
    assert.equal(tool.argProblems(odd), [{ pointer: '', message: `tool arguments must be a JSON object, got ${shown}` }], shown);
  }
  withStores((store, name) => {
    for (const [odd, shown] of ODD) {
      const e = thrownWithCode(() => store.appendRows([{ id: 'r1', table: 'audit_test', at: '2024-01-01T00:00:00.000Z', row: { n: odd } as never }]), 'E_LEDGER_ROW');
      assert.is(e.message, `ledger row "r1" holds ${shown} at /n, which JSON cannot keep`, `${name}: ${shown}`);
    }
  });
});

Said('r85: submit() and recordToolCalls() name a seq that is no whole number as given (null, an object, a list, true, NaN, 5n, a symbol, a function), never by its typeof ("a object" for null); a string holding a number is told to pass the number', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const given: Array<readonly [unknown, string]> = [...WRONG, [{ a: 1 }, '{"a":1}'], [[1], '[1]'], [true, 'true'], [1.5, '1.5'], ['2', '"2"']];
  for (const [seq, shown] of given) {
    for (const [call, make] of [['submit', () => engine.submit(s.runId, { words: 5 }, { seq } as never)], ['recordToolCalls', () => engine.recordToolCalls(s.runId, { seq, toolCalls: [] } as never)]] as const) {
      const e = await rejection(make());
      assert.is(e.code, 'E_SEQ', `${call} ${shown}`);
      assert.is(e.message, `seq ${shown} is not a whole number, so it names no item of run ${s.runId}`, `${call} ${shown}`);
    }
  }
  const quoted = await rejection(engine.submit(s.runId, { words: 5 }, { seq: '1' } as never));
  assert.match(quoted.fix ?? '', 'pass seq as the number 1, not the string "1"');
  assert.is((await engine.status(s.runId)).seq, 1, 'nothing was answered');
});

Said.run();
