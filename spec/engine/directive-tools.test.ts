/**
 * `$tool` requests from directive items (issue 5, ADR-019 H35–H36): the
 * node's `agent` role decides by the workflow's access map, a read tool
 * runs as asked, and a write or destructive tool goes through the review
 * gate when the host configured one — and is refused otherwise.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CountersignError,
  createEngine,
  createMemoryStore,
  defineTool,
  gateToolChain,
  listExecutions,
  listProposals,
  rateLimitDecorator,
  timeoutDecorator,
  type Agent,
  type AgentRequest,
  type JsonObject,
  type JsonValue,
  type Store,
  type ToolRunner,
  type Workflow,
} from '../../engine/index.js';

interface Ran {
  name: string;
  args: unknown;
  userId?: string;
  workspace?: string;
  operator?: string;
}

function tools(ran: Ran[]) {
  const record = (name: string) => async (args: Record<string, unknown>, ctx: { userId?: string; workspace?: string; operator?: string }) => {
    ran.push({ name, args, userId: ctx.userId, workspace: ctx.workspace, operator: ctx.operator });
    return { done: name };
  };
  const object = (props: JsonObject, required: string[]): JsonObject => ({ type: 'object', properties: props, required, additionalProperties: false });
  return [
    defineTool({ name: 'lookup', class: 'read', description: 'reads a record', inputSchema: object({ id: { type: 'integer' } }, ['id']), run: record('lookup') }),
    defineTool({ name: 'post', class: 'write', inputSchema: object({ verdict: { enum: ['APPROVE', 'REQUEST_CHANGES'] } }, ['verdict']), run: record('post') }),
    defineTool({ name: 'wipe', class: 'destructive', inputSchema: object({}, []), run: record('wipe') }),
  ];
}

/** One directive (role `agent` when given) under an access map that gives `post` to reviewers and `wipe` to admins. */
function flow(agent?: string): Workflow {
  return {
    metadata: { name: 'agent-tools', version: '1.0.0', description: 'a directive whose agent calls tools' },
    access: { reviewer: ['post'], admin: ['wipe'] },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'work' } },
      {
        type: 'agent-directive', id: 'work', directive: 'Review the change and post your verdict.', completionCondition: 'posted',
        ...(agent ? { agent } : {}),
        inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
        connections: { success: 'done' },
      },
      { type: 'end', id: 'done', finalOutput: ['work.note'] },
    ],
  } as unknown as Workflow;
}

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  result?: JsonValue;
}

/** An in-process agent that makes `calls` through the runner it is lent, records what came back, then answers. */
function caller(calls: Array<{ name: string; args: JsonValue; reason?: string }>, seen: { request?: AgentRequest; outcomes: Outcome[] }): Agent {
  return {
    async answer(request, options) {
      seen.request = request;
      for (const c of calls) {
        try {
          const runner = options.tools?.runner;
          if (!runner) throw Object.assign(new Error('no runner lent'), { code: 'NO_RUNNER' });
          const result = await runner.call(c.name, c.args, request, c.reason !== undefined ? { reason: c.reason } : undefined);
          seen.outcomes.push({ ok: true, result });
        } catch (e) {
          const err = e as { code?: string; message: string };
          seen.outcomes.push({ ok: false, code: err.code, message: err.message });
        }
      }
      return { note: 'done' };
    },
  };
}

const approving: Agent = { answer: async () => ({ reply: 'Decision: approve\nSOP: SOP-12 applies; target state is stated.' }) };
const rejecting: Agent = { answer: async () => ({ reply: 'Decision: reject\n\n**Gates**\n- ✗ no SOP covers this change' }) };

function setup(): { store: Store; ran: Ran[]; engine: ReturnType<typeof createEngine> } {
  const store = createMemoryStore();
  const ran: Ran[] = [];
  return { store, ran, engine: createEngine({ store, tools: tools(ran) }) };
}

const T = suite('$tool requests from directive items');

