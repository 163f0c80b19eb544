/** The library API a host embeds: createEngine, start/submit/status/trace/runs/run. */
import { isBlank } from '../../engine/nodes/answer-guard.js';
import { isBlankText } from '../../engine/review/blank-text.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import {
  CountersignError,
  createEngine,
  createMemoryStore,
  createSqliteStore,
  defineTool,
  loadWorkflow,
  validateDocument,
  validateWorkflow,
  type Agent,
  type Workflow,
} from '../../engine/index.js';
import { hashWorkflow } from '../../engine/run/hash.js';
import { MAX_ANSWER_BYTES } from '../../engine/nodes/answer-schema.js';
import { ROOT } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';

const Api = suite('library API');
const tmp = () => mkdtempSync(join(tmpdir(), 'countersign-api-'));
const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

Api('a blank starting identity is refused with E_IDENTITY_REQUIRED, as a blank answering one is; nothing is stored', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  for (const as of [' ', '\t', '']) {
    const code = await engine.start(TWO_STEP, { as }).then(() => 'started', (e: { code?: string }) => e.code);
    assert.is(code, 'E_IDENTITY_REQUIRED', JSON.stringify(as));
  }
  assert.equal(store.list(), []);
  assert.is((await engine.start(TWO_STEP, { as: ' alice ' })).status, 'waiting');
});

Api('the engine\'s own identity (countersign-engine, its tool outcomes\' signature) is refused to start, submit and run with E_IDENTITY_RESERVED; nothing is stored', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const codeOf = (p: Promise<unknown>) => p.then(() => 'accepted', (e: { code?: string; message?: string }) => e.code);
  assert.is(await codeOf(engine.start(TWO_STEP, { as: 'countersign-engine' })), 'E_IDENTITY_RESERVED');
  assert.equal(store.list(), []);
  const s = await engine.start(TWO_STEP, { as: 'alice' });
  for (const as of ['countersign-engine', ' Countersign-Engine ']) {
    assert.is(await codeOf(engine.submit(s.runId, { words: 5 }, { as })), 'E_IDENTITY_RESERVED', as);
  }
  // Nothing was taken: the run still waits at its first item, and the journal has no answer.
  const after = await engine.status(s.runId);
  assert.is(after.seq, s.seq);
  assert.not.ok((await engine.trace(s.runId)).events.some((e) => e.type === 'answer.accepted' || e.type === 'answer.rejected'));
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const opts of [{ as: 'countersign-engine' }, { reviewerAs: 'countersign-engine' }]) {
    assert.is(await codeOf(engine.run(TWO_STEP, { agent, ...opts })), 'E_IDENTITY_RESERVED', JSON.stringify(opts));
  }
  assert.is(store.list().length, 1);
});

Api('§4: a wrong value for a global the node also narrows is one "pointer: message" line, not one per schema that says it', async () => {
  const wf = {
    metadata: { name: 'g', version: '1.0.0', description: 'a node writing a global it also declares' },
    variableRegistry: { n: { type: 'integer', description: 'a count' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'Count.', completionCondition: 'counted', inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, globalInputs: ['n'] }, connections: { success: 'e' } },
      { type: 'end', id: 'e', finalOutput: ['n'] },
    ],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  const r = await engine.submit(s.runId, { n: 'x' });
  assert.equal(r.status === 'waiting' ? r.rejected?.errors : undefined, ['/n: must be integer']);
});

Api('createEngine without a store (or with something that is not one) is E_INPUT at once, with the fix, never a TypeError at the first call', () => {
  for (const options of [{}, { store: {} }, { store: null }, undefined]) {
    let code: string | undefined;
    try {
      createEngine(options as never);
    } catch (e) {
      code = (e as { code?: string }).code;
      assert.match((e as { fix?: string }).fix ?? '', 'createMemoryStore()');
    }
    assert.is(code, 'E_INPUT', JSON.stringify(options));
  }
});

Api('validateWorkflow refuses an object start would refuse (a Set, a Map, NaN inside): E_INPUT at its pointer, never ok', () => {
  for (const [value, what] of [[new Set(['a']), 'a Set'], [new Map([['a', 1]]), 'a Map'], [Number.NaN, 'NaN']] as const) {
    const wf = { ...TWO_STEP, variableRegistry: { ...TWO_STEP.variableRegistry, odd: { type: 'object', description: 'odd', default: value } } };
    const report = validateWorkflow(wf as never);
    assert.is(report.ok, false, what);
    assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_INPUT', '/variableRegistry/odd/default']], what);
  }
});

Api('§4: a schema dependency applies to the answer object itself, so it is never closed on its own: an answer that meets the schema as written is accepted', async () => {
  const wf = {
    metadata: { name: 'dep', version: '1.0.0', description: 'a card needs a billing address' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'pay' } },
      { type: 'agent-directive', id: 'pay', directive: 'Pay.', completionCondition: 'paid', inputSchema: { type: 'object', properties: { credit_card: { type: 'string' }, billing: { type: 'string' } }, dependencies: { credit_card: { properties: { billing: { type: 'string' } }, required: ['billing'] } } }, connections: { success: 'e' } },
      { type: 'end', id: 'e', finalOutput: ['pay.billing'] },
    ],
  } as unknown as Workflow;
  assert.equal(validateWorkflow(wf).errors, []);
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  const missing = await engine.submit(s.runId, { credit_card: '1234' });
  assert.is(missing.status === 'waiting' && missing.rejected?.code, 'E_ANSWER_INVALID');
  const done = await engine.submit(s.runId, { credit_card: '1234', billing: 'x' });
  assert.is(done.status, 'completed', JSON.stringify(done));
});

Api('loadWorkflow reads YAML and JSON into one model: the same workflow hashes identically and runs identically', async () => {
  const yamlDoc = loadWorkflow(join(ROOT, 'workflows/bugfix.yaml'));
  const asJson = join(tmp(), 'bugfix.json');
  writeFileSync(asJson, JSON.stringify(yamlDoc.data, null, 2));
  const jsonDoc = loadWorkflow(asJson);
  assert.equal(jsonDoc.data, yamlDoc.data);
  assert.is(hashWorkflow(jsonDoc.data), hashWorkflow(yamlDoc.data));
  assert.ok(validateDocument(yamlDoc).ok && validateDocument(jsonDoc).ok);
  const script = parseYaml(readFileSync(join(ROOT, 'examples/scripts/bugfix.yaml'), 'utf8')) as Record<string, unknown[]>;
  const results = [];
  for (const doc of [yamlDoc, jsonDoc]) {
    const queues = Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
    const agent: Agent = { answer: async (req) => queues[req.nodeId].shift() };
    const engine = createEngine({ store: createMemoryStore(), newRunId: () => 'same' });
    results.push(await engine.run(doc, { agent }));
  }
  assert.equal(results[0], results[1]);
  assert.is(results[0].status, 'completed');
});

Api('a Moira-format workflow (seed-003 loop with catalog fields and issues_found yes/no) loads unchanged and runs (G21 G26 G32)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const doc = loadWorkflow(join(ROOT, 'spec/fixtures/good/review-loop.json'));
  let state = await engine.start(doc);
  let guard = 0;
  while (state.status === 'waiting' && state.pending.kind !== 'tool' && guard++ < 20) {
    const props = Object.keys((state.pending.inputSchema.properties as object) ?? {});
    const answer: Record<string, unknown> = {};
    for (const p of props) {
      const schema = (state.pending.inputSchema.properties as Record<string, { type?: string; enum?: string[] }>)[p];
      const byType: Record<string, unknown> = { number: 0, integer: 0, boolean: true, array: [], object: {}, string: 'x' };
      answer[p] = schema.enum ? (schema.enum.includes('no') ? 'no' : schema.enum[0]) : byType[schema.type ?? 'string'];
    }
    state = await engine.submit(state.runId, answer);
  }
  assert.is(state.status, 'completed', JSON.stringify(state));
});

Api('concurrent submits to one run never both advance it: one is processed, the other replays (memory and SQLite)', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const s = await engine.start(TWO_STEP);
    const [a, b] = await Promise.all([
      engine.submit(s.runId, { words: 0 }, { seq: 1 }),
      engine.submit(s.runId, { words: 0 }, { seq: 1 }),
    ]);
    assert.equal([a.replayed ?? false, b.replayed ?? false].sort(), [false, true]);
    assert.is((await engine.status(s.runId)).seq, 2);
    const rejected = (await engine.trace(s.runId)).events.filter((e) => e.type === 'answer.rejected');
    assert.is(rejected.length, 1);
    store.close();
  }
});

Api('concurrent submits without a seq are for the item pending when each was made: one advances the run, the other replays, never landing on the next item (memory and SQLite)', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const s = await engine.start(TWO_STEP);
    const [a, b] = await Promise.all([engine.submit(s.runId, { words: 5 }), engine.submit(s.runId, { words: 500 })]);
    assert.equal([a.replayed ?? false, b.replayed ?? false].sort(), [false, true]);
    const accepted = (await engine.trace(s.runId)).events.filter((e) => e.type === 'answer.accepted');
    assert.is(accepted.length, 1, 'one answer was taken');
    store.close();
  }
});

Api('a submit without seq made before another process moved the run on (madeAt) replays: it never answers the item issued after the call; one made after answers the new item', async () => {
  let clock = Date.parse('2026-12-04T10:00:00.000Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const s = await engine.start(TWO_STEP);
  const madeAt = new Date(clock);
  clock += 50;
  // A wrong answer re-issues the item: seq 2, issued after the call below was made.
  const moved = await engine.submit(s.runId, { words: 0 });
  assert.is(moved.seq, 2);
  const late = await engine.submit(s.runId, { words: 500 }, { madeAt });
  assert.is(late.replayed, true);
  assert.is(late.seq, 2);
  const events = (await engine.trace(s.runId)).events;
  assert.equal(events.filter((e) => e.type.startsWith('answer.')).map((e) => e.type), ['answer.rejected'], 'the late call answered nothing');
  clock += 50;
  const fresh = await engine.submit(s.runId, { words: 7 }, { madeAt: new Date(clock) });
  assert.is(fresh.replayed, undefined);
  assert.is(fresh.status, 'completed');
  // Made before the answer that ended the run: it lost the race for the last item, a replay (never E_RUN_NOT_WAITING).
  const lost = await engine.submit(s.runId, { words: 9 }, { madeAt: new Date(clock - 10) });
  assert.equal([lost.status, lost.replayed], ['completed', true]);
  // Made after the run ended: there is nothing left to answer.
  const after = await engine.submit(s.runId, { words: 9 }, { madeAt: new Date(clock + 10) }).catch((e: { code?: string }) => e);
  assert.is((after as { code?: string }).code, 'E_RUN_NOT_WAITING');
});

Api('a submit without seq is judged by the clock only while the clocks agree: a run stored with a time ahead of this one (another host\'s clock, a clock stepped back) has its pending item answered, never the answer dropped as a replay', async () => {
  let clock = Date.parse('2026-12-04T10:00:00.000Z');
  const store = createMemoryStore();
  const ahead = createEngine({ store, now: () => new Date(clock + 60_000) });
  const s = await ahead.start(TWO_STEP);
  await ahead.submit(s.runId, { words: 0 });
  const here = createEngine({ store, now: () => new Date(clock) });
  const r = await here.submit(s.runId, { words: 7 }, { madeAt: new Date(clock) });
  assert.equal([r.status, r.replayed], ['completed', undefined]);
});

Api('the library refuses what could never be used, with a CountersignError and its fix: createSqliteStore without a directory (never the current one), openStore without a cwd, a newRunId that gives no string', async () => {
  const { openStore } = await import('../../engine/index.js');
  for (const bad of [undefined, 5, '', '  ']) {
    const e = (() => { try { createSqliteStore(bad as never); } catch (err) { return err; } return undefined; })() as CountersignError;
    assert.ok(e instanceof CountersignError, String(bad));
    assert.is(e.code, 'E_INPUT');
    assert.match(e.message, 'createSqliteStore needs the store directory');
  }
  for (const bad of [undefined, {}, { cwd: 5 }, { cwd: '.', store: 7 }]) {
    const e = (() => { try { openStore(bad as never); } catch (err) { return err; } return undefined; })() as CountersignError;
    assert.ok(e instanceof CountersignError, JSON.stringify(bad));
    assert.is(e.code, 'E_INPUT');
  }
  for (const id of ['', '  ', 42, undefined]) {
    const store = createMemoryStore();
    const e = await createEngine({ store, newRunId: () => id as never }).start(TWO_STEP).catch((err) => err);
    assert.is(e.code, 'E_INPUT', String(id));
    assert.match(e.message, 'no run was stored');
    assert.equal(await createEngine({ store }).runs(), []);
  }
});

Api('r76: a pinned submit (madeAt) is judged against the item pending when it was made, however far the run moved since (late when that item timed out, never replayed); a madeAt that is no valid Date is E_INPUT', async () => {
  let clock = Date.parse('2026-12-04T10:00:00.000Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const wf = {
    metadata: { name: 'late', version: '1.0.0', description: 'a deadline, then two more items' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'a', completionCondition: 'done', timeoutMs: 1000, connections: { success: 'b', timeout: 'b' } },
      { type: 'agent-directive', id: 'b', directive: 'b', completionCondition: 'done', connections: { success: 'c' } },
      { type: 'agent-directive', id: 'c', directive: 'c', completionCondition: 'done', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const s = await engine.start(wf);
  clock += 500;
  const madeAt = new Date(clock);
  clock += 1500;
  await engine.status(s.runId); // the deadline fires: the run is at b (seq 2)
  clock += 10;
  await engine.submit(s.runId, {}); // b answered: at c (seq 3)
  const pinned = await engine.submit(s.runId, {}, { madeAt });
  assert.is(pinned.replayed, undefined);
  assert.is(pinned.late?.code, 'E_TIMEOUT');
  for (const bad of [Date.now(), '2026-12-04T10:00:00Z', new Date(Number.NaN)]) {
    const e = await engine.submit(s.runId, {}, { madeAt: bad as never }).catch((err) => err);
    assert.is(e.code, 'E_INPUT', String(bad));
  }
});

Api('r76: run failures carry their fix (E_MAX_RETRIES, E_AGENT_ERROR, E_TIMEOUT); every rejection keeps to 100 error lines of 500 characters, reserved-key ones too', async () => {
  let clock = Date.parse('2026-12-04T10:00:00.000Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const one = (extra: Record<string, unknown>) => ({
    metadata: { name: 'one', version: '1.0.0', description: 'one question' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'a', completionCondition: 'done', inputSchema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] }, connections: { success: 'done' }, ...extra },
      { type: 'end', id: 'done' },
    ],
  }) as unknown as Workflow;
  const retries = await engine.start(one({ maxRetries: 0 }));
  const spent = await engine.submit(retries.runId, { x: 'a' });
  assert.match(spent.status === 'failed' ? spent.error.fix ?? '' : '', 'raise its maxRetries, or give it a "maxRetriesExceeded" connection');
  const declared = await engine.start(one({}));
  const failed = await engine.submit(declared.runId, { $error: 'cannot' });
  assert.match(failed.status === 'failed' ? failed.error.fix ?? '' : '', 'give node "a" an "error" connection');
  const timed = await engine.start(one({ timeoutMs: 1000 }));
  clock += 2000;
  const over = await engine.status(timed.runId);
  assert.match(over.status === 'failed' ? over.error.fix ?? '' : '', 'raise node "a"\'s timeoutMs, or give it a "timeout" connection');
  const reserved = await engine.start(one({}));
  const keys: Record<string, number> = { x: 1 };
  for (let i = 0; i < 300; i++) keys[`$k${i}`] = 1;
  keys[`$${'y'.repeat(5000)}`] = 1;
  const r = await engine.submit(reserved.runId, keys);
  const errors = r.status === 'waiting' ? r.pending.errors ?? [] : [];
  assert.ok(errors.length <= 102, `${errors.length} lines`);
  assert.ok(errors.every((l) => l.length <= 501), 'each line within 500 characters');
  assert.ok(errors.some((l) => /and \d+ more errors/.test(l)));
});

