/**
 * The library review gate end to end (issue 4): `reviewGate()` runs
 * workflows/ongrid-review-gate.json for every gated call, with a reviewer
 * agent playing the persona, rows in the store's ledger, and the chain's
 * other decorators around it. The reviewer here is a library Agent that
 * records every request it gets.
 */
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Agent } from '../../engine/hosts/agent.js';
import { CountersignError } from '../../engine/errors.js';
import { chain } from '../../engine/gate/chain.js';
import { auditDecorator } from '../../engine/gate/decorators/audit.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { createGate, DefaultReviewerTimeout, refuseReviewerSpawn, reviewGate } from '../../engine/gate/gate.js';
import { listExecutions, listProposals, recordConfirmation, writeExecution } from '../../engine/gate/ledger.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { tempDir } from '../helpers/cli.js';
import { thrownWithCode } from '../helpers/errors.js';
import { spyTool } from './fixtures.js';
import { createAgent } from '../../engine/hosts/adapters.js';

const SHIPPED_REVIEWER = fileURLToPath(new URL('../../agents/reviewer.md', import.meta.url));
const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.';
const REJECT = '**Decision: reject**\n\n**Gates**\n- ✗ no SOP for action host_restart_service\n\n**Notes**\nno SOP for action host_restart_service';

function reviewerAgent(reply: string | ((r: AgentRequest) => unknown)) {
  const requests: AgentRequest[] = [];
  const agent: Agent = {
    async answer(request) {
      requests.push(request);
      return typeof reply === 'function' ? reply(request) : { reply };
    },
  };
  return { agent, requests };
}

function setup(reply: string | ((r: AgentRequest) => unknown), extra: Partial<Parameters<typeof reviewGate>[0]> = {}) {
  const store = createMemoryStore();
  const reviewer = reviewerAgent(reply);
  const gate = reviewGate({ store, reviewer: reviewer.agent, log: () => {}, ...extra });
  const inner = spyTool('write');
  const tool = chain(inner.tool, {
    tenantBind: tenantBindDecorator(),
    reviewGate: gate,
    audit: auditDecorator({ sink: { writeExecution: (row) => void writeExecution(store, row) } }),
  });
  const call = (args = { device_id: 7, service: 'nginx' }, ctx: Record<string, unknown> = {}) =>
    tool.run(args, { userId: 'user_42', reason: 'User reported 502; nginx error log shows OOM', contextSummary: 'nginx OOM on node-01', ...ctx });
  return { store, reviewer, gate, inner, call };
}

async function rejection(p: Promise<unknown>): Promise<CountersignError> {
  try {
    await p;
  } catch (e) {
    return e as CountersignError;
  }
  throw new Error('expected a rejection');
}

const Gate = suite('the library review gate');

Gate('A1 A7 E1–E4 F3: an approved write runs the reviewer once, records an approved row, runs the inner tool once with the original args, audits it and returns its result unchanged', async () => {
  const s = setup(APPROVE);
  const result = await s.call();
  assert.equal(result, { restarted: 'nginx', on: 7 });
  assert.is(s.reviewer.requests.length, 1);
  assert.equal(s.inner.calls.map((c) => c.args), [{ device_id: 7, service: 'nginx' }]);
  const [row] = listProposals(s.store);
  assert.equal([row.status, row.sop_id, row.rollback, row.operator, row.deduped], ['approved', 'SOP-007', 'systemctl start nginx', 'user_42', false]);
  assert.equal(row.target, { device_id: 7, service: 'nginx' });
  const [exec] = listExecutions(s.store);
  assert.equal([exec.proposal_id, exec.ok, exec.tool], [row.id, true, 'host_restart_service']);
});

Gate('E5–E8 E14 A12: a rejected write throws ErrReviewRejected "review rejected: <reason>", records missing gates, never runs the tool and writes no execution row', async () => {
  const s = setup(REJECT);
  const e = await rejection(s.call());
  assert.is(e.code, 'ErrReviewRejected');
  assert.is(e.message, 'review rejected: no SOP for action host_restart_service');
  assert.is(s.inner.calls.length, 0);
  assert.equal(listExecutions(s.store), []);
  const [row] = listProposals(s.store);
  assert.equal([row.status, row.missing_gates], ['rejected', ['no SOP for action host_restart_service']]);
});

