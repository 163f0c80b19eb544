/**
 * workflows/ongrid-review-gate.json run by the engine itself (issue 4):
 * the decision contract of delegate-review, the record node writing the
 * proposal row in the step's transaction, and the journal events
 * decision.parsed, record.written and gate.outcome. The library gate and
 * `countersign gate` run this same file.
 */
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState } from '../../engine/index.js';

const GATE = fileURLToPath(new URL('../../workflows/ongrid-review-gate.json', import.meta.url));

const PERSONA = {
  name: 'reviewer',
  model: 'anthropic/claude-opus-4-7',
  max_turns: 5,
  tools: ['get_sop_text', 'get_edge_summary'],
  body: 'You review mutating proposals. Reject by default.',
  critical_reminder: 'reject 是默认选项',
};
const PROPOSAL = {
  action: 'host_restart_service',
  target: { device_id: 7, service: 'nginx' },
  reason: 'User reported 502; nginx error log shows OOM',
  blast_radius: 'tenant_wide',
  operator: 'user_42',
  context_summary: 'nginx on node-01 OOMs',
};
const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: `systemctl start nginx`\n\n**Notes**\nLow risk.';
const REJECT = '**Decision: reject**\n\n**Gates**\n- ✗ no SOP for action host_restart_service\n\n**Notes**\nno SOP for action host_restart_service';

function setup(now?: () => Date) {
  const store = createMemoryStore();
  const engine = createEngine({ store, ...(now ? { now } : {}) });
  const input = (tool_class: string, extra: Record<string, unknown> = {}) => ({
    tool: 'host_restart_service',
    tool_class,
    proposal: PROPOSAL,
    proposal_hash: 'h-1',
    persona: PERSONA,
    ...extra,
  });
  return { store, engine, input };
}

function waiting(s: RunState) {
  assert.is(s.status, 'waiting', JSON.stringify(s));
  if (s.status !== 'waiting') throw new Error('not waiting');
  return s;
}

const Gate = suite('gate workflow: the decision contract and the record node');

Gate('A17 F8: a read call ends at pass at once — no reviewer item, no proposal row', async () => {
  const { store, engine, input } = setup();
  const s = await engine.start(GATE, { input: input('read') });
  assert.is(s.status, 'completed');
  assert.is(s.status === 'completed' && s.outcome, 'pass');
  assert.equal(store.rows('chat_mutating_proposals'), []);
});

Gate('A25 B7 B10: a write call issues a decision review with the persona\'s model, turns and tools, and a prompt holding the body, the reminder and the blast radius', async () => {
  const { engine, input } = setup();
  const w = waiting(await engine.start(GATE, { input: input('write') }));
  const p = w.pending;
  assert.is(p.kind === 'review' && p.contract, 'decision');
  if (p.kind !== 'review' || p.contract !== 'decision') return;
  assert.equal(p.persona, { name: 'reviewer', model: 'anthropic/claude-opus-4-7', max_turns: 5, tools: ['get_sop_text', 'get_edge_summary'] });
  assert.match(p.prompt, PERSONA.body);
  assert.match(p.prompt, 'reject 是默认选项');
  assert.match(p.prompt, 'Blast radius: tenant_wide (the whole tenant: scrutinise hardest)');
  assert.equal(p.proposal, PROPOSAL);
  assert.is(p.maxRetries, 0);
  assert.ok(p.deadline, 'the gate review has a deadline');
});

