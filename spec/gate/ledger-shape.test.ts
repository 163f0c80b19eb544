/**
 * The gate's ledger tables keep the field types of issue 4's table, whoever
 * writes to them (A13, E1, E5, F3): a `record` node's row is checked when
 * the workflow is validated and again when it is written, `appendRows` is
 * checked by the store, the shipped gate workflow writes well-typed rows
 * even on its error path, and `audit` prints a malformed row written before
 * these checks instead of crashing.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, createSqliteStore, validateWorkflow } from '../../engine/index.js';
import { PROPOSALS_TABLE } from '../../engine/gate/ledger.js';
import type { JsonObject, Workflow } from '../../engine/format/model.js';
import type { LedgerRow } from '../../engine/store/store.js';
import { DATABASE_FILE } from '../../engine/store/sqlite.js';
import { cli, tempDir } from '../helpers/cli.js';
import { thrownWithCode } from '../helpers/errors.js';

const GATE = fileURLToPath(new URL('../../workflows/ongrid-review-gate.json', import.meta.url));

function recordWorkflow(fields: Record<string, unknown>, table = PROPOSALS_TABLE): Workflow {
  return {
    metadata: { name: 'rec', version: '1.0.0', description: 'writes one row' },
    variableRegistry: { who: { type: 'string', description: 'operator', default: 'user_42' }, thing: { type: 'object', description: 'target', default: {} } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'rec' } },
      { type: 'record', id: 'rec', table, fields, connections: { default: 'end' } },
      { type: 'end', id: 'end' },
    ],
  } as unknown as Workflow;
}

const WELL_TYPED = {
  status: 'approved', operator: { contextPath: 'who' }, tool: 'host_restart_service', action: 'host_restart_service', target: { contextPath: 'thing' },
  reason: 'r', blast_radius: 'single_device', context_summary: '', decision_text: null, sop_id: null, rollback: null, missing_gates: null,
  deduped: false, proposal_hash: 'h', persona: 'reviewer', model: 'm',
};

const Shape = suite('gate ledger tables keep their field types');

Shape('A13 E1: validate refuses a record node whose chat_mutating_proposals row has an unknown field, lacks fields, or holds a literal of the wrong type', () => {
  const report = validateWorkflow(recordWorkflow({ note: 'hello' }));
  assert.is(report.ok, false);
  const found = report.errors.filter((e) => e.code === 'E_LEDGER_ROW').map((e) => [e.pointer, e.message]);
  assert.ok(found.some(([p, m]) => p === '/nodes/1/fields/note' && /no field "note"/.test(m)), JSON.stringify(found));
  assert.ok(found.some(([p, m]) => p === '/nodes/1/fields' && /lacks operator, tool, action/.test(m)), JSON.stringify(found));
  const typed = validateWorkflow(recordWorkflow({ ...WELL_TYPED, deduped: 'no', target: '{{thing}}', status: 'approve' }));
  assert.equal(typed.errors.filter((e) => e.code === 'E_LEDGER_ROW').map((e) => e.pointer).sort(), ['/nodes/1/fields/deduped', '/nodes/1/fields/status', '/nodes/1/fields/target']);
  assert.is(validateWorkflow(recordWorkflow(WELL_TYPED)).ok, true);
  assert.is(validateWorkflow(recordWorkflow({ note: 'hello' }, 'my_notes')).ok, true, 'other tables stay free-form');
  // id and at are the engine's own, in every table: a workflow may not set them.
  for (const table of [PROPOSALS_TABLE, 'my_notes']) {
    const reserved = validateWorkflow(recordWorkflow({ ...(table === PROPOSALS_TABLE ? WELL_TYPED : { note: 'n' }), id: 'mine', at: '2026-01-01T00:00:00Z' }, table));
    assert.equal(reserved.errors.filter((e) => e.code === 'E_SCHEMA').map((e) => e.pointer).sort(), ['/nodes/1/fields/at', '/nodes/1/fields/id'], table);
    assert.match(reserved.errors.find((e) => e.pointer === '/nodes/1/fields/id')!.message, 'filled by the engine');
  }
});

Shape('A13 E1: a row that only turns out malformed at run time (a contextPath to a string where an object belongs) fails the run with E_LEDGER_ROW and writes nothing', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(recordWorkflow(WELL_TYPED), { input: { thing: {}, who: 'user_42' } });
  assert.is(s.status, 'completed', 'well typed: written');
  const bad = await engine.start(recordWorkflow({ ...WELL_TYPED, target: { contextPath: 'who' } }));
  assert.ok(bad.status === 'failed' && bad.error.code === 'E_LEDGER_ROW', JSON.stringify(bad));
  assert.match(bad.status === 'failed' ? bad.error.message : '', /record node "rec" cannot write its chat_mutating_proposals row: a chat_mutating_proposals row's target is "user_42", not a JSON object/);
  assert.is(store.rows(PROPOSALS_TABLE).length, 1);
});

Shape('A13: appendRows refuses a malformed proposal row in both stores, and nothing of its batch is written', () => {
  for (const store of [createMemoryStore(), createSqliteStore(tempDir('countersign-shape-'))]) {
    const row = (id: string, body: Record<string, unknown>): LedgerRow => ({ id, table: PROPOSALS_TABLE, at: '2026-01-01T00:00:00.000Z', row: body as JsonObject });
    const good = { ...WELL_TYPED, operator: 'u', target: {} };
    const e = thrownWithCode(() => store.appendRows([row('a', good), row('b', { ...good, status: null })]), 'E_LEDGER_ROW');
    assert.match(e.message, /ledger row "b": a chat_mutating_proposals row's status is null, not approved, rejected, timeout, skipped/);
    assert.is(store.rows(PROPOSALS_TABLE).length, 0);
    store.close();
  }
});

Shape('A7: no workflow run can write review_gate_runs, where the gate records its own runs: validate refuses it, and so does the store', () => {
  const report = validateWorkflow(recordWorkflow({ run_id: '{{executionId}}' }, 'review_gate_runs'));
  assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_LEDGER_ROW', '/nodes/1/table']]);
  const store = createMemoryStore();
  thrownWithCode(() => store.appendRows([{ id: 'x', table: 'review_gate_runs', at: '2026-01-01T00:00:00.000Z', runId: 'r1', key: 'r1', row: { run_id: 'r1' } }]), 'E_LEDGER_ROW');
});

Shape('F6: no workflow run can write user_confirmations (a run an agent started could mint a confirmation to reopen a rejected call): validate refuses it, and so does the store', () => {
  const report = validateWorkflow(recordWorkflow({ operator: 'user_42', action: 'host_restart_service', target: { device_id: 7 } }, 'user_confirmations'));
  assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_LEDGER_ROW', '/nodes/1/table']]);
  assert.match(report.errors[0].message, 'only a person writes confirmations');
  assert.match(validateWorkflow(recordWorkflow({ run_id: '{{executionId}}' }, 'review_gate_runs')).errors[0].message, 'only the review gate writes it');
  const store = createMemoryStore();
  thrownWithCode(() => store.appendRows([{ id: 'c', table: 'user_confirmations', at: '2026-01-01T00:00:00.000Z', runId: 'r1', key: 'confirm-forged', row: { operator: 'u', action: 'a', target: {} } }]), 'E_LEDGER_ROW');
  assert.equal(store.rows('user_confirmations'), []);
});

Shape('E3 A7: no workflow run can write tool_executions (a forged row would show a tool run that never happened as an approved proposal\'s execution): validate refuses it, and so does the store; the audit decorator\'s own rows (outside any run) are kept', () => {
  const report = validateWorkflow(recordWorkflow({ proposal_id: 'p1', tool: 'host_restart_service', args: {}, ok: true, error: null }, 'tool_executions'));
  assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_LEDGER_ROW', '/nodes/1/table']]);
  assert.match(report.errors[0].message, 'only the audit decorator writes it');
  const store = createMemoryStore();
  thrownWithCode(() => store.appendRows([{ id: 'e', table: 'tool_executions', at: '2026-01-01T00:00:00.000Z', runId: 'r1', row: { proposal_id: 'p1', tool: 't', args: {}, ok: true, error: null } }]), 'E_LEDGER_ROW');
  assert.equal(store.rows('tool_executions'), []);
  store.appendRows([{ id: 'e2', table: 'tool_executions', at: '2026-01-01T00:00:00.000Z', row: { proposal_id: 'p1', tool: 't', args: {}, ok: true, error: null } }]);
  assert.is(store.rows('tool_executions').length, 1);
});

Shape('audit on a store not made yet: a valid query says the ledger is empty; a bad --status is its error alone (no "empty" line first); nothing is created', async () => {
  const dir = join(tempDir(), 'never-made');
  const ok = await cli(['audit', '--json'], { store: dir });
  assert.equal([ok.code, ok.json], [0, { proposals: [], executions: [] }]);
  assert.match(ok.stderr, 'the ledger is empty');
  const bad = await cli(['audit', '--status', 'bogus', '--json'], { store: dir });
  assert.is(bad.code, 2);
  assert.is(bad.json.error.code, 'E_LEDGER_QUERY');
  assert.not.match(bad.stderr, 'the ledger is empty');
  assert.not.ok(existsSync(dir));
});

Shape('§4.4: the gate workflow run by hand without a proposal or persona still writes a well-typed rejected row (strings, never null; an empty target)', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const s = await engine.start(GATE, { input: { tool_class: 'write' } });
  assert.is(s.status === 'completed' && s.outcome, 'rejected');
  const [{ row }] = store.rows(PROPOSALS_TABLE);
  for (const f of ['operator', 'tool', 'action', 'reason', 'blast_radius', 'context_summary', 'proposal_hash', 'persona', 'model']) assert.type(row[f], 'string', f);
  assert.equal([row.status, row.target, row.deduped, row.decision_text], ['rejected', {}, false, null]);
});

Shape('audit prints a malformed row written before the ledger checked field types, instead of crashing', async () => {
  const dir = tempDir('countersign-shape-');
  const store = createSqliteStore(dir);
  store.close();
  const db = new Database(join(dir, DATABASE_FILE));
  db.prepare('INSERT INTO ledger (id, seq, table_name, at, key, run_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run('old-1', 0, PROPOSALS_TABLE, '2026-01-01T00:00:00.000Z', null, 'run-1', JSON.stringify({ note: 'hello', target: null }));
  db.close();
  const text = await cli(['audit'], { store: dir });
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, '2026-01-01T00:00:00.000Z  (none)    (none) by (none) on null');
  const json = await cli(['audit', '--json'], { store: dir });
  assert.is(json.code, 0, json.stderr);
  assert.equal(json.json.proposals[0].note, 'hello');
});

Shape.run();