Gate('E5: a clean "Decision: reject" with no Notes and no ✗ line is recorded as the reviewer\'s reject without a reason, never as a reply that does not open with a decision', async () => {
  const proposal = { action: 'host_restart_service', target: { device_id: 1 }, reason: 'r', blast_radius: 'single_device' as const, operator: 'u', context_summary: 's' };
  const bare = createGate({ store: createMemoryStore(), reviewer: reviewerAgent('**Decision: reject**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx').agent, log: () => {} });
  const r = await bare.review(proposal, { name: 'host_restart_service', class: 'write' });
  assert.is(r.outcome, 'rejected');
  assert.is(r.reason, 'the reviewer rejected without giving a reason (no Notes, no ✗ line with text)');
  const garbled = createGate({ store: createMemoryStore(), reviewer: reviewerAgent('I think this is probably fine').agent, log: () => {} });
  assert.is((await garbled.review(proposal, { name: 'host_restart_service', class: 'write' })).reason, 'the reply does not open with "Decision: approve"');
});

Gate('E5: a reject whose only ✗ line is bare is recorded with the reviewer\'s-reject reason, never a blank one', async () => {
  const proposal = { action: 'host_restart_service', target: { device_id: 3 }, reason: 'r', blast_radius: 'single_device' as const, operator: 'u', context_summary: 's' };
  const store = createMemoryStore();
  const gate = createGate({ store, reviewer: reviewerAgent('**Decision: reject**\n\n**Gates**\n- ✗\n').agent, log: () => {} });
  const r = await gate.review(proposal, { name: 'host_restart_service', class: 'write' });
  assert.is(r.reason, 'the reviewer rejected without giving a reason (no Notes, no ✗ line with text)');
  const [row] = listProposals(store);
  assert.equal([row.reason, row.missing_gates], [r.reason, null]);
});

Gate('§4.5: an answer out of its schema (a field beside "reply") fails closed, and what the reviewer wrote is kept on the row as reviewer_output, never as decision_text (it decided nothing, so a retry is reviewed); a crash leaves both null', async () => {
  const proposal = { action: 'host_restart_service', target: { device_id: 2 }, reason: 'r', blast_radius: 'single_device' as const, operator: 'u', context_summary: 's' };
  const store = createMemoryStore();
  const extra = createGate({ store, reviewer: reviewerAgent(() => ({ reply: '**Decision: reject**\n\n**Notes**\nparallel operation detected', confidence: 0.9 })).agent, log: () => {} });
  const r = await extra.review(proposal, { name: 'host_restart_service', class: 'write' });
  assert.is(r.outcome, 'rejected');
  // The whole answer, as the reviewer gave it (extra fields included).
  assert.equal([r.row?.decision_text, JSON.parse(r.row?.reviewer_output ?? 'null')], [null, { reply: '**Decision: reject**\n\n**Notes**\nparallel operation detected', confidence: 0.9 }]);
  // An answer without "reply" (or a bare string) is kept too.
  for (const [answer, kept] of [[{ response: 'looks risky' }, '{"response":"looks risky"}'], ['Decision: reject', 'Decision: reject']] as const) {
    const odd = createGate({ store: createMemoryStore(), reviewer: { answer: async () => answer as never }, log: () => {} });
    const row = (await odd.review(proposal, { name: 'host_restart_service', class: 'write' })).row;
    assert.equal([row?.status, row?.decision_text, row?.reviewer_output], ['rejected', null, kept]);
  }
  const crashed = createGate({ store: createMemoryStore(), reviewer: { answer: async () => { throw new CountersignError('E_AGENT_CRASHED', 'the reviewer exited'); } }, log: () => {} });
  const c = await crashed.review(proposal, { name: 'host_restart_service', class: 'write' });
  assert.equal([c.outcome, c.row?.decision_text, c.row?.reviewer_output], ['rejected', null, null]);
  const retry = createGate({ store, reviewer: reviewerAgent(APPROVE).agent, log: () => {} });
  assert.is((await retry.review(proposal, { name: 'host_restart_service', class: 'write' })).outcome, 'approved', 'no decision was made: the retry is reviewed');
});

