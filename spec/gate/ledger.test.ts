/**
 * The gate's audit trail over the store (A7, A13, E1, E5, F3) and the user
 * confirmations force_approve_no_sop needs (F6, §4.6), on both stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkConfirmation, CONFIRMATIONS_TABLE, EXECUTIONS_TABLE, listExecutions, listProposals, proposalHash, proposalsByHash,
  PROPOSALS_TABLE, recordConfirmation, writeExecution, writeProposal, type NewProposalRow,
} from '../../engine/gate/ledger.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import type { Store } from '../../engine/store/store.js';
import { thrownWithCode } from '../helpers/errors.js';

const NOW = Date.UTC(2026, 0, 1, 9, 0);
const MIN = 60_000;
const TARGET = { device_id: 7, service: 'nginx' };

function approved(over: Partial<NewProposalRow> = {}): NewProposalRow {
  return {
    operator: 'user_42', tool: 'host_restart_service', action: 'host_restart_service',
    reason: 'User reported 502; nginx error log shows OOM', blast_radius: 'single_device', context_summary: 'summary',
    target: TARGET, status: 'approved', decision_text: '**Decision: approve**\n- ✓ SOP-007 covers restart nginx',
    sop_id: 'SOP-007', rollback: 'systemctl start nginx', missing_gates: null, deduped: false,
    persona: 'reviewer', model: 'anthropic/claude-opus-4-7', ...over,
  };
}

const rejected = (over: Partial<NewProposalRow> = {}) => approved({
  status: 'rejected', decision_text: '**Decision: reject**\n- ✗ no SOP for action host_restart_service', sop_id: null, rollback: null,
  reason: 'no SOP for action host_restart_service', missing_gates: ['no SOP for action host_restart_service'], ...over,
});

interface Context { store: Store; cleanup: () => void }

function gateLedger(name: string, open: () => Context) {
  const test = suite<{ ctx?: Context }>(`gate ledger (${name})`);
  const store = (c: { ctx?: Context }) => c.ctx!.store;
  test.before.each((c) => { c.ctx = open(); });
  test.after.each((c) => { c.ctx!.store.close(); c.ctx!.cleanup(); });

  test('A13, E1, F3: an approved proposal row reads back with every field and its JSON types: sop_id, rollback and time', (c) => {
    const written = writeProposal(store(c), approved(), NOW);
    const [row] = listProposals(store(c));
    assert.equal(row, written);
    assert.equal(row, {
      ...approved(), id: written.id, at: '2026-01-01T09:00:00.000Z', proposal_hash: proposalHash('user_42', 'host_restart_service', TARGET), by_gate: true,
    });
    assert.ok(row.id.length > 0);
    assert.is(row.deduped, false);
    assert.equal(row.target, TARGET);
    assert.is(row.missing_gates, null);
    assert.equal(Object.keys(row).slice(0, 2), ['id', 'at']);
  });

  test('E5: a rejected row keeps the reviewer\'s reason and the missing gates as an array', (c) => {
    writeProposal(store(c), rejected(), NOW);
    const [row] = listProposals(store(c), { status: 'rejected' });
    assert.is(row.status, 'rejected');
    assert.is(row.reason, 'no SOP for action host_restart_service');
    assert.equal(row.missing_gates, ['no SOP for action host_restart_service']);
  });

  test('A7: the trail is append-only: every decision stays listed, so reviewed rows (not deduped, not skipped) count the reviews', (c) => {
    writeProposal(store(c), rejected(), NOW);
    writeProposal(store(c), rejected({ deduped: true, decision_text: null }), NOW + MIN);
    writeProposal(store(c), approved(), NOW + 11 * MIN);
    writeProposal(store(c), approved({ status: 'skipped', decision_text: null, sop_id: null, rollback: null }), NOW + 12 * MIN);
    writeProposal(store(c), approved({ status: 'timeout', decision_text: null, sop_id: null, rollback: null }), NOW + 13 * MIN);
    const all = listProposals(store(c));
    assert.equal(all.map((r) => r.status), ['rejected', 'rejected', 'approved', 'skipped', 'timeout']);
    assert.is(all.filter((r) => !r.deduped && r.status !== 'skipped').length, 3);
    assert.is(proposalsByHash(store(c), all[0].proposal_hash).length, 5);
  });

  test('listProposals filters by status and since; an unknown status is E_LEDGER_QUERY', (c) => {
    writeProposal(store(c), rejected(), NOW);
    writeProposal(store(c), approved(), NOW + 5 * MIN);
    assert.equal(listProposals(store(c), { status: 'approved' }).map((r) => r.status), ['approved']);
    assert.is(listProposals(store(c), { since: new Date(NOW + MIN).toISOString() }).length, 1);
    assert.is(listProposals(store(c), { since: '2026-01-01' }).length, 2);
    const e = thrownWithCode(() => listProposals(store(c), { status: 'denied' }), 'E_LEDGER_QUERY');
    assert.match(e.fix ?? '', 'approved, rejected, timeout, skipped');
  });

  test('a proposal row with a field of the wrong JSON type, missing, or unknown is E_LEDGER_ROW and nothing is written', (c) => {
    thrownWithCode(() => writeProposal(store(c), approved({ deduped: 0 as never })), 'E_LEDGER_ROW');
    thrownWithCode(() => writeProposal(store(c), approved({ missing_gates: 'sop' as never })), 'E_LEDGER_ROW');
    thrownWithCode(() => writeProposal(store(c), approved({ status: 'maybe' as never })), 'E_LEDGER_ROW');
    thrownWithCode(() => writeProposal(store(c), approved({ target: '{"device_id":7}' as never })), 'E_LEDGER_ROW');
    const { model: _m, ...noModel } = approved();
    thrownWithCode(() => writeProposal(store(c), noModel as NewProposalRow), 'E_LEDGER_ROW');
    const e = thrownWithCode(() => writeProposal(store(c), { ...approved(), admin: true } as NewProposalRow), 'E_LEDGER_ROW');
    assert.match(e.message, '"admin"');
    assert.equal(listProposals(store(c)), []);
  });

  test('E3: an execution row reads back with ok as a boolean, args as an object and error as null', (c) => {
    const p = writeProposal(store(c), approved(), NOW);
    const ok = writeExecution(store(c), { proposal_id: p.id, tool: 'host_restart_service', args: TARGET, ok: true, error: null }, NOW + 1);
    writeExecution(store(c), { proposal_id: null, tool: 'run_shell', args: { cmd: 'ls' }, ok: false, error: 'E_TOOL: exit 1' }, NOW + 2);
    const rows = listExecutions(store(c));
    assert.equal(rows[0], { id: ok.id, at: '2026-01-01T09:00:00.001Z', proposal_id: p.id, tool: 'host_restart_service', args: TARGET, ok: true, error: null });
    assert.equal(rows.map((r) => r.ok), [true, false]);
    assert.is(listExecutions(store(c), { since: '2026-01-01T09:00:00.002Z' }).length, 1);
    assert.equal(store(c).rows(EXECUTIONS_TABLE, { key: p.id }).map((r) => r.id), [ok.id]);
    thrownWithCode(() => writeExecution(store(c), { proposal_id: null, tool: 't', args: {}, ok: 'true' as never, error: null }), 'E_LEDGER_ROW');
  });

  test('§4.6, F6: a recorded confirmation covers the same operator, action and target, in any key order', (c) => {
    const conf = recordConfirmation(store(c), { operator: 'user_42', action: 'host_restart_service', target: TARGET }, NOW);
    assert.match(conf.id, /^confirm-/);
    assert.is(conf.at, '2026-01-01T09:00:00.000Z');
    assert.equal(store(c).rows(CONFIRMATIONS_TABLE, { key: conf.id }).map((r) => r.row), [{ operator: 'user_42', action: 'host_restart_service', target: TARGET }]);
    const proposal = { operator: 'user_42', action: 'host_restart_service', target: { service: 'nginx', device_id: 7 } };
    assert.equal(checkConfirmation(store(c), conf.id, proposal, NOW + MIN), { ok: true });
  });

  test('§4.6, F6: a confirmation for another operator, action or target, an unknown id or no id does not count, and says why', (c) => {
    const conf = recordConfirmation(store(c), { operator: 'user_42', action: 'host_restart_service', target: TARGET }, NOW);
    const base = { operator: 'user_42', action: 'host_restart_service', target: TARGET };
    const cases: [string | undefined, typeof base, string][] = [
      [conf.id, { ...base, operator: 'user_7' }, 'operator "user_42", not "user_7"'],
      [conf.id, { ...base, action: 'kill_process' }, 'action "host_restart_service", not "kill_process"'],
      [conf.id, { ...base, target: { device_id: 8, service: 'nginx' } }, 'not {"device_id":8,"service":"nginx"}'],
      ['confirm-forged', base, 'no user confirmation "confirm-forged"'],
      [undefined, base, 'no confirmation_id'],
      ['  ', base, 'no confirmation_id'],
    ];
    for (const [id, proposal, why] of cases) {
      const result = checkConfirmation(store(c), id, proposal, NOW + MIN);
      assert.is(result.ok, false, why);
      assert.match((result as { why: string }).why, why);
    }
  });

  test('§4.6, F6: a confirmation counts for less than 10 minutes (fake clock at the boundary) and never before it was given', (c) => {
    const conf = recordConfirmation(store(c), { operator: 'u', action: 'host_restart_service', target: TARGET }, NOW);
    const p = { operator: 'u', action: 'host_restart_service', target: TARGET };
    assert.equal(checkConfirmation(store(c), conf.id, p, NOW), { ok: true });
    assert.equal(checkConfirmation(store(c), conf.id, p, NOW + 10 * MIN - 1), { ok: true });
    const late = checkConfirmation(store(c), conf.id, p, NOW + 10 * MIN);
    assert.is(late.ok, false);
    assert.match((late as { why: string }).why, '600 s old');
    assert.is(checkConfirmation(store(c), conf.id, p, new Date(NOW - 1)).ok, false);
  });

  test('F6: a confirmation without an operator or action, or with a target that is not an object, is E_LEDGER_ROW', (c) => {
    thrownWithCode(() => recordConfirmation(store(c), { operator: ' ', action: 'a', target: {} }, NOW), 'E_LEDGER_ROW');
    thrownWithCode(() => recordConfirmation(store(c), { operator: 'u', action: '', target: {} }, NOW), 'E_LEDGER_ROW');
    thrownWithCode(() => recordConfirmation(store(c), { operator: 'u', action: 'a', target: [7] as never }, NOW), 'E_LEDGER_ROW');
    assert.equal(store(c).rows(CONFIRMATIONS_TABLE), []);
  });

  test.run();
}

gateLedger('memory', () => ({ store: createMemoryStore(), cleanup: () => undefined }));
gateLedger('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-gate-ledger-'));
  return { store: createSqliteStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});

const hash = suite('proposal hash');

hash('§4.5, E9: the dedupe key ignores key order and is a sha256 hex digest', () => {
  const a = proposalHash('user_42', 'host_restart_service', { device_id: 7, service: 'nginx', opts: { a: 1, b: [1, 2] } });
  const b = proposalHash('user_42', 'host_restart_service', { opts: { b: [1, 2], a: 1 }, service: 'nginx', device_id: 7 });
  assert.is(a, b);
  assert.match(a, /^[0-9a-f]{64}$/);
});

hash('§4.5: operator, tool and every part of the target change the key; the reason is not part of it', () => {
  const base = proposalHash('user_42', 'host_restart_service', TARGET);
  assert.is.not(proposalHash('user_43', 'host_restart_service', TARGET), base);
  assert.is.not(proposalHash('user_42', 'kill_process', TARGET), base);
  assert.is.not(proposalHash('user_42', 'host_restart_service', { device_id: 8, service: 'nginx' }), base);
  assert.is.not(proposalHash('user_42', 'host_restart_service', { device_id: '7', service: 'nginx' }), base);
  // Joining the parts as text would make these two collide.
  assert.is.not(proposalHash('ab', 'c', {}), proposalHash('a', 'bc', {}));
});

hash('the three ledger tables have the names the audit command and seeds use', () => {
  assert.equal([PROPOSALS_TABLE, EXECUTIONS_TABLE, CONFIRMATIONS_TABLE], ['chat_mutating_proposals', 'tool_executions', 'user_confirmations']);
});

hash.run();