Api('r76: library arguments that could never work are E_INPUT before anything is stored: now/newRunId that are no functions, a now() that gives no valid Date, a store without the Store methods, null options, run()\'s onProgress and signal of the wrong type, openStore with a blank cwd or a non-string COUNTERSIGN_STORE', async () => {
  const { openStore } = await import('../../engine/index.js');
  const code = async (f: () => unknown) => { try { await f(); } catch (e) { return (e as { code?: string }).code; } return 'no error'; };
  const store = createMemoryStore();
  assert.is(await code(() => createEngine({ store, now: 5 as never })), 'E_INPUT');
  assert.is(await code(() => createEngine({ store, newRunId: 'abc' as never })), 'E_INPUT');
  assert.is(await code(() => createEngine({ store: { get: 1, create: 1 } as never })), 'E_INPUT');
  assert.is(await code(() => createEngine({ store, now: () => new Date(Number.NaN) }).start(TWO_STEP)), 'E_INPUT');
  assert.is(await code(() => createEngine({ store, now: () => '2020-01-01' as never }).start(TWO_STEP)), 'E_INPUT');
  const engine = createEngine({ store });
  assert.is(await code(() => engine.start(TWO_STEP, null as never)), 'E_INPUT');
  const s = await engine.start(TWO_STEP);
  assert.is(await code(() => engine.submit(s.runId, { words: 1 }, null as never)), 'E_INPUT');
  const agent: Agent = { answer: async () => ({ words: 3 }) };
  const before = (await engine.runs()).length;
  assert.is(await code(() => engine.run(TWO_STEP, { agent, onProgress: 5 as never })), 'E_INPUT');
  assert.is(await code(() => engine.run(TWO_STEP, { agent, signal: { aborted: false } as never })), 'E_INPUT');
  assert.is((await engine.runs()).length, before, 'no run was stored');
  assert.is(await code(() => openStore({ cwd: '' })), 'E_INPUT');
  assert.is(await code(() => openStore({ cwd: '.', env: { COUNTERSIGN_STORE: 5 as never } })), 'E_INPUT');
});

Api('r77: validateDocument without a loaded document, createScriptedAgent with no map of lists, createAgent without { cwd }, answersTaken without events: each E_INPUT with its fix, never a TypeError (and no run started on a bad script)', async () => {
  const { createScriptedAgent, createAgent, answersTaken } = await import('../../engine/index.js');
  const code = (f: () => unknown) => { try { f(); } catch (e) { return (e as { code?: string }).code; } return 'no error'; };
  for (const bad of [null, undefined, 'x', { nodes: [] }]) assert.is(code(() => validateDocument(bad as never)), 'E_INPUT', String(bad));
  for (const bad of ['a: []', 5, [1], null]) assert.is(code(() => createScriptedAgent(bad as never)), 'E_INPUT', JSON.stringify(bad));
  assert.is(code(() => createAgent('scripted:x.yaml', undefined as never)), 'E_INPUT');
  assert.is(code(() => answersTaken(undefined as never)), 'E_INPUT');
  // r78: a scripted agent's answered counts, and workflow paths that are no string.
  for (const bad of [5, 'x', new Map(), { a: -1 }, { a: 0.5 }]) assert.is(code(() => createScriptedAgent({ a: [{}] }, { answered: bad as never })), 'E_INPUT', String(bad));
  assert.is(code(() => createScriptedAgent({ a: [{}] }, { answered: { a: 1 } })), 'no error');
  const { loadWorkflow, validateFile, parseSource } = await import('../../engine/index.js');
  for (const f of [() => loadWorkflow(0 as never), () => validateFile(0 as never), () => parseSource(5 as never, 'x.json')]) assert.is(code(f), 'E_INPUT');
  assert.is(code(() => createAgent('exec:true', { cwd: '.', stderr: 5 as never })), 'E_INPUT');
  const engine = createEngine({ store: createMemoryStore() });
  assert.is(await engine.runs('completed' as never).then(() => 'no error', (e) => e.code), 'E_INPUT');
});

Api('r78 d4: tools that are no list (createEngine, validateWorkflow, validateDocument, validateFile), run()\'s tools that are no tool runner, and recordToolCalls without an options object are E_INPUT naming what was given, never a bare TypeError; nothing is stored', async () => {
  const { validateFile } = await import('../../engine/index.js');
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const file = join(ROOT, 'spec/fixtures/cli/two-step.json');
  for (const tools of [5, {}, null, 'echo']) {
    const calls = [
      ['createEngine', () => createEngine({ store: createMemoryStore(), tools: tools as never })],
      ['validateWorkflow()', () => validateWorkflow(TWO_STEP, 'f', { tools: tools as never })],
      ['validateDocument()', () => validateDocument(loadWorkflow(file), { tools: tools as never })],
      ['validateFile()', () => validateFile(file, { tools: tools as never })],
    ] as const;
    for (const [name, call] of calls) {
      const e = await caught(call);
      assert.is(e?.code, 'E_INPUT', `${name} ${JSON.stringify(tools)}: ${String(e)}`);
      assert.match(e!.message, `${name}'s tools must be a list of tools`);
      assert.match(e!.fix!, 'pass tools: [defineTool(');
    }
  }
  assert.is((await caught(() => validateWorkflow(TWO_STEP, 'f', null as never)))?.code, 'E_INPUT', 'options that are no object');
  assert.ok(validateWorkflow(TWO_STEP, 'f', { tools: new Map() }).ok, 'a catalog is still taken');
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({ words: 3 }) };
  for (const tools of [5, [], { names: ['deploy'] }, null]) {
    const e = await caught(() => engine.run(TWO_STEP, { agent, tools: tools as never }));
    assert.is(e?.code, 'E_INPUT', `${JSON.stringify(tools)}: ${String(e)}`);
    assert.match(e!.message, "run()'s tools must be a tool runner: an object with names() and call(name, args, request)");
  }
  assert.equal(await engine.runs(), [], 'no run was stored');
  const s = await engine.start(TWO_STEP);
  for (const opts of [null, undefined, 5]) {
    const e = await caught(() => engine.recordToolCalls(s.runId, opts as never));
    assert.is(e?.code, 'E_INPUT', `${String(opts)}: ${String(e)}`);
    assert.match(e!.message, 'recordToolCalls() options must be an object, got ');
    assert.match(e!.fix!, 'pass { seq: state.seq, toolCalls: [...] }');
  }
});

Api('r78 d5: options of the wrong type are refused, never silently dropped: trace() options that are no object (a number for { from }), submit toolCalls that are no list (nothing stored), run() options, toolChain and labels that are no objects, createEngine\'s allowToolModules that is no boolean: E_INPUT; a recordToolCalls seq that is no whole number: E_SEQ', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  const events = (await engine.trace(s.runId)).events;
  const five = await caught(() => engine.trace(s.runId, 5 as never));
  assert.is(five?.code, 'E_INPUT');
  assert.is(five!.message, 'trace() options must be an object, got 5');
  assert.is(five!.fix, 'pass { from: 5 } (an event index), or leave it out for the whole journal');
  assert.is((await caught(() => engine.trace(s.runId, null as never)))?.code, 'E_INPUT');
  for (const toolCalls of [5, {}, null, 'x']) {
    const e = await caught(() => engine.submit(s.runId, { words: 3 }, { toolCalls: toolCalls as never }));
    assert.is(e?.code, 'E_INPUT', String(toolCalls));
    assert.match(e!.message, 'toolCalls must be a list of tool-call records');
  }
  for (const opts of [{ seq: '1', toolCalls: [{ name: 'grep', ok: true }] }, { seq: 1.5, toolCalls: [{ name: 'grep', ok: true }] }]) {
    const e = await caught(() => engine.recordToolCalls(s.runId, opts as never));
    assert.is(e?.code, 'E_SEQ', JSON.stringify(opts));
    assert.match(e!.message, 'is not a whole number, so it names no item');
  }
  const noSeq = await caught(() => engine.recordToolCalls(s.runId, { toolCalls: [{ name: 'grep', ok: true }] } as never));
  assert.is(noSeq?.code, 'E_INPUT');
  assert.match(noSeq!.message, 'recordToolCalls() needs the seq of the item the tool calls were made for');
  assert.equal((await engine.trace(s.runId)).events, events, 'nothing was journaled, and the run did not move');
  const agent: Agent = { answer: async () => ({ words: 3 }) };
  const runs = (await engine.runs()).length;
  for (const [opts, said] of [[5, 'run() options must be an object, got 5'], [{ agent, toolChain: 5 }, "run()'s toolChain must be an object, got 5"], [{ agent, labels: 'x' }, 'run()\'s labels must be an object, got "x"']] as const) {
    const e = await caught(() => engine.run(TWO_STEP, opts as never));
    assert.is(e?.code, 'E_INPUT', said);
    assert.is(e!.message, said);
  }
  assert.is((await engine.runs()).length, runs, 'no run was stored');
  const allow = await caught(() => createEngine({ store, allowToolModules: 'yes' as never }));
  assert.is(allow?.code, 'E_INPUT');
  assert.is(allow!.message, 'createEngine\'s allowToolModules must be true or false, got "yes"');
  // What the right types do is unchanged: the calls are journaled.
  const done = await engine.submit(s.runId, { words: 3 }, { toolCalls: [{ name: 'grep', ok: true }] });
  assert.is(done.status, 'completed');
  assert.equal((await engine.trace(s.runId)).events.filter((e) => e.type === 'tool.called').map((e) => e.name), ['grep']);
});

Api('r78: a rejected answer with 100 or more errors still carries the node\'s retryMessage, last, and says how many errors were left out; a line is never cut inside a character', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const wf = {
    metadata: { name: 'many', version: '1.0.0', description: 'many errors' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'a', completionCondition: 'done', retryMessage: 'Answer with a list of file paths (strings).', inputSchema: { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } }, required: ['a'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  for (const [count, more] of [[250, 150], [100, 0]] as const) {
    const s = await engine.start(wf);
    const r = await engine.submit(s.runId, { a: Array.from({ length: count }, (_, i) => i) });
    const errors = r.status === 'waiting' ? r.pending.errors ?? [] : [];
    assert.is(errors[errors.length - 1], 'Answer with a list of file paths (strings).', `${count}`);
    if (more > 0) assert.is(errors[errors.length - 2], `(root): and ${more} more errors (only the first 100 are listed): fix these and answer again`);
    else assert.is(errors.length, 101);
  }
  const s = await engine.start(wf);
  const key = `${'a'.repeat(480)}${'😀'.repeat(20)}`;
  const r = await engine.submit(s.runId, { a: [], [key]: 1 });
  const line = r.status === 'waiting' ? r.pending.errors?.[0] ?? '' : '';
  assert.ok(line.endsWith('…'));
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(line), 'no half of a surrogate pair');
});