Gate('§4.5: a reviewer CLI that prints its review as plain text (no {"reply"} wrapper) fails closed, and the ledger keeps what it wrote whole as reviewer_output', async () => {
  const proposal = { action: 'host_restart_service', target: { device_id: 2 }, reason: 'r', blast_radius: 'single_device' as const, operator: 'u', context_summary: 's' };
  const dir = tempDir();
  const text = `**Decision: approve**\n\n**Notes**\n${'long note '.repeat(300)}`;
  writeFileSync(join(dir, 'review.txt'), text);
  const reviewer = createAgent(`exec:${JSON.stringify(process.execPath)} -e "process.stdout.write(require('fs').readFileSync('review.txt','utf8'))"`, { cwd: dir, flag: '--reviewer' });
  const gate = createGate({ store: createMemoryStore(), reviewer, log: () => {} });
  const r = await gate.review(proposal, { name: 'host_restart_service', class: 'write' });
  assert.is(r.outcome, 'rejected', 'never taken for an approval');
  assert.equal([r.row?.decision_text, r.row?.reviewer_output], [null, text]);
  assert.match(r.reason ?? '', 'the reviewer wrote plain text, not {"reply": "<text>"}');
});

Gate('§4.5: a jsonl reviewer that answers in plain text over several lines fails closed, and the ledger keeps every line it wrote, not only the first', async () => {
  const proposal = { action: 'host_restart_service', target: { device_id: 2 }, reason: 'r', blast_radius: 'single_device' as const, operator: 'u', context_summary: 's' };
  const dir = tempDir();
  writeFileSync(join(dir, 'plain.sh'), "read line; printf 'Decision: reject\\n\\nGates\\n- x no SOP\\n\\nNotes\\nline three\\n'; sleep 5\n");
  const reviewer = createAgent('jsonl:sh plain.sh', { cwd: dir, flag: '--reviewer' });
  const gate = createGate({ store: createMemoryStore(), reviewer, log: () => {} });
  try {
    const r = await gate.review(proposal, { name: 'host_restart_service', class: 'write' });
    assert.is(r.outcome, 'rejected');
    assert.equal([r.row?.decision_text, r.row?.reviewer_output], [null, 'Decision: reject\n\nGates\n- x no SOP\n\nNotes\nline three']);
  } finally {
    await reviewer.close?.();
  }
});

Gate('E9 E10 §4.5: the same call again inside the window is refused without a reviewer and writes a deduped row; rewording the reason does not bypass it', async () => {
  const s = setup(REJECT);
  await rejection(s.call());
  const again = await rejection(s.call(undefined, { reason: 'please, it is really urgent' }));
  assert.is(again.code, 'ErrReviewRejected');
  assert.is(s.reviewer.requests.length, 1, 'no second reviewer run');
  const rows = listProposals(s.store);
  assert.equal(rows.map((r) => [r.status, r.deduped]), [['rejected', false], ['rejected', true]]);
  // A7: rows that are neither deduped nor skipped = reviewer runs.
  assert.is(rows.filter((r) => !r.deduped && r.status !== 'skipped').length, s.reviewer.requests.length);
  // Another target is another proposal.
  await rejection(s.call({ device_id: 8, service: 'nginx' }));
  assert.is(s.reviewer.requests.length, 2);
});

Gate('A6 §4.8: a skipped tool runs without a reviewer and writes a skipped row before it runs', async () => {
  const s = setup(REJECT, { skip: ['host_restart_service'] });
  assert.equal(await s.call(), { restarted: 'nginx', on: 7 });
  assert.is(s.reviewer.requests.length, 0);
  const [row] = listProposals(s.store);
  assert.is(row.status, 'skipped');
  assert.ok(row.at <= listExecutions(s.store)[0].at);
});

Gate('F1 F2: an admin is reviewed like anyone — no bypass flag exists', async () => {
  const s = setup(REJECT);
  const e = await rejection(s.call(undefined, { userId: 'admin', isAdmin: true }));
  assert.is(e.code, 'ErrReviewRejected');
  assert.is(s.reviewer.requests.length, 1);
});

