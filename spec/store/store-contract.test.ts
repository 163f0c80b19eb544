/**
 * The Store contract, run against both shipped stores: whatever the engine
 * relies on must hold for memory and SQLite alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { storeSuite, type StoreContext } from '../helpers/store-suite.js';
import { isCountersignError, type CountersignError } from '../../engine/errors.js';
import type { Workflow } from '../../engine/format/model.js';
import type { JournalEvent } from '../../engine/run/contract.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import type { RunRecord } from '../../engine/store/store.js';
import { canonicalJson, hashWorkflow } from '../../engine/run/hash.js';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { createEngine } from '../../engine/run/engine.js';
import { CONTEXT } from '../helpers/run-context.js';

const WORKFLOW: Workflow = {
  metadata: { name: 'loop', version: '1.0.0', description: 'a test workflow' },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'work' } },
    { id: 'work', type: 'agent-directive', directive: 'Do it', completionCondition: 'done', connections: { success: 'end' } },
    { id: 'end', type: 'end' },
  ],
};
/** Its own hash: a store keeps a copy only under that. */
const H1 = hashWorkflow(WORKFLOW);

function makeRecord(runId: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    workflow: 'loop',
    workflowHash: H1,
    workspace: '/tmp/ws',
    status: 'waiting',
    snapshot: { value: 'work', context: CONTEXT },
    seq: 1,
    pending: {
      kind: 'directive',
      nodeId: 'work',
      directive: 'Do it',
      completionCondition: 'done',
      inputSchema: { type: 'object' },
      attempt: 1,
      maxRetries: 3,
    },
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...over,
  };
}

function event(seq: number, type: string, extra: Partial<JournalEvent> = {}): JournalEvent {
  return { seq, at: '2024-01-01T00:00:00.000Z', type, ...extra };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isCountersignError(err) ? err.code : `not a CountersignError: ${String(err)}`;
  }
  return undefined;
}

type Context = StoreContext;