Api('a wrong identity\'s answer (E_SELF_REVIEW, no attempt spent) does not move the item on: a submit pinned before it (madeAt) still answers that item', async () => {
  let clock = Date.parse('2026-12-04T10:00:00.000Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-madeat-'));
  mkdirSync(join(ws, 'lib'));
  let s = await engine.start(join(ROOT, 'workflows/review-fix-loop.json'), { workspace: ws, input: { task: 't', artifact_path: 'doc.md', context_path: 'lib' } });
  writeFileSync(join(ws, 'doc.md'), 'hello');
  s = await engine.submit(s.runId, {}, { as: 'alice' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  clock += 5;
  const madeAt = new Date(clock);
  clock += 5;
  const self = await engine.submit(s.runId, { issues_count: 0 }, { as: 'alice' });
  assert.is(self.status === 'waiting' && self.rejected?.code, 'E_SELF_REVIEW');
  assert.is(self.seq, s.seq, 'the same item, the same seq');
  writeFileSync((s as { pending: { report: string } }).pending.report, JSON.stringify({ issues: [] }));
  clock += 5;
  const bob = await engine.submit(s.runId, { issues_count: 0 }, { as: 'bob', madeAt });
  assert.is(bob.replayed, undefined);
  assert.is(bob.status, 'completed');
});

Api('two processes stepping one SQLite run with the same seq: exactly one advances it', async () => {
  const store = tmp();
  const engine = createEngine({ store: createSqliteStore(store) });
  const s = await engine.start(TWO_STEP);
  const script = `
    import { createEngine, createSqliteStore } from ${JSON.stringify(join(ROOT, 'engine/index.ts'))};
    const engine = createEngine({ store: createSqliteStore(${JSON.stringify(store)}) });
    const r = await engine.submit(${JSON.stringify(s.runId)}, { words: 0 }, { seq: 1 });
    console.log(JSON.stringify({ replayed: r.replayed === true }));
  `;
  const file = join(tmp(), 'race.mts');
  writeFileSync(file, script);
  const { spawn } = await import('node:child_process');
  const run = () =>
    new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('close', () => resolve(out.trim()));
    });
  const outs = await Promise.all([run(), run()]);
  const replays = outs.map((o) => JSON.parse(o).replayed as boolean).sort();
  assert.equal(replays, [false, true]);
  assert.is((await engine.status(s.runId)).seq, 2);
  void spawnSync;
});

Api('an oversized answer (over MAX_ANSWER_BYTES, 1 MiB) is rejected as E_ANSWER_TOO_LARGE and counts as an attempt', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const huge = { words: 1, pad: 'x'.repeat(MAX_ANSWER_BYTES) };
  const r = await engine.submit(s.runId, huge);
  assert.is(r.status, 'waiting');
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_TOO_LARGE');
  assert.is(r.status === 'waiting' && r.pending.attempt, 2);
  const events = (await engine.trace(s.runId)).events;
  assert.ok(!JSON.stringify(events).includes('xxxxxxxxxx'), 'the oversized answer is not stored in the journal');
});

Api('a rejected answer under the size limit lists at most 100 error lines, then how many more: 60,000 stray keys never make a 60,000-line state, journal or store', async () => {
  const store = createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-errors-')));
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  const answer: Record<string, number> = { words: 1 };
  for (let i = 0; i < 60_000; i++) answer[`k${i}`] = 1;
  const r = await engine.submit(s.runId, answer);
  const errors = r.status === 'waiting' ? r.pending.errors ?? [] : [];
  assert.is(errors.length, 101);
  assert.is(errors[0], '/k0: property "k0" is not allowed here');
  assert.is(errors[100], '(root): and 59900 more errors (only the first 100 are listed): fix these and answer again');
  assert.ok(JSON.stringify(await engine.status(s.runId)).length < 20_000, 'the stored state stays small');
  const rejected = (await engine.trace(s.runId)).events.find((e) => e.type === 'answer.rejected') as { errors?: string[] };
  assert.is(rejected.errors?.length, 101);
  const long = await engine.submit(s.runId, { words: 1, [`k${'x'.repeat(5000)}`]: 1 });
  const line = long.status === 'waiting' ? long.pending.errors?.[0] ?? '' : '';
  assert.is(line.length, 501, 'a long property name is cut at 500 characters');
  assert.ok(line.endsWith('…'));
});

Api('an answer past the 64-level limit is the same E_ANSWER_TOO_DEEP rejection (an attempt, journaled) however deep it goes, even too deep for JSON.stringify; such a start input is E_INPUT naming where', async () => {
  const nest = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
  for (const levels of [70, 200, 5000]) {
    const engine = createEngine({ store: createMemoryStore() });
    const s = await engine.start(TWO_STEP);
    const r = await engine.submit(s.runId, { words: nest(levels) });
    assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_TOO_DEEP', `${levels} levels`);
    assert.equal(r.status === 'waiting' && r.rejected?.errors, [`/words${'/0'.repeat(64)}: the answer nests deeper than 64 levels; flatten it`]);
    assert.is(r.status === 'waiting' && r.pending.attempt, 2);
    assert.ok((await engine.trace(s.runId)).events.some((e) => e.type === 'answer.rejected'), 'journaled like any rejected answer');
  }
  // Under a __proto__ key too (JSON.parse makes it an own key): refused like any other name.
  const proto = createEngine({ store: createMemoryStore() });
  const p = await proto.start(TWO_STEP);
  const r = await proto.submit(p.runId, JSON.parse(`{"words": 1, "__proto__": {"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}}}`));
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_TOO_DEEP');
  assert.match((r.status === 'waiting' && r.rejected?.errors[0]) || '', /^\/__proto__\/a(\/0){63}: /);
  const engine = createEngine({ store: createMemoryStore() });
  try {
    await engine.start(TWO_STEP, { input: { topic: nest(5000) as string } });
    assert.unreachable('started');
  } catch (e) {
    assert.is((e as { code: string }).code, 'E_INPUT');
    assert.match((e as Error).message, /^the start input nests too deep to be read as JSON: \/topic(\/0){64} is more than 64 levels down$/);
    assert.match((e as { fix: string }).fix, /^flatten the input/);
  }
});

Api('a cyclic answer or start input is E_INPUT naming the cycle, never "too deep": the run is unchanged (no attempt used, nothing journaled)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const loop: Record<string, unknown> = { words: 1 };
  loop.self = loop;
  const before = (await engine.trace(s.runId)).events.length;
  try {
    await engine.submit(s.runId, loop);
    assert.unreachable('a cycle was taken');
  } catch (e) {
    assert.is((e as { code: string }).code, 'E_INPUT');
    assert.match((e as Error).message, /circular/);
    assert.match((e as { fix: string }).fix, /no cycles/);
  }
  const now = await engine.status(s.runId);
  assert.is(now.seq, s.seq);
  assert.is(now.status === 'waiting' && now.pending.attempt, 1);
  assert.is((await engine.trace(s.runId)).events.length, before);
  const cfg: Record<string, unknown> = {};
  cfg.self = cfg;
  try {
    await engine.start(TWO_STEP, { input: { topic: cfg as never } });
    assert.unreachable('a cyclic input was taken');
  } catch (e) {
    assert.is((e as { code: string }).code, 'E_INPUT');
    assert.match((e as Error).message, /circular/);
  }
});

Api('an answer or start input JSON would store in another form (an Error, a RegExp, a Date, symbol keys) is E_INPUT, never stored as {} or a string; run() stops on such an answer with E_AGENT_OUTPUT', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  for (const [answer, said] of [[new Error('model call failed'), /\(root\) is an Error/], [{ words: 1, when: new Date(0) }, /\/when is a Date/], [/x/, /is a RegExp/], [{ [Symbol('k')]: 1 }, /has symbol keys/]] as const) {
    const e = await engine.submit(s.runId, answer as never).then(() => undefined, (x: { code?: string; message?: string }) => x);
    assert.is(e?.code, 'E_INPUT', String(said));
    assert.match(e?.message ?? '', said);
  }
  assert.is((await engine.status(s.runId)).seq, s.seq, 'nothing was taken');
  const driven = await createEngine({ store: createMemoryStore() }).run(TWO_STEP, { agent: { answer: async () => new Error('model call failed') } });
  assert.equal([driven.status, driven.error?.code], ['waiting', 'E_AGENT_OUTPUT']);
  const dated = await engine.start(TWO_STEP, { input: { topic: new Date(0) as never } }).then(() => undefined, (x: { code?: string }) => x);
  assert.is(dated?.code, 'E_INPUT');
});

Api('an unknown run is E_RUN_NOT_FOUND whatever else is wrong with the submit (a fractional seq, no answer)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  for (const call of [() => engine.submit('nope', {}, { seq: 1.5 }), () => engine.submit('nope', undefined), () => engine.submit('nope', {}, { as: ' ' })]) {
    try {
      await call();
      assert.unreachable('submitted to an unknown run');
    } catch (e) {
      assert.is((e as { code: string }).code, 'E_RUN_NOT_FOUND');
    }
  }
});

Api('calls with the wrong shape get a stable code and a message saying what is wrong: a start input that is no object, an identity that is no string, tool-call records that are not records', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const codeOf = async (p: Promise<unknown>) => p.then(() => 'resolved', (e) => `${e.code}: ${e.message}`);
  assert.match(await codeOf(engine.start(TWO_STEP, { input: [1, 2] as never })), /^E_INPUT: the start input must be a JSON object of variables, got an array$/);
  assert.match(await codeOf(engine.start(TWO_STEP, { input: 'abc' as never })), /^E_INPUT: .* got "abc"$/);
  assert.match(await codeOf(engine.start(TWO_STEP, { as: 5 as never })), /^E_INPUT: start\(\)'s as must be a non-empty string \(an identity\), got 5$/);
  const s = await engine.start(TWO_STEP);
  assert.match(await codeOf(engine.submit(s.runId, { words: 5 }, { as: 5 as never })), /^E_INPUT: submit\(\)'s as must be a non-empty string \(an identity\), got 5$/);
  assert.match(await codeOf(engine.submit(s.runId, { words: 5 }, { toolCalls: [null] as never })), /^E_INPUT: toolCalls must be a list of tool-call records/);
  assert.match(await codeOf(engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: 'abc' as never })), /^E_INPUT: toolCalls must be a list/);
  assert.is((await engine.status(s.runId)).seq, s.seq, 'nothing changed');
});

Api('a run keeps its stored copy of the workflow: editing the file never changes a run under way', async () => {
  const dir = tmp();
  const file = join(dir, 'wf.json');
  writeFileSync(file, JSON.stringify(TWO_STEP));
  const engine = createEngine({ store: createSqliteStore(join(dir, 'store')) });
  const s = await engine.start(file);
  const edited = structuredClone(TWO_STEP);
  (edited.nodes[1] as { directive: string }).directive = 'CHANGED';
  edited.nodes[2] = { ...edited.nodes[2], connections: { true: 'short', false: 'short' } } as never;
  writeFileSync(file, JSON.stringify(edited));
  const done = await createEngine({ store: createSqliteStore(join(dir, 'store')) }).submit(s.runId, { words: 500 });
  assert.is(done.status === 'completed' && done.endNodeId, 'long');
});

Api('submit to an unknown run and a malformed answer value are typed errors with codes', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  try {
    await engine.submit('nope', {});
    assert.unreachable();
  } catch (e) {
    assert.instance(e, CountersignError);
    assert.is((e as CountersignError).code, 'E_RUN_NOT_FOUND');
  }
  const s = await engine.start(TWO_STEP);
  try {
    await engine.submit(s.runId, undefined);
    assert.unreachable();
  } catch (e) {
    assert.is((e as CountersignError).code, 'E_INPUT');
  }
});

Api('a start input of the wrong type for its registry entry is E_INPUT with the misfit\'s pointer as a field and a fix naming the declared type; nothing is stored', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const e = await engine.start(TWO_STEP, { input: { topic: 5 } }).then(() => undefined, (x: CountersignError) => x);
  assert.equal([e?.code, e?.pointer], ['E_INPUT', '/topic']);
  assert.match(e?.message ?? '', '/topic: must be string');
  assert.is(e?.fix, 'give "topic" a value of its declared type (string), as variableRegistry.topic describes it');
  assert.equal(store.list(), []);
});

Api('a start input of the declared type with a nested misfit is E_INPUT whose pointer and fix name the failing part, never a type the value already has', async () => {
  const wf = {
    metadata: { name: 'points', version: '1.0.0', description: 'nested start input' },
    variableRegistry: {
      point: { type: 'object', description: 'p', properties: { x: { type: 'integer', minimum: 0 }, y: { type: 'integer' } }, required: ['x', 'y'] },
      n: { type: 'integer', description: 'n', maximum: 3 },
    },
    nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e', finalOutput: ['point'] }],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const refusal = (input: Record<string, unknown>) => engine.start(wf, { input: input as never }).then(() => undefined, (x: CountersignError) => x);
  for (const [input, pointer, fix] of [
    [{ point: { x: -1, y: 2 } }, '/point/x', 'correct /point/x in the start input: it must be >= 0, as variableRegistry.point describes it'],
    [{ point: { x: 1 } }, '/point', 'give /point the property "y" in the start input: variableRegistry.point requires it'],
    [{ point: { x: 1, y: 2, z: 3 } }, '/point/z', 'leave "z" out of /point in the start input: variableRegistry.point does not declare it'],
    [{ n: 4 }, '/n', 'correct /n in the start input: it must be <= 3, as variableRegistry.n describes it'],
  ] as const) {
    const e = await refusal(input);
    assert.equal([e?.code, e?.pointer, e?.fix], ['E_INPUT', pointer, fix], JSON.stringify(input));
  }
});

Api('r102 c1: start() or run() given no workflow (nothing, null, a number, a list) is E_INPUT saying a workflow was expected, never E_WORKFLOW_INVALID to validate again', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  for (const [given, shown] of [[undefined, 'nothing (undefined)'], [null, 'null'], [5, '5'], [[], 'a list']] as const) {
    const e = await rejection(engine.start(given as never));
    assert.equal([e.code, e.message], ['E_INPUT', `no workflow was given: expected a workflow file's path, a parsed document or a workflow object, got ${shown}`]);
    assert.match(e.fix ?? '', 'engine.start("workflows/review-loop.json")');
  }
  assert.is((await rejection(engine.run(undefined as never, { agent: { answer: async () => ({}) } }))).code, 'E_INPUT');
});

