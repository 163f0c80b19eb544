/**
 * What keeps the gate's verdict the reviewer's own (A2, A3, A16, A18, B16,
 * E11, F10, F15, §4.4): only the reviewer the gate spawned can answer its
 * review; the proposal names the gated tool; the reviewer's tools are
 * exactly the ones its persona was allowed; an unknown class is gated, not
 * passed; a persona without a body is refused at construction; and a long
 * ceiling is honoured by the driver.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, AnswerOptions } from '../../engine/hosts/agent.js';
import { createEngine } from '../../engine/run/engine.js';
import { createGate } from '../../engine/gate/gate.js';
import { chain } from '../../engine/gate/chain.js';
import { listProposals } from '../../engine/gate/ledger.js';
import { validatePersonaFile } from '../../engine/gate/persona-lint.js';
import type { Proposal } from '../../engine/gate/proposal.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { defineTool, type Tool } from '../../engine/tools/tool.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { writeFileSync } from 'node:fs';
import { ARGS, CTX, fullChain, RESTART_SCHEMA } from './fixtures.js';

const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.';
const REJECT = '**Decision: reject**\n\n**Gates**\n- ✗ parallel operation detected\n\n**Notes**\nparallel operation detected';
const PROPOSAL: Proposal = {
  action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', blast_radius: 'single_device', operator: 'user_42', context_summary: 'x',
};
const RESTART = { name: 'host_restart_service', class: 'write' as const };
const agent = (reply: string): Agent => ({ answer: async () => ({ reply }) });

const Integrity = suite('gate integrity');

Integrity('A2 A3 §4.4: an approval submitted to the gate\'s review by anyone but its reviewer is refused (E_REVIEWER_IDENTITY, free) and the reviewer\'s reject stands', async () => {
  const store = createMemoryStore();
  const other = createEngine({ store });
  let foreign: Awaited<ReturnType<typeof other.submit>> | undefined;
  const reviewer: Agent = {
    async answer(request: AgentRequest) {
      const { runId, seq } = request as AgentRequest & { runId: string; seq: number };
      // While the reviewer works, someone with the store answers its review.
      foreign = await other.submit(runId, { reply: APPROVE }, { seq, as: 'coordinator' });
      return { reply: REJECT };
    },
  };
  const gate = createGate({ store, reviewer, log: () => {} });
  const result = await gate.review(PROPOSAL, RESTART);
  assert.ok(foreign && foreign.status === 'waiting' && foreign.rejected?.code === 'E_REVIEWER_IDENTITY', JSON.stringify(foreign));
  assert.is(result.outcome, 'rejected');
  assert.equal(listProposals(store).map((r) => r.status), ['rejected']);
  const forged = await rejection(other.submit(result.runId!, { reply: APPROVE }, { as: 'reviewer' }));
  assert.is(forged.code, 'E_RUN_NOT_WAITING', 'and nothing can be answered after the verdict');
});

Integrity('E11 F10: the driver waits for the reviewer as long as the gate\'s ceiling, past its 10-minute default', async () => {
  const seen: number[] = [];
  const reviewer: Agent = { answer: async (_r, options: AnswerOptions) => { seen.push(options.timeoutMs); return { reply: APPROVE }; } };
  const gate = createGate({ store: createMemoryStore(), reviewer, timeoutMs: 700_000, log: () => {} });
  assert.is((await gate.review(PROPOSAL, RESTART)).outcome, 'approved');
  assert.ok(seen[0] > 600_000 && seen[0] <= 700_000, `waited ${seen[0]} ms`);
});

Integrity('A23 §4.13: a proposal whose action is not the gated tool is E_PROPOSAL before any review or row', async () => {
  const store = createMemoryStore();
  let runs = 0;
  const gate = createGate({ store, reviewer: { answer: async () => { runs++; return { reply: APPROVE }; } }, log: () => {} });
  const e = await rejection(gate.review({ ...PROPOSAL, action: 'get_sop_text' }, { name: 'kill_process', class: 'destructive' }));
  assert.equal([e.code, e.pointer], ['E_PROPOSAL', '/action']);
  assert.equal([runs, listProposals(store).length], [0, 0]);
});

Integrity('B16: two tools of one name in the gate\'s tools are E_GATE_CONFIG — the reviewer could otherwise run the write one under the read one\'s name', () => {
  const tool = (cls: 'read' | 'write'): Tool => defineTool({ name: 'get_sop_text', class: cls, inputSchema: { type: 'object' }, run: () => ({}) });
  const e = thrownWithCode(() => createGate({ store: createMemoryStore(), reviewer: agent(APPROVE), tools: [tool('write'), tool('read')] }), 'E_GATE_CONFIG');
  assert.match(e.message, '"get_sop_text" twice');
});

Integrity('F15: tools named like Object.prototype members (constructor, toString) are reviewed by the default persona when personaFor is set', async () => {
  const gate = createGate({ store: createMemoryStore(), reviewer: agent(APPROVE), personaFor: { drop_table: 'reviewer' }, log: () => {} });
  for (const name of ['constructor', 'toString']) {
    const result = await gate.review({ ...PROPOSAL, action: name }, { name, class: 'write' });
    assert.equal([result.outcome, result.row?.persona], ['approved', 'reviewer'], name);
  }
});

Integrity('A16 A18 §4.4: chain() refuses a tool whose class is not read, write or destructive; the review_gate decorator gates anything but read', async () => {
  const run = async () => ({ restarted: true });
  for (const cls of ['Write', undefined]) {
    const tool = { name: 'host_restart_service', class: cls, inputSchema: RESTART_SCHEMA, run, checkArgs: (a: unknown) => a } as unknown as Tool;
    const e = thrownWithCode(() => chain(tool, {}), 'E_TOOL_DEFINITION');
    assert.match(e.message, 'not one of read, write, destructive');
  }
  // Handed such a tool directly, the decorator still asks for a review.
  const calls: string[] = [];
  const f = fullChain(defineTool({ name: 'host_restart_service', class: 'write', inputSchema: RESTART_SCHEMA, run }), { outcome: 'rejected', reason: 'no' });
  const wrapped = f.gate.wrap(async () => { calls.push('inner'); return null; }, { name: 'odd', class: 'Write' } as unknown as Tool);
  await rejection(wrapped({ tool: { name: 'odd' } as unknown as Tool, args: ARGS, ctx: CTX, operator: 'user_42' }));
  assert.equal([f.decide.proposals.length, calls.length], [1, 0]);
});

Integrity('C1 A7 §4.4: a persona with no body is refused by validate and at gate construction (E_PERSONA_BODY), not at every call', () => {
  const text = readFileSync(join(ROOT, 'agents/reviewer.md'), 'utf8');
  const dir = tempDir('countersign-integrity-');
  writeFileSync(join(dir, 'reviewer.md'), `${text.slice(0, text.indexOf('\n---', 4) + 4)}\n\n`);
  const report = validatePersonaFile(join(dir, 'reviewer.md'));
  assert.equal(report.errors.map((e) => e.code), ['E_PERSONA_BODY']);
  // Located where the body must be written: the line after the closing "---".
  const closing = text.slice(0, text.indexOf('\n---', 4) + 4).split('\n').length;
  assert.equal([report.errors[0].line, report.errors[0].col], [closing + 1, 1]);
  const e = thrownWithCode(() => createGate({ store: createMemoryStore(), reviewer: agent(APPROVE), agentsDir: dir }), 'E_PERSONA_BODY');
  assert.is(e.file, join(dir, 'reviewer.md'));
  assert.match(e.message, 'no body');
});

Integrity('B13–B16 §4.4: a reviewer that runs a look-up and then crashes is a reject, and the look-up it ran is journaled as tool.called', async () => {
  const store = createMemoryStore();
  let ran = 0;
  const sop = defineTool({ name: 'get_sop_text', class: 'read', inputSchema: { type: 'object' }, run: () => { ran++; return { sop_id: 'SOP-007' }; } });
  const reviewer: Agent = {
    async answer(request, options) {
      await options.tools!.runner!.call('get_sop_text', {}, request);
      throw new Error('the reviewer process died');
    },
  };
  const gate = createGate({ store, reviewer, tools: [sop], log: () => {} });
  const result = await gate.review(PROPOSAL, RESTART);
  assert.is(result.outcome, 'rejected');
  assert.is(ran, 1);
  const { events } = await createEngine({ store }).trace(result.runId!);
  assert.equal(events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok]), [['get_sop_text', true]]);
});

Integrity.run();

const Round2 = suite('gate integrity: arguments and in-process reviewers');

Round2('A18 E2 §4.13: arguments edited by the caller while the review is pending change nothing — the approved target is what runs and is audited', async () => {
  const { reviewGate } = await import('../../engine/gate/gate.js');
  const { tenantBindDecorator } = await import('../../engine/gate/decorators/tenant-bind.js');
  const { auditDecorator } = await import('../../engine/gate/decorators/audit.js');
  const store = createMemoryStore();
  const ranWith: unknown[] = [];
  const inner = defineTool({ name: 'host_restart_service', class: 'write', inputSchema: RESTART_SCHEMA, run: (a) => (ranWith.push(a), { ok: true }) });
  const rows: unknown[] = [];
  let release: () => void = () => {};
  const slow: Agent = { answer: () => new Promise((resolve) => (release = () => resolve({ reply: APPROVE }))) };
  const tool = chain(inner, { tenantBind: tenantBindDecorator(), reviewGate: reviewGate({ store, reviewer: slow, log: () => {} }), audit: auditDecorator({ sink: { writeExecution: (row) => void rows.push(row.args) } }) });
  const args = { device_id: 7, service: 'nginx' };
  const call = tool.run(args, { userId: 'user_42', reason: 'r', contextSummary: 's' });
  await new Promise((r) => setTimeout(r, 50));
  args.device_id = 999;
  args.service = 'postgres';
  release();
  await call;
  assert.equal(ranWith, [{ device_id: 7, service: 'nginx' }]);
  assert.equal(rows, [{ device_id: 7, service: 'nginx' }]);
  assert.equal(listProposals(store)[0].target, { device_id: 7, service: 'nginx' });
});

Round2('B13–B16 B5: an in-process reviewer calling the runner directly gets E_TOOL_DENIED for a tool outside its effective list (which never runs), and past max_turns its reply is not taken', async () => {
  let killed = 0;
  const sop = defineTool({ name: 'get_sop_text', class: 'read', inputSchema: { type: 'object' }, run: () => ({ sop_id: 'SOP-007' }) });
  const kill = defineTool({ name: 'kill_process', class: 'destructive', inputSchema: { type: 'object' }, run: () => (killed++, 'killed') });
  const denied: string[] = [];
  const greedy: Agent = {
    async answer(request, options: AnswerOptions) {
      try {
        await options.tools!.runner!.call('kill_process', {}, request);
      } catch (e) {
        denied.push((e as { code: string }).code);
      }
      return { reply: APPROVE };
    },
  };
  const r1 = await createGate({ store: createMemoryStore(), reviewer: greedy, tools: [sop, kill], log: () => {} }).review(PROPOSAL, RESTART);
  assert.equal(denied, ['E_TOOL_DENIED']);
  assert.is(killed, 0);
  assert.is(r1.outcome, 'approved', 'a refused call is only a refused call');

  const chatty: Agent = {
    async answer(request, options: AnswerOptions) {
      for (let i = 0; i < 10; i++) {
        try {
          await options.tools!.runner!.call('get_sop_text', {}, request);
        } catch {
          break;
        }
      }
      return { reply: APPROVE };
    },
  };
  const r2 = await createGate({ store: createMemoryStore(), reviewer: chatty, tools: [sop], log: () => {} }).review(PROPOSAL, RESTART);
  assert.is(r2.outcome, 'rejected');
  assert.match(String(r2.reason), /E_MAX_TURNS/);
});

Round2.run();