function storeContract(name: 'memory' | 'sqlite', open: () => Context) {
  const { test, store } = storeSuite(`store contract (${name})`, open, WORKFLOW);

  test('a stored workflow copy comes back equal under its hash; storing it again is harmless', (c) => {
    store(c).putWorkflow(H1, WORKFLOW);
    assert.equal(store(c).getWorkflow(H1), WORKFLOW);
  });

  test('r117 d1: reading a workflow hash the store never held, for no run, is E_INPUT (never "damaged", never the restore fix); a malformed hash says so', (c) => {
    const never = 'a'.repeat(64);
    let e: CountersignError | undefined;
    try {
      store(c).getWorkflow(never);
    } catch (err) {
      e = err as CountersignError;
    }
    assert.is(e?.code, 'E_INPUT');
    assert.match(e!.message, `holds no workflow copy ${never}`);
    assert.not.match(e!.message, 'damaged');
    assert.not.match(e!.fix ?? '', 'backup');
    assert.match(e!.fix ?? '', 'putWorkflow(hashWorkflow(workflow), workflow)');
    try {
      store(c).getWorkflow('not-a-hash');
    } catch (err) {
      e = err as CountersignError;
    }
    assert.equal([e?.code, e?.message], ['E_INPUT', 'getWorkflow(): "not-a-hash" is no workflow hash (a workflow copy is stored under its sha256, 64 lowercase hex digits)']);
  });

  test('r78 d6: a workflow copy read for a run and not held is E_STORE naming the run and the store\'s file (when it has one), with the fix for that store', (c) => {
    let e: CountersignError | undefined;
    try {
      store(c).getWorkflow('nope', 'r1');
    } catch (err) {
      e = err as CountersignError;
    }
    assert.is(e?.code, 'E_STORE');
    const file = store(c).file;
    assert.is(e!.message, `run r1: the workflow copy nope it was started with is missing from ${file ?? 'the store'}: the store is damaged`);
    assert.is(e!.file, file);
    assert.match(e!.fix!, file ? `restore ${file} from a backup` : 'start the run again from its workflow file');
  });

  test('a created run reads back with every field, and its first events form the journal', (c) => {
    const base = makeRecord('r1');
    const rec = { ...base, file: 'workflows/loop.json', deadline: '2024-01-01T01:00:00.000Z', pending: { ...base.pending!, deadline: '2024-01-01T01:00:00.000Z' } } as RunRecord;
    store(c).create(rec, [event(0, 'run.started'), event(1, 'directive.issued', { nodeId: 'work' })]);
    assert.equal(store(c).get('r1'), rec);
    assert.equal(store(c).events('r1').map((e) => e.type), ['run.started', 'directive.issued']);
    assert.is(store(c).events('r1')[1].nodeId, 'work');
  });

  test('get of an unknown run is undefined, not an error', (c) => {
    assert.is(store(c).get('missing'), undefined);
  });

  test('creating a run id twice is E_STORE and keeps the first run', (c) => {
    store(c).create(makeRecord('r1'), []);
    assert.is(codeOf(() => store(c).create(makeRecord('r1', { seq: 9 }), [])), 'E_STORE');
    assert.is(store(c).get('r1')!.seq, 1);
  });

  test('r84: creating a run id twice, or a run naming a workflow copy not stored, is E_STORE naming the run and the store\'s file (when it has one)', (c) => {
    store(c).create(makeRecord('r1'), []);
    let e: CountersignError | undefined;
    try {
      store(c).create(makeRecord('r1'), []);
    } catch (err) {
      e = err as CountersignError;
    }
    const file = store(c).file;
    assert.is(e?.code, 'E_STORE');
    assert.is(e!.message, `a run "r1" already exists in ${file ?? 'the store'}`);
    assert.is(e!.file, file);
    assert.match(e!.fix!, 'give each run a new id');
    let unknown: CountersignError | undefined;
    try {
      store(c).create(makeRecord('r2', { workflowHash: 'absent' }), []);
    } catch (err) {
      unknown = err as CountersignError;
    }
    assert.is(unknown?.code, 'E_STORE');
    assert.is(unknown!.message, `run "r2" names workflow hash absent, which ${file ?? 'the store'} does not hold`);
    assert.is(unknown!.file, file);
  });

  test('creating a run whose workflow copy is not stored is E_STORE', (c) => {
    assert.is(codeOf(() => store(c).create(makeRecord('r1', { workflowHash: 'absent' }), [])), 'E_STORE');
    assert.is(store(c).get('r1'), undefined);
  });

  test('update hands mutate the current record, writes its new record and events, and returns its result', (c) => {
    store(c).create(makeRecord('r1'), [event(1, 'directive.issued')]);
    const seen: number[] = [];
    const result = store(c).update('r1', (cur) => {
      seen.push(cur.seq);
      return {
        record: { ...cur, seq: cur.seq + 1, status: 'completed', endNodeId: 'end', output: { ok: true } },
        events: [event(2, 'answer.accepted', { nodeId: 'work' }), event(2, 'run.completed', { endNodeId: 'end' })],
        result: 'advanced',
      };
    });
    assert.is(result, 'advanced');
    assert.equal(seen, [1]);
    const after = store(c).get('r1')!;
    assert.is(after.seq, 2);
    assert.is(after.status, 'completed');
    assert.equal(after.output, { ok: true });
    assert.equal(store(c).events('r1').map((e) => e.type), ['directive.issued', 'answer.accepted', 'run.completed']);
    assert.is(store(c).events('r1')[2].endNodeId, 'end');
  });

  test('each update sees the previous update\'s record', (c) => {
    store(c).create(makeRecord('r1', { seq: 1 }), []);
    for (let i = 0; i < 5; i++) {
      store(c).update('r1', (cur) => ({ record: { ...cur, seq: cur.seq + 1 }, events: [event(cur.seq + 1, 'tick')], result: null }));
    }
    assert.is(store(c).get('r1')!.seq, 6);
    assert.equal(store(c).events('r1').map((e) => e.seq), [2, 3, 4, 5, 6]);
  });

  test('an update whose mutate omits the record writes nothing but may return a result (a replay)', (c) => {
    store(c).create(makeRecord('r1'), []);
    const result = store(c).update('r1', () => ({ result: { replayed: true } }));
    assert.equal(result, { replayed: true });
    assert.equal(store(c).get('r1'), makeRecord('r1'));
    assert.equal(store(c).events('r1'), []);
  });

  test('when mutate throws, the error reaches the caller and neither record nor journal changes', (c) => {
    store(c).create(makeRecord('r1'), [event(1, 'directive.issued')]);
    const boom = new Error('decided badly');
    try {
      store(c).update('r1', () => {
        throw boom;
      });
      assert.unreachable('update should rethrow');
    } catch (err) {
      assert.is(err, boom);
    }
    assert.equal(store(c).get('r1'), makeRecord('r1'));
    assert.equal(store(c).events('r1').map((e) => e.type), ['directive.issued']);
  });

  test('updating an unknown run is E_RUN_NOT_FOUND naming the run, with a fix that can list this store (`countersign runs` for SQLite, engine.runs() for the memory store no command can open)', (c) => {
    let called = false;
    try {
      store(c).update('ghost', (cur) => {
        called = true;
        return { record: cur, result: null };
      });
      assert.unreachable('update should throw');
    } catch (err) {
      assert.ok(isCountersignError(err));
      assert.is(err.code, 'E_RUN_NOT_FOUND');
      assert.is(err.message, 'no run "ghost" in the store');
      if (name === 'memory') assert.match(err.fix!, 'engine.runs()');
      else assert.is(err.fix, 'list runs with `countersign runs`');
    }
    assert.is(called, false);
  });

  test('the journal of an unknown run is E_RUN_NOT_FOUND; of a run with no events it is empty', (c) => {
    assert.is(codeOf(() => store(c).events('ghost')), 'E_RUN_NOT_FOUND');
    store(c).create(makeRecord('quiet'), []);
    assert.equal(store(c).events('quiet'), []);
  });

  test('the journal keeps append order across create and updates, per run', (c) => {
    store(c).create(makeRecord('a'), [event(1, 'a1')]);
    store(c).create(makeRecord('b'), [event(1, 'b1')]);
    store(c).update('a', (cur) => ({ record: cur, events: [event(2, 'a2'), event(2, 'a3')], result: 0 }));
    store(c).update('b', (cur) => ({ record: cur, events: [event(2, 'b2')], result: 0 }));
    store(c).update('a', (cur) => ({ record: cur, events: [event(3, 'a4')], result: 0 }));
    assert.equal(store(c).events('a').map((e) => e.type), ['a1', 'a2', 'a3', 'a4']);
    assert.equal(store(c).events('b').map((e) => e.type), ['b1', 'b2']);
  });

  test('changing the array events() returned does not change the journal', (c) => {
    store(c).create(makeRecord('r1'), [event(1, 'directive.issued')]);
    store(c).events('r1').push(event(9, 'forged'));
    assert.is(store(c).events('r1').length, 1);
  });

  test('runs list newest first by createdAt (ties by creation order, newest first), as summaries', (c) => {
    store(c).create(makeRecord('b', { createdAt: '2024-01-02T00:00:00.000Z' }), []);
    store(c).create(makeRecord('a', { createdAt: '2024-01-03T00:00:00.000Z' }), []);
    store(c).create(makeRecord('c', { createdAt: '2024-01-02T00:00:00.000Z' }), []);
    store(c).create(makeRecord('d', { createdAt: '2024-01-01T00:00:00.000Z' }), []);
    assert.equal(store(c).list().map((r) => r.runId), ['a', 'c', 'b', 'd']);
    assert.equal(store(c).list()[0], {
      runId: 'a',
      workflow: 'loop',
      status: 'waiting',
      createdAt: '2024-01-03T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    });
  });

  test('list filters by status and reflects updates', (c) => {
    store(c).create(makeRecord('w1', { createdAt: '2024-01-01T00:00:00.000Z' }), []);
    store(c).create(makeRecord('w2', { createdAt: '2024-01-02T00:00:00.000Z' }), []);
    store(c).update('w1', (cur) => ({
      record: { ...cur, status: 'failed', error: { code: 'E_TIMEOUT', message: 'late', nodeId: 'work' }, updatedAt: '2024-01-05T00:00:00.000Z' },
      result: null,
    }));
    assert.equal(store(c).list({ status: 'waiting' }).map((r) => r.runId), ['w2']);
    const failed = store(c).list({ status: 'failed' });
    assert.equal(failed.map((r) => r.runId), ['w1']);
    assert.is(failed[0].updatedAt, '2024-01-05T00:00:00.000Z');
    assert.equal(store(c).list({ status: 'completed' }), []);
  });

  test('events(runId, from) reads the journal from an index, and eventCount counts it without reading it; an unknown run is E_RUN_NOT_FOUND', (c) => {
    store(c).create(makeRecord('j1'), [event(0, 'run.started'), event(1, 'directive.issued')]);
    store(c).update('j1', (cur) => ({ record: cur, events: [event(1, 'answer.accepted'), event(2, 'directive.issued')], result: null }));
    assert.is(store(c).eventCount('j1'), 4);
    assert.equal(store(c).events('j1', 2).map((e) => e.type), ['answer.accepted', 'directive.issued']);
    assert.equal(store(c).events('j1', 4), []);
    assert.equal(store(c).events('j1').length, 4);
    for (const bad of [-1, 1.5, Number.NaN, '1', 5n]) assert.is(codeOf(() => store(c).events('j1', bad as never)), 'E_INPUT', String(bad));
    assert.is(codeOf(() => store(c).eventCount('nope')), 'E_RUN_NOT_FOUND');
    assert.is(codeOf(() => store(c).events('nope', 1)), 'E_RUN_NOT_FOUND');
  });

  test('runs are listed newest first by createdAt, filtered by status or not, whatever order they were stored in', (c) => {
    for (const [id, day] of [['mid', '02'], ['new', '03'], ['old', '01']] as const) store(c).create(makeRecord(id, { createdAt: `2024-01-${day}T00:00:00.000Z` }), []);
    assert.equal(store(c).list({ status: 'waiting' }).map((r) => r.runId), ['new', 'mid', 'old']);
    assert.equal(store(c).list().map((r) => r.runId), ['new', 'mid', 'old']);
  });

  test('runs created in the same millisecond are listed newest first, by creation order', (c) => {
    const ids = ['m', 'z', 'a', 'q', 'b'];
    for (const id of ids) store(c).create(makeRecord(id, { createdAt: '2024-01-01T00:00:00.000Z' }), []);
    assert.equal(store(c).list().map((r) => r.runId), [...ids].reverse());
    assert.equal(store(c).list({ status: 'waiting' }).map((r) => r.runId), [...ids].reverse());
  });

  test('r85: a run id that is no non-empty string, a list status that is no run status, a filter that is no object, a workflow hash that is no string or a mutate that is no function is E_INPUT naming the value as given, never a TypeError, a RangeError or a silent answer', (c) => {
    store(c).create(makeRecord('r1'), []);
    const odd: Array<[unknown, string]> = [[Symbol('x'), 'Symbol(x)'], [{}, 'an object'], [() => 1, 'a function'], [5n, '5n'], [Number.NaN, 'NaN'], [null, 'null'], [5, '5'], ['', '""'], [' ', '" "'], [['r1'], 'a list']];
    const refused = (call: () => unknown, text: string) => {
      let e: unknown;
      try {
        call();
      } catch (err) {
        e = err;
      }
      assert.ok(isCountersignError(e), `${text}: ${String(e)}`);
      assert.is(e.code, 'E_INPUT', text);
      assert.is(e.message, text);
      assert.ok(e.fix, text);
    };
    for (const [id, shown] of odd) {
      refused(() => store(c).get(id as never), `get(): a run id is a non-empty string, got ${shown}`);
      refused(() => store(c).events(id as never), `events(): a run id is a non-empty string, got ${shown}`);
      refused(() => store(c).eventCount(id as never), `eventCount(): a run id is a non-empty string, got ${shown}`);
      refused(() => store(c).update(id as never, (cur) => ({ record: cur, result: null })), `update(): a run id is a non-empty string, got ${shown}`);
      refused(() => store(c).create(makeRecord(id as never), []), `create(): a run id is a non-empty string, got ${shown}`);
      refused(() => store(c).getWorkflow(id as never), `getWorkflow(): a workflow hash is a non-empty string, got ${shown}`);
      refused(() => store(c).putWorkflow(id as never, WORKFLOW), `putWorkflow(): a workflow hash is a non-empty string, got ${shown}`);
    }
    for (const [status, shown] of [['bogus', '"bogus"'], [Number.NaN, 'NaN'], [Symbol('x'), 'Symbol(x)'], [{}, '{}'], [() => 1, 'a function'], [null, 'null'], [5n, '5n'], ['WAITING', '"WAITING"']] as Array<[unknown, string]>) {
      refused(() => store(c).list({ status } as never), `list() status ${shown} is not a run status (waiting, completed or failed)`);
    }
    for (const [filter, shown] of [[Number.NaN, 'NaN'], [5n, '5n'], ['waiting', '"waiting"'], [null, 'null'], [[], 'a list'], [() => 1, 'a function']] as Array<[unknown, string]>) {
      refused(() => store(c).list(filter as never), `list() takes a filter object ({ status }), got ${shown}`);
    }
    refused(() => store(c).update('r1', 5 as never), 'update(): mutate is a function (current record → { record?, events?, rows?, result }), got 5');
    refused(() => store(c).create(makeRecord('r2'), 5 as never), 'create(): the first events are a list of journal events, got 5');
    assert.equal(store(c).list().map((r) => r.runId), ['r1'], 'nothing was created');
    assert.equal(store(c).list({ status: undefined }).map((r) => r.runId), ['r1'], 'a status left out lists every run');
    assert.is(store(c).get('r1')!.seq, 1, 'nothing was changed');
  });

  test('r89 d1 d2: update() may not change what a run keeps from its creation (its workflow hash, its createdAt): E_INPUT naming the field, nothing written, the run still reads and lists', (c) => {
    store(c).create(makeRecord('r1', { seq: 1 }), []);
    store(c).create(makeRecord('r2', { seq: 1 }), []);
    for (const [field, value] of [['workflowHash', 'nohash'], ['createdAt', '2020-01-01T00:00:00.000Z']] as const) {
      try {
        store(c).update('r1', (cur) => ({ record: { ...cur, seq: 2, [field]: value }, result: 1 }));
        assert.unreachable(field);
      } catch (e) {
        assert.is((e as CountersignError).code, 'E_INPUT', String(e));
        assert.match((e as CountersignError).message, `the record changes ${field} from`);
        assert.match((e as CountersignError).message, JSON.stringify(value));
      }
    }
    assert.is(store(c).get('r1')!.seq, 1, 'nothing was written');
    assert.equal(store(c).list().map((r) => r.runId).sort(), ['r1', 'r2'], 'every run still lists');
    assert.is(store(c).getWorkflow(H1).metadata.name, 'loop');
  });

  test('r89 d3: putWorkflow() never changes a stored copy: the same copy again is kept, another copy under that hash is E_INPUT (both stores alike), the copy that truly has the hash puts back a damaged one', (c) => {
    const other = { ...WORKFLOW, metadata: { ...WORKFLOW.metadata, name: 'other' } };
    store(c).putWorkflow(H1, structuredClone(WORKFLOW));
    try {
      store(c).putWorkflow(H1, other);
      assert.unreachable('refused');
    } catch (e) {
      assert.is((e as CountersignError).code, 'E_INPUT', String(e));
      assert.match((e as CountersignError).message, `the workflow copy given for hash ${H1} does not have that hash`);
    }
    assert.is(store(c).getWorkflow(H1).metadata.name, 'loop', 'the stored copy is kept');
    // Stored under its true hash, then damaged: the true copy given again puts it back.
    const hash = hashWorkflow(other);
    store(c).putWorkflow(hash, other);
    assert.is(store(c).getWorkflow(hash).metadata.name, 'other');
  });

  test('r94 d1: putWorkflow() under a hash that is not the copy\'s own is E_INPUT naming both hashes, before anything is written (both stores alike); a run naming it cannot be created', async (c) => {
    const own = hashWorkflow(WORKFLOW);
    let err: CountersignError | undefined;
    try {
      store(c).putWorkflow('deadbeef', WORKFLOW);
    } catch (e) {
      err = e as CountersignError;
    }
    assert.is(err?.code, 'E_INPUT', String(err));
    assert.match(err!.message, 'putWorkflow(): the workflow copy given for hash deadbeef');
    assert.match(err!.message, `its own hash is ${own}`);
    assert.match(err!.fix!, `hashWorkflow(copy) (${own})`);
    const library = await import('../../engine/index.js');
    assert.is(library.hashWorkflow(WORKFLOW), own, 'the fix names a function the library exports');
    assert.is(codeOf(() => store(c).getWorkflow('deadbeef', 'r2')), 'E_STORE', 'no copy was stored under the wrong hash');
    // The run that names it is refused at create (the store holds no such copy), never read later as a damaged copy.
    assert.is(codeOf(() => store(c).create(makeRecord('r2', { workflowHash: 'deadbeef' }), [])), 'E_STORE');
    assert.is(store(c).get('r2'), undefined);
  });

  test('r94 d1: an engine run on a copy stored under a made-up hash is never reported as store damage: the copy is refused at putWorkflow', async (c) => {
    const engine = createEngine({ store: store(c) });
    const started = await engine.start(WORKFLOW);
    const rec = store(c).get(started.runId)!;
    assert.is(codeOf(() => store(c).putWorkflow('deadbeef', WORKFLOW)), 'E_INPUT');
    // The engine's own run is untouched, and its copy reads back as stored by the engine.
    assert.is((await engine.status(started.runId)).status, 'waiting');
    assert.is(rec.workflowHash, hashWorkflow(WORKFLOW));
  });

  test('r89 d4: a ledger row with a field it does not take (kee, runID) is E_LEDGER_ROW with a did-you-mean, never kept by one store and dropped by the other', (c) => {
    for (const [field, meant] of [['kee', 'key'], ['runID', 'runId']]) {
      try {
        store(c).appendRows([{ id: `row-${field}`, table: 'audit', at: '2026-01-01T00:00:00.000Z', [field]: 'x', row: { ok: true } } as never]);
        assert.unreachable(field);
      } catch (e) {
        assert.is((e as CountersignError).code, 'E_LEDGER_ROW', String(e));
        assert.match((e as CountersignError).message, `the field "${field}", which a ledger row does not take — did you mean "${meant}"?`);
      }
    }
    assert.equal(store(c).rows('audit'), [], 'nothing was written');
  });

  test('r90 d4: a workflow copy read back is frozen: editing it is refused, and the stored copy never changes', (c) => {
    const copy = store(c).getWorkflow(H1);
    assert.ok(Object.isFrozen(copy) && Object.isFrozen(copy.metadata));
    assert.throws(() => {
      (copy.metadata as { description: string }).description = 'edited';
    });
    assert.is(store(c).getWorkflow(H1).metadata.description, WORKFLOW.metadata.description);
  });

  test('r90 d1: a copy stored under the older sorted-key hash is intact: the same workflow given again (its keys already sorted, so the hashes meet) keeps it', (c) => {
    const sorted = JSON.parse(canonicalJson(WORKFLOW)) as Workflow;
    const legacy = createHash('sha256').update(canonicalJson(WORKFLOW)).digest('hex');
    store(c).putWorkflow(legacy, WORKFLOW);
    store(c).putWorkflow(legacy, sorted);
    assert.equal(Object.keys(store(c).getWorkflow(legacy).nodes[0]!), Object.keys(WORKFLOW.nodes[0]!), 'the copy as first stored, its key order kept');
  });

  test('r94 d2: a damaged copy stored under the older sorted-key hash is put back by the true copy, which has that hash under the older rule; a damaged copy given is refused', (c) => {
    const legacy = createHash('sha256').update(canonicalJson(WORKFLOW)).digest('hex');
    const damaged = { ...WORKFLOW, metadata: { ...WORKFLOW.metadata, description: 'damaged' } };
    store(c).putWorkflow(legacy, WORKFLOW);
    assert.is(codeOf(() => store(c).putWorkflow(legacy, damaged as Workflow)), 'E_INPUT', 'a copy without that hash is never stored under it');
    const file = store(c).file;
    // The memory store's copies are frozen, so only the SQLite file can be damaged (a hand edit, another program).
    if (file !== undefined) {
      const db = new Database(file);
      db.prepare('UPDATE workflows SET body = ? WHERE hash = ?').run(JSON.stringify(damaged), legacy);
      db.close();
      store(c).putWorkflow(legacy, WORKFLOW);
    }
    assert.is(store(c).getWorkflow(legacy).metadata.description, WORKFLOW.metadata.description);
  });

  test('r90 d2: a host store wrapper that adds an event of its own to the engine\'s first events gets the whole check: E_INPUT at the event, never a stored Date or a bare TypeError', async (c) => {
    const inner = store(c);
    const wrapper = {
      ...inner,
      create(record: RunRecord, events: JournalEvent[], rows?: never) {
        return inner.create(record, [...events, { seq: 0, at: new Date() as never, type: 'host.audit', nodeId: 'start', score: Number.NaN }], rows);
      },
    };
    const err = await createEngine({ store: wrapper as never }).start(WORKFLOW).then(() => undefined, (e: CountersignError) => e);
    assert.is(err?.code, 'E_INPUT', String(err));
    assert.match(err!.message, 'is a Date');
  });

  test('r93 d2 d5: a list of events or ledger rows with a hole is refused (E_INPUT, E_LEDGER_ROW) before anything is written, in both stores; a ledger time not in toISOString form says which form it takes', (c) => {
    store(c).create(makeRecord('r1'), []);
    const refused = (fn: () => unknown, code: string, text: string) => {
      try {
        fn();
        assert.unreachable(text);
      } catch (e) {
        assert.is((e as CountersignError).code, code, String(e));
        assert.match((e as CountersignError).message, text);
      }
    };
    // eslint-disable-next-line no-sparse-arrays
    refused(() => store(c).update('r1', () => ({ events: [, event(1, 'x')] as never, result: 1 })), 'E_INPUT', 'journal event 0 is a hole');
    // eslint-disable-next-line no-sparse-arrays
    refused(() => store(c).create(makeRecord('r2'), [, event(0, 'run.started')] as never), 'E_INPUT', 'journal event 0 is a hole');
    // eslint-disable-next-line no-sparse-arrays
    refused(() => store(c).appendRows([, { id: 'q1', table: 'audit', at: '2026-01-01T00:00:00.000Z', row: {} }] as never), 'E_LEDGER_ROW', 'ledger row 0 is a hole');
    refused(() => store(c).appendRows([{ id: 'q2', table: 'audit', at: '2020-01-01T00:00:00Z', row: {} }]), 'E_LEDGER_ROW', 'UTC with milliseconds, as Date#toISOString() writes it');
    assert.is(store(c).eventCount('r1'), 0);
    assert.is(store(c).get('r2'), undefined);
    assert.equal(store(c).rows('audit'), []);
  });

  test('r88 d3: a misspelt key in what mutate returns ({ recrod }) is E_INPUT naming it with a did-you-mean, never "write nothing"', (c) => {
    store(c).create(makeRecord('r1', { seq: 1 }), []);
    const err = (() => {
      try {
        store(c).update('r1', () => ({ recrod: makeRecord('r1', { seq: 2 }), evnets: [event(2, 'x')], result: 'ok' }) as never);
      } catch (e) {
        return e as CountersignError;
      }
      return undefined;
    })();
    assert.is(err?.code, 'E_INPUT');
    assert.match(err!.message, 'mutate returned the key "recrod"');
    assert.match(err!.message, 'did you mean "record"?');
    assert.is(store(c).get('r1')!.seq, 1, 'nothing was written');
    assert.is(store(c).events('r1').length, 0);
  });

  test('r88 d4: values JSON would not keep as given (NaN, a Map, a Date, undefined in a list) are refused by create, update and putWorkflow with E_INPUT at their pointer, so both stores read back the same', (c) => {
    const refused = (fn: () => unknown, text: string) => {
      try {
        fn();
        assert.unreachable(`refused: ${text}`);
      } catch (e) {
        assert.is((e as CountersignError).code, 'E_INPUT', String(e));
        assert.match((e as CountersignError).message, text);
      }
    };
    refused(() => store(c).putWorkflow('h2', { ...WORKFLOW, extra: new Map([[1, 2]]) } as never), '/extra is a Map');
    refused(() => store(c).create(makeRecord('r2', { output: { x: Number.NaN } } as never), []), '/output/x is NaN');
    store(c).create(makeRecord('r1'), []);
    refused(() => store(c).update('r1', (cur) => ({ record: { ...cur, snapshot: { when: new Date(0) } } as never, result: 1 })), '/snapshot/when is a Date');
    refused(() => store(c).update('r1', () => ({ events: [event(2, 'x', { list: [undefined] } as never)], result: 1 })), '/list/0 is undefined');
    assert.is(store(c).get('r2'), undefined, 'nothing was created');
    assert.is(store(c).events('r1').length, 0, 'nothing was appended');
  });

  test.run();
}

storeContract('memory', () => ({ store: createMemoryStore(), cleanup: () => undefined }));

storeContract('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-store-'));
  return { store: createSqliteStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});