Api('start of an invalid workflow throws E_WORKFLOW_INVALID carrying the full validation report, and the first finding\'s file, pointer and line:col as fields (no invented file for a workflow object)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const bad = structuredClone(TWO_STEP);
  (bad.nodes[1] as { directive: string }).directive = 'About {{tpoic}}';
  try {
    await engine.start(bad);
    assert.unreachable();
  } catch (e) {
    const err = e as CountersignError;
    assert.is(err.code, 'E_WORKFLOW_INVALID');
    const report = err.data as { errors: Array<{ code: string; message: string; pointer: string }> };
    assert.is(report.errors[0].code, 'E_UNDECLARED_VARIABLE');
    assert.is(report.errors[0].pointer, '/nodes/1/directive');
    assert.match(report.errors[0].message, /did you mean "topic"/);
    assert.is(err.pointer, '/nodes/1/directive', 'the first finding\'s location is a field of the error too');
    // A workflow object has no file: none is named, and the fix is the library's own.
    assert.is(err.file, undefined);
    assert.is(err.fix, 'validate it with validateWorkflow(workflow) to see every finding');
  }
  // From a file: its line and column as well.
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const file = join(mkdtempSync(join(tmpdir(), 'countersign-invalid-')), 'bad.json');
  writeFileSync(file, JSON.stringify(bad, null, 2));
  const fromFile = await engine.start(file).then(() => undefined, (e: CountersignError) => e);
  assert.equal([fromFile?.code, fromFile?.file, fromFile?.pointer, typeof fromFile?.line, typeof fromFile?.col], ['E_WORKFLOW_INVALID', file, '/nodes/1/directive', 'number', 'number']);
});

Api('run() with an agent reports progress node by node and returns output; an agent throwing a CountersignError stops resumably', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const seen: string[] = [];
  const result = await engine.run(TWO_STEP, {
    agent: { answer: async () => ({ words: 101 }) },
    onProgress: (e) => seen.push(e.type === 'pending' ? `pending:${e.state.pending.nodeId}` : e.type === 'route' ? `route:${e.from}:${e.via}:${e.to}` : e.type === 'driving' ? `driving:${e.runId}` : e.type),
  });
  assert.equal(result, { runId: result.runId, status: 'completed', steps: 1, endNodeId: 'long', output: { topic: 'tests', 'write.words': 101 } });
  assert.equal(seen, [`driving:${result.runId}`, 'pending:write', 'answered', 'route:check:true:long'], 'driving names the run first');
  const stopped = await engine.run(TWO_STEP, {
    agent: { answer: async (req) => { throw new CountersignError('E_AGENT_CRASHED', 'boom', { nodeId: req.nodeId }); } },
  });
  assert.equal({ status: stopped.status, stopped: stopped.stopped, code: stopped.error?.code }, { status: 'waiting', stopped: true, code: 'E_AGENT_CRASHED' });
  const resumed = await engine.run({ runId: stopped.runId }, { agent: { answer: async () => ({ words: 1 }) } });
  assert.is(resumed.endNodeId, 'short');
});

Api('run(): a node deadline that passes while the agent thinks takes the timeout route, not an adapter error', async () => {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: 50, connections: { success: 'check', timeout: 'short' } });
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(wf, { agent: { answer: () => new Promise((r) => setTimeout(() => r({ words: 5 }), 5_000)) } });
  assert.is(result.status, 'completed');
  assert.is(result.endNodeId, 'short');
  const types = (await engine.trace(result.runId)).events.map((e) => e.type);
  assert.ok(types.includes('timeout'));
});

Api('run(): a deadline timer that fires before the clock reaches the deadline (timers run early by a millisecond) still takes the timeout route, not E_AGENT_TIMEOUT', async () => {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: 40, connections: { success: 'check', timeout: 'short' } });
  // Once the wait is set, the engine's clock falls 4 ms behind the timers': the deadline-bounded wait ends "early".
  let lag = 0;
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(Date.now() - lag) });
  for (let i = 0; i < 3; i++) {
    lag = 0;
    const result = await engine.run(wf, { agent: { answer: () => { lag = 4; return new Promise(() => {}); } } });
    assert.equal({ status: result.status, endNodeId: result.endNodeId, error: result.error?.code }, { status: 'completed', endNodeId: 'short', error: undefined });
  }
});

Api('run(): aborting its signal stops the drive at once with E_INTERRUPTED; the run still waits and resumes', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const controller = new AbortController();
  let asked: AbortSignal | undefined;
  const result = await engine.run(TWO_STEP, {
    signal: controller.signal,
    agent: { answer: (_req, opts) => { asked = opts.signal; setTimeout(() => controller.abort(), 20); return new Promise(() => {}); } },
  });
  assert.equal([result.status, result.stopped, result.error?.code, result.error?.nodeId], ['waiting', true, 'E_INTERRUPTED', 'write']);
  assert.ok(asked?.aborted, 'the agent was told to stop');
  const resumed = await engine.run({ runId: result.runId }, { agent: { answer: async () => ({ words: 3 }) } });
  assert.is(resumed.endNodeId, 'short');
  const early = await engine.run(TWO_STEP, { signal: AbortSignal.abort(), agent: { answer: async () => ({ words: 3 }) } });
  assert.equal([early.status, early.error?.code, early.steps], ['waiting', 'E_INTERRUPTED', 0], 'already aborted: no agent is asked');
});

Api('trace(runId, {from}) returns only the events from that index on, to follow a growing journal; a bad index is E_INPUT', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const all = (await engine.trace(s.runId)).events;
  await engine.submit(s.runId, { words: 3 }, { seq: s.seq });
  const tail = (await engine.trace(s.runId, { from: all.length })).events;
  assert.equal(tail.map((e) => e.type).slice(0, 2), ['answer.accepted', 'route']);
  assert.equal([...all, ...tail], (await engine.trace(s.runId)).events);
  for (const from of [-1, 1.5, '2']) {
    const code = await engine.trace(s.runId, { from: from as number }).then(() => 'ok', (e: CountersignError) => e.code);
    assert.is(code, 'E_INPUT', String(from));
  }
  // The count read so far is "nothing new yet"; past it, the index is wrong, and said so.
  const total = (await engine.trace(s.runId)).events.length;
  assert.equal((await engine.trace(s.runId, { from: total })).events, []);
  const past = await engine.trace(s.runId, { from: total + 5 }).then(() => undefined, (e: CountersignError) => e);
  assert.is(past?.code, 'E_INPUT');
  assert.match(past!.message, `trace from ${total + 5} is past the end of run ${s.runId}'s journal, which holds ${total} event(s)`);
  assert.match(past!.fix!, `pass from at most ${total}`);
});

Api('run(): an item answered elsewhere first (a step from another process) is still a step of this drive (its agent was asked: r79 c1), and progress says its answer was not used', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const seen: string[] = [];
  const result = await engine.run(TWO_STEP, {
    agent: {
      async answer(req) {
        await engine.submit(req.runId, { words: 500 }, { seq: req.seq, as: 'someone-else' });
        return { words: 5 };
      },
    },
    onProgress: (e) => seen.push(e.type === 'answered' ? `answered:${e.verdict}` : e.type),
  });
  assert.equal([result.status, result.endNodeId, result.steps, result.output?.['write.words']], ['completed', 'long', 1, 500]);
  assert.ok(seen.includes('answered:replayed'), seen.join(' '));
});

Api('a node id that starts with a digit (allowed by [A-Za-z0-9_-]+) validates and is read as node-id.field by templates, conditions and finalOutput', async () => {
  const wf: Workflow = {
    metadata: { name: 'digits', version: '1.0.0', description: 'an id starting with a digit' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: '2nd-review' } },
      { type: 'agent-directive', id: '2nd-review', directive: 'Count.', completionCondition: 'counted', inputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] }, connections: { success: 'report' } },
      { type: 'agent-directive', id: 'report', directive: 'The review found {{2nd-review.count}}.', completionCondition: 'done', connections: { success: 'check' } },
      { type: 'condition', id: 'check', condition: { operator: 'gt', left: { contextPath: '2nd-review.count' }, right: 0 }, connections: { true: 'done', false: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['2nd-review.count'] },
    ],
  } as unknown as Workflow;
  assert.equal(validateWorkflow(wf).errors, []);
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  const next = await engine.submit(s.runId, { count: 3 }, { seq: s.seq });
  assert.is(next.status === 'waiting' && next.pending.kind === 'directive' && next.pending.directive, 'The review found 3.');
  const end = await engine.submit(next.runId, {}, { seq: next.seq });
  assert.equal(end.status === 'completed' && end.output, { '2nd-review.count': 3 });
});

Api('a node id equal to a registry name: items[idx] indexes the global (as {{items}} reads it), items.field reads the node\'s answer', async () => {
  const wf = {
    metadata: { name: 'clash', version: '1.0.0', description: 'a node named like a global list' },
    variableRegistry: { items: { type: 'array', description: 'a list', default: ['a', 'b'] }, idx: { type: 'integer', description: 'an index', default: 1 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'items' } },
      { type: 'agent-directive', id: 'items', directive: 'Pick.', completionCondition: 'done', inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] }, connections: { success: 'show' } },
      { type: 'agent-directive', id: 'show', directive: 'second={{items[idx]}} note={{items.note}}', completionCondition: 'done', connections: { success: 'check' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'items[idx]' }, right: 'b' }, connections: { true: 'yes', false: 'no' } },
      { type: 'end', id: 'yes' },
      { type: 'end', id: 'no' },
    ],
  } as unknown as Workflow;
  assert.equal(validateWorkflow(wf).errors, []);
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  const next = await engine.submit(s.runId, { note: 'hi' }, { seq: s.seq });
  assert.is(next.status === 'waiting' && next.pending.kind === 'directive' && next.pending.directive, 'second=b note=hi');
  const end = await engine.submit(next.runId, {}, { seq: next.seq });
  assert.is(end.status === 'completed' && end.endNodeId, 'yes');
});

Api('run(): an answer that lands after the node\'s deadline is a step (its agent was asked, so --max-steps bounds a timeout loop: r79 c1) reported as late, not as answered', async () => {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: 1000, connections: { success: 'check', timeout: 'short' } });
  let clock = Date.parse('2026-12-03T10:00:00Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const seen: string[] = [];
  const result = await engine.run(wf, {
    agent: { answer: async () => { clock += 5000; return { words: 300 }; } },
    onProgress: (e) => seen.push(e.type === 'answered' ? `answered:${e.verdict}` : e.type),
  });
  assert.equal([result.status, result.endNodeId, result.steps], ['completed', 'short', 1]);
  assert.equal(result.output?.['write.words'], undefined, 'the late answer was not taken');
  assert.ok(seen.includes('answered:late'), seen.join(' '));
  assert.ok(seen.includes('timeout'), seen.join(' '));
});

Api('run(): an agent timeout shorter than a second is reported to the millisecond, not as "0 s"', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(TWO_STEP, { agentTimeoutMs: 30, agent: { answer: () => new Promise(() => {}) } });
  assert.is(result.error?.code, 'E_AGENT_TIMEOUT');
  assert.match(result.error?.message ?? '', 'gave no answer for node "write" within 0.03 s');
});

Api('a start input is judged as an answer writing the same global would be: an object with an undeclared field is E_INPUT at start too', async () => {
  const wf: Workflow = {
    metadata: { name: 'cfg', version: '1.0.0', description: 'an object global' },
    variableRegistry: { cfg: { type: 'object', description: 'settings', properties: { a: { type: 'integer' } } } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Settings?', completionCondition: 'done', inputSchema: { type: 'object', globalInputs: ['cfg'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['cfg'] },
    ],
  };
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(wf, { input: { cfg: { a: 1 } } });
  const rejected = await engine.submit(started.runId, { cfg: { a: 1, extra: 2 } });
  assert.is(rejected.status === 'waiting' && rejected.rejected?.code, 'E_ANSWER_INVALID');
  try {
    await engine.start(wf, { input: { cfg: { a: 1, extra: 2 } } });
    assert.unreachable('the start took a value an answer may not give');
  } catch (e) {
    assert.is((e as CountersignError).code, 'E_INPUT');
    assert.match((e as Error).message, /extra/);
  }
});

Api.run();

const Api2 = suite('library API: ownership and identity');

Api2('validateWorkflow accepts what loadWorkflow returns, with positions', () => {
  const report = validateWorkflow(loadWorkflow(join(ROOT, 'workflows/bugfix.yaml')));
  assert.ok(report.ok, JSON.stringify(report.errors));
  assert.match(report.file, /bugfix\.yaml$/);
});

Api2('a run owns a copy of its workflow: editing the object after start changes nothing, in this or another engine', async () => {
  const wf = structuredClone(TWO_STEP);
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  (wf.nodes[1] as { directive: string }).directive = 'EDITED';
  wf.nodes[2] = { ...wf.nodes[2], connections: { true: 'short', false: 'short' } } as never;
  const rejected = await engine.submit(s.runId, { words: 0 });
  assert.is(rejected.status === 'waiting' && rejected.pending.kind === 'directive' && rejected.pending.directive, 'Write about tests.');
  const done = await engine.submit(s.runId, { words: 500 });
  assert.is(done.status === 'completed' && done.endNodeId, 'long');
  const other = await createEngine({ store: createSqliteStore(tmp()) }).start(structuredClone(TWO_STEP));
  assert.is(other.status === 'waiting' && other.pending.kind === 'directive' && other.pending.directive, 'Write about tests.');
});

Api2('states and outputs a host receives are read-only (editing them throws); journal events are fresh copies (editing one changes nothing stored)', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const a = await engine.start(TWO_STEP);
    assert.throws(() => { delete (a as any).pending.inputSchema.additionalProperties; }, TypeError);
    assert.throws(() => { (a as any).pending.directive = 'host scratch'; }, TypeError);
    const b = await engine.start(TWO_STEP);
    const extra = await engine.submit(b.runId, { words: 5, extra: 1 });
    assert.is(extra.status === 'waiting' && extra.rejected?.code, 'E_ANSWER_INVALID');
    const done = await engine.submit(b.runId, { words: 5 });
    assert.throws(() => { (done as any).output.topic = 'x'; }, TypeError);
    const journal = await engine.trace(b.runId);
    (journal.events[0] as any).type = 'edited';
    assert.is((await engine.trace(b.runId)).events[0].type, 'run.started');
    assert.is((await engine.status(a.runId)).status === 'waiting' && (await engine.status(a.runId) as any).pending.directive, 'Write about tests.');
    store.close();
  }
});

