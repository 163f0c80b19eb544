import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chain } from '../../engine/gate/chain.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { reviewGateDecorator, type GateOutcome, type GateVerdict, type PendingReview } from '../../engine/gate/decorators/review-gate.js';
import { CountersignError } from '../../engine/errors.js';
import type { ToolClass } from '../../engine/tools/tool.js';
import { validateProposal } from '../../engine/gate/proposal.js';
import { rejection } from '../helpers/errors.js';
import { settle } from './fake-clock.js';
import { ARGS, CTX, fullChain, memorySink, spyTool } from './fixtures.js';
import { auditDecorator } from '../../engine/gate/decorators/audit.js';
import { metricDecorator } from '../../engine/gate/decorators/metric.js';
import { rateLimitDecorator } from '../../engine/gate/decorators/rate-limit.js';

const Gate = suite('gate/review-gate: the second signature on mutating calls');

Gate('A16–A19, F8: by class — read runs with no review and no proposal; write and destructive run only on approve', async () => {
  const table: { cls: ToolClass; verdict: GateOutcome; reviewed: boolean; ran: boolean }[] = [
    { cls: 'read', verdict: 'approved', reviewed: false, ran: true },
    { cls: 'read', verdict: 'rejected', reviewed: false, ran: true },
    { cls: 'write', verdict: 'approved', reviewed: true, ran: true },
    { cls: 'write', verdict: 'rejected', reviewed: true, ran: false },
    { cls: 'destructive', verdict: 'approved', reviewed: true, ran: true },
    { cls: 'destructive', verdict: 'rejected', reviewed: true, ran: false },
  ];
  for (const row of table) {
    const { tool, calls } = spyTool(row.cls);
    const f = fullChain(tool, { outcome: row.verdict, reason: 'no SOP for action x', proposalId: 'p1' });
    const pending: PendingReview[] = [];
    await f.chained.run(ARGS, CTX).catch(() => undefined);
    pending.push(...f.gate.pending());
    const label = `${row.cls}/${row.verdict}`;
    assert.is(f.decide.proposals.length, row.reviewed ? 1 : 0, `${label}: reviewer runs`);
    assert.is(calls.length, row.ran ? 1 : 0, `${label}: inner runs`);
    assert.is(f.sink.rows.length, row.ran ? 1 : 0, `${label}: execution rows`);
    assert.equal(pending, []);
  }
});

Gate('A15, A23: the proposal is built from the call — operator from tenant_bind, target the arguments, blast_radius from the tool', async () => {
  const { tool } = spyTool('write', { blastRadius: 'tenant_wide' });
  const bind = tenantBindDecorator({ resolve: (ctx) => (ctx.tenantId === 't1' ? 'user_42' : undefined) });
  const decide = async (): Promise<GateVerdict> => ({ outcome: 'approved', proposalId: 'p1' });
  const seen: unknown[] = [];
  const gate = reviewGateDecorator({ decide: async (p, t) => (seen.push(p, t.name), decide()) });
  // The caller's own userId is not what the proposal carries: tenant_bind's resolution is.
  await chain(tool, { tenantBind: bind, reviewGate: gate }).run(ARGS, { ...CTX, userId: 'spoofed', tenantId: 't1' });
  assert.equal(seen, [{
    action: 'host_restart_service',
    target: { device_id: 7, service: 'nginx' },
    reason: 'User reported 502; nginx error log shows OOM',
    blast_radius: 'tenant_wide',
    operator: 'user_42',
    context_summary: 'nginx on node-01 returns 502',
  }, 'host_restart_service']);
});