T('H35/H36: a directive is offered, in toolSpecs, exactly the tools its role may use — its own, and those no role claims — with their class and schema', async () => {
  const { engine } = setup();
  const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  const { store } = { store: createMemoryStore() };
  const r = await engine.run(flow('reviewer'), { agent: caller([], seen), toolChain: gateToolChain({ store, reviewer: approving }) });
  assert.is(r.status, 'completed');
  const specs = seen.request?.toolSpecs ?? [];
  // The built-in writes are claimed by no role here, so the gate makes them callable too.
  assert.equal(specs.map((s) => [s.name, s.class]), [['post_review', 'write'], ['post_docs_review', 'write'], ['pr_status', 'read'], ['lookup', 'read'], ['post', 'write']]);
  assert.equal(specs.find((s) => s.name === 'post')?.inputSchema, tools([])[1].inputSchema);
  assert.is(specs.find((s) => s.name === 'lookup')?.description, 'reads a record');
});

T('adapters that cannot call tools (exec, scripted, interactive) are offered none: their requests carry no toolSpecs, while an agent that can is offered them', async () => {
  const { engine } = setup();
  const { createAgent, createScriptedAgent } = await import('../../engine/index.js');
  assert.is(createScriptedAgent({}).callsTools, false);
  assert.is(createAgent('interactive', { cwd: process.cwd() }).callsTools, false);
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'countersign-exec-tools-'));
  const exec = createAgent(`exec:cat > request.json; echo '{"note": "done"}'`, { cwd: dir });
  assert.is(exec.callsTools, false);
  const r = await engine.run(flow(), { agent: exec, workspace: dir });
  assert.is(r.status, 'completed', JSON.stringify(r));
  const request = JSON.parse(readFileSync(join(dir, 'request.json'), 'utf8'));
  assert.is(request.nodeId, 'work');
  assert.not.ok('toolSpecs' in request, 'an exec agent is offered no tools it could never call');
  const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  await engine.run(flow(), { agent: caller([], seen) });
  assert.ok((seen.request?.toolSpecs ?? []).some((t) => t.name === 'lookup'), 'an in-process agent still is');
});

T('a $tool result JSON would change (NaN, a Map) is E_TOOL_FAILED saying the tool ran, never handed to the agent altered', async () => {
  for (const [value, pattern] of [[{ n: Number.NaN }, /at \/n: it is NaN, which JSON has no number for/], [{ m: new Map([['a', 1]]) }, /it is a Map/], [() => 1, /is not JSON/]] as const) {
    const odd = defineTool({ name: 'lookup', class: 'read', inputSchema: { type: 'object' }, run: async () => value });
    const engine = createEngine({ store: createMemoryStore(), tools: [odd, ...tools([]).filter((t) => t.name !== 'lookup')] });
    const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
    await engine.run(flow(), { agent: caller([{ name: 'lookup', args: {} }], seen) });
    assert.is(seen.outcomes[0].code, 'E_TOOL_FAILED', String(pattern));
    assert.match(seen.outcomes[0].message ?? '', /ran \(it may have taken effect\), but its result/);
    assert.match(seen.outcomes[0].message ?? '', pattern);
  }
});

T('a tool call still running when the wait for the agent ends is on the record: with its outcome if it ends within a second, else as E_TOOL_UNFINISHED (it may yet take effect)', async () => {
  for (const [ms, expected] of [[300, { name: 'lookup', ok: true }], [2500, { name: 'lookup', ok: false, code: 'E_TOOL_UNFINISHED' }]] as const) {
    const slow = defineTool({ name: 'lookup', class: 'read', inputSchema: { type: 'object' }, run: () => new Promise((r) => setTimeout(() => r({ late: true }), ms)) });
    const engine = createEngine({ store: createMemoryStore(), tools: [slow, ...tools([]).filter((t) => t.name !== 'lookup')] });
    // Calls the tool and then never answers: the wait for it ends first.
    const stuck: Agent = { answer: async (request, options) => { await options.tools?.runner?.call('lookup', {}, request); return new Promise(() => undefined); } };
    const result = await engine.run(flow(), { agent: stuck, agentTimeoutMs: 100 });
    assert.is(result.error?.code, 'E_AGENT_TIMEOUT');
    const calls = (await engine.trace(result.runId)).events.filter((e) => e.type === 'tool.called').map((e) => ({ name: e.name, ok: e.ok, ...(e.code ? { code: e.code } : {}) }));
    assert.equal(calls, [expected], `a ${ms} ms call`);
  }
});