Api2('run(…, {as}) answers as that identity: userId and the journal name it for every answer', async () => {
  const wf: Workflow = {
    metadata: { name: 'who', version: '1.0.0', description: 'identity' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'first {{userId}}', completionCondition: 'ok', connections: { success: 'b' } },
      { type: 'agent-directive', id: 'b', directive: 'second {{userId}}', completionCondition: 'ok', connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['userId'] },
    ],
  };
  const seen: string[] = [];
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(wf, { as: 'alice', agent: { answer: async (req) => (seen.push(req.kind === 'directive' ? req.directive : req.prompt), {}) } });
  assert.equal(seen, ['first alice', 'second alice']);
  assert.equal(r.output, { userId: 'alice' });
  const accepted = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.accepted').map((e) => e.userId);
  assert.equal(accepted, ['alice', 'alice']);
});

Api2('run(): an agent that throws a plain Error or returns nothing stops resumably with a typed code and the run id', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const threw = await engine.run(TWO_STEP, { agent: { answer: async () => { throw new Error('model API 500'); } } });
  assert.equal({ status: threw.status, stopped: threw.stopped, code: threw.error?.code }, { status: 'waiting', stopped: true, code: 'E_AGENT_CRASHED' });
  assert.match(threw.error!.message, /model API 500/);
  assert.ok(threw.error!.fix);
  const nothing = await engine.run(TWO_STEP, { agent: { answer: async () => undefined } });
  assert.equal({ stopped: nothing.stopped, code: nothing.error?.code }, { stopped: true, code: 'E_AGENT_OUTPUT' });
  const fn = await engine.run(TWO_STEP, { agent: { answer: async () => ({ words: 1n }) as never } });
  assert.equal({ stopped: fn.stopped, code: fn.error?.code }, { stopped: true, code: 'E_AGENT_OUTPUT' });
  assert.is((await engine.run({ runId: threw.runId }, { agent: { answer: async () => ({ words: 3 }) } })).endNodeId, 'short');
});

Api2('r114: run(): an agent that answers with a string, a number, a boolean or a list breaks the protocol as a jsonl agent\'s line would: E_AGENT_OUTPUT, resumable, no attempt spent; null stays an answer', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  for (const [given, kind] of [['looks fine', 'a string'], [5, 'a number'], [true, 'a boolean'], [[{ words: 1 }], 'a list']] as const) {
    const r = await engine.run(TWO_STEP, { agent: { answer: async () => given as never } });
    assert.equal({ status: r.status, stopped: r.stopped, code: r.error?.code }, { status: 'waiting', stopped: true, code: 'E_AGENT_OUTPUT' }, kind);
    assert.match(r.error!.message, `answered node "write" with ${kind}, not an answer object`);
    const now = await engine.status(r.runId);
    assert.equal(now.status === 'waiting' ? [now.seq, now.pending.attempt] : undefined, [1, 1], 'no attempt was spent');
    assert.not.ok((await engine.trace(r.runId)).events.some((e) => e.type === 'answer.rejected'));
  }
  const nulled = await engine.run(TWO_STEP, { maxSteps: 1, agent: { answer: async () => null } });
  assert.is(nulled.error?.code === 'E_AGENT_OUTPUT', false, 'null is judged by the node\'s schema, not refused as a protocol fault');
});

Api2('seq: 0, negative and unissued values are E_SEQ; a deadline fires on the first submit after it, even one that replays or fails', async () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock) });
  const s = await engine.start(TWO_STEP);
  for (const seq of [0, -1, 2]) {
    try {
      await engine.submit(s.runId, { words: 1 }, { seq });
      assert.unreachable(`seq ${seq}`);
    } catch (e) {
      assert.is((e as CountersignError).code, 'E_SEQ', `seq ${seq}`);
    }
  }
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { timeoutMs: 1000, connections: { success: 'check', timeout: 'short' } });
  const t = await engine.start(wf);
  await engine.submit(t.runId, { words: 0 }, { seq: 1 });
  clock += 5000;
  const replay = await engine.submit(t.runId, { words: 0 }, { seq: 1 });
  assert.is(replay.status, 'completed');
  assert.is(replay.status === 'completed' && replay.endNodeId, 'short');
  assert.ok((await engine.trace(t.runId)).events.some((e) => e.type === 'timeout'));
  const u = await engine.start(wf);
  clock += 5000;
  try {
    await engine.submit(u.runId, { words: 1 }, { seq: 9 });
    assert.unreachable();
  } catch (e) {
    assert.is((e as CountersignError).code, 'E_SEQ');
    // The run is over: the fix says so instead of asking for a pending seq that cannot exist.
    assert.match((e as CountersignError).fix ?? '', 'takes no more answers; start a new run');
  }
  assert.is((await engine.info(u.runId)).status, 'completed', 'the deadline fired and was kept although the submit failed');
});

Api2('answer schemas are compiled once per distinct schema, not per answer', async () => {
  const { compilations } = await import('../../engine/nodes/answer-schema.js');
  const { selfLoopWorkflow } = await import('../../bench/generate.js');
  const engine = createEngine({ store: createMemoryStore() });
  let s = await engine.start(selfLoopWorkflow());
  s = await engine.submit(s.runId, { score: 1, last_score: 1 });
  const before = compilations();
  for (let i = 0; i < 20; i++) s = await engine.submit(s.runId, { score: i, last_score: i });
  assert.is(s.status, 'waiting');
  assert.is(compilations(), before);
});

Api2.run();

const Limits = suite('library API: answer limits');

Limits('an {"$error"} answer over the size limit is rejected like any oversized answer, and nothing large is stored', async () => {
  const store = createSqliteStore(tmp());
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  const r = await engine.submit(s.runId, { $error: 'x'.repeat(MAX_ANSWER_BYTES) });
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_TOO_LARGE');
  assert.ok(JSON.stringify((await engine.trace(s.runId)).events).length < 10_000);
  store.close();
});

Limits('CLI step --seq with a negative or zero number is E_SEQ (exit 2), like the library', async () => {
  const { cli, tempDir } = await import('../helpers/cli.js');
  const store = tempDir();
  const s = await cli(['start', 'spec/fixtures/cli/two-step.json', '--json'], { store });
  for (const seq of ['-1', '0']) {
    const r = await cli(['step', s.json.runId, `--seq=${seq}`, '--response', '{"words": 1}', '--json'], { store });
    assert.is(r.code, 2);
    assert.is(r.json.error.code, 'E_SEQ');
  }
});

Limits('§4: every rejected answer that costs an attempt goes back with the node\'s retryMessage — a reserved $ key, an oversized or too deep answer as well as a schema failure', async () => {
  const wf = structuredClone(TWO_STEP);
  Object.assign(wf.nodes[1], { retryMessage: 'Answer with {"words": <n>}.', maxRetries: 5 });
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  let deep: unknown = 1;
  for (let i = 0; i < 70; i++) deep = { d: deep };
  for (const [answer, code] of [
    [{ words: 'x' }, 'E_ANSWER_INVALID'],
    [{ $foo: 1 }, 'E_ANSWER_RESERVED_KEY'],
    [{ words: 1, pad: 'x'.repeat(MAX_ANSWER_BYTES) }, 'E_ANSWER_TOO_LARGE'],
    [deep, 'E_ANSWER_TOO_DEEP'],
  ] as const) {
    const r = await engine.submit(s.runId, answer);
    assert.is(r.status === 'waiting' && r.rejected?.code, code);
    const errors = r.status === 'waiting' ? r.pending.errors ?? [] : [];
    assert.is(errors.at(-1), 'Answer with {"words": <n>}.', `${code}: ${JSON.stringify(errors).slice(0, 200)}`);
  }
});

Limits('an answer JSON would change (NaN, a function, a Map, undefined in a list) is refused as E_INPUT naming where, never stored altered; run() stops with E_AGENT_OUTPUT, resumable', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  for (const [answer, pointer] of [
    [{ words: Number.NaN }, '/words'],
    [{ words: 3, note: () => 'x' }, '/note'],
    [{ words: 3, tags: new Map([['a', 1]]) }, '/tags'],
    [{ words: 3, list: [1, undefined] }, '/list/1'],
    [Number.POSITIVE_INFINITY, ''],
  ] as const) {
    try {
      await engine.submit(s.runId, answer);
      assert.unreachable(String(pointer));
    } catch (e) {
      assert.is((e as CountersignError).code, 'E_INPUT');
      assert.is((e as CountersignError).pointer, pointer);
      assert.match((e as CountersignError).message, 'is not plain JSON');
    }
  }
  const state = await engine.status(s.runId);
  assert.is(state.status === 'waiting' && state.pending.attempt, 1, 'no attempt was used');
  const driven = await engine.run(TWO_STEP, { agent: { answer: async () => ({ words: Number.NaN }) } });
  assert.is(driven.status, 'waiting');
  assert.is(driven.error?.code, 'E_AGENT_OUTPUT');
  const done = await engine.submit(s.runId, { words: 3, gone: undefined });
  assert.is(done.status, 'completed', 'an undefined member is absent, as JSON has it');
});

Limits('only {"$error": "<message>"} alone declares failure: a null, empty, blank or non-string $error, or one beside other fields, is a rejected answer (an attempt) whose line says a blank message is refused, never the end of the run', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(structuredClone({ ...TWO_STEP, nodes: TWO_STEP.nodes.map((n) => (n.id === 'write' ? { ...n, maxRetries: 9 } : n)) }) as Workflow);
  for (const answer of [{ $error: null }, { $error: false }, { $error: '' }, { $error: '   ' }, { $error: '\n\t' }, { $error: { why: 'x' } }, { $error: 'broke', words: 3 }]) {
    const r = await engine.submit(s.runId, answer);
    assert.is(r.status, 'waiting', JSON.stringify(answer));
    assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_RESERVED_KEY');
    // The line names the rule the answer broke: "   " is non-empty, but blank.
    assert.match(r.status === 'waiting' ? r.rejected!.errors[0] : '', 'must be a message string that is not blank (not only spaces or invisible characters)');
    assert.match(r.status === 'waiting' ? r.rejected!.errors[0] : '', JSON.stringify(answer));
  }
  const declared = await engine.submit(s.runId, { $error: 'the disk is full' });
  assert.is(declared.status === 'failed' && declared.error.code, 'E_AGENT_ERROR');
  const quoted = await engine.submit((await engine.start(TWO_STEP)).runId, { words: 1 }, { seq: '2' as never }).then(() => undefined, (e) => e);
  assert.match(quoted.message, 'seq "2" is not a whole number');
});

Limits('a $error made only of characters that show nothing (zero-width space, NUL, word joiner, BOM) is no declaration: refused with its /$error line, and no error route is taken', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(structuredClone({ ...TWO_STEP, nodes: TWO_STEP.nodes.map((n) => (n.id === 'write' ? { ...n, maxRetries: 9 } : n)) }) as Workflow);
  for (const answer of [{ $error: '\u200b' }, { $error: '\u0000' }, { $error: '\u2060\u200d' }, { $error: ' \u3000\ufeff\u00ad' }, { $error: '\u2800' }, { $error: '\u17b4' }, { $error: '\u17b5\u2800' }]) {
    const r = await engine.submit(s.runId, answer);
    assert.is(r.status, 'waiting', JSON.stringify(answer));
    assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_RESERVED_KEY');
    assert.match(r.status === 'waiting' ? r.rejected!.errors[0] : '', /^\/\$error: .*not blank \(not only spaces or invisible characters\)/);
  }
  // A message with something to read beside them still declares failure.
  const declared = await engine.submit(s.runId, { $error: '\u200bdisk full' });
  assert.is(declared.status === 'failed' && declared.error.code, 'E_AGENT_ERROR');
});

Limits('r91 d1, r92 d1: a submitted toolCalls record is plain data: a getter, a field on a prototype or a class instance is E_INPUT naming it (never journaled changed or without its name), and nothing is submitted', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  let reads = 0;
  class Call { ok = true; get name() { return 'search'; } }
  const inherited = Object.assign(Object.create({ name: 'search' }), { ok: false });
  const cases: Array<[unknown, string]> = [
    [{ name: 'search', get ok() { reads++; return (reads === 1 ? true : 5n) as never; } }, 'toolCalls[0].ok is a getter'],
    [new Call(), 'toolCalls[0] is a Call, not a plain object'],
    [inherited, 'toolCalls[0] is an object with a prototype, not a plain object'],
  ];
  for (const [record, said] of cases) {
    const err = await engine.submit(s.runId, { words: 150 }, { seq: s.seq, toolCalls: [record as never] }).then(() => undefined, (e: CountersignError) => e);
    assert.is(err?.code, 'E_INPUT', said);
    assert.match(err!.message, said);
  }
  assert.is((await engine.status(s.runId)).status, 'waiting', 'nothing was submitted');
  assert.not.ok((await engine.trace(s.runId)).events.some((e) => e.type === 'tool.called'));
});

Limits('r93 d1 d3: a toolCalls list with a hole, or a record with a symbol-keyed field, is E_INPUT naming it, never a TypeError or a field dropped', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  // eslint-disable-next-line no-sparse-arrays
  const holed = [{ ok: true, name: 'a' }, , { ok: false, name: 'b', code: 'E_Q' }];
  for (const [toolCalls, said] of [[holed, 'toolCalls[1] is a hole'], [[{ ok: true, name: 'y', [Symbol('z')]: 1 }], 'toolCalls[0] has a symbol-keyed field']] as const) {
    for (const call of [() => engine.submit(s.runId, { words: 150 }, { seq: s.seq, toolCalls: toolCalls as never }), () => engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: toolCalls as never })] as Array<() => Promise<unknown>>) {
      const err = await Promise.resolve().then(call).then(() => undefined, (e: CountersignError) => e);
      assert.is(err?.code, 'E_INPUT', String(err));
      assert.match(err!.message, said);
    }
  }
  assert.is((await engine.status(s.runId)).status, 'waiting');
});