Gate('A24, F5, F6: blast_radius defaults to single_device; force_approve_no_sop and confirmation_id are carried only when given', async () => {
  const f = fullChain(spyTool('destructive').tool, { outcome: 'approved' });
  await f.chained.run(ARGS, { userId: 'u1', reason: 'OOM' });
  await f.chained.run(ARGS, { userId: 'u1', reason: 'OOM', forceApproveNoSop: true, confirmationId: 'conf-1' });
  const [plain, forced] = f.decide.proposals;
  assert.is(plain.blast_radius, 'single_device');
  assert.is(plain.context_summary, '', 'a missing summary is empty, which the proposal schema allows');
  assert.not.ok('force_approve_no_sop' in plain || 'confirmation_id' in plain);
  assert.is(forced.force_approve_no_sop, true);
  assert.is(forced.confirmation_id, 'conf-1');
  assert.equal(f.decide.proposals.map(validateProposal), [[], []], 'both satisfy schemas/proposal.schema.json');
  const blank = await rejection(f.chained.run(ARGS, { userId: 'u1', reason: 'OOM', confirmationId: ' ' }));
  assert.equal([blank.code, blank.pointer], ['E_PROPOSAL', '/confirmation_id']);
  assert.is(f.decide.proposals.length, 2, 'an invalid proposal never reaches decide');
});

Gate('C5: a gated call without a reason is refused with E_PROPOSAL at /reason before any review; a read call needs none', async () => {
  for (const reason of [undefined, '', '  ']) {
    const { tool, calls } = spyTool('write');
    const f = fullChain(tool, { outcome: 'approved' });
    const e = await rejection(f.chained.run(ARGS, { userId: 'u1', reason }));
    assert.is(e.code, 'E_PROPOSAL');
    assert.is(e.pointer, '/reason');
    assert.match(e.fix!, 'ctx.reason');
    assert.is(f.decide.proposals.length, 0);
    assert.is(calls.length, 0);
    assert.equal(f.gate.pending(), []);
  }
  const read = fullChain(spyTool('read').tool, { outcome: 'approved' });
  await read.chained.run(ARGS, { userId: 'u1' });
});

Gate('E1–E4, A14: on approve the inner tool runs once with the original arguments, one execution row points at the proposal, and the result is returned unchanged', async () => {
  const result = { restarted: 'nginx', pid: 4242, nested: { ok: true } };
  const { tool, calls } = spyTool('write', { body: () => result });
  const f = fullChain(tool, { outcome: 'approved', proposalId: 'prop-1' });
  const got = await f.chained.run(ARGS, CTX);
  assert.is(got, result, 'the very same object');
  assert.equal(result, { restarted: 'nginx', pid: 4242, nested: { ok: true } });
  assert.equal(calls.map((c) => c.args), [ARGS]);
  assert.equal(f.sink.rows, [{
    id: 'exec-1', at: '2026-01-01T00:00:00.000Z', proposal_id: 'prop-1', tool: 'host_restart_service', args: ARGS, ok: true, error: null,
  }]);
});

Gate('E6, E8: a reject fails with ErrReviewRejected and the message "review rejected: <reviewer reason>"', async () => {
  const f = fullChain(spyTool('write').tool, { outcome: 'rejected', reason: 'no SOP for action host_restart_service', proposalId: 'p7' });
  const e = await rejection(f.chained.run(ARGS, CTX));
  assert.instance(e, CountersignError);
  assert.is(e.code, 'ErrReviewRejected');
  assert.is(e.message, 'review rejected: no SOP for action host_restart_service');
  assert.equal(e.data, { reason: 'no SOP for action host_restart_service', proposalId: 'p7' });
  assert.match(e.fix!, 'do not retry');
});

Gate('A12, E7, E14: a reject writes no execution row and the inner tool is not called', async () => {
  const { tool, calls } = spyTool('destructive');
  const f = fullChain(tool, { outcome: 'rejected', reason: 'parallel operation detected; wait for X to complete' });
  await rejection(f.chained.run(ARGS, CTX));
  assert.equal(f.sink.rows, []);
  assert.is(calls.length, 0);
  assert.equal(f.metric.snapshot(), {}, 'nothing reached the tool');
});