Gate('A25 B7 B10 B18 F9: the reviewer is asked with the persona\'s model, max_turns and effective tools, and sees the blast radius', async () => {
  const s = setup(APPROVE);
  await s.call();
  const r = s.reviewer.requests[0];
  assert.ok(r.kind === 'review' && r.contract === 'decision');
  if (r.kind !== 'review' || r.contract !== 'decision') return;
  assert.equal([r.persona.name, r.persona.model, r.persona.max_turns], ['reviewer', 'anthropic/claude-opus-4-7', 5]);
  assert.match(r.prompt, 'Blast radius: single_device\n');
  assert.equal(r.toolSpecs, [], 'the gate here lends no tools, so none are described');
  assert.match(r.prompt, '看不清就 reject');
});

Gate('§4.4: a reviewer that crashes is a reject with a rejected row; the tool does not run', async () => {
  const s = setup(() => {
    throw new CountersignError('E_AGENT_CRASHED', 'the reviewer process died');
  });
  const e = await rejection(s.call());
  assert.is(e.code, 'ErrReviewRejected');
  assert.match(e.message, /the reviewer process died/);
  assert.is(listProposals(s.store)[0].status, 'rejected');
  assert.is(s.inner.calls.length, 0);
});

Gate('F4–F7 §4.6: force_approve_no_sop reaches the reviewer only with a matching recorded confirmation; otherwise it is dropped and logged', async () => {
  const logged: string[] = [];
  const s = setup(APPROVE, { log: (m) => logged.push(m) });
  await s.call(undefined, { forceApproveNoSop: true });
  const first = s.reviewer.requests[0];
  assert.ok(first.kind === 'review' && first.contract === 'decision' && first.proposal.force_approve_no_sop === undefined);
  assert.match(logged[0], /force_approve_no_sop .* ignored/);
  const confirmation = recordConfirmation(s.store, { operator: 'user_42', action: 'host_restart_service', target: { device_id: 7, service: 'nginx' } });
  await s.call(undefined, { forceApproveNoSop: true, confirmationId: confirmation.id });
  const second = s.reviewer.requests[1];
  assert.ok(second.kind === 'review' && second.contract === 'decision' && second.proposal.force_approve_no_sop === true);
  assert.is(logged.length, 1);
});

Gate('B8 B9 D1: while the reviewer works the review is observable as pending, and a notification fires with the outcome when it settles', async () => {
  const events: string[] = [];
  let seenPending: string[] = [];
  const s = setup(() => {
    seenPending = s.gate.pending().map((p) => p.tool);
    events.push('reviewer');
    return { reply: APPROVE };
  }, {
    onPending: (review) => events.push(`pending ${review.tool} ${review.proposal.operator}`),
    onSettled: (review, outcome) => events.push(`settled ${review.tool} ${outcome}`),
  });
  await s.call();
  assert.equal(seenPending, ['host_restart_service'], 'pending while the reviewer runs');
  assert.equal(events, ['pending host_restart_service user_42', 'reviewer', 'settled host_restart_service approved']);
  assert.equal(s.gate.pending(), [], 'nothing pending once settled');
});

Gate('B9: a host\'s onSettled that throws never turns an approval into a rejection: the tool runs, the approved row stands, the failure is logged', async () => {
  const logged: string[] = [];
  const s = setup(APPROVE, { onSettled: () => { throw new Error('toast failed'); }, log: (m) => logged.push(m) });
  await s.call();
  assert.is(s.inner.calls.length, 1, 'the approved call ran');
  assert.equal(listProposals(s.store).map((r) => r.status), ['approved']);
  assert.equal(listExecutions(s.store).map((r) => r.ok), [true]);
  assert.match(logged.join('\n'), 'onSettled failed for host_restart_service (approved): toast failed; the verdict stands');
});

Gate('A26: the proposal\'s context_summary is the coordinator\'s running summary from the call context', async () => {
  const s = setup(APPROVE);
  await s.call(undefined, { contextSummary: 'user asked twice; 502s since 09:12' });
  const r = s.reviewer.requests[0];
  assert.ok(r.kind === 'review' && r.contract === 'decision' && r.proposal.context_summary === 'user asked twice; 502s since 09:12');
  assert.is(listProposals(s.store)[0].context_summary, 'user asked twice; 502s since 09:12');
});