Limits('r93 d4: run()\'s maxSteps stop names the library option and how a host resumes (engine.run({ runId })), not only CLI commands', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(TWO_STEP, { agent: { answer: async () => ({ words: 'x' }) }, maxSteps: 1 });
  assert.is(r.error?.code, 'E_MAX_STEPS');
  assert.match(r.error!.message, 'maxSteps');
  assert.match(r.error!.fix!, 'engine.run({ runId }');
});

Limits('r88 d5: an unknown run on a store kept in memory is E_RUN_NOT_FOUND whose fix lists runs with engine.runs(), not `countersign runs` (which cannot open that store)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  for (const call of [() => engine.status('abc'), () => engine.trace('abc'), () => engine.submit('abc', {}), () => engine.run({ runId: 'abc' }, { agent: { answer: async () => ({}) } })] as Array<() => Promise<unknown>>) {
    const err = await Promise.resolve().then(call).then(() => undefined, (e: CountersignError) => e);
    assert.is(err?.code, 'E_RUN_NOT_FOUND');
    assert.match(err!.fix ?? '', 'engine.runs()');
    assert.not.match(err!.fix ?? '', /^list runs with `countersign runs`$/);
  }
});

Limits('r88 c1: a $error is blank by the same rule as a review finding: every character the review report calls invisible is invisible in a $error too', () => {
  const missed: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (isBlankText(ch) && !isBlank(ch)) missed.push(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  assert.equal(missed, []);
});

Limits('r88 c3: a blank retryMessage (spaces, invisible characters) adds no line to a rejection, as an empty one adds none', async () => {
  for (const retryMessage of ['   ', '\u200b', '']) {
    const engine = createEngine({ store: createMemoryStore() });
    const wf = structuredClone({ ...TWO_STEP, nodes: TWO_STEP.nodes.map((n) => (n.id === 'write' ? { ...n, retryMessage } : n)) }) as Workflow;
    const s = await engine.start(wf);
    const r = await engine.submit(s.runId, { words: 'many' });
    assert.is(r.status, 'waiting');
    const errors = r.status === 'waiting' ? r.rejected!.errors : [];
    assert.ok(errors.length > 0);
    assert.ok(errors.every((line) => line.trim() !== '' && line !== '\u200b'), `${JSON.stringify(retryMessage)}: ${JSON.stringify(errors)}`);
    assert.equal(r.status === 'waiting' ? r.pending.kind === 'directive' && r.pending.errors : [], errors);
  }
});

Limits('r79 c2: a reserved "$" key is named by its RFC 6901 pointer ("/" as ~1, "~" as ~0), as every other answer error', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const r = await engine.submit(s.runId, { 'words': 3, '$x/y~z': 2 });
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_RESERVED_KEY');
  assert.match(r.status === 'waiting' ? r.rejected!.errors[0] : '', /^\/\$x~1y~0z: keys starting with "\$" are reserved/);
});

Limits.run();

const Guards = suite('library API: misuse');

Guards('run() without an agent is refused before any run is created (E_ADAPTER)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  try {
    await engine.run(TWO_STEP, {} as never);
    assert.unreachable();
  } catch (e) {
    assert.is((e as CountersignError).code, 'E_ADAPTER');
  }
  assert.equal(await engine.runs(), []);
});

Guards('start() and run() refuse a workspace that is not an existing directory (E_INPUT, as the CLI and MCP do): no run is stored and nothing is created there', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const missing = join(tmp(), 'not', 'there');
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  const file = join(tmp(), 'a-file');
  writeFileSync(file, 'x');
  for (const [call, workspace] of [
    [() => engine.start(TWO_STEP, { workspace: missing }), missing],
    [() => engine.run(TWO_STEP, { workspace: missing, agent }), missing],
    [() => engine.start(TWO_STEP, { workspace: file }), file],
    [() => engine.start(TWO_STEP, { workspace: '' }), ''],
  ] as const) {
    try {
      await call();
      assert.unreachable(`workspace ${workspace} was accepted`);
    } catch (e) {
      assert.instance(e, CountersignError);
      assert.is((e as CountersignError).code, 'E_INPUT', String(e));
      assert.match((e as CountersignError).message, workspace === '' ? /must be a directory path/ : /is not an existing directory/);
      assert.ok((e as CountersignError).fix, 'says how to fix it');
    }
  }
  assert.equal(await engine.runs(), []);
  assert.not.ok(existsSync(join(missing, '..')), 'nothing was created');
  const here = tmp();
  const s = await engine.start(TWO_STEP, { workspace: here });
  assert.is((await engine.info(s.runId)).workspace, here);
});

Guards('run({ runId }) refuses a new input or another workspace (E_INPUT), as the CLI does on --resume: a resumed run keeps both; its own workspace is accepted', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const here = tmp();
  const s = await engine.start(TWO_STEP, { input: { topic: 'old' }, workspace: here });
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const [opts, text] of [
    [{ input: { topic: 'new' } }, /keeps the input it started with/],
    [{ input: {} }, /keeps the input it started with/],
    [{ workspace: tmp() }, /cannot move it/],
  ] as const) {
    try {
      await engine.run({ runId: s.runId }, { ...opts, agent });
      assert.unreachable(JSON.stringify(opts));
    } catch (e) {
      assert.is((e as CountersignError).code, 'E_INPUT', String(e));
      assert.match((e as CountersignError).message, text);
      assert.match((e as CountersignError).fix ?? '', /leave out/);
    }
  }
  assert.is((await engine.status(s.runId)).status, 'waiting', 'the refused calls left the run as it was');
  const done = await engine.run({ runId: s.runId }, { workspace: here, agent });
  assert.is(done.status, 'completed');
  assert.equal(done.output, { topic: 'old', 'write.words': 5 });
});

Guards('run() refuses a maxSteps or agentTimeoutMs that is not a positive number (E_INPUT naming it) before any run starts, as the CLI does', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const [opts, name] of [
    [{ maxSteps: Number.NaN }, 'maxSteps'], [{ maxSteps: -1 }, 'maxSteps'], [{ maxSteps: 0 }, 'maxSteps'], [{ maxSteps: 1.5 }, 'maxSteps'], [{ maxSteps: '3' }, 'maxSteps'],
    [{ agentTimeoutMs: Number.NaN }, 'agentTimeoutMs'], [{ agentTimeoutMs: 0 }, 'agentTimeoutMs'], [{ agentTimeoutMs: -5 }, 'agentTimeoutMs'], [{ agentTimeoutMs: Infinity }, 'agentTimeoutMs'],
  ] as const) {
    try {
      await engine.run(TWO_STEP, { ...(opts as object), agent });
      assert.unreachable(JSON.stringify(opts));
    } catch (e) {
      assert.is((e as CountersignError).code, 'E_INPUT', `${name}: ${String(e)}`);
      assert.match((e as CountersignError).message, `run() option ${name} must be`);
    }
  }
  assert.equal(await engine.runs(), []);
  assert.is((await engine.run(TWO_STEP, { agent, maxSteps: 1, agentTimeoutMs: 5000 })).status, 'completed');
});

Guards('validateWorkflow takes the host\'s tools ({ tools }, the list createEngine takes): a tool node naming one validates as it runs', async () => {
  const echo = defineTool({ name: 'echo', class: 'read', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, run: async (args) => ({ got: args }) });
  const wf = {
    metadata: { name: 'echoes', version: '1.0.0', description: 'a host tool' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 't' } },
      { type: 'tool', id: 't', tool: 'echo', args: { n: 1 }, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['t.result'] },
    ],
  } as unknown as Workflow;
  assert.equal(validateWorkflow(wf).errors.map((e) => e.code), ['E_TOOL_UNKNOWN'], 'without the host\'s tools it is unknown');
  const report = validateWorkflow(wf, '<workflow>', { tools: [echo] });
  assert.ok(report.ok, JSON.stringify(report.errors));
  const wrongArgs = validateWorkflow({ ...wf, nodes: wf.nodes.map((n) => (n.id === 't' ? { ...n, args: { n: 'x' } } : n)) } as Workflow, '<workflow>', { tools: [echo] });
  assert.equal(wrongArgs.errors.map((e) => e.code), ['E_TOOL_ARGS'], 'and its arguments are checked against that tool');
  const started = await createEngine({ store: createMemoryStore(), tools: [echo] }).start(wf);
  assert.is(started.status, 'completed');
});

Guards('a record node journals the declared variables its templates rendered empty (variable.unset), as a directive does', async () => {
  const wf = {
    metadata: { name: 'record-unset', version: '1.0.0', description: 'a record reading an unset variable' },
    nodes: [
      { type: 'start', id: 'start', initialData: { variables: { who: { description: 'the approver, unset' } } }, connections: { default: 'keep' } },
      { type: 'record', id: 'keep', table: 'notes', key: '{{who}}', fields: { note: 'approved by {{who}}', who: { contextPath: 'who' } }, connections: { default: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  assert.is(s.status, 'completed');
  const events = (await engine.trace(s.runId)).events;
  const unset = events.find((e) => e.type === 'variable.unset');
  assert.equal([unset?.nodeId, unset?.names], ['keep', ['who']]);
  assert.ok(events.indexOf(unset!) < events.findIndex((e) => e.type === 'record.written'), 'noted before the row it left a gap in');
});

Guards('calls with a run id that is no string, a runs() status that is none, or a seq that is no whole number get E_INPUT / E_SEQ naming what was given, on every store', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const s = await engine.start(TWO_STEP);
    for (const call of [() => engine.status({} as never), () => engine.submit(['x'] as never, {}), () => engine.trace(5 as never), () => engine.info('' as never)]) {
      const e = await call().then(() => undefined, (err) => err);
      assert.is(e?.code, 'E_INPUT', String(e));
      assert.match(e.message, 'a run id is a non-empty string');
    }
    // Said in plain words, the value as given: never "a undefined", "a object" or the typeof of 5.
    for (const [given, said] of [[undefined, 'got nothing (undefined)'], [{}, 'got an object'], [5, 'got 5']] as const) {
      const e = await engine.trace(given as never).then(() => undefined, (err) => err);
      assert.match(e.message, said, String(given));
    }
    const bad = await engine.runs({ status: 'complete' as never }).then(() => undefined, (err) => err);
    assert.is(bad?.code, 'E_INPUT');
    assert.match(bad.message, 'is not a run status');
    for (const seq of [Number.NaN, Infinity, 1.5]) {
      const e = await engine.submit(s.runId, { words: 1 }, { seq }).then(() => undefined, (err) => err);
      assert.is(e?.code, 'E_SEQ');
      assert.match(e.message, `seq ${String(seq)} is not a whole number`);
    }
    store.close();
  }
});

Guards('an expression giving a global a value its registry entry forbids fails the expression (E_EXPRESSION, naming the variable), never stores it', async () => {
  const wf = {
    metadata: { name: 'typed-globals', version: '1.0.0', description: 'expressions keep to declarations' },
    variableRegistry: {
      count: { type: 'integer', minimum: 0, description: 'a count', default: 0 },
      label: { type: 'string', description: 'a label', default: 'v' },
    },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'bump' } },
      { type: 'expression', id: 'bump', expressions: ['count = label + 1'], connections: { default: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['count'] },
    ],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const failed = await engine.start(wf);
  assert.is(failed.status, 'failed');
  assert.is(failed.status === 'failed' && failed.error.code, 'E_EXPRESSION');
  assert.match(failed.status === 'failed' ? failed.error.message : '', /gives count the value "v1", which its variableRegistry entry does not allow \(\(root\): must be integer\)/);
  const routed = structuredClone(wf) as unknown as { nodes: Array<Record<string, unknown>> };
  routed.nodes[1].expressions = ['count = count - 1'];
  routed.nodes[1].connections = { default: 'done', error: 'done' };
  const s = await engine.start(routed as unknown as Workflow);
  assert.equal(s.status === 'completed' && s.output, { count: 0 }, 'minimum 0: the error route is taken and count keeps its value');
});

Guards('r79 d1: a submit toolFailure that is not { tool, code, message } strings (and fix?) is E_INPUT naming it before anything is stored: the answer is never discarded for a failure coded "undefined"', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const journal = (await engine.trace(s.runId)).events;
  for (const [toolFailure, said] of [
    ['oops', 'submit()\'s toolFailure must be an object { tool, code, message, fix? }, got "oops"'],
    [null, 'submit()\'s toolFailure must be an object { tool, code, message, fix? }, got null'],
    [{}, 'submit()\'s toolFailure.tool must be a non-empty string, got nothing (undefined)'],
    [{ tool: 'post_review', code: 5, message: 'boom' }, 'submit()\'s toolFailure.code must be a non-empty string, got 5'],
    [{ tool: 'post_review', code: 'E_TOOL_FAILED' }, 'submit()\'s toolFailure.message must be a string, got nothing (undefined)'],
    [{ tool: 'post_review', code: 'E_TOOL_FAILED', message: 'boom', fix: 1 }, 'submit()\'s toolFailure.fix must be a string, got 1'],
    [{ tool: 'post_review', code: 'E_TOOL_FAILED', message: 'boom', mesage: 'x' }, 'submit()\'s toolFailure has no option "mesage" — did you mean "message"?'],
  ] as const) {
    const e = await caught(() => engine.submit(s.runId, { words: 500 }, { toolFailure: toolFailure as never }));
    assert.is(e?.code, 'E_INPUT', JSON.stringify(toolFailure));
    assert.is(e!.message, said);
  }
  assert.equal((await engine.trace(s.runId)).events, journal, 'nothing was journaled: no answer.discarded, no route');
  const done = await engine.submit(s.runId, { words: 500 }, { seq: s.seq });
  assert.equal(done.status === 'completed' && done.output, { topic: 'tests', 'write.words': 500 }, 'the answer is still taken');
  // A well-formed one is applied as before: the answer is discarded, the failure journaled with its code.
  const t = await engine.start(TWO_STEP);
  const failed = await engine.submit(t.runId, { words: 500 }, { toolFailure: { tool: 'post_review', code: 'E_TOOL_FAILED', message: 'boom' } });
  assert.is(failed.status, 'failed');
  assert.equal((await engine.trace(t.runId)).events.filter((e) => e.type === 'answer.discarded').map((e) => [e.code, e.tool]), [['E_TOOL_FAILED', 'post_review']]);
});

