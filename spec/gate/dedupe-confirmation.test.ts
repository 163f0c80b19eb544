/**
 * Dedupe (§4.5, E9, E10) against a user's confirmation of
 * force_approve_no_sop (F6, §4.6): a confirmation answers a rejection for a
 * missing SOP, so that repeat is reviewed afresh, once; every other
 * rejection stays a repeat for its whole window, confirmation or not.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Agent } from '../../engine/hosts/agent.js';
import { createGate } from '../../engine/gate/gate.js';
import { rejectedForNoSop } from '../../engine/gate/dedupe.js';
import { listProposals, recordConfirmation } from '../../engine/gate/ledger.js';
import type { Proposal } from '../../engine/gate/proposal.js';
import { createMemoryStore } from '../../engine/store/memory.js';

const NO_SOP = '**Decision: reject**\n\n**Gates**\n- ✗ no SOP for action host_restart_service\n\n**Notes**\nno SOP for action host_restart_service';
const PARALLEL = '**Decision: reject**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✗ parallel operation detected; wait for restart of nginx by user_9 to complete\n\n**Notes**\nparallel operation detected; wait for restart of nginx by user_9 to complete';
const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.';
const TARGET = { device_id: 7, service: 'nginx' };
const TOOL = { name: 'host_restart_service', class: 'write' as const };
const PROPOSAL: Proposal = {
  action: 'host_restart_service', target: TARGET, reason: 'User reported 502', blast_radius: 'single_device', operator: 'user_42', context_summary: 'nginx OOM',
};

function setup(replies: string[]) {
  let t = Date.parse('2026-03-01T09:00:00.000Z');
  const now = () => new Date(t);
  const store = createMemoryStore();
  let runs = 0;
  const reviewer: Agent = { answer: async () => ({ reply: replies[Math.min(runs++, replies.length - 1)] }) };
  const gate = createGate({ store, reviewer, now, log: () => {} });
  const confirm = () => recordConfirmation(store, { operator: 'user_42', action: 'host_restart_service', target: TARGET }, now()).id;
  const forced = (confirmation_id: string): Proposal => ({ ...PROPOSAL, force_approve_no_sop: true, confirmation_id });
  return { store, gate, confirm, forced, runs: () => runs, tick: (ms: number) => { t += ms; } };
}

const Reopen = suite('dedupe and force_approve_no_sop confirmations');

Reopen('§4.5 §4.6 E9: a confirmed force_approve_no_sop repeat of a call rejected for a parallel operation is still deduped: no reviewer runs', async () => {
  const s = setup([PARALLEL, APPROVE]);
  assert.is((await s.gate.review(PROPOSAL, TOOL)).outcome, 'rejected');
  s.tick(60_000);
  const id = s.confirm();
  s.tick(1_000);
  const repeat = await s.gate.review(s.forced(id), TOOL);
  assert.is(repeat.outcome, 'rejected');
  assert.is(repeat.row?.deduped, true);
  assert.match(repeat.reason ?? '', 'parallel operation detected');
  assert.is(s.runs(), 1, 'the reviewer ran once');
});

Reopen('F6 §4.5 §4.6: a confirmation recorded after a rejection for no SOP earns one fresh review', async () => {
  const s = setup([NO_SOP, APPROVE]);
  assert.is((await s.gate.review(PROPOSAL, TOOL)).outcome, 'rejected');
  s.tick(1_000);
  assert.is((await s.gate.review(PROPOSAL, TOOL)).row?.deduped, true, 'unconfirmed, it is a repeat');
  const id = s.confirm();
  s.tick(1_000);
  assert.is((await s.gate.review(s.forced(id), TOOL)).outcome, 'approved');
  assert.is(s.runs(), 2);
  // F6: the approval given under the confirmation names it on its row; the rows before name none.
  assert.equal(listProposals(s.store).map((r) => [r.status, r.deduped, r.confirmation_id, r.reviewer_output]), [['rejected', false, null, null], ['rejected', true, null, null], ['approved', false, id, null]], 'every row says both, null when unset');
});

Reopen('F6: a confirmation the gate ignores (not recorded, another operator) is never written on the row', async () => {
  const s = setup([APPROVE]);
  assert.is((await s.gate.review(s.forced('confirm-made-up'), TOOL)).outcome, 'approved');
  assert.equal(listProposals(s.store).map((r) => r.confirmation_id ?? null), [null]);
});

Reopen('F6: a host passing the same operator string with stray whitespace to the gate and to recordConfirmation gets its confirmation matched (both trim, as countersign confirm does)', async () => {
  const s = setup([NO_SOP, APPROVE]);
  const spaced: Proposal = { ...PROPOSAL, operator: 'user_42 ' };
  assert.is((await s.gate.review(spaced, TOOL)).outcome, 'rejected');
  s.tick(1_000);
  const row = recordConfirmation(s.store, { operator: 'user_42 ', action: ' host_restart_service', target: TARGET }, new Date(Date.parse('2026-03-01T09:00:01.000Z')));
  assert.equal([row.operator, row.action], ['user_42', 'host_restart_service']);
  s.tick(1_000);
  assert.is((await s.gate.review({ ...spaced, force_approve_no_sop: true, confirmation_id: row.id }, TOOL)).outcome, 'approved');
  assert.is(s.runs(), 2);
});

Reopen('§4.5 §4.6: one confirmation reopens a no-SOP rejection once — when the fresh review rejects again, the next retry with it is deduped', async () => {
  const s = setup([NO_SOP, NO_SOP, APPROVE]);
  await s.gate.review(PROPOSAL, TOOL);
  s.tick(1_000);
  const id = s.confirm();
  s.tick(1_000);
  assert.is((await s.gate.review(s.forced(id), TOOL)).row?.deduped, false, 'reviewed afresh');
  s.tick(1_000);
  const again = await s.gate.review(s.forced(id), TOOL);
  assert.is(again.row?.deduped, true);
  assert.is(s.runs(), 2);
  assert.equal(listProposals(s.store).map((r) => [r.status, r.deduped]), [['rejected', false], ['rejected', false], ['rejected', true]]);
});

Reopen('§4.5 §4.6 E9: a reopened review that approves is the newest decision: later retries are reviewed (it is no repeat of a rejection), with or without the confirmation; one that decided nothing (a crash) does not use the confirmation up', async () => {
  const s = setup([NO_SOP, APPROVE, APPROVE, APPROVE]);
  await s.gate.review(PROPOSAL, TOOL);
  s.tick(1_000);
  const id = s.confirm();
  s.tick(1_000);
  assert.is((await s.gate.review(s.forced(id), TOOL)).outcome, 'approved', 'reopened once');
  s.tick(1_000);
  const plain = await s.gate.review(PROPOSAL, TOOL);
  assert.equal([plain.outcome, plain.row?.deduped], ['approved', false], 'never deduped against the rejection the approval superseded');
  s.tick(1_000);
  assert.equal([(await s.gate.review(s.forced(id), TOOL)).row?.deduped], [false]);
  assert.is(s.runs(), 4, 'each call reviewed: a second signature on every mutating call');
  // A fresh gate on the same store reads the ledger: the same.
  const other = createGate({ store: s.store, reviewer: { answer: async () => ({ reply: APPROVE }) }, log: () => {} });
  assert.is((await other.review(PROPOSAL, TOOL)).row?.deduped, false);

  // A gate that cached the rejection while another process (another gate on the store) approved the reopened call: the ledger is the truth.
  const x = setup([NO_SOP, APPROVE, APPROVE]);
  await x.gate.review(PROPOSAL, TOOL);
  x.tick(1_000);
  const xid = x.confirm();
  x.tick(1_000);
  const elsewhere = createGate({ store: x.store, reviewer: { answer: async () => ({ reply: APPROVE }) }, now: () => new Date(Date.parse('2026-03-01T09:00:02.000Z')), log: () => {} });
  assert.is((await elsewhere.review(x.forced(xid), TOOL)).outcome, 'approved');
  x.tick(1_000);
  // The first gate answers repeats from its cache (E10: no ledger read): it may keep refusing until its window ends — a
  // refusal, never an approval; a gate that reads the ledger (a fresh one, or with a confirmation) sees the approval.
  assert.is((await x.gate.review(PROPOSAL, TOOL)).row?.deduped, true);
  const fresh = createGate({ store: x.store, reviewer: { answer: async () => ({ reply: APPROVE }) }, now: () => new Date(Date.parse('2026-03-01T09:00:04.000Z')), log: () => {} });
  assert.is((await fresh.review(PROPOSAL, TOOL)).row?.deduped, false);

  const c = setup([NO_SOP, APPROVE]);
  await c.gate.review(PROPOSAL, TOOL);
  c.tick(1_000);
  const cid = c.confirm();
  c.tick(1_000);
  const crashing = createGate({ store: c.store, reviewer: { answer: async () => { throw new Error('the reviewer exited'); } }, now: () => new Date(Date.parse('2026-03-01T09:00:02.500Z')), log: () => {} });
  assert.is((await crashing.review(c.forced(cid), TOOL)).row?.decision_text, null, 'decided nothing');
  c.tick(1_000);
  assert.is((await c.gate.review(c.forced(cid), TOOL)).outcome, 'approved', 'the confirmation still reopens: the crash did not use it up');
});

Reopen('§4.5 §4.6: a confirmation older than the no-SOP rejection it would answer does not reopen it', async () => {
  const s = setup([NO_SOP, APPROVE]);
  const id = s.confirm();
  s.tick(1_000);
  await s.gate.review(PROPOSAL, TOOL);
  s.tick(1_000);
  assert.is((await s.gate.review(s.forced(id), TOOL)).row?.deduped, true);
  assert.is(s.runs(), 1);
});

Reopen('C2 §4.6: a rejection is for a missing SOP when a ✗ line opens with "no SOP", or its reason is "no SOP for action <X>"; force_approve_no_sop or "no SOP" inside prose does not count', () => {
  assert.ok(rejectedForNoSop({ reason: 'no SOP for action run_shell', missing_gates: null }));
  assert.ok(rejectedForNoSop({ reason: 'parallel operation', missing_gates: ['parallel operation', 'No SOP covers kill_process'] }));
  assert.not.ok(rejectedForNoSop({ reason: 'parallel operation detected', missing_gates: ['parallel operation detected'] }));
  assert.not.ok(rejectedForNoSop({ reason: 'needs a user-confirmed force_approve_no_sop', missing_gates: null }));
  assert.ok(rejectedForNoSop({ reason: 'x', missing_gates: ['**no SOP** for action host_restart_service'] }), 'emphasis is not wording');
  assert.ok(rejectedForNoSop({ reason: '`no SOP` for action x', missing_gates: null }));
  // "no SOP" inside prose is no missing SOP: a device offline stays a repeat, confirmed or not.
  assert.not.ok(rejectedForNoSop({ reason: 'No SOP gap here (SOP-007 covers it), but node-01 is offline', missing_gates: ['node-01 is offline'] }));
  assert.not.ok(rejectedForNoSop({ reason: 'node-01 is offline', missing_gates: ['node-01 is offline, and there is no SOP gap'] }));
});

Reopen('C2: the shipped persona tells the reviewer to write an SOP that does not cover the scenario as "✗ no SOP for action <X>", the wording a confirmation reopens', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('../helpers/cli.js');
  const persona = readFileSync(join(ROOT, 'agents/reviewer.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(persona, 'An SOP that does not explicitly cover this scenario is no SOP: write the gate line as `✗ no SOP for action <X>` all the same');
  assert.ok(rejectedForNoSop({ reason: 'SOP-007 covers restarts, not restarts during a migration', missing_gates: ['no SOP for action host_restart_service'] }));
});

Reopen('§4.5 §4.6: a rejection for a device offline whose Notes mention "no SOP" in passing is not reopened by a confirmation', async () => {
  const OFFLINE = '**Decision: reject**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✗ node-01 is offline\n\n**Notes**\nNo SOP gap here (SOP-007 covers it), but node-01 is offline: a restart cannot help.';
  const s = setup([OFFLINE, APPROVE]);
  assert.is((await s.gate.review(PROPOSAL, TOOL)).outcome, 'rejected');
  s.tick(1_000);
  const id = s.confirm();
  s.tick(1_000);
  const repeat = await s.gate.review(s.forced(id), TOOL);
  assert.is(repeat.row?.deduped, true);
  assert.is(s.runs(), 1, 'no fresh review');
});

Reopen('F6 E10: one confirmation reopens a no-SOP rejection at most once, also across two gates on one store (the cached rejection of one is older than the other\'s)', async () => {
  const NO_SOP = '**Decision: reject**\n\n**Gates**\n- ✗ no SOP for action host_restart_service\n\n**Notes**\nno SOP for action host_restart_service';
  const target = { device_id: 7, service: 'nginx' };
  const tool = { name: 'host_restart_service', class: 'write' as const };
  const p = { action: 'host_restart_service', target, reason: 'User reported 502', blast_radius: 'single_device', operator: 'user_42', context_summary: 'x' } as Proposal;
  let t = Date.parse('2026-03-01T09:00:00.000Z');
  const now = () => new Date(t);
  const store = createMemoryStore();
  let runs = 0;
  const reviewer: Agent = { answer: async () => { runs++; return { reply: NO_SOP }; } };
  const a = createGate({ store, reviewer, now, log: () => {} });
  const b = createGate({ store, reviewer, now, log: () => {} });
  await a.review(p, tool);
  t += 1000;
  const id = recordConfirmation(store, { operator: 'user_42', action: 'host_restart_service', target }, now()).id;
  t += 1000;
  const forced = { ...p, force_approve_no_sop: true, confirmation_id: id } as Proposal;
  assert.is((await b.review(forced, tool)).row?.deduped, false, 'the confirmation reopens the call once');
  t += 1000;
  assert.is((await a.review(forced, tool)).row?.deduped, true, 'the other gate sees the newer rejection in the ledger');
  assert.is(runs, 2);
});

Reopen.run();