Gate('E1 F3: an approving reply ends at approved and records an approved row with the decision text, SOP id, rollback and time', async () => {
  const { store, engine, input } = setup();
  const w = waiting(await engine.start(GATE, { input: input('write') }));
  const s = await engine.submit(w.runId, { reply: APPROVE }, { seq: w.seq });
  assert.is(s.status === 'completed' && s.outcome, 'approved');
  const rows = store.rows('chat_mutating_proposals');
  assert.is(rows.length, 1);
  const row = rows[0].row;
  assert.is(row.status, 'approved');
  assert.is(row.decision_text, APPROVE);
  assert.is(row.sop_id, 'SOP-007');
  assert.is(row.rollback, 'systemctl start nginx');
  assert.is(row.missing_gates, null);
  assert.equal(row.target, PROPOSAL.target, 'the target keeps its JSON type');
  assert.is(row.deduped, false);
  assert.is(row.operator, 'user_42');
  assert.is(row.persona, 'reviewer');
  assert.is(row.model, 'anthropic/claude-opus-4-7');
  assert.is(rows[0].key, 'h-1');
  assert.match(String(row.at), /^\d{4}-\d\d-\d\dT/);
  const { events } = await engine.trace(w.runId);
  const types = events.map((e) => e.type);
  assert.ok(types.indexOf('decision.parsed') < types.indexOf('record.written') && types.indexOf('record.written') < types.indexOf('gate.outcome'));
  assert.equal(events.find((e) => e.type === 'decision.parsed')?.decision, 'approve');
  const written = events.find((e) => e.type === 'record.written')!;
  assert.equal([written.table, written.rowId], ['chat_mutating_proposals', rows[0].id]);
  assert.is(written.row, undefined, 'the journal names the row; the row itself is in the ledger');
  assert.equal(events.find((e) => e.type === 'gate.outcome')?.outcome, 'approved');
});

Gate('E5 C7: a rejecting reply records a rejected row with the reviewer\'s reason and the missing gates', async () => {
  const { store, engine, input } = setup();
  const w = waiting(await engine.start(GATE, { input: input('destructive') }));
  const s = await engine.submit(w.runId, { reply: REJECT }, { seq: w.seq });
  assert.is(s.status === 'completed' && s.outcome, 'rejected');
  const row = store.rows('chat_mutating_proposals')[0].row;
  assert.is(row.status, 'rejected');
  assert.is(row.reason, 'no SOP for action host_restart_service');
  assert.equal(row.missing_gates, ['no SOP for action host_restart_service']);
});

Gate('C8 C10 D7 §4.4: an empty reply, a hedge, a malformed answer (also an approving reply with fields beside it) and a declared failure are all rejects — accepted as they are, never re-asked', async () => {
  for (const answer of [{ reply: '' }, { reply: 'Decision: approve with caveats' }, { verdict: 'approve' }, 'approve', { $error: 'model crashed' }, { reply: 'Decision: approve', approved: false, note: 'I could not verify the SOP' }]) {
    const { store, engine, input } = setup();
    const w = waiting(await engine.start(GATE, { input: input('write') }));
    const s = await engine.submit(w.runId, answer, { seq: w.seq });
    assert.is(s.status === 'completed' && s.outcome, 'rejected', JSON.stringify(answer));
    const row = store.rows('chat_mutating_proposals')[0].row;
    assert.is(row.status, 'rejected');
    assert.type(row.reason, 'string', JSON.stringify(answer));
  }
});

Gate('A11 E11 §4.4: a reviewer silent past the 60 s deadline ends at timeout with a timeout row', async () => {
  let t = Date.parse('2026-12-02T10:00:00Z');
  const { store, engine, input } = setup(() => new Date(t));
  const w = waiting(await engine.start(GATE, { input: input('write') }));
  assert.is(w.pending.deadline, '2026-12-02T10:01:00.000Z');
  t += 59_999;
  assert.is((await engine.status(w.runId)).status, 'waiting');
  t += 1;
  const s = await engine.status(w.runId);
  assert.is(s.status === 'completed' && s.outcome, 'timeout');
  assert.is(store.rows('chat_mutating_proposals')[0].row.status, 'timeout');
});

Gate('§4.4: a run without a persona records a rejected row instead of reaching a reviewer (fail closed)', async () => {
  const { store, engine, input } = setup();
  const s = await engine.start(GATE, { input: input('write', { persona: {} }) });
  assert.is(s.status === 'completed' && s.outcome, 'rejected');
  const row = store.rows('chat_mutating_proposals')[0].row;
  assert.is(row.status, 'rejected');
  assert.match(String(row.reason), /persona/);
  const { events } = await engine.trace(s.runId);
  assert.not.ok(events.some((e) => e.type === 'review.issued'));
});

Gate.run();