Gate('F6 §4.5 §4.6: after a rejection for no SOP, the user\'s confirmation earns the retry a fresh review instead of a deduped refusal', async () => {
  let replies = 0;
  const s = setup(() => ({ reply: replies++ === 0 ? REJECT : APPROVE }));
  await rejection(s.call(undefined, { forceApproveNoSop: true }));
  const deduped = await rejection(s.call(undefined, { forceApproveNoSop: true }));
  assert.is(deduped.code, 'ErrReviewRejected');
  assert.is(s.reviewer.requests.length, 1, 'an unconfirmed retry is deduped');
  const confirmation = recordConfirmation(s.store, { operator: 'user_42', action: 'host_restart_service', target: { device_id: 7, service: 'nginx' } });
  assert.equal(await s.call(undefined, { forceApproveNoSop: true, confirmationId: confirmation.id }), { restarted: 'nginx', on: 7 });
  assert.is(s.reviewer.requests.length, 2, 'the confirmed retry was reviewed');
});

const Config = suite('review gate construction');

Config('A11 F10 F11: DefaultReviewerTimeout is 60 000; a ceiling under 30 s is refused, 30 s is accepted', () => {
  assert.is(DefaultReviewerTimeout, 60_000);
  const base = { store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent };
  assert.is(createGate(base).timeoutMs, 60_000);
  assert.throws(() => createGate({ ...base, timeoutMs: 29_999 }), (e: CountersignError) => e.code === 'E_GATE_CONFIG' && /30000/.test(e.message));
  assert.is(createGate({ ...base, timeoutMs: 30_000 }).timeoutMs, 30_000);
});

Config('B17 F13 F14: a missing persona, a renamed one and one without the deny entries are construction errors', () => {
  const base = { store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent };
  const dir = tempDir('countersign-agents-');
  assert.throws(() => createGate({ ...base, agentsDir: dir }), (e: CountersignError) => e.code === 'E_FILE_NOT_FOUND');
  const text = readFileSync(SHIPPED_REVIEWER, 'utf8');
  writeFileSync(join(dir, 'reviewer.md'), text.replace(/^name: reviewer$/m, 'name: approver'));
  assert.throws(() => createGate({ ...base, agentsDir: dir }), (e: CountersignError) => e.code === 'E_PERSONA_NAME');
  writeFileSync(join(dir, 'reviewer.md'), text.replace(/^\s*- "?\*_skill"?.*$/m, ''));
  assert.throws(() => createGate({ ...base, agentsDir: dir }), (e: CountersignError) => e.code === 'E_PERSONA_DENY');
});

Config('F9: without agentsDir each persona is ./agents/<name>.md when the working directory has it, else the shipped file: a project with only its own ops.md keeps the shipped reviewer; a persona in neither names the path to write', () => {
  const project = tempDir('countersign-project-');
  mkdirSync(join(project, 'agents'));
  writeFileSync(join(project, 'agents', 'ops.md'), readFileSync(SHIPPED_REVIEWER, 'utf8').replace(/^name: reviewer$/m, 'name: ops'));
  const before = process.cwd();
  process.chdir(project);
  try {
    const base = { store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent, log: () => {} };
    const ops = createGate({ ...base, persona: 'ops', personaFor: { drop_table: 'reviewer' } });
    assert.equal([...ops.personas].sort(), ['ops', 'reviewer'], "the project's ops and the shipped reviewer");
    const e = thrownWithCode(() => createGate({ ...base, persona: 'db' }), 'E_FILE_NOT_FOUND');
    assert.match(e.message, `persona "db" not found: there is no ${join(realpathSync(project), 'agents', 'db.md')}`);
    assert.match(e.fix ?? '', 'write the persona as agents/db.md in');
  } finally {
    process.chdir(before);
  }
});