Guards('r80: a submit toolFailure\'s message and fix are journaled whole (never cut without a word), as tool-call records are', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const message = `boom ${'x'.repeat(6000)}`;
  const fix = `retry ${'y'.repeat(3000)}`;
  await engine.submit(s.runId, { words: 500 }, { toolFailure: { tool: 'post_review', code: 'E_TOOL_FAILED', message, fix } });
  const discarded = (await engine.trace(s.runId)).events.find((e) => e.type === 'answer.discarded') as unknown as { message: string; fix?: string };
  assert.ok(discarded.message.includes(message));
});

Guards('r79 d2: validateWorkflow\'s second argument is the file name: options given there ({ tools }) or a non-string file are E_INPUT saying the options go third, never a false E_TOOL_UNKNOWN with the file echoed as that object', () => {
  const deploy = defineTool({
    name: 'deploy', class: 'write', description: 'Deploy a tag',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'], additionalProperties: false },
    run: async () => ({ deployed: true }),
  });
  const wf = {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    nodes: [
      { id: 's', type: 'start', connections: { default: 'd' } },
      { id: 'd', type: 'tool', tool: 'deploy', args: { tag: 'v1' }, connections: { success: 'e' } },
      { id: 'e', type: 'end' },
    ],
  };
  assert.ok(validateWorkflow(wf, 'x.json', { tools: [deploy] }).ok);
  assert.ok(validateWorkflow(wf, undefined, { tools: [deploy] }).ok, 'undefined is the file left out');
  const thrown = (f: () => unknown) => { try { f(); } catch (e) { return e as CountersignError; } return undefined; };
  const swapped = thrown(() => validateWorkflow(wf, { tools: [deploy] } as never));
  assert.is(swapped?.code, 'E_INPUT');
  assert.is(swapped!.message, 'validateWorkflow()\'s second argument is the file name (a string), got an object: the options go third');
  assert.match(swapped!.fix!, 'call validateWorkflow(workflow, "<workflow>", { tools })');
  for (const [file, said] of [[42, '42'], [null, 'null'], [['x'], 'a list']] as const) {
    const e = thrown(() => validateWorkflow(wf, file as never));
    assert.is(e?.code, 'E_INPUT', String(file));
    assert.is(e!.message, `validateWorkflow()'s second argument is the file name (a string), got ${said}`);
  }
});

Guards('r79 d3: an option key a library call does not take (misspelt) is E_INPUT naming it with a did-you-mean, for every options object (createEngine, start, submit, trace, runs, recordToolCalls, run, validate*, createAgent, openStore): never read as the option left out; nothing is stored and the run does not move', async () => {
  const { createAgent, openStore, validateFile } = await import('../../engine/index.js');
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const said = async (f: () => unknown, message: string, takes: string) => {
    const e = await caught(f);
    assert.is(e?.code, 'E_INPUT', message);
    assert.is(e!.message, message);
    assert.match(e!.fix!, takes);
  };
  await said(() => createEngine({ store, toolHeartbeatMS: 5 } as never), 'createEngine has no option "toolHeartbeatMS" — did you mean "toolHeartbeatMs"?', 'rename it to "toolHeartbeatMs": createEngine takes store, now, newRunId, tools, allowToolModules, toolHeartbeatMs');
  await said(() => createEngine({ stor: store } as never), 'createEngine has no option "stor" — did you mean "store"?', 'createEngine takes store,');
  const engine = createEngine({ store });
  await said(() => engine.start(TWO_STEP, { inputs: { topic: 'x' } } as never), 'start() has no option "inputs" — did you mean "input"?', 'start() takes input, as, workspace');
  assert.equal(store.list(), [], 'no run was started without its input');
  const s = await engine.start(TWO_STEP);
  const journal = (await engine.trace(s.runId)).events;
  await said(() => engine.submit(s.runId, { words: 5 }, { sequence: 99 } as never), 'submit() has no option "sequence"', 'remove it: submit() takes seq, as, toolCalls, toolFailure, madeAt');
  await said(() => engine.submit(s.runId, { words: 5 }, { sq: 1 } as never), 'submit() has no option "sq" — did you mean "seq"?', 'submit() takes');
  await said(() => engine.trace(s.runId, { form: 3 } as never), 'trace() has no option "form" — did you mean "from"?', 'trace() takes from');
  await said(() => engine.runs({ state: 'failed' } as never), 'runs() has no option "state" — did you mean "status"?', 'runs() takes status');
  await said(() => engine.runs({ statu: 'failed' } as never), 'runs() has no option "statu" — did you mean "status"?', 'runs() takes status');
  await said(() => engine.recordToolCalls(s.runId, { seq: s.seq, toolcalls: [{ name: 'grep', ok: true }] } as never), 'recordToolCalls() has no option "toolcalls" — did you mean "toolCalls"?', 'recordToolCalls() takes seq, toolCalls');
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  await said(() => engine.run(TWO_STEP, { agent, maxStep: 1 } as never), 'run() has no option "maxStep" — did you mean "maxSteps"?', 'run() takes agent, reviewer, as, reviewerAs, input, workspace, maxSteps');
  await said(() => engine.run({ runId: s.runId }, { agent, reviewerAS: 'r' } as never), 'run() has no option "reviewerAS" — did you mean "reviewerAs"?', 'run() takes');
  assert.equal((await engine.trace(s.runId)).events, journal, 'the run did not move');
  assert.is(store.list().length, 1, 'no other run was stored');
  assert.is((await caught(() => engine.submit('nope', {}, { sq: 1 } as never)))?.code, 'E_RUN_NOT_FOUND', 'an unknown run first, as for any other fault of the call');
  const file = join(ROOT, 'spec/fixtures/cli/two-step.json');
  await said(() => validateWorkflow(TWO_STEP, 'f', { tool: [] } as never), 'validateWorkflow() has no option "tool" — did you mean "tools"?', 'validateWorkflow() takes tools, modulesLoaded, lentTools, file');
  await said(() => validateFile(file, { tols: [] } as never), 'validateFile() has no option "tols" — did you mean "tools"?', 'validateFile() takes');
  await said(() => validateDocument(loadWorkflow(file), { lentTool: [] } as never), 'validateDocument() has no option "lentTool" — did you mean "lentTools"?', 'validateDocument() takes');
  await said(() => createAgent('exec:true', { cwd: '.', flg: '--agent' } as never), 'createAgent has no option "flg" — did you mean "flag"?', 'createAgent takes cwd, env, flag, answered, stderr, nodeIds');
  const dir = tmp();
  await said(() => openStore({ cwd: dir, stor: 'elsewhere' } as never), 'openStore has no option "stor" — did you mean "store"?', 'openStore takes store, cwd, env');
  assert.not.ok(existsSync(join(dir, '.countersign')), 'the default store was not opened in its place');
  // What every caller passes is still taken: options whose keys are all known, some of them undefined.
  assert.is((await engine.run(TWO_STEP, { agent, reviewer: undefined, as: undefined, maxSteps: undefined, input: { topic: 'x' } })).status, 'completed');
});

Guards('r79 d4: null for an option value is E_INPUT, never read as the option left out: start({input: null}), run({input: null}), trace({from: null}), submit({toolFailure: null}), run({reviewer: null}); nothing is stored', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const [call, said] of [
    [() => engine.start(TWO_STEP, { input: null as never }), 'the start input must be a JSON object of variables, got null'],
    [() => engine.run(TWO_STEP, { agent, input: null as never }), 'the start input must be a JSON object of variables, got null'],
    [() => engine.run(TWO_STEP, { agent, reviewer: null as never }), 'run()\'s reviewer must be an agent: an object with an answer(request, options) method, got null'],
  ] as const) {
    const e = await caught(call);
    assert.is(e?.code, 'E_INPUT', said);
    assert.is(e!.message, said);
  }
  assert.equal(store.list(), [], 'no run was stored');
  const s = await engine.start(TWO_STEP);
  const from = await caught(() => engine.trace(s.runId, { from: null as never }));
  assert.is(from?.code, 'E_INPUT');
  assert.is(from!.message, 'trace from null is not an event index');
  assert.is((await caught(() => engine.submit(s.runId, { words: 5 }, { toolFailure: null as never })))?.code, 'E_INPUT');
  assert.is((await engine.status(s.runId)).seq, s.seq, 'the run did not move');
});

Guards('r79 d5: recordToolCalls refuses as submit does: a seq the run never issued (ahead of it, or 0) is E_SEQ, an unknown run E_RUN_NOT_FOUND even with no calls, a closed store E_STORE (memory and SQLite); only a seq the run has moved past writes nothing without a word', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const s = await engine.start(TWO_STEP);
    const journal = (await engine.trace(s.runId)).events;
    for (const toolCalls of [[{ name: 'grep', ok: true }], []]) {
      for (const seq of [99, s.seq + 1, 0]) {
        const e = await caught(() => engine.recordToolCalls(s.runId, { seq, toolCalls }));
        assert.is(e?.code, 'E_SEQ', `seq ${seq}, ${toolCalls.length} call(s)`);
        assert.match(e!.message, `run ${s.runId} is at seq ${s.seq}; seq ${seq}`);
        assert.match(e!.fix!, 'pass the seq of the item the tool calls were made for');
      }
      assert.is((await caught(() => engine.recordToolCalls('no-such-run', { seq: 1, toolCalls })))?.code, 'E_RUN_NOT_FOUND', `${toolCalls.length} call(s)`);
    }
    assert.equal((await engine.trace(s.runId)).events, journal, 'nothing was journaled');
    // The item the calls were for: journaled. One the run has moved past: nothing written, and no error (README).
    await engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: [{ name: 'grep', ok: true }] });
    await engine.submit(s.runId, { words: 5 }, { seq: s.seq });
    await engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: [{ name: 'late', ok: true }] });
    assert.equal((await engine.trace(s.runId)).events.filter((e) => e.type === 'tool.called').map((e) => e.name), ['grep']);
    store.close();
    for (const toolCalls of [[], [{ name: 'grep', ok: true }]]) {
      assert.is((await caught(() => engine.recordToolCalls(s.runId, { seq: 1, toolCalls })))?.code, 'E_STORE', `closed, ${toolCalls.length} call(s)`);
    }
  }
});

Guards('r79 d6: tool-call records with a field of the wrong type (ok: "true", a number for name, a code that is no string) are E_INPUT naming toolCalls[i] and the field, on recordToolCalls and submit; never journaled as a failed, nameless call', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const journal = (await engine.trace(s.runId)).events;
  for (const [toolCalls, said] of [
    [[{ name: 'grep', ok: 'true' }], 'toolCalls[0].ok must be true or false, got "true"'],
    [[{ name: 'grep', ok: true }, { name: 7, ok: true }], 'toolCalls[1].name must be the tool\'s name (a non-empty string), got 7'],
    [[{ name: 'grep' }], 'toolCalls[0].ok must be true or false, got nothing (undefined)'],
    [[{ name: 'grep', ok: false, code: 404 }], 'toolCalls[0].code must be a string, got 404'],
    [[{ name: 'grep', ok: false, code: 'E_X', message: { text: 'm' } }], 'toolCalls[0].message must be a string, got an object'],
  ] as const) {
    for (const call of [() => engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: toolCalls as never }), () => engine.submit(s.runId, { words: 5 }, { toolCalls: toolCalls as never })]) {
      const e = await caught(call);
      assert.is(e?.code, 'E_INPUT', said);
      assert.is(e!.message, said);
    }
  }
  assert.equal((await engine.trace(s.runId)).events, journal, 'nothing was journaled, and the run did not move');
  await engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: [{ name: 'grep', ok: true }, { ok: false, code: 'E_TOOL_REQUEST', message: 'no name' }] });
  assert.equal((await engine.trace(s.runId)).events.filter((e) => e.type === 'tool.called').map(({ name, ok, code }) => ({ name, ok, code })), [
    { name: 'grep', ok: true, code: undefined },
    { name: undefined, ok: false, code: 'E_TOOL_REQUEST' },
  ], 'journaled as the host reported them');
});

Guards('r79 d9: run() refuses an identity that is no string with E_INPUT saying it must be a non-empty string (a blank one stays E_IDENTITY_REQUIRED), and a reviewer without answer() with E_INPUT, whether or not the workflow has review nodes; no run is stored', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const [opts, code, said] of [
    [{ as: 5 }, 'E_INPUT', 'run()\'s as must be a non-empty string (an identity), got 5'],
    [{ reviewerAs: null }, 'E_INPUT', 'run()\'s reviewerAs must be a non-empty string (an identity), got null'],
    [{ as: ' ' }, 'E_IDENTITY_REQUIRED', 'run() was given a blank as identity'],
    [{ reviewer: 'someone' }, 'E_INPUT', 'run()\'s reviewer must be an agent: an object with an answer(request, options) method, got "someone"'],
    [{ reviewer: 5 }, 'E_INPUT', 'run()\'s reviewer must be an agent: an object with an answer(request, options) method, got 5'],
    [{ reviewer: {} }, 'E_INPUT', 'run()\'s reviewer must be an agent: an object with an answer(request, options) method, got an object without answer()'],
  ] as const) {
    const e = await caught(() => engine.run(TWO_STEP, { agent, ...opts } as never));
    assert.is(e?.code, code, JSON.stringify(opts));
    assert.is(e!.message, said);
  }
  assert.equal(store.list(), [], 'no run was stored');
  assert.is((await engine.run(TWO_STEP, { agent, reviewer: { answer: async () => ({}) } })).status, 'completed', 'a reviewer that is an agent is still taken');
});