T('ADR-019: an engine tool that throws a refusal code (E_TOOL_ARGS) once it has started is a failure, not a refusal: E_TOOL_FAILED, the item stops, and it is never run again', async () => {
  let ran = 0;
  const charge = defineTool({ name: 'lookup', class: 'read', inputSchema: { type: 'object' }, run: async () => { ran++; throw new CountersignError('E_TOOL_ARGS', 'downstream rejected the amount after the entry was written'); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [charge, ...tools([]).filter((t) => t.name !== 'lookup')] });
  const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  const result = await engine.run(flow(), { agent: caller([{ name: 'lookup', args: {} }, { name: 'lookup', args: {} }], seen) });
  assert.equal(seen.outcomes.map((o) => o.code), ['E_TOOL_FAILED', 'E_TOOL_STOPPED']);
  assert.is(ran, 1, 'never run again');
  assert.is(result.status, 'failed');
  // Arguments the chain itself refuses (before the tool starts) stay a refusal the agent may correct.
  const strict = defineTool({ name: 'lookup', class: 'read', inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }, run: async () => ({ ok: true }) });
  const again = createEngine({ store: createMemoryStore(), tools: [strict, ...tools([]).filter((t) => t.name !== 'lookup')] });
  const seen2: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  await again.run(flow(), { agent: caller([{ name: 'lookup', args: {} }, { name: 'lookup', args: { id: 1 } }], seen2) });
  assert.equal(seen2.outcomes.map((o) => o.code ?? 'ok'), ['E_TOOL_ARGS', 'ok']);
});

T('ADR-019: the fix of an engine tool that failed while the agent worked (gh\'s "run gh auth login") reaches the run\'s error and the journal, as a failed tool node keeps it', async () => {
  const broken = defineTool({ name: 'lookup', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw new CountersignError('E_TOOL_FAILED', 'gh is not logged in', { fix: 'run gh auth login' }); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [broken, ...tools([]).filter((t) => t.name !== 'lookup')] });
  const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  const result = await engine.run(flow(), { agent: caller([{ name: 'lookup', args: {} }], seen) });
  assert.is(result.status, 'failed');
  const state = await engine.status(result.runId);
  assert.is(state.status === 'failed' && state.error.code, 'E_TOOL_FAILED');
  assert.match(state.status === 'failed' ? state.error.fix ?? '' : '', /^run gh auth login; then: /);
  const called = (await engine.trace(result.runId)).events.find((e) => e.type === 'tool.called');
  assert.is(called?.fix, 'run gh auth login');
});

T('H35: an agent that says it calls no tools (callsTools: false) is lent none, never the host\'s runner unfiltered (no access map, no gate, no schema)', async () => {
  const ran: string[] = [];
  const host: ToolRunner = {
    names: () => ['lent_wipe'],
    spec: (n) => ({ name: n, class: 'destructive', inputSchema: { type: 'object' } }),
    async call(name) { ran.push(name); return { ok: true }; },
  };
  const wf = {
    metadata: { name: 'f', version: '1.0.0', description: 'd' },
    access: { admin: ['lent_wipe'] },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'work' } },
      { type: 'agent-directive', id: 'work', agent: 'worker', directive: 'Do it.', completionCondition: 'done', inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  let lent: unknown = 'unset';
  const agent: Agent = { callsTools: false, answer: async (_req, options) => { lent = options.tools?.runner; return { note: 'x' }; } };
  const r = await createEngine({ store: createMemoryStore() }).run(wf, { agent, tools: host });
  assert.is(r.status, 'completed');
  assert.is(lent, undefined, 'no runner was lent');
  assert.equal(ran, []);
});

T('H35/H36: a role asking for another role\'s tool is refused at run time (E_TOOL_ACCESS, naming the owner); the tool never runs, and the refusal is journaled', async () => {
  const { engine, ran, store } = setup();
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(flow('reviewer'), { agent: caller([{ name: 'wipe', args: {}, reason: 'clean up' }], seen), toolChain: gateToolChain({ store, reviewer: approving }) });
  assert.is(r.status, 'completed');
  assert.is(seen.outcomes[0].code, 'E_TOOL_ACCESS');
  assert.match(seen.outcomes[0].message ?? '', /role "reviewer" may not use tool "wipe".*"admin"/);
  assert.equal(ran, []);
  assert.equal(listProposals(store), [], 'no review ran for a refused call');
  const called = (await engine.trace(r.runId)).events.filter((e) => e.type === 'tool.called');
  assert.equal(called.map((e) => [e.name, e.ok, e.code]), [['wipe', false, 'E_TOOL_ACCESS']]);
});