Gate('E11, E14: a review timeout fails with ErrReviewTimeout "review timed out after 60s"; the inner tool does not run and no row is written', async () => {
  const { tool, calls } = spyTool('write');
  const f = fullChain(tool, { outcome: 'timeout', proposalId: 'p-t' });
  const e = await rejection(f.chained.run(ARGS, CTX));
  assert.is(e.code, 'ErrReviewTimeout');
  assert.is(e.message, 'review timed out after 60s');
  assert.is(calls.length, 0);
  assert.equal(f.sink.rows, []);
  const custom = fullChain(spyTool('write').tool, { outcome: 'timeout', timeoutMs: 90_000 });
  assert.is((await rejection(custom.chained.run(ARGS, CTX))).message, 'review timed out after 90s');
});

Gate('fail closed: a reject without reason (or with one that is no text), an unknown outcome, or decide throwing (a plain error or a typed one such as E_GATE_WORKFLOW) — ErrReviewRejected, the inner tool never runs', async () => {
  const verdicts: (() => GateVerdict)[] = [
    () => ({ outcome: 'rejected' }),
    () => ({ outcome: 'rejected', reason: 42 as unknown as string }),
    () => ({ outcome: 'approve' as GateOutcome }),
    () => undefined as unknown as GateVerdict,
    () => { throw new Error('reviewer crashed'); },
    () => { throw new CountersignError('E_GATE_WORKFLOW', 'the gate workflow ended without an outcome'); },
  ];
  const messages: string[] = [];
  for (const verdict of verdicts) {
    const { tool, calls } = spyTool('write');
    const f = fullChain(tool, verdict);
    const e = await rejection(f.chained.run(ARGS, CTX));
    assert.is(e.code, 'ErrReviewRejected');
    assert.is(calls.length, 0);
    assert.equal(f.sink.rows, []);
    messages.push(e.message);
  }
  assert.equal(messages, [
    'review rejected: the reviewer gave no reason',
    'review rejected: the reviewer gave no reason',
    'review rejected: the gate returned an unknown outcome "approve"',
    'review rejected: the gate returned an unknown outcome undefined',
    'review rejected: the review gate failed: reviewer crashed',
    'review rejected: the review gate failed: E_GATE_WORKFLOW: the gate workflow ended without an outcome',
  ]);
});

Gate('A5, A6: a skipped verdict for a tool the gate\'s skip list does not name fails closed', async () => {
  const { tool, calls } = spyTool('write');
  const f = fullChain(tool, { outcome: 'skipped', proposalId: 'p-s' }, { skip: ['execute_skill'] });
  const e = await rejection(f.chained.run(ARGS, CTX));
  assert.is(e.code, 'ErrReviewRejected');
  assert.match(e.message, 'skip list does not name "host_restart_service"');
  assert.is(calls.length, 0);
});

Gate('B9: onSettled reports a skipped answer for a tool the skip list does not name as the rejection it is, never as skipped (a call that ran)', async () => {
  const { tool, calls } = spyTool('write');
  const settled: GateOutcome[] = [];
  const gate = reviewGateDecorator({ decide: async () => ({ outcome: 'skipped', proposalId: 'p-s' }), skip: ['execute_skill'], onSettled: (_r, outcome) => settled.push(outcome) });
  const e = await rejection(chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate }).run(ARGS, CTX));
  assert.is(e.code, 'ErrReviewRejected');
  assert.is(calls.length, 0);
  assert.equal(settled, ['rejected']);
});

Gate('a store error from decide is passed on as it is, and the inner tool does not run', async () => {
  const { tool, calls } = spyTool('write');
  const f = fullChain(tool, () => { throw new CountersignError('E_STORE', 'disk full'); });
  assert.is((await rejection(f.chained.run(ARGS, CTX))).code, 'E_STORE');
  assert.is(calls.length, 0);
});