Guards('r81 d4: start() and submit() refuse an as that is no string (null, 5, a list) with E_INPUT naming the option, as run() does, never E_IDENTITY_REQUIRED; a blank one stays E_IDENTITY_REQUIRED; no run is stored and the run does not move', async () => {
  const caught = async (p: Promise<unknown>) => p.then(() => undefined, (e) => e as CountersignError);
  const store = createMemoryStore();
  const engine = createEngine({ store });
  for (const [as, got] of [[null, 'null'], [5, '5'], [['alice'], 'a list'], [{ id: 'alice' }, 'an object']] as const) {
    const e = await caught(engine.start(TWO_STEP, { as: as as never }));
    assert.is(e?.code, 'E_INPUT', JSON.stringify(as));
    assert.is(e!.message, `start()'s as must be a non-empty string (an identity), got ${got}`);
    assert.match(e!.fix!, 'or leave it out');
  }
  assert.equal(store.list(), [], 'no run was stored');
  assert.is((await caught(engine.start(TWO_STEP, { as: ' ' })))?.code, 'E_IDENTITY_REQUIRED', 'a blank one is still E_IDENTITY_REQUIRED');
  const s = await engine.start(TWO_STEP);
  for (const [as, got] of [[null, 'null'], [5, '5']] as const) {
    const e = await caught(engine.submit(s.runId, { words: 5 }, { seq: s.seq, as: as as never }));
    assert.is(e?.code, 'E_INPUT', JSON.stringify(as));
    assert.is(e!.message, `submit()'s as must be a non-empty string (an identity), got ${got}`);
  }
  assert.is((await caught(engine.submit(s.runId, { words: 5 }, { seq: s.seq, as: ' ' })))?.code, 'E_IDENTITY_REQUIRED', 'a blank one is still E_IDENTITY_REQUIRED');
  assert.is((await engine.status(s.runId)).seq, s.seq, 'the run did not move');
  assert.is((await engine.submit(s.runId, { words: 5 }, { seq: s.seq, as: 'alice' })).status, 'completed');
});


Guards('r80 d2: run()\'s labels are checked before anything starts: a misspelt key (labels.agnt, labels.agent.nme) is E_INPUT with a did-you-mean, a label that is no object, a name that is no non-empty string or a missing silence is E_INPUT; no run is stored, and a message never names "undefined"', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const silent: Agent = { answer: () => new Promise(() => {}) };
  for (const [labels, said] of [
    [{ agnt: { name: 'my-bot', silence: 's' } }, 'run()\'s labels has no option "agnt" — did you mean "agent"?'],
    [{ agent: { nme: 'my-bot', silence: 'check my-bot' } }, 'run()\'s labels.agent has no option "nme" — did you mean "name"?'],
    [{ agent: { name: 5, silence: 's' } }, 'run()\'s labels.agent.name must be a non-empty string, got 5'],
    [{ agent: { name: 'my-bot' } }, 'run()\'s labels.agent.silence must be a non-empty string, got nothing (undefined)'],
    [{ reviewer: { name: ' ', silence: 's' } }, 'run()\'s labels.reviewer.name must be a non-empty string, got " "'],
    [{ agent: null }, 'run()\'s labels.agent must be an object { name, silence }, got null'],
  ] as const) {
    const e = await caught(() => engine.run(TWO_STEP, { agent: silent, agentTimeoutMs: 50, labels: labels as never }));
    assert.is(e?.code, 'E_INPUT', JSON.stringify(labels));
    assert.is(e!.message, said);
  }
  assert.equal(store.list(), [], 'no run was stored');
  // A whole label names the agent, and its silence hint ends the timeout's fix.
  const r = await engine.run(TWO_STEP, { agent: silent, agentTimeoutMs: 50, labels: { agent: { name: 'my-bot', silence: 'check that my-bot is running' } } });
  assert.is(r.error?.code, 'E_AGENT_TIMEOUT');
  assert.match(r.error!.message, /^my-bot gave no answer for node "write"/);
  assert.match(r.error!.fix!, /, or check that my-bot is running; then the run still waits at node "write": continue it with countersign run --resume /);
});

Guards('r80 d3: a tool-call record with a field of another name ({tool: "search"} for {name}) is E_INPUT naming toolCalls[i] and the field with a did-you-mean, on recordToolCalls and submit; never journaled as a nameless call (what a malformed $tool line journals)', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const journal = (await engine.trace(s.runId)).events;
  for (const [toolCalls, said, fix] of [
    [[{ tool: 'search', ok: true }], 'toolCalls[0] has no field "tool" — did you mean "name"?', 'rename it to "name": a tool-call record takes name, ok, code, message, fix'],
    [[{ name: 'grep', ok: true }, { name: 'read', ok: false, cod: 'E_X' }], 'toolCalls[1] has no field "cod" — did you mean "code"?', 'rename it to "code"'],
    [[{ name: 'grep', ok: true, args: { q: 'x' } }], 'toolCalls[0] has no field "args"', 'remove it: a tool-call record takes name, ok, code, message, fix'],
  ] as const) {
    for (const call of [() => engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: toolCalls as never }), () => engine.submit(s.runId, { words: 5 }, { toolCalls: toolCalls as never })]) {
      const e = await caught(call);
      assert.is(e?.code, 'E_INPUT', said);
      assert.is(e!.message, said);
      assert.match(e!.fix!, fix);
    }
  }
  assert.equal((await engine.trace(s.runId)).events, journal, 'nothing was journaled, and the run did not move');
});

Guards('r80 d4: a tool-call record is journaled as given: message and fix whole (3000 characters, none cut) and kept on a successful call too, on recordToolCalls and submit', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const long = 'x'.repeat(3000);
  const calls = [{ name: 'read', ok: true, message: 'read 3 files', fix: 'n/a' }, { name: 'w', ok: false, code: 'E_TOOL_FAILED', message: long, fix: `retry ${long}` }];
  await engine.recordToolCalls(s.runId, { seq: s.seq, toolCalls: calls });
  await engine.submit(s.runId, { words: 5 }, { seq: s.seq, toolCalls: calls });
  const journaled = (await engine.trace(s.runId)).events.filter((e) => e.type === 'tool.called').map(({ name, ok, code, message, fix }) => ({ name, ok, ...(code ? { code } : {}), message, fix }));
  assert.equal(journaled, [...calls, ...calls]);
});

Guards('r80 d5: run({runId, <another key>}) is E_INPUT saying a resume source takes only runId (options go in the second argument), and {runID} is E_INPUT with a did-you-mean; never E_WORKFLOW_INVALID about a workflow\'s metadata; the run does not move', async () => {
  const caught = async (f: () => unknown) => { try { await f(); } catch (e) { return e as CountersignError; } return undefined; };
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(TWO_STEP);
  const journal = (await engine.trace(s.runId)).events;
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  for (const [source, said, fix] of [
    [{ runId: s.runId, seq: s.seq }, 'run({ runId }, { agent, … }) resumes a run: its first argument takes only runId, and this one also has "seq"', `pass { runId } alone: run({ runId: "${s.runId}" }, { agent, … }); remove seq (a resumed run continues at the item it waits for)`],
    [{ runId: s.runId, agent }, 'run({ runId }, { agent, … }) resumes a run: its first argument takes only runId, and this one also has "agent"', `pass { runId } alone: run({ runId: "${s.runId}" }, { agent, … }); agent goes in run()'s options (the second argument)`],
    [{ runID: s.runId }, 'run()\'s first argument has "runID" — did you mean "runId"? run({ runId }, { agent, … }) resumes a run: its first argument takes only runId', 'rename it to "runId": run({ runId: "<id>" }, { agent })'],
  ] as const) {
    const e = await caught(() => engine.run(source as never, { agent }));
    assert.is(e?.code, 'E_INPUT', JSON.stringify(Object.keys(source)));
    assert.is(e!.message, said);
    assert.match(e!.fix!, fix);
  }
  assert.equal((await engine.trace(s.runId)).events, journal, 'the run did not move');
  assert.is(store.list().length, 1, 'no other run was stored');
  assert.is((await engine.run({ runId: s.runId }, { agent })).status, 'completed', '{runId} alone still resumes');
});

Guards('r82 d5: a BigInt option value is E_INPUT naming the option (got 5n), never a bare TypeError from JSON.stringify', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(TWO_STEP);
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  const big = 5n as never;
  const calls: Array<[string, () => unknown, string]> = [
    ['start as', () => engine.start(TWO_STEP, { as: big }), "start()'s as"],
    ['submit as', () => engine.submit(s.runId, { words: 5 }, { as: big }), "submit()'s as"],
    ['run as', () => engine.run(TWO_STEP, { agent, as: big }), "run()'s as"],
    ['run reviewerAs', () => engine.run(TWO_STEP, { agent, reviewerAs: big }), "run()'s reviewerAs"],
    ['run maxSteps', () => engine.run(TWO_STEP, { agent, maxSteps: big }), 'maxSteps'],
    ['run labels', () => engine.run(TWO_STEP, { agent, labels: big }), "run()'s labels"],
    ['run tools', () => engine.run(TWO_STEP, { agent, tools: big }), "run()'s tools"],
    ['run reviewer', () => engine.run(TWO_STEP, { agent, reviewer: big }), "run()'s reviewer"],
    ['allowToolModules', () => createEngine({ store: createMemoryStore(), allowToolModules: big }), 'allowToolModules'],
    ['toolHeartbeatMs', () => createEngine({ store: createMemoryStore(), toolHeartbeatMs: big }), 'toolHeartbeatMs'],
    ['madeAt', () => engine.submit(s.runId, { words: 5 }, { madeAt: big }), 'madeAt'],
    ['trace from', () => engine.trace(s.runId, { from: big }), 'trace from'],
    ['runs status', () => engine.runs({ status: big }), 'runs() status'],
    ['workspace', () => engine.start(TWO_STEP, { workspace: big }), 'workspace'],
    ['newRunId', () => createEngine({ store: createMemoryStore(), newRunId: () => big }).start(TWO_STEP), 'newRunId'],
  ];
  for (const [label, call, names] of calls) {
    const e = await (async () => call())().then(() => undefined, (err) => err);
    assert.instance(e, CountersignError, `${label}: ${String(e)}`);
    assert.is((e as CountersignError).code, 'E_INPUT', label);
    assert.match((e as CountersignError).message, names, label);
    assert.match((e as CountersignError).message, '5n', label);
  }
});

Guards('r82 d6: a start() workspace or createAgent() cwd naming an existing file is E_INPUT whose fix says it is a file and to pass a directory, never to create it first', async () => {
  const { createAgent } = await import('../../engine/index.js');
  const file = join(tmp(), 'a-file');
  writeFileSync(file, 'x');
  const engine = createEngine({ store: createMemoryStore() });
  for (const call of [() => engine.start(TWO_STEP, { workspace: file }), async () => createAgent('exec:cat', { cwd: file })]) {
    const e = await call().then(() => undefined, (err) => err);
    assert.is((e as CountersignError).code, 'E_INPUT', String(e));
    assert.match((e as CountersignError).fix!, 'pass a directory');
    assert.not.match((e as CountersignError).fix!, /create \S*\s?first/);
  }
  const missing = await engine.start(TWO_STEP, { workspace: join(tmp(), 'nope') }).then(() => undefined, (err) => err);
  assert.match((missing as CountersignError).fix!, 'create it first', 'a missing directory is still to be created');
});

Guards('r105 c1: every engine call refuses arguments past the ones it takes (E_INPUT naming them), never runs without the option meant: run() with maxSteps in a third argument, submit() with as in a fourth', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({ words: 5 }) };
  const s = await engine.start(TWO_STEP);
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['start()', () => (engine.start as (...a: unknown[]) => Promise<unknown>)(TWO_STEP, {}, { as: 'alice' })],
    ['submit()', () => (engine.submit as (...a: unknown[]) => Promise<unknown>)(s.runId, { words: 5 }, { seq: s.seq }, { as: 'alice' })],
    ['status()', () => (engine.status as (...a: unknown[]) => Promise<unknown>)(s.runId, { verbose: true })],
    ['info()', () => (engine.info as (...a: unknown[]) => Promise<unknown>)(s.runId, 1)],
    ['trace()', () => (engine.trace as (...a: unknown[]) => Promise<unknown>)(s.runId, {}, { from: 2 })],
    ['runs()', () => (engine.runs as (...a: unknown[]) => Promise<unknown>)({}, 'waiting')],
    ['recordToolCalls()', () => (engine.recordToolCalls as (...a: unknown[]) => Promise<unknown>)(s.runId, { seq: s.seq, toolCalls: [] }, true)],
    ['run()', () => (engine.run as (...a: unknown[]) => Promise<unknown>)(TWO_STEP, { agent }, { maxSteps: 1 })],
  ];
  for (const [call, make] of calls) {
    const e = await rejection(make());
    assert.is(e.code, 'E_INPUT', call);
    assert.match(e.message, `${call} takes`);
    assert.match(e.message, 'refused rather than ignored');
    assert.ok(e.fix, call);
  }
  assert.is((await engine.status(s.runId)).seq, s.seq, 'the submit did not answer');
  assert.is((await engine.runs()).length, 1, 'neither start() nor run() made a run');
});

Guards.run();