T('H35: a directive without an agent role may use only tools no role claims: a read tool runs, a claimed one is refused', async () => {
  const { engine, ran } = setup();
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(flow(), { agent: caller([{ name: 'lookup', args: { id: 7 } }, { name: 'post', args: { verdict: 'APPROVE' }, reason: 'ok' }], seen), workspace: process.cwd() });
  assert.is(r.status, 'completed');
  assert.equal(seen.outcomes[0], { ok: true, result: { done: 'lookup' } });
  assert.is(seen.outcomes[1].code, 'E_TOOL_ACCESS');
  assert.match(seen.outcomes[1].message ?? '', /names no agent role/);
  assert.equal(ran.map((x) => [x.name, x.userId, x.workspace]), [['lookup', 'local', process.cwd()]], 'the read ran once, as the answering identity, in the run\'s workspace');
});

T('§4.13/ADR-019: a write tool the role may use is refused without a review gate (E_GATE_REQUIRED) and never runs; toolSpecs does not offer it', async () => {
  const { engine, ran } = setup();
  const seen: { request?: AgentRequest; outcomes: Outcome[] } = { outcomes: [] };
  const r = await engine.run(flow('reviewer'), { agent: caller([{ name: 'post', args: { verdict: 'APPROVE' }, reason: 'the diff is fine' }], seen) });
  assert.is(r.status, 'completed');
  assert.is(seen.outcomes[0].code, 'E_GATE_REQUIRED');
  assert.match(seen.outcomes[0].message ?? '', /"post" is write.*no review gate/);
  assert.equal(ran, []);
  assert.not.ok(seen.request?.toolSpecs?.some((s) => s.name === 'post'));
});

T('A3/A12–A14: with a gate, an approved write runs once with the answering identity as operator; the proposal row is approved and an execution row points at it', async () => {
  const { engine, ran, store } = setup();
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(flow('reviewer'), {
    agent: caller([{ name: 'post', args: { verdict: 'APPROVE' }, reason: 'the diff is fine' }], seen),
    as: 'alice',
    toolChain: gateToolChain({ store, reviewer: approving }),
  });
  assert.is(r.status, 'completed');
  assert.equal(seen.outcomes, [{ ok: true, result: { done: 'post' } }]);
  assert.equal(ran.map((x) => [x.name, x.operator]), [['post', 'alice']]);
  const [row] = listProposals(store);
  assert.equal([row.status, row.tool, row.operator, row.target], ['approved', 'post', 'alice', { verdict: 'APPROVE' }]);
  assert.match(row.context_summary, /node "work" \(role reviewer\): Review the change/);
  const [exec] = listExecutions(store);
  assert.equal([exec.tool, exec.ok, exec.proposal_id], ['post', true, row.id]);
});

T('A12/A13: a rejected write never runs; the agent gets ErrReviewRejected with the reviewer\'s reason and no execution row is written', async () => {
  const { engine, ran, store } = setup();
  const seen = { outcomes: [] as Outcome[] };
  await engine.run(flow('admin'), { agent: caller([{ name: 'wipe', args: {}, reason: 'disk full' }], seen), toolChain: gateToolChain({ store, reviewer: rejecting }) });
  assert.is(seen.outcomes[0].code, 'ErrReviewRejected');
  assert.match(seen.outcomes[0].message ?? '', /no SOP covers this change/);
  assert.equal(ran, []);
  assert.equal(listProposals(store).map((p) => p.status), ['rejected']);
  assert.equal(listExecutions(store), []);
});

T('A23/C5: a gated call without a reason is refused before any review (E_PROPOSAL); arguments that fail the schema are E_TOOL_ARGS before any review, and before the missing reason', async () => {
  const { engine, ran, store } = setup();
  const seen = { outcomes: [] as Outcome[] };
  await engine.run(flow('reviewer'), {
    agent: caller([{ name: 'post', args: { verdict: 'APPROVE' } }, { name: 'post', args: { verdict: 'APROVE' }, reason: 'fine' }, { name: 'post', args: { verdict: 'APROVE' } }], seen),
    toolChain: gateToolChain({ store, reviewer: approving }),
  });
  // Bad arguments and no reason: the arguments are named first (as the chain checks them).
  assert.equal(seen.outcomes.map((o) => o.code), ['E_PROPOSAL', 'E_TOOL_ARGS', 'E_TOOL_ARGS']);
  assert.match(seen.outcomes[0].message ?? '', /add "reason" to the \$tool line/);
  assert.equal(ran, []);
  assert.equal(listProposals(store), []);
});