Gate('B9: while the reviewer works the review is observable as pending, and it is settled once the decision arrives', async () => {
  let release!: (v: GateVerdict) => void;
  const events: string[] = [];
  const { tool, calls } = spyTool('write');
  const gate = reviewGateDecorator({
    decide: () => new Promise((resolve) => (release = resolve)),
    onPending: (r) => events.push(`pending ${r.tool} by ${r.proposal.operator}`),
    onSettled: (r, outcome) => events.push(`settled ${r.tool} ${outcome}`),
  });
  const chained = chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate });
  const call = chained.run(ARGS, CTX);
  await settle();
  assert.equal(gate.pending().map((p) => [p.tool, p.proposal.target]), [['host_restart_service', ARGS]]);
  assert.equal(events, ['pending host_restart_service by user_42']);
  assert.is(calls.length, 0, 'the tool call blocks on the review');
  release({ outcome: 'approved', proposalId: 'prop-1' });
  await call;
  assert.equal(gate.pending(), []);
  assert.equal(events, ['pending host_restart_service by user_42', 'settled host_restart_service approved']);
  assert.is(calls.length, 1);
});

Gate('B9: observers report a review and never change it: the proposal onPending and pending() see is deep-frozen, and the reviewer decides on the proposal the call made', async () => {
  const seen: unknown[] = [];
  const { tool, calls } = spyTool('write');
  let tampered: unknown;
  const gate = reviewGateDecorator({
    decide: async (proposal) => {
      seen.push(structuredClone(proposal));
      return { outcome: 'approved', proposalId: 'prop-1' };
    },
    onPending: (r) => {
      try {
        (r.proposal.target as { device_id: number }).device_id = 99;
      } catch (e) {
        tampered = e;
      }
    },
  });
  const chained = chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate });
  await chained.run(ARGS, CTX);
  assert.instance(tampered, TypeError, 'the observer\'s copy cannot be written');
  assert.equal((seen[0] as { target: unknown }).target, ARGS, 'the reviewer saw the call\'s own arguments');
  assert.equal((calls[0] as { args: unknown }).args, ARGS, 'and the tool ran with them');
});

Gate('F1, F2: an admin is reviewed like anyone; no context flag skips the review', async () => {
  const f = fullChain(spyTool('write').tool, { outcome: 'rejected', reason: 'no SOP' });
  const adminCtx = { ...CTX, userId: 'admin', admin: true, skipReview: true } as typeof CTX;
  assert.is((await rejection(f.chained.run(ARGS, adminCtx))).code, 'ErrReviewRejected');
  assert.is(f.decide.proposals.length, 1);
  assert.not.ok('admin' in f.decide.proposals[0]);
});

Gate('the proposal target is a copy: a tool that mutates its arguments cannot rewrite what was reviewed or audited', async () => {
  const { tool } = spyTool('write', { body: (args) => { (args as Record<string, unknown>).service = 'sshd'; return 'ok'; } });
  const f = fullChain(tool, { outcome: 'approved' });
  const args = { ...ARGS };
  await f.chained.run(args, CTX);
  assert.is(f.decide.proposals[0].target.service, 'nginx');
  assert.is(f.sink.rows[0].args.service, 'nginx');
});

Gate('A7: an approval (or an allowed skip) that names no proposal row fails closed: ErrReviewRejected, the tool never runs, no execution row', async () => {
  for (const [verdict, skip] of [[{ outcome: 'approved' }, []], [{ outcome: 'approved', proposalId: '  ' }, []], [{ outcome: 'skipped' }, ['host_restart_service']]] as const) {
    const { tool, calls } = spyTool('write');
    const sink = memorySink();
    const settled: string[] = [];
    const gate = reviewGateDecorator({ decide: async () => verdict as GateVerdict, skip, onSettled: (_r, outcome) => settled.push(outcome) });
    const chained = chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate, audit: auditDecorator({ sink }) });
    const e = await rejection(chained.run(ARGS, CTX));
    assert.is(e.code, 'ErrReviewRejected', JSON.stringify(verdict));
    assert.match(e.message, 'named no proposal row it recorded');
    assert.match(e.fix!, 'return its row id as proposalId');
    assert.equal(settled, ['rejected'], 'the host is told what the caller is told');
    assert.is(calls.length, 0);
    assert.equal(sink.rows, []);
  }
});

