/**
 * The gate workflow run outside the gate (A2, A3, A7): anyone can run
 * workflows/ongrid-review-gate.json by hand, and its record nodes then write
 * proposal rows that skipped the gate's persona lint, confirmation check and
 * dedupe. The gate records the runs it starts, so those rows read back with
 * `by_gate: false`, `audit` flags them, and the dedupe never counts them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../../engine/hosts/agent.js';
import { createEngine, createGate, createMemoryStore, createSqliteStore, listProposals } from '../../engine/index.js';
import type { Proposal } from '../../engine/gate/proposal.js';
import { proposalHash } from '../../engine/gate/ledger.js';
import type { JsonObject } from '../../engine/format/model.js';
import type { Store } from '../../engine/store/store.js';
import { cli, tempDir } from '../helpers/cli.js';

const GATE = fileURLToPath(new URL('../../workflows/ongrid-review-gate.json', import.meta.url));
const REJECT = '**Decision: reject**\n\n**Gates**\n- ✗ parallel operation detected\n\n**Notes**\nparallel operation detected';
const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.';
const PROPOSAL: Proposal = {
  action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', blast_radius: 'single_device', operator: 'user_42', context_summary: 'x',
};
const TOOL = { name: 'host_restart_service', class: 'write' as const };
const agent = (reply: string): Agent => ({ answer: async () => ({ reply }) });

/** Runs the gate workflow by hand, as `countersign run` would, with a made-up proposal hash. */
async function handRun(store: Store, reply: string) {
  const engine = createEngine({ store });
  const persona = { name: 'reviewer', model: 'm', max_turns: 5, tools: [], body: 'approve everything' };
  // The hash the gate itself keys this call by: the hand run's row sits exactly where the gate looks.
  const hash = proposalHash(PROPOSAL.operator, TOOL.name, PROPOSAL.target as JsonObject);
  return engine.run(GATE, { agent: agent(reply), input: { tool: 'host_restart_service', tool_class: 'write', proposal: { ...PROPOSAL, force_approve_no_sop: true }, proposal_hash: hash, persona } });
}

const Outside = suite('gate workflow run outside the gate');

Outside('A2 A3 A7: rows the gate wrote read back by_gate: true; a hand run of the gate workflow reads back by_gate: false', async () => {
  const store = createMemoryStore();
  const gate = createGate({ store, reviewer: agent(APPROVE), log: () => {} });
  const reviewed = await gate.review(PROPOSAL, TOOL);
  assert.is(reviewed.row?.by_gate, true);
  const skipped = await createGate({ store, reviewer: agent(APPROVE), skip: ['host_restart_service'] }).review(PROPOSAL, TOOL);
  assert.is(skipped.row?.by_gate, true, 'the gate\'s own skipped row');
  const hand = await handRun(store, APPROVE);
  assert.is(hand.status, 'completed');
  assert.equal(listProposals(store).map((r) => [r.status, r.by_gate]), [['approved', true], ['skipped', true], ['approved', false]]);
});

Outside('§4.5 A7: a rejection written by a hand run is not the gate\'s decision — the gate does not dedupe a real call against it', async () => {
  const store = createMemoryStore();
  await handRun(store, REJECT);
  const rejectedByHand = listProposals(store);
  assert.equal(rejectedByHand.map((r) => [r.status, r.by_gate, r.proposal_hash]), [['rejected', false, proposalHash(PROPOSAL.operator, TOOL.name, PROPOSAL.target as JsonObject)]], 'a rejected row under the very hash the gate dedupes by');
  const gate = createGate({ store, reviewer: agent(APPROVE), log: () => {} });
  const real = await gate.review(PROPOSAL, TOOL);
  assert.is(real.outcome, 'approved', 'reviewed, not deduped');
  const again = await createGate({ store, reviewer: agent(REJECT), log: () => {} }).review({ ...PROPOSAL, target: { device_id: 8, service: 'nginx' } }, TOOL);
  assert.is(again.outcome, 'rejected');
  assert.is((await gate.review({ ...PROPOSAL, target: { device_id: 8, service: 'nginx' } }, TOOL)).row?.deduped, true, 'a gate rejection still dedupes');
});

Outside('A7: in a ledger of many rows (read in one pass, not row by row) a hand run\'s row still reads by_gate: false, and the gate\'s own rows true', async () => {
  const store = createMemoryStore();
  await handRun(store, APPROVE);
  const gate = createGate({ store, reviewer: agent(APPROVE), log: () => {} });
  for (let device = 10; device < 20; device++) await gate.review({ ...PROPOSAL, target: { device_id: device, service: 'nginx' } }, TOOL);
  const rows = listProposals(store);
  assert.ok(rows.length > 8, `${rows.length} rows`);
  assert.equal(rows.map((r) => r.by_gate), [false, ...Array(rows.length - 1).fill(true)]);
});

Outside('A7: countersign audit flags a hand run\'s row, and --json gives by_gate for every row', async () => {
  const dir = tempDir('countersign-outside-');
  const store = createSqliteStore(dir);
  await handRun(store, APPROVE);
  store.close();
  writeFileSync(join(dir, 'approve.md'), APPROVE);
  const proposal = JSON.stringify({ ...PROPOSAL, target: { device_id: 9, service: 'nginx' } });
  const g = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', proposal, '--reviewer', 'reply:approve.md', '--json'], { store: dir, cwd: dir });
  assert.is(g.code, 0, g.stderr);
  assert.is(g.json.proposal.by_gate, true);
  const json = await cli(['audit', '--json'], { store: dir });
  assert.equal(json.json.proposals.map((p: { by_gate: boolean }) => p.by_gate), [false, true]);
  const text = await cli(['audit'], { store: dir });
  const lines = text.stdout.split('\n').filter((l) => l.includes('approved'));
  assert.match(lines[0], 'OUTSIDE THE GATE');
  assert.not.match(lines[1], 'OUTSIDE THE GATE');
});

Outside.run();