T('H35: tools a host lends obey the same access map, and a lent tool named like an engine tool, or a misspelt toolChain option, is refused before the run starts (E_TOOL_DEFINITION, E_CHAIN_INVALID)', async () => {
  const { engine } = setup();
  const lent: string[] = [];
  const host = { names: () => ['wipe_cache', 'notes'], call: async (name: string) => (lent.push(name), 'ok') };
  const wf = flow('reviewer') as unknown as { access: Record<string, string[]> };
  wf.access.admin = ['wipe*'];
  const seen = { outcomes: [] as Outcome[] };
  await engine.run(wf as unknown as Workflow, { agent: caller([{ name: 'wipe_cache', args: {} }, { name: 'notes', args: {} }], seen), tools: host });
  assert.equal(seen.outcomes.map((o) => o.code ?? 'ok'), ['E_TOOL_ACCESS', 'ok']);
  assert.equal(lent, ['notes']);
  const before = (await engine.runs()).length;
  const clash = { names: () => ['lookup'], call: async () => 'x' };
  const code = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), tools: clash }).then(() => 'ran', (e: { code?: string }) => e.code);
  assert.is(code, 'E_TOOL_DEFINITION');
  assert.is((await engine.runs()).length, before, 'no run was started');
  const misspelt = { reviewgate: {} } as unknown as Parameters<typeof engine.run>[1]['toolChain'];
  const chainCode = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), toolChain: misspelt }).then(() => 'ran', (e: { code?: string }) => e.code);
  assert.is(chainCode, 'E_CHAIN_INVALID');
  assert.is((await engine.runs()).length, before, 'a misspelt chain option starts no run');
  // A perTool key (or gate skip name) no tool of the run has is a misspelling: the tool would silently get the default.
  for (const [option, decorator] of [['rateLimit', rateLimitDecorator({ perTool: { pots: { capacity: 1 } } })], ['timeout', timeoutDecorator({ perTool: { pots: 1000 } })]] as const) {
    const e = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), toolChain: { [option]: decorator } }).then(() => undefined, (err: { code?: string; message?: string }) => err);
    assert.is(e?.code, 'E_CHAIN_INVALID', option);
    assert.match(e?.message ?? '', `toolChain.${option} names the tool "pots", which no tool of this run has — did you mean "post"?`);
    assert.is((await engine.runs()).length, before, `${option}: no run was started`);
  }

  // A lent tool declared write with a name or class no tool may have: refused now, naming the lent tool, not at its first call.
  for (const [name, cls, said, schema] of [
    ['deploy:prod', 'write', 'is not 1–128 characters', { type: 'object' }],
    ['Deploy', 'Write', 'class "Write" is not one of', { type: 'object' }],
    ['look:up', 'read', 'is not 1–128 characters', { type: 'object' }],
    ['lookup2', undefined, 'inputSchema does not compile', { type: 'object', properties: { n: { type: 'integr' } } }],
  ] as const) {
    const bad = { names: () => [name], spec: () => ({ name, ...(cls ? { class: cls as 'write' } : {}), inputSchema: schema as never }), call: async () => 'x' };
    const e = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), tools: bad }).then(() => undefined, (err: { code?: string; message?: string }) => err);
    assert.is(e?.code, 'E_TOOL_DEFINITION');
    assert.match(e?.message ?? '', `the tool "${name}" the host lends its agents`);
    assert.match(e?.message ?? '', said);
    assert.is((await engine.runs()).length, before, 'a bad lent tool starts no run');
  }
  const known = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), toolChain: { rateLimit: rateLimitDecorator({ perTool: { post: { capacity: 1 } } }) } });
  assert.ok(known.runId, 'a perTool key naming a tool of the run is fine');
  // A key given as undefined is left out: tenantBind keeps its default (the answering identity).
  const spread = await engine.run(flow('reviewer'), { agent: caller([], { outcomes: [] }), toolChain: { tenantBind: undefined, rateLimit: undefined } as never });
  assert.ok(spread.runId, 'tenantBind: undefined is the default, not a chain error');
});