Gate('B9: an onPending that throws fails the call closed before any review: no decide, no onSettled, and the message says nobody reviewed it', async () => {
  let decided = 0;
  const settled: string[] = [];
  const { tool, calls } = spyTool('write');
  const gate = reviewGateDecorator({
    decide: async () => (decided++, { outcome: 'approved', proposalId: 'p1' }),
    onPending: () => { throw new Error('ui down'); },
    onSettled: (_r, outcome) => settled.push(outcome),
  });
  const e = await rejection(chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate }).run(ARGS, CTX));
  assert.is(e.code, 'ErrReviewRejected');
  assert.match(e.message, 'was not reviewed: the host\'s onPending failed (ui down)');
  assert.equal([decided, settled, calls.length, gate.pending()], [0, [], 0, []]);
});

Gate('a call cancelled before its review never reaches the gate; one cancelled while it is reviewed stops at the gate once it decides: E_TOOL_CANCELLED, no run, no execution row, no rate-limit token, no count', async () => {
  const { tool, calls } = spyTool('write');
  let release!: (v: GateVerdict) => void;
  let asked = 0;
  const sink = memorySink();
  const metric = metricDecorator();
  const limiter = rateLimitDecorator({ capacity: 1 });
  const gate = reviewGateDecorator({ decide: () => (asked++, new Promise((resolve) => (release = resolve))) });
  const chained = chain(tool, { tenantBind: tenantBindDecorator(), reviewGate: gate, audit: auditDecorator({ sink }), rateLimit: limiter, metric });
  const before = new AbortController();
  before.abort();
  const early = await rejection(chained.run(ARGS, { ...CTX, signal: before.signal }));
  assert.is(early.code, 'E_TOOL_CANCELLED');
  assert.match(early.message, 'before it was reviewed');
  assert.is(asked, 0);
  const during = new AbortController();
  const call = chained.run(ARGS, { ...CTX, signal: during.signal });
  await settle();
  during.abort();
  release({ outcome: 'approved', proposalId: 'p1' });
  const e = await rejection(call);
  assert.is(e.code, 'E_TOOL_CANCELLED');
  assert.match(e.message, 'while it was reviewed');
  assert.equal([calls.length, sink.rows, metric.snapshot(), limiter.bucketCount()], [0, [], {}, 0]);
  // Cancelled while tenant_bind resolves the operator: no review at all.
  let resolved!: (id: string) => void;
  const slowBind = chain(tool, {
    tenantBind: tenantBindDecorator({ resolve: () => new Promise<string>((r) => (resolved = r)) }),
    reviewGate: gate, audit: auditDecorator({ sink }), rateLimit: limiter, metric,
  });
  const binding = new AbortController();
  const bound = slowBind.run(ARGS, { ...CTX, signal: binding.signal });
  await settle();
  binding.abort();
  resolved('user_42');
  const e2 = await rejection(bound);
  assert.is(e2.code, 'E_TOOL_CANCELLED');
  assert.match(e2.message, 'before it was reviewed');
  assert.is(asked, 1, 'no second review');
  // A read call cancelled on its way in: never run, no execution row, and never said to be approved.
  const reader = spyTool('read');
  const readChain = chain(reader.tool, { tenantBind: tenantBindDecorator({ resolve: () => new Promise<string>((r) => (resolved = r)) }), audit: auditDecorator({ sink }), metric });
  const reading = new AbortController();
  const read = readChain.run(ARGS, { ...CTX, signal: reading.signal });
  await settle();
  reading.abort();
  resolved('user_42');
  const e3 = await rejection(read);
  assert.is(e3.code, 'E_TOOL_CANCELLED');
  assert.not.match(e3.message, 'approved');
  assert.equal([reader.calls.length, sink.rows, metric.snapshot()], [0, [], {}]);
});

Gate.run();
