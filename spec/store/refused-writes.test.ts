/**
 * r86: a store's own methods refuse a value the store itself would later
 * call damaged (a mutate result that is no mutation, a workflow copy that is
 * no JSON workflow, a record with no status or naming another run, a
 * misspelt filter or query) with E_INPUT or E_LEDGER_QUERY naming it,
 * before anything is written, alike in both stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { storeSuite } from '../helpers/store-suite.js';
import { isCountersignError } from '../../engine/errors.js';
import type { Workflow } from '../../engine/format/model.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import type { RunRecord, Store } from '../../engine/store/store.js';
import { hashWorkflow } from '../../engine/run/hash.js';
import { createEngine } from '../../engine/run/engine.js';
import { CONTEXT } from '../helpers/run-context.js';

const WORKFLOW: Workflow = {
  metadata: { name: 'loop', version: '1.0.0', description: 'a test workflow' },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'end' } },
    { id: 'end', type: 'end' },
  ],
};
/** Its own hash: a store keeps a copy only under that. */
const HASH = hashWorkflow(WORKFLOW);

/** A record of run `runId` that keeps the run contract of its status (a store refuses any other from a host). */
function makeRecord(runId: string, status: RunRecord['status'] = 'completed'): RunRecord {
  return {
    runId, workflow: 'loop', workflowHash: HASH, workspace: '/tmp/ws', status,
    snapshot: { value: 'end', context: CONTEXT }, seq: 1,
    ...(status === 'completed' ? { endNodeId: 'end', output: {} } : {}),
    ...(status === 'failed' ? { error: { code: 'E_MAX_RETRIES', message: 'node "end" failed', nodeId: 'end' } } : {}),
    ...(status === 'waiting' ? { snapshot: { value: 'work', context: CONTEXT }, pending: { kind: 'directive', nodeId: 'work', directive: 'Do it', completionCondition: 'done', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3 } } : {}),
    createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z',
  } as RunRecord;
}

/** The error `call` throws: a CountersignError with `code`, whose message holds each of `words`, and a fix. */
function refused(call: () => unknown, code: string, ...words: string[]): string {
  let e: unknown;
  try {
    call();
  } catch (err) {
    e = err;
  }
  assert.ok(isCountersignError(e), `expected ${code}, got ${String(e)}`);
  assert.is(e.code, code, e.message);
  for (const w of words) assert.ok(e.message.includes(w), `"${e.message}" names ${w}`);
  assert.ok(e.fix, e.message);
  return e.fix!;
}