T('H35 ADR-019: a host\'s lent read tool is held to its declared schema (E_TOOL_ARGS, never called) and must return plain JSON (E_TOOL_FAILED, never handed on changed), as every other tool', async () => {
  const { engine } = setup();
  const called: JsonValue[] = [];
  const host = {
    names: () => ['find_note', 'odd'],
    spec: (name: string) => ({ name, class: 'read' as const, inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } }),
    call: async (name: string, args: JsonValue) => {
      called.push(args);
      return (name === 'odd' ? { when: new Date(0), count: Number.NaN } : { n: (args as { n: number }).n }) as unknown as JsonValue;
    },
  };
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(flow('reviewer'), { agent: caller([{ name: 'find_note', args: { n: 'x' } }, { name: 'find_note', args: { n: 2 } }, { name: 'odd', args: { n: 1 } }], seen), tools: host });
  assert.is(r.status, 'completed');
  assert.equal(seen.outcomes.map((o) => o.code ?? 'ok'), ['E_TOOL_ARGS', 'ok', 'E_TOOL_FAILED']);
  assert.equal(seen.outcomes[1].result, { n: 2 });
  assert.match(seen.outcomes[2].message!, 'its result');
  assert.equal(called, [{ n: 2 }, { n: 1 }], 'the call with bad arguments never reached the host');
  // A lent tool that returns nothing is E_TOOL_FAILED and, like any lent tool's failure, stops nothing.
  const voidHost = { names: () => ['void_tool', 'other'], call: async (name: string) => (name === 'other' ? 'other ok' : undefined) as unknown as JsonValue };
  const after = { outcomes: [] as Outcome[] };
  assert.is((await engine.run(flow('reviewer'), { agent: caller([{ name: 'void_tool', args: {} }, { name: 'other', args: {} }], after), tools: voidHost })).status, 'completed');
  assert.equal(after.outcomes.map((o) => o.code ?? o.result), ['E_TOOL_FAILED', 'other ok']);
});

T('a tool call the agent started and did not wait for is journaled with its outcome once it ends (within a second), or as E_TOOL_UNFINISHED', async () => {
  const { engine } = setup();
  const host = {
    names: () => ['slow_note', 'stuck_note'],
    call: (name: string) => new Promise<JsonValue>((resolve) => { if (name === 'slow_note') setTimeout(() => resolve('noted'), 150); }),
  };
  const agent: Agent = {
    async answer(_request, options) {
      void options.tools!.runner!.call('slow_note', {}, _request).catch(() => undefined);
      void options.tools!.runner!.call('stuck_note', {}, _request).catch(() => undefined);
      return { note: 'answered at once' };
    },
  };
  const r = await engine.run(flow('reviewer'), { agent, tools: host });
  assert.is(r.status, 'completed');
  const called = (await engine.trace(r.runId)).events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok, e.code ?? null]);
  assert.equal(called, [['slow_note', true, null], ['stuck_note', false, 'E_TOOL_UNFINISHED']]);
});

T('H35: a host\'s lent write tool that fails (through the gate) comes back as it threw, stops nothing, and the step takes the agent\'s answer; an engine tool\'s failure would stop the item', async () => {
  const { engine, store } = setup();
  const host = {
    names: () => ['deploy', 'notes'],
    spec: (name: string) => (name === 'deploy' ? { name, class: 'write' as const, inputSchema: { type: 'object' } } : { name }),
    call: async (name: string) => {
      if (name === 'deploy') throw new CountersignError('E_DEPLOY_DOWN', 'the deploy service is down');
      return 'noted';
    },
  };
  const wf = flow('reviewer') as unknown as { access: Record<string, string[]> };
  wf.access.reviewer = ['post', 'deploy', 'notes'];
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(wf as unknown as Workflow, {
    agent: caller([{ name: 'deploy', args: {}, reason: 'ship it' }, { name: 'notes', args: {} }], seen),
    tools: host,
    toolChain: gateToolChain({ store, reviewer: approving }),
  });
  assert.equal(seen.outcomes.map((o) => o.code ?? 'ok'), ['E_DEPLOY_DOWN', 'ok'], 'the host\'s own code, and the next call is not E_TOOL_STOPPED');
  assert.is(r.status, 'completed', JSON.stringify(r));
});