Config('F15 F16: personaFor routes a tool to its own persona, and more than one persona in use is warned about', async () => {
  const dir = tempDir('countersign-agents-');
  copyFileSync(SHIPPED_REVIEWER, join(dir, 'reviewer.md'));
  writeFileSync(join(dir, 'db-reviewer.md'), readFileSync(SHIPPED_REVIEWER, 'utf8').replace(/^name: reviewer$/m, 'name: db-reviewer'));
  const reviewer = reviewerAgent(APPROVE);
  const gate = createGate({ store: createMemoryStore(), reviewer: reviewer.agent, agentsDir: dir, personaFor: { drop_table: 'db-reviewer' } });
  assert.equal([...gate.personas].sort(), ['db-reviewer', 'reviewer']);
  assert.match(gate.warnings.join('\n'), /2 reviewer personas/);
  const proposal = (action: string) => ({ action, target: { id: 1 }, reason: 'r', blast_radius: 'cluster' as const, operator: 'u', context_summary: 's' });
  await gate.review(proposal('drop_table'), { name: 'drop_table', class: 'destructive' });
  await gate.review(proposal('host_restart_service'), { name: 'host_restart_service', class: 'write' });
  const names = reviewer.requests.map((r) => (r.kind === 'review' && r.contract === 'decision' ? r.persona.name : ''));
  assert.equal(names, ['db-reviewer', 'reviewer']);
});

Config('F15: personaFor keys are tools the gate names: a misspelt one is refused by a driven run (E_CHAIN_INVALID), never left to the default reviewer', async () => {
  const dir = tempDir('countersign-agents-');
  copyFileSync(SHIPPED_REVIEWER, join(dir, 'reviewer.md'));
  writeFileSync(join(dir, 'db-reviewer.md'), readFileSync(SHIPPED_REVIEWER, 'utf8').replace(/^name: reviewer$/m, 'name: db-reviewer'));
  const gate = reviewGate({ store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent, agentsDir: dir, personaFor: { drop_tabel: 'db-reviewer' }, log: () => {} });
  assert.equal(gate.namedTools, ['drop_tabel']);
  const { createEngine } = await import('../../engine/run/engine.js');
  const { defineTool } = await import('../../engine/tools/tool.js');
  const drop = defineTool({ name: 'drop_table', class: 'destructive', inputSchema: { type: 'object' }, run: async () => ({}) });
  const engine = createEngine({ store: createMemoryStore(), tools: [drop] });
  const wf = { metadata: { name: 'w', version: '1.0.0', description: 'd' }, nodes: [
    { type: 'start', id: 'start', connections: { default: 'a' } },
    { type: 'agent-directive', id: 'a', directive: 'd', completionCondition: 'c', connections: { success: 'e' } },
    { type: 'end', id: 'e' },
  ] };
  const e = await engine.run(wf as never, { agent: { answer: async () => ({}) }, toolChain: { reviewGate: gate } }).then(() => undefined, (err: CountersignError) => err);
  assert.is(e?.code, 'E_CHAIN_INVALID');
  assert.match(e?.message ?? '', 'names the tool "drop_tabel", which no tool of this run has — did you mean "drop_table"?');
});

Config('a gate that provides none of the tools its persona lists says so when built (the reviewer is told it may call none), and not when it lends them', async () => {
  const bare = createGate({ store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent });
  assert.match(bare.warnings.join('\n'), /persona "reviewer" lists tools \(.*get_sop_text.*\) but this gate provides none of them/);
  const { defineTool } = await import('../../engine/tools/tool.js');
  const sop = defineTool({ name: 'get_sop_text', class: 'read', inputSchema: { type: 'object' }, run: async () => ({ text: 'SOP-007' }) });
  const lent = createGate({ store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent, tools: [sop] });
  assert.not.match(lent.warnings.join('\n'), 'provides none of them');
});

Config('A2 A3: only the gate spawns a reviewer persona — a host spawner naming it is refused', () => {
  const gate = createGate({ store: createMemoryStore(), reviewer: reviewerAgent(APPROVE).agent });
  assert.throws(() => refuseReviewerSpawn('reviewer', gate), (e: CountersignError) => e.code === 'E_PERSONA_RESERVED');
  refuseReviewerSpawn('sre-worker', gate);
});

Gate.run();
Config.run();