function suiteFor(name: string, open: () => { store: Store; cleanup: () => void }) {
  const { test, store } = storeSuite(`refused writes (${name})`, open, WORKFLOW);

  test('a mutate that returns nothing, null, a Promise or no object is E_INPUT naming it, and nothing is written', (c) => {
    store(c).create(makeRecord('r1', 'waiting'), [{ seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'run.started' }]);
    refused(() => store(c).update('r1', () => undefined as never), 'E_INPUT', 'update()', 'undefined');
    refused(() => store(c).update('r1', () => null as never), 'E_INPUT', 'update()', 'null');
    refused(() => store(c).update('r1', () => 5 as never), 'E_INPUT', 'update()', '5');
    const later = async (cur: RunRecord) => ({ record: { ...cur, seq: 99 }, events: [{ seq: 99, at: '2024-01-01T00:00:00.000Z', type: 'x' }], result: 'wrote' });
    refused(() => store(c).update('r1', later as never), 'E_INPUT', 'update()', 'Promise', 'synchronous');
    refused(() => store(c).update('r1', (cur) => ({ record: { ...cur, seq: 98 }, events: 5 as never, result: null })), 'E_INPUT', 'events', '5');
    assert.is(store(c).get('r1')!.seq, 1, 'the record is as it was');
    assert.is(store(c).eventCount('r1'), 1, 'no event was appended');
  });

  test('a workflow copy that is no JSON workflow is E_INPUT naming it, in both stores alike', (c) => {
    const cyclic: Record<string, unknown> = { nodes: [] };
    cyclic.self = cyclic;
    refused(() => store(c).putWorkflow('h4', cyclic as never), 'E_INPUT', 'putWorkflow()', 'h4', 'itself');
    refused(() => store(c).putWorkflow('h5', { nodes: [], x: 5n } as never), 'E_INPUT', 'putWorkflow()', '5n');
    refused(() => store(c).putWorkflow('h6', undefined as never), 'E_INPUT', 'putWorkflow()', 'undefined');
    refused(() => store(c).putWorkflow('h3', 5 as never), 'E_INPUT', 'putWorkflow()', '5');
    refused(() => store(c).putWorkflow('h7', { metadata: {} } as never), 'E_INPUT', 'putWorkflow()', 'nodes');
    for (const hash of ['h3', 'h4', 'h5', 'h6', 'h7']) refused(() => store(c).getWorkflow(hash, 'r1'), 'E_STORE', hash, 'missing');
  });

  test('a record the store would call damaged is refused by create() and update() with E_INPUT, and the other runs stay readable', (c) => {
    store(c).putWorkflow(HASH, WORKFLOW);
    refused(() => store(c).create({ runId: 'r', workflowHash: HASH } as never, []), 'E_INPUT', 'create()', 'run "r"', 'status');
    assert.is(store(c).get('r'), undefined, 'the half record was not stored');
    store(c).create(makeRecord('r1'), []);
    store(c).create(makeRecord('r2', 'waiting'), []);
    refused(() => store(c).update('r2', (cur) => ({ record: { ...cur, runId: 'zzz' }, result: 'written' })), 'E_INPUT', 'update()', '"zzz"', '"r2"');
    refused(() => store(c).update('r2', (cur) => ({ record: { ...cur, snapshot: undefined } as never, result: 'written' })), 'E_INPUT', 'update()', 'snapshot');
    assert.is(store(c).get('r2')!.runId, 'r2');
    assert.equal(store(c).list().map((r) => r.runId).sort(), ['r1', 'r2'], 'every run is still listed');
  });

  test('a list filter or a ledger query with a misspelt key, or of the wrong type, is refused, never read as no filter', (c) => {
    store(c).create(makeRecord('r1'), []);
    store(c).create(makeRecord('r2', 'waiting'), []);
    assert.match(refused(() => store(c).list({ stat: 'waiting' } as never), 'E_INPUT', 'list()', '"stat"'), 'status', 'the fix names the option list() takes');
    store(c).appendRows([
      { id: 'a', table: 't', at: '2024-01-01T00:00:00.000Z', row: { n: 1 } },
      { id: 'b', table: 't', at: '2024-01-01T00:00:01.000Z', row: { n: 2 } },
    ]);
    refused(() => store(c).rows('t', 5 as never), 'E_LEDGER_QUERY', '5');
    refused(() => store(c).rows('t', 'x' as never), 'E_LEDGER_QUERY', '"x"');
    refused(() => store(c).rows('t', null as never), 'E_LEDGER_QUERY', 'null');
    refused(() => store(c).rows('t', [] as never), 'E_LEDGER_QUERY', 'a list');
    assert.match(refused(() => store(c).rows('t', { lim: 1 } as never), 'E_LEDGER_QUERY', '"lim"'), 'limit', 'the fix names the options a query takes');
    assert.is(store(c).rows('t', { limit: 1 }).length, 1);
    assert.is(store(c).rows('t').length, 2);
    assert.is(store(c).rows('t', {}).length, 2);
  });

  test('journal events that are no event, or hold what JSON cannot keep, are E_INPUT from create() and update(), and the journal stays readable', (c) => {
    store(c).create(makeRecord('a'), []);
    refused(() => store(c).update('a', () => ({ events: [5] as never, result: 0 })), 'E_INPUT', 'update()', 'event 0', '5');
    refused(() => store(c).update('a', () => ({ events: [{ type: 'x' }] as never, result: 0 })), 'E_INPUT', 'event 0', 'seq');
    assert.equal(store(c).events('a'), [], 'no event was appended');
    refused(() => store(c).create(makeRecord('r2'), [1, null, 'x'] as never), 'E_INPUT', 'create()', 'event 0', '1');
    const cyclic: Record<string, unknown> = { seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'x' };
    cyclic.self = cyclic;
    refused(() => store(c).create(makeRecord('r10'), [cyclic] as never), 'E_INPUT', 'create()', 'event 0', 'itself');
    refused(() => store(c).create(makeRecord('r11'), [{ seq: 1, type: 'x', n: 5n }] as never), 'E_INPUT', 'create()', '5n');
    for (const id of ['r2', 'r10', 'r11']) assert.is(store(c).get(id), undefined, `run ${id} was not stored`);
  });

  test('a record holding a BigInt or a cycle is E_INPUT from create() and update(), never a TypeError', (c) => {
    refused(() => store(c).create({ ...makeRecord('b1'), extra: 5n } as never, []), 'E_INPUT', 'create()', '5n');
    const cyclic = makeRecord('b2') as unknown as Record<string, unknown>;
    cyclic.self = cyclic;
    refused(() => store(c).create(cyclic as never, []), 'E_INPUT', 'create()', 'itself');
    assert.is(store(c).get('b1'), undefined);
    store(c).create(makeRecord('b3'), []);
    refused(() => store(c).update('b3', (cur) => ({ record: { ...cur, seq: 2, extra: 7n } as never, result: 0 })), 'E_INPUT', 'update()', '7n');
    assert.is(store(c).get('b3')!.seq, 1, 'the record is as it was');
  });

  test('a Map as list() filter or rows() query is refused, never read as no filter', (c) => {
    store(c).create(makeRecord('a'), []);
    store(c).create(makeRecord('b', 'failed'), []);
    refused(() => store(c).list(new Map([['status', 'failed']]) as never), 'E_INPUT', 'list()', 'Map');
    store(c).appendRows([
      { id: 'x', table: 't', at: '2024-01-01T00:00:00.000Z', row: {} },
      { id: 'y', table: 't', at: '2024-01-01T00:00:01.000Z', row: {} },
    ]);
    refused(() => store(c).rows('t', new Map([['limit', 1]]) as never), 'E_LEDGER_QUERY', 'Map');
  });

  test('create() refuses ledger rows given as one object instead of a list, and stores nothing', (c) => {
    const row = { id: 'row1', table: 'audit', at: new Date().toISOString(), row: { ok: true } };
    refused(() => store(c).create(makeRecord('a'), [], row as never), 'E_INPUT', 'create()', 'rows', 'not a list');
    assert.is(store(c).get('a'), undefined, 'the run was not stored');
    assert.equal(store(c).rows('audit'), []);
  });

  test('r92 d2: a record that breaks the run contract of its status is E_INPUT from create() and update() naming the field and the rule, before anything is written, never E_STORE damage at the next read', (c) => {
    const waiting = makeRecord('w', 'waiting');
    const directive = waiting.pending as unknown as Record<string, unknown>;
    const { directive: _text, ...withoutDirective } = directive;
    const cases: Array<[RunRecord, string]> = [
      [{ ...waiting, seq: 0 }, 'is waiting at seq 0, and seqs start at 1'],
      [{ ...waiting, pending: undefined }, 'is waiting without a pending item'],
      [{ ...waiting, pending: withoutDirective as never }, 'has a directive pending item without its directive'],
      [{ ...waiting, pending: { ...directive, attempt: 0 } as never }, 'has a directive pending item whose "attempt" is 0, not a count from 1'],
      [{ ...makeRecord('x'), output: undefined }, 'completed without its output'],
      [{ ...makeRecord('x', 'failed'), error: undefined }, 'failed without its error'],
      [{ ...makeRecord('x', 'failed'), error: { code: 'E_X', message: 'm' } as never }, 'failed without the node it failed at'],
    ];
    for (const [record, rule] of cases) {
      const fix = refused(() => store(c).create({ ...record, runId: 'bad' }, []), 'E_INPUT', 'create() of run "bad"', rule);
      assert.match(fix, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, `${rule}: no run was stored`);
    }
    store(c).create(makeRecord('w', 'waiting'), []);
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, seq: 2, status: 'completed' }, result: 0 })), 'E_INPUT', 'update() of run "w"', 'completed without its end node (endNodeId)', 'run contract');
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, status: 'failed', error: { code: 'E_X' } as never }, result: 0 })), 'E_INPUT', 'update() of run "w"', 'failed without its error message');
    assert.equal(store(c).get('w'), makeRecord('w', 'waiting'), 'the record is as it was');
  });

  test('r96 d1-d3: a record whose contract fields are there with the wrong value is refused naming the value (never "without" a field it has); a completed outcome and a failure\'s fix, file, pointer, line and col keep their types', (c) => {
    const waiting = makeRecord('w', 'waiting');
    const directive = waiting.pending as unknown as Record<string, unknown>;
    const failed = makeRecord('x', 'failed');
    const cases: Array<[RunRecord, string]> = [
      [{ ...waiting, pending: { ...directive, attempt: 1.5 } as never }, 'has a directive pending item whose "attempt" is 1.5, not a whole number'],
      [{ ...waiting, pending: { ...directive, maxRetries: 1.5 } as never }, 'whose "maxRetries" is 1.5, not a whole number'],
      [{ ...waiting, pending: { ...directive, kind: 'bogus' } as never }, 'whose kind "bogus" is not directive, review or tool'],
      [{ ...waiting, pending: { ...directive, directive: 5 } as never }, 'whose "directive" is 5, not a string'],
      [{ ...makeRecord('x'), outcome: 5 } as never, 'completed with "outcome" 5, not a string'],
      [{ ...failed, error: { ...failed.error!, fix: 5 } } as never, 'failed with an error whose "fix" is 5, not a string'],
      [{ ...failed, error: { ...failed.error!, line: 1.5 } } as never, 'failed with an error whose "line" is 1.5, not a whole number'],
    ];
    for (const [record, rule] of cases) {
      const e = refused(() => store(c).create({ ...record, runId: 'bad' }, []), 'E_INPUT', 'create() of run "bad"', rule);
      assert.match(e, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, `${rule}: no run was stored`);
    }
    store(c).create({ ...makeRecord('ok'), outcome: 'approved' }, []);
    assert.is(store(c).get('ok')!.outcome, 'approved', 'a string outcome is kept');
  });

  test('r97 d1: a workspace that is empty or not absolute is E_INPUT from create() and update() naming the value, before anything is written (no later call could resume such a run)', (c) => {
    for (const workspace of ['', '   ', 'rel/x', './here', '~/ws']) {
      const fix = refused(() => store(c).create({ ...makeRecord('bad', 'waiting'), workspace }, []), 'E_INPUT', 'create() of run "bad"', `workspace ${JSON.stringify(workspace)}`, 'absolute');
      assert.match(fix, 'absolute path');
      assert.match(fix, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, `${JSON.stringify(workspace)}: no run was stored`);
    }
    store(c).create(makeRecord('w', 'waiting'), [{ seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'run.started' }]);
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, workspace: 'rel/x' }, result: 1 })), 'E_INPUT', 'update() of run "w"', 'workspace "rel/x"', 'absolute');
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, workspace: '' }, result: 1 })), 'E_INPUT', 'update() of run "w"', 'workspace ""', 'absolute');
    assert.is(store(c).get('w')!.workspace, '/tmp/ws', 'the record is as it was');
  });

  test('r97 d2: a createdAt or updatedAt of the wrong type is refused naming the value given, never as missing', (c) => {
    store(c).create(makeRecord('w', 'waiting'), []);
    for (const [value, shown] of [[5, '5'], [true, 'true'], [null, 'null'], [{}, 'an object']] as Array<[unknown, string]>) {
      const e = refused(() => store(c).update('w', (cur) => ({ record: { ...cur, updatedAt: value } as never, result: 1 })), 'E_INPUT', 'update() of run "w"', `has the updatedAt ${shown}, which is no time`);
      assert.ok(!e.includes('has no updatedAt'));
      refused(() => store(c).create({ ...makeRecord('bad'), createdAt: value } as never, []), 'E_INPUT', `has the createdAt ${shown}, which is no time`);
    }
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, updatedAt: 'soon' }, result: 1 })), 'E_INPUT', 'has the updatedAt "soon", which is no time');
    const { updatedAt: _gone, ...without } = makeRecord('bad');
    refused(() => store(c).create(without as never, []), 'E_INPUT', 'has no updatedAt');
    assert.is(store(c).get('w')!.updatedAt, '2024-01-01T00:00:00.000Z', 'the record is as it was');
  });

  test('r101 d1-d5: snapshot, pending, endNodeId, output and error of the wrong type are named with their value (never "has no" a field that is there), and a field no run record has (deadLine) is refused with the field meant', (c) => {
    const waiting = makeRecord('w', 'waiting');
    const failed = makeRecord('x', 'failed');
    const cases: Array<[RunRecord, string]> = [
      [{ ...waiting, snapshot: 'x' } as never, 'has the snapshot "x", not an object'],
      [{ ...waiting, snapshot: {} } as never, 'has a snapshot without the node the run rests at (its "value" is missing)'],
      [{ ...waiting, pending: 'x' } as never, 'is waiting with the pending item "x", not an object'],
      [{ ...waiting, pending: {} } as never, 'has a pending item without its kind'],
      [{ ...makeRecord('x'), endNodeId: 5 } as never, 'completed with "endNodeId" 5, not a string'],
      [{ ...makeRecord('x'), output: [] } as never, 'completed with "output" a list, not an object'],
      [{ ...failed, error: 'boom' } as never, 'failed with "error" "boom", not an object'],
      [{ ...failed, error: { ...failed.error!, code: 5 } } as never, 'failed with an error whose "code" is 5, not a string'],
      [{ ...waiting, deadLine: '2030-01-01T00:00:00.000Z' } as never, 'has the field "deadLine", which no run record has — did you mean "deadline"?'],
    ];
    for (const [record, rule] of cases) {
      const fix = refused(() => store(c).create({ ...record, runId: 'bad' }, []), 'E_INPUT', 'create() of run "bad"', rule);
      assert.match(fix, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, `${rule}: no run was stored`);
    }
  });

  test('r102 d1: a host journal event whose at is no time (missing, a number, a word, a boolean), whose nodeId is no string, or whose seq is negative is E_INPUT naming it, in both stores alike, never a bare TypeError', (c) => {
    const ok = { seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'directive.issued', nodeId: 'work' };
    const { at: _at, ...noAt } = ok;
    const cases: Array<[Record<string, unknown>, string]> = [
      [noAt, 'has no at (the time it happened)'],
      [{ ...ok, at: 5 }, 'has the at 5, which is no time'],
      [{ ...ok, at: 'soon' }, 'has the at "soon", which is no time'],
      [{ ...ok, at: true }, 'has the at true, which is no time'],
      [{ ...ok, nodeId: { x: 1 } }, 'has the nodeId an object, not a string'],
      [{ ...ok, seq: -1 }, 'has the seq -1, not a whole number from 0'],
    ];
    for (const [event, rule] of cases) {
      refused(() => store(c).create(makeRecord('bad', 'waiting'), [event as never]), 'E_INPUT', 'journal event 0', rule);
      assert.is(store(c).get('bad'), undefined, rule);
    }
  });

  test('r102 d4: a host record whose pending item shows another deadline than the run\'s (or one the run has not) is E_INPUT, nothing written', (c) => {
    const waiting = makeRecord('w', 'waiting');
    const pending = waiting.pending as unknown as Record<string, unknown>;
    for (const record of [
      { ...waiting, deadline: '2030-01-01T00:00:00.000Z', pending: { ...pending, deadline: '2031-01-01T00:00:00.000Z' } },
      { ...waiting, pending: { ...pending, deadline: '2031-01-01T00:00:00.000Z' } },
      { ...waiting, deadline: '2030-01-01T00:00:00.000Z' },
    ]) {
      refused(() => store(c).create({ ...record, runId: 'bad' } as never, []), 'E_INPUT', 'is not the run\'s deadline');
      assert.is(store(c).get('bad'), undefined);
    }
    const both = '2030-01-01T00:00:00.000Z';
    store(c).create({ ...waiting, runId: 'ok', deadline: both, pending: { ...pending, deadline: both } } as never, []);
    assert.is(store(c).get('ok')!.deadline, both);
  });

  test('r102 d2: a record given to create() or update() and edited afterwards leaves the stored run as it was written, and a record get() hands out cannot be edited, in both stores alike', async (c) => {
    const rec = makeRecord('h', 'waiting') as RunRecord & { pending: { directive: string } };
    store(c).create(rec, []);
    rec.seq = 7;
    rec.pending.directive = 'EDITED AFTER CREATE';
    assert.is(store(c).get('h')!.seq, 1);
    assert.is((store(c).get('h')!.pending as { directive: string }).directive, 'Do it');
    const next = { ...structuredClone(store(c).get('h')!), seq: 2 } as RunRecord & { pending: { directive: string } };
    store(c).update('h', () => ({ record: next, events: [{ seq: 2, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued' }], result: undefined }));
    next.seq = 9;
    next.pending.directive = 'EDITED AFTER UPDATE';
    const got = store(c).get('h')!;
    assert.is(got.seq, 2);
    assert.is((got.pending as { directive: string }).directive, 'Do it');
    assert.throws(() => { (got as { seq: number }).seq = 99; }, TypeError);
    assert.throws(() => { (got.pending as { directive: string }).directive = 'x'; }, TypeError);
    assert.throws(() => { (got.snapshot as { value: string }).value = 'x'; }, TypeError);
    assert.is(store(c).get('h')!.seq, 2);
    // The engine's own records too: a host holding one from get() cannot change the run without a step.
    const engine = createEngine({ store: store(c) });
    const run = await engine.start(WORKFLOW);
    const written = store(c).get(run.runId)!;
    assert.throws(() => { (written as { status: string }).status = 'waiting'; }, TypeError);
    assert.is((await engine.status(run.runId)).status, 'completed');
  });

  test('r102 d3: a host record whose pending item holds a field no item of its kind has (errros, seq) is E_INPUT naming it with the field meant, nothing written; a waiting record the engine wrote, copied back, is taken', async (c) => {
    const waiting = makeRecord('w', 'waiting');
    const pending = waiting.pending as unknown as Record<string, unknown>;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...pending, errros: ['x'] }, 'has a pending item with the field "errros", which a directive item does not have — did you mean "errors"?'],
      [{ ...pending, seq: 99 }, 'has a pending item with the field "seq", which a directive item does not have'],
      [{ ...pending, bogus: 'x' }, 'field "bogus"'],
    ];
    for (const [item, rule] of cases) {
      const fix = refused(() => store(c).create({ ...waiting, runId: 'bad', pending: item } as never, []), 'E_INPUT', 'create() of run "bad"', rule);
      assert.match(fix, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, rule);
    }
    store(c).create(waiting, []);
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, pending: { ...pending, maxRetry: 3 } } as never, result: undefined })), 'E_INPUT', 'field "maxRetry"', 'did you mean "maxRetries"?');
    assert.equal(store(c).get('w')!.pending, waiting.pending, 'the stored item is as it was');
    // What the engine writes for a waiting directive (agent, deadline, errors set) is a record a host may copy back as it is.
    const engine = createEngine({ store: store(c) });
    const ask: Workflow = {
      metadata: { name: 'ask', version: '1.0.0', description: 'one question' },
      nodes: [
        { id: 'start', type: 'start', connections: { default: 'q' } },
        { id: 'q', type: 'agent-directive', directive: 'Answer', completionCondition: 'done', agent: 'writer', timeoutMs: 60_000, retryMessage: 'again', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, connections: { success: 'end' } },
        { id: 'end', type: 'end' },
      ],
    } as Workflow;
    const started = await engine.start(ask);
    await engine.submit(started.runId, { n: 'x' }, { seq: started.seq });
    const copy = JSON.parse(JSON.stringify(store(c).get(started.runId))) as RunRecord;
    assert.ok(copy.pending && copy.pending.kind === 'directive' && copy.pending.errors && copy.pending.deadline && copy.pending.agent, 'the engine\'s item carries its optional fields');
    store(c).create({ ...copy, runId: 'copied' }, []);
    assert.equal(store(c).get('copied')!.pending, copy.pending);
  });

  test('r103 d1: a host record whose createdAt or updatedAt is a time in another form (a zone offset, no milliseconds) is E_INPUT with the canonical form, so runs stay listed newest first', (c) => {
    const cases: Array<[Partial<RunRecord>, string, string]> = [
      [{ createdAt: '2024-01-01T13:00:00+02:00', updatedAt: '2024-01-01T13:00:00+02:00' }, 'has the createdAt "2024-01-01T13:00:00+02:00"', '"2024-01-01T11:00:00.000Z"'],
      [{ updatedAt: '2024-01-01T00:00:00Z' }, 'has the updatedAt "2024-01-01T00:00:00Z"', '"2024-01-01T00:00:00.000Z"'],
    ];
    for (const [times, rule, canonical] of cases) {
      const fix = refused(() => store(c).create({ ...makeRecord('bad'), ...times }, []), 'E_INPUT', rule, 'Date#toISOString()');
      assert.match(fix, canonical);
      assert.is(store(c).get('bad'), undefined);
    }
    store(c).create(makeRecord('older'), []);
    refused(() => store(c).update('older', (cur) => ({ record: { ...cur, updatedAt: '2024-01-02T10:00:00+00:00' }, result: undefined })), 'E_INPUT', 'has the updatedAt');
    store(c).create({ ...makeRecord('newer'), createdAt: '2024-01-01T12:00:00.000Z', updatedAt: '2024-01-01T12:00:00.000Z' }, []);
    assert.equal(store(c).list().map((r) => r.runId), ['newer', 'older']);
  });

  test('r106 d1 d2: a host\'s waiting record whose snapshot context lacks what a step reads, or whose pending item holds a field of the wrong type (agent: 5, requiresIdentity: "x"), is E_INPUT naming it, nothing written, never a store later called damaged', (c) => {
    const waiting = makeRecord('w', 'waiting');
    const pending = waiting.pending as unknown as Record<string, unknown>;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ snapshot: { value: 'work' } }, 'has a snapshot whose context is missing, not an object'],
      [{ snapshot: { value: 'work', context: 5 } }, 'has a snapshot whose context is 5, not an object'],
      [{ snapshot: { value: 'work', context: {} } }, 'has a snapshot whose context has no "vars" object'],
      [{ pending: { ...pending, agent: 5 } }, 'has a pending item whose "agent" is 5, not a string'],
      [{ pending: { ...pending, requiresIdentity: 'x' } }, 'has a pending item whose "requiresIdentity" is "x", not true (or left out)'],
    ];
    for (const [change, rule] of cases) {
      const fix = refused(() => store(c).create({ ...waiting, runId: 'bad', ...change } as never, []), 'E_INPUT', 'create() of run "bad"', rule);
      assert.match(fix, 'nothing was written');
      assert.is(store(c).get('bad'), undefined, rule);
    }
    store(c).create(waiting, []);
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, snapshot: { value: 'work' } } as never, result: undefined })), 'E_INPUT', 'context is missing');
    assert.equal(store(c).get('w')!.snapshot, waiting.snapshot, 'the stored run is as it was');
  });

  test('r109 d1 d2: a host update that renames the run\'s workflow, moves seq back, or moves it forward with no event issuing the item at that seq is E_INPUT, nothing written', (c) => {
    store(c).create(makeRecord('w', 'waiting'), [{ seq: 1, at: '2024-01-01T00:00:00.000Z', type: 'directive.issued', nodeId: 'work' }]);
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, workflow: 'other' }, result: 0 })), 'E_INPUT', 'changes workflow from "loop" to "other"');
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, seq: 7 }, result: 0 })), 'E_INPUT', 'moves seq from 1 to 7 with no journal event at that seq');
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, seq: 7 }, events: [{ seq: 6, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued', nodeId: 'work' }], result: 0 })), 'E_INPUT', 'moves seq from 1 to 7');
    assert.is(store(c).get('w')!.seq, 1);
    assert.is(store(c).get('w')!.workflow, 'loop');
    assert.is(store(c).eventCount('w'), 1);
    store(c).update('w', (cur) => ({ record: { ...cur, seq: 2 }, events: [{ seq: 2, at: '2024-01-02T00:00:00.000Z', type: 'directive.issued', nodeId: 'work' }], result: 0 }));
    refused(() => store(c).update('w', (cur) => ({ record: { ...cur, seq: 1 }, result: 0 })), 'E_INPUT', 'moves seq from 2 to 1, back to an item already issued');
    assert.is(store(c).get('w')!.seq, 2);
  });

  test('a ledger row whose fields are inherited is E_LEDGER_ROW, in both stores alike', (c) => {
    const inherited = Object.create({ id: 'b', table: 't', at: new Date(0).toISOString(), row: {} });
    refused(() => store(c).appendRows([inherited]), 'E_LEDGER_ROW', 'ledger row 0', 'plain object');
    assert.equal(store(c).rows('t'), []);
  });

  test.run();
}

suiteFor('memory', () => ({ store: createMemoryStore(), cleanup: () => undefined }));
suiteFor('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-refused-'));
  return { store: createSqliteStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});