T('H35: an access map may name a tool only the host lends (run({tools})): it validates, and the role that owns it may call it', async () => {
  const { engine } = setup();
  const lent: string[] = [];
  const host = { names: () => ['deploy_notes'], call: async (name: string) => (lent.push(name), 'noted') };
  const wf = flow('reviewer') as unknown as { access: Record<string, string[]> };
  wf.access.reviewer = ['post', 'deploy_notes'];
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(wf as unknown as Workflow, { agent: caller([{ name: 'deploy_notes', args: {} }], seen), tools: host });
  assert.is(r.status, 'completed');
  assert.equal(seen.outcomes, [{ ok: true, result: 'noted' }]);
  assert.equal(lent, ['deploy_notes']);
});

T('H35/A3: a reviewer (issues review) is held to the same access map for the tools a host lends, by its reviewer role, and to the same gate for a lent write tool; it is offered no engine tools', async () => {
  const { mkdirSync, readFileSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const ws = mkdtempSync(join(tmpdir(), 'countersign-revtools-'));
  mkdirSync(join(ws, 'docs'));
  mkdirSync(join(ws, 'lib'));
  const wf = JSON.parse(readFileSync(new URL('../../workflows/review-fix-loop.json', import.meta.url), 'utf8'));
  wf.access = { admin: ['wipe_cache'] };
  const lent: string[] = [];
  // `deploy` is declared write: with no review gate in this run, a reviewer may not call it any more than a producer may.
  const host = {
    names: () => ['wipe_cache', 'notes', 'deploy'],
    spec: (name: string) => (name === 'deploy' ? { name, class: 'write' as const, inputSchema: { type: 'object' } } : { name }),
    call: async (name: string) => (lent.push(name), 'ok'),
  };
  const outcomes: Outcome[] = [];
  const producer: Agent = { answer: async () => (writeFileSync(join(ws, 'docs', 'api.md'), '# API\n'), {}) };
  const reviewer: Agent = {
    async answer(request, options) {
      if (request.kind !== 'review' || request.contract !== 'issues') return {};
      assert.is(request.toolSpecs, undefined, 'a review item is not changed');
      for (const name of ['wipe_cache', 'notes', 'pr_status', 'deploy']) {
        try {
          outcomes.push({ ok: true, result: await options.tools!.runner!.call(name, {}, request) });
        } catch (e) {
          outcomes.push({ ok: false, code: (e as { code?: string }).code });
        }
      }
      writeFileSync(request.report, JSON.stringify({ issues: [] }));
      return { issues_count: 0 };
    },
  };
  const { engine } = setup();
  const r = await engine.run(wf, { agent: producer, reviewer, tools: host, workspace: ws, as: 'writer' });
  assert.is(r.status, 'completed', JSON.stringify(r.error));
  assert.equal(outcomes.map((o) => o.code ?? 'ok'), ['E_TOOL_ACCESS', 'ok', 'E_TOOL_DENIED', 'E_GATE_REQUIRED']);
  assert.equal(lent, ['notes'], 'the write tool never ran without a second signature');
});

T('A3: a lent tool its host declares write goes through the review gate like the engine\'s: approved, it runs once and leaves a proposal row', async () => {
  const { engine, store } = setup();
  const lent: string[] = [];
  const host = {
    names: () => ['notes_write'],
    spec: (name: string) => ({ name, class: 'write' as const, inputSchema: { type: 'object' } }),
    call: async (name: string) => (lent.push(name), 'written'),
  };
  const seen = { outcomes: [] as Outcome[] };
  const r = await engine.run(flow(), { agent: caller([{ name: 'notes_write', args: {}, reason: 'record the review' }], seen), tools: host, toolChain: gateToolChain({ store, reviewer: approving }) });
  assert.is(r.status, 'completed');
  assert.equal(seen.outcomes, [{ ok: true, result: 'written' }]);
  assert.equal(lent, ['notes_write']);
  assert.equal(listProposals(store).map((p) => [p.tool, p.status]), [['notes_write', 'approved']]);
});

T.run();
