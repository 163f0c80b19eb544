/**
 * The `tool` node (issue 5, ADR-019): the engine runs a registered tool
 * with arguments rendered from templates and checked against its schema
 * before it starts; success is node-id.result, any failure takes `error`
 * or fails the run — loudly, never retried. Role access comes from the
 * workflow's access map.
 */
import { hashWorkflow } from '../../engine/run/hash.js';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, defineTool, validateWorkflow, type RunState, type Workflow } from '../../engine/index.js';

function adder(ran: unknown[], behave: (args: Record<string, unknown>) => unknown = (a) => ({ sum: (a.a as number) + (a.b as number) })) {
  return defineTool({
    name: 'add',
    class: 'read',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' }, mode: { type: 'string', enum: ['EXACT', 'ROUND'] } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    run: async (args) => {
      ran.push(args);
      return behave(args);
    },
  });
}

function flow(args: Record<string, unknown>, opts: { error?: boolean; agent?: string; access?: Record<string, string[]> } = {}): Workflow {
  return {
    metadata: { name: 'tool-flow', version: '1.0.0', description: 'one tool node' },
    variableRegistry: { x: { type: 'integer', description: 'an operand', default: 40 } },
    ...(opts.access ? { access: opts.access } : {}),
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'sum' } },
      { type: 'tool', id: 'sum', tool: 'add', args, ...(opts.agent ? { agent: opts.agent } : {}), connections: { success: 'done', ...(opts.error ? { error: 'broken' } : {}) } },
      { type: 'end', id: 'done', finalOutput: ['sum.result'] },
      ...(opts.error ? [{ type: 'end', id: 'broken' }] : []),
    ],
  } as unknown as Workflow;
}

const Tool = suite('the tool node');

Tool('H41 §4.13: a whole {{x}} argument keeps its JSON type; the tool runs once and its result is node-id.result, journaled tool.started then tool.succeeded', async () => {
  const ran: unknown[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [adder(ran)] });
  const s = await engine.start(flow({ a: '{{x}}', b: 2 }));
  assert.is(s.status, 'completed', JSON.stringify(s));
  assert.equal(s.status === 'completed' && s.output, { 'sum.result': { sum: 42 } });
  assert.equal(ran, [{ a: 40, b: 2 }]);
  const types = (await engine.trace(s.runId)).events.map((e) => e.type);
  assert.ok(types.indexOf('tool.started') < types.indexOf('tool.succeeded'), types.join(' '));
});

Tool('§4 timeoutMs: a deadline whose timeout route leads to a tool node runs the tool, at status, at a late step and in a driving run (never a pending tool item nobody claimed)', async () => {
  const deadlineFlow = {
    metadata: { name: 'timeout-tool', version: '1.0.0', description: 'a deadline routed to a tool' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'answer', completionCondition: 'done', timeoutMs: 1000, connections: { success: 'done', timeout: 'sum' } },
      { type: 'tool', id: 'sum', tool: 'add', args: { a: 1, b: 2 }, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['sum.result'] },
    ],
  } as unknown as Workflow;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const ran: unknown[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [adder(ran)], now: () => new Date(clock) });
  const viaStatus = await engine.start(deadlineFlow);
  clock += 2000;
  const status = await engine.status(viaStatus.runId);
  assert.equal([status.status, status.status === 'completed' && status.output], ['completed', { 'sum.result': { sum: 3 } }], JSON.stringify(status));
  const viaStep = await engine.start(deadlineFlow);
  clock += 2000;
  const late = await engine.submit(viaStep.runId, {}, { seq: viaStep.seq });
  assert.is(late.status, 'completed', JSON.stringify(late));
  assert.is(late.late?.code, 'E_TIMEOUT');
  assert.is(ran.length, 2);
  const real = createEngine({ store: createMemoryStore(), tools: [adder(ran)] });
  const fast = { ...deadlineFlow, nodes: deadlineFlow.nodes.map((n) => (n.id === 'ask' ? { ...n, timeoutMs: 100 } : n)) } as Workflow;
  const driven = await real.run(fast, { agent: { answer: () => new Promise(() => {}) } });
  assert.equal([driven.status, driven.output], ['completed', { 'sum.result': { sum: 3 } }], JSON.stringify(driven));
  // A replayed or E_SEQ submit that fires the deadline runs the tool too, and says the seq against where the run then rests.
  const replayFlow = { ...deadlineFlow, nodes: [deadlineFlow.nodes[0], { type: 'agent-directive', id: 'first', directive: 'x', completionCondition: 'y', connections: { success: 'ask' } }, ...deadlineFlow.nodes.slice(1)].map((n) => (n.id === 'start' ? { ...n, connections: { default: 'first' } } : n)) } as Workflow;
  for (const seq of [1, 9]) {
    const r = await engine.start(replayFlow);
    await engine.submit(r.runId, {}, { seq: 1 });
    clock += 2000;
    const again = await engine.submit(r.runId, {}, { seq }).catch((e: { code?: string; fix?: string }) => e);
    const now = await engine.status(r.runId);
    assert.is(now.status, 'completed', `seq ${seq}: ${JSON.stringify(again)}`);
    if (seq === 9) assert.is((again as { code?: string }).code, 'E_SEQ');
    else assert.is((again as RunState).status, 'completed', 'the replay returns where the run rests after the tool ran');
  }
  // maxRetriesExceeded into a tool node: the tool runs, and the step still says the retries were spent.
  const spentFlow = { ...deadlineFlow, nodes: deadlineFlow.nodes.map((n) => (n.id === 'ask' ? { type: 'agent-directive', id: 'ask', directive: 'answer', completionCondition: 'done', maxRetries: 0, inputSchema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] }, connections: { success: 'done', maxRetriesExceeded: 'sum' } } : n)) } as Workflow;
  const spent = await real.start(spentFlow);
  const after = await real.submit(spent.runId, { x: 'no' });
  assert.is(after.status, 'completed', JSON.stringify(after));
  assert.ok(after.retriesSpent, 'the answer that spent the retries is said not taken');
});

Tool('H41 §4.13: templated arguments that fail the schema at run time (a case-sensitive enum typo) are E_TOOL_ARGS, the tool never starts, and the run fails without a route', async () => {
  const ran: unknown[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [adder(ran)] });
  const wf = flow({ a: 1, b: 2, mode: '{{mode}}' }) as unknown as { variableRegistry: Record<string, unknown> };
  wf.variableRegistry.mode = { type: 'string', description: 'how to add', default: 'exact' };
  const s = await engine.start(wf as unknown as Workflow);
  assert.is(s.status, 'failed');
  assert.is(s.status === 'failed' && s.error.code, 'E_TOOL_ARGS');
  assert.match(s.status === 'failed' ? s.error.message : '', /\/mode/);
  assert.equal(ran, []);
  const failed = (await engine.trace(s.runId)).events.find((e) => e.type === 'tool.failed');
  assert.equal([failed?.tool, failed?.code], ['add', 'E_TOOL_ARGS']);
});

Tool('H41 §4.13: literal arguments are checked even beside templated ones (an enum typo, an extra key at the key itself), templated values wait for the run, and a node without args is checked as {}', () => {
  const tools = new Map([['add', adder([])]]);
  const mixed = validateWorkflow(flow({ a: '{{x}}', b: 2, mode: 'exact', repo: 'x/y' }), '<workflow>', { tools });
  const keyed = validateWorkflow(flow({ a: 1, b: 2, repo: '{{x}}' }), '<workflow>', { tools });
  assert.equal(keyed.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/repo']], 'a forbidden key is refused whatever its value');
  assert.equal(mixed.errors.map((f) => [f.code, f.pointer]).sort(), [['E_TOOL_ARGS', '/nodes/1/args/mode'], ['E_TOOL_ARGS', '/nodes/1/args/repo']]);
  const templatedOnly = validateWorkflow(flow({ a: '{{x}}', b: '{{x}}' }), '<workflow>', { tools });
  assert.equal(templatedOnly.errors, []);
  const none = flow({}) as unknown as { nodes: Array<Record<string, unknown>> };
  delete none.nodes[1].args;
  const noArgs = validateWorkflow(none as unknown as Workflow, '<workflow>', { tools });
  assert.equal(noArgs.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args'], ['E_TOOL_ARGS', '/nodes/1/args']]);
  assert.match(noArgs.errors.map((f) => f.message).join('\n'), /missing required property "a"[\s\S]*missing required property "b"/);
});

Tool('H41 §4.14: text around a template always renders a string: a non-string type is refused by validate, and so is a literal verdict line in a templated body; a whole {{x}} waits for the run', () => {
  const tools = new Map([['add', adder([])]]);
  const typed = validateWorkflow(flow({ a: 'count {{x}}', b: '{{x}}' }), '<workflow>', { tools });
  assert.equal(typed.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/a']]);
  const wf = flow({ pr_number: 7, verdict: 'APPROVE', body: '{{x}}\n\n### Verdict: APPROVE' }) as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes[1].tool = 'post_review';
  const body = validateWorkflow(wf as unknown as Workflow);
  assert.equal(body.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/body']]);
  wf.nodes[1].args = { pr_number: 7, verdict: 'APPROVE', body: 'Findings: {{x}}' };
  assert.equal(validateWorkflow(wf as unknown as Workflow).errors, []);
});

Tool('H41 H29: a whole {{x}} whose source declares its schema is judged by validate: an enum value the tool refuses (the docs verdicts fed to post_review), a declared type it does not take', () => {
  const wf = JSON.parse(readFileSync(new URL('../../workflows/pr-review.json', import.meta.url), 'utf8'));
  assert.equal(validateWorkflow(wf).errors, [], 'the shipped workflow passes');
  const postReview = wf.nodes.find((n: { id: string }) => n.id === 'post-review');
  postReview.args.verdict = '{{docs-review.verdict}}';
  const crossed = validateWorkflow(wf);
  assert.equal(crossed.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', `/nodes/${wf.nodes.indexOf(postReview)}/args/verdict`]]);
  assert.match(crossed.errors[0].message, /declared value "FIXED"/);
  postReview.args.verdict = '{{review.verdict}}';
  wf.variableRegistry.pr_number.type = 'string';
  const typed = validateWorkflow(wf);
  assert.ok(typed.errors.some((f) => f.code === 'E_TOOL_ARGS' && f.pointer.endsWith('/args/pr_number') && /declared type string/.test(f.message)), JSON.stringify(typed.errors));
});

Tool('validate: a host\'s tools add to the built-ins (a post_review node still validates), and node-id.error is readable only from a node with an error route', () => {
  const tools = new Map([['add', adder([])]]);
  const both = flow({ a: 1, b: 2 }, { error: true }) as unknown as { nodes: Array<Record<string, unknown>> };
  both.nodes.splice(2, 0, { type: 'tool', id: 'post', tool: 'post_review', args: { pr_number: 1, verdict: 'APPROVE', body: 'sum: {{sum.error.message}}' }, connections: { success: 'done' } });
  (both.nodes[1].connections as Record<string, string>).success = 'post';
  assert.equal(validateWorkflow(both as unknown as Workflow, '<workflow>', { tools }).errors, []);
  const noRoute = flow({ a: 1, b: 2 }) as unknown as { nodes: Array<Record<string, unknown>> };
  noRoute.nodes.splice(2, 0, { type: 'tool', id: 'post', tool: 'post_review', args: { pr_number: 1, verdict: 'APPROVE', body: 'sum: {{sum.error.message}}' }, connections: { success: 'done' } });
  (noRoute.nodes[1].connections as Record<string, string>).success = 'post';
  const r = validateWorkflow(noRoute as unknown as Workflow, '<workflow>', { tools });
  assert.equal(r.errors.map((f) => f.code), ['E_UNDECLARED_VARIABLE']);
});

Tool('a tool node keeps the run\'s user: {{userId}} after it is still the answering identity, not the engine\'s', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [adder([])] });
  const wf = {
    metadata: { name: 'user-after-tool', version: '1.0.0', description: 'userId survives a tool node' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'first', completionCondition: 'ok', connections: { success: 'sum' } },
      { type: 'tool', id: 'sum', tool: 'add', args: { a: 1, b: 2 }, connections: { success: 'greet' } },
      { type: 'agent-directive', id: 'greet', directive: 'Hello {{userId}}', completionCondition: 'ok', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const s = await engine.start(wf, { as: 'alice' });
  const r = await engine.submit(s.runId, {}, { seq: s.seq, as: 'alice' });
  assert.is(r.status === 'waiting' && r.pending.kind === 'directive' && r.pending.directive.split('\n')[0], 'Hello alice');
});

Tool('H35/H36: the runtime refuses a tool node its role may not use, as validate does, even for a workflow stored before the map changed (defence in depth)', async () => {
  const { advanceTools } = await import('../../engine/run/tool-steps.js');
  const { compileWorkflow } = await import('../../engine/compile/machine.js');
  const store = createMemoryStore();
  const ran: unknown[] = [];
  const engine = createEngine({ store, tools: [adder(ran)] });
  const gated = flow({ a: 1, b: 2 }, { agent: 'docs-reviewer', error: true }) as unknown as { nodes: Array<Record<string, unknown>> };
  const wait = { type: 'agent-directive', id: 'ask', directive: 'first', completionCondition: 'ok', connections: { success: 'sum' } };
  gated.nodes.splice(1, 0, wait);
  (gated.nodes[0].connections as Record<string, string>).default = 'ask';
  const s = await engine.start(gated as unknown as Workflow);
  // A process without the tool takes the answer: the run rests at the tool node, unclaimed.
  const held = await createEngine({ store }).submit(s.runId, {}, { seq: s.seq });
  assert.is(held.status === 'waiting' && held.pending.kind, 'tool');
  // The stored workflow as it reads under a map that gives `add` to reviewers only.
  const denied = compileWorkflow({ ...(structuredClone(gated) as unknown as Workflow), access: { reviewer: ['add'] } }, 'stored-under-another-map');
  await advanceTools({ store, now: () => new Date(), catalogOf: () => new Map([['add', adder(ran)]]), compiledFor: () => denied, envOf: () => ({ workspace: process.cwd(), skip: [] }) }, s.runId);
  assert.equal(ran, [], 'the tool never ran');
  const failed = (await engine.trace(s.runId)).events.find((e) => e.type === 'tool.failed');
  assert.equal([failed?.code], ['E_TOOL_ACCESS']);
});

Tool('H41 §4.13: validate checks literal arguments against the tool\'s schema and names unknown tools, so such a workflow never starts', async () => {
  const tools = new Map([['add', adder([])]]);
  const typo = validateWorkflow(flow({ a: 1, b: 2, mode: 'exact' }), '<workflow>', { tools });
  assert.equal(typo.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/mode']]);
  const unknown = validateWorkflow(flow({ a: 1, b: 2 }));
  assert.equal(unknown.errors.map((f) => f.code), ['E_TOOL_UNKNOWN']);
  assert.match(unknown.errors[0].message, /post_review/);
  const engine = createEngine({ store: createMemoryStore() });
  const code = await engine.start(flow({ a: 1, b: 2 })).then(() => 'started', (e: { code?: string }) => e.code);
  assert.is(code, 'E_WORKFLOW_INVALID');
});

Tool('H9 §4.13: a tool that throws is E_TOOL_FAILED with its own message; the error route is taken once, never a retry', async () => {
  const ran: unknown[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [adder(ran, () => { throw new Error('gh: could not resolve to a Repository'); })] });
  const s = await engine.start(flow({ a: 1, b: 2 }, { error: true }));
  assert.is(s.status === 'completed' && s.endNodeId, 'broken');
  assert.is(ran.length, 1);
  const failed = (await engine.trace(s.runId)).events.find((e) => e.type === 'tool.failed');
  assert.is(failed?.code, 'E_TOOL_FAILED');
  assert.match(String(failed?.message), 'could not resolve to a Repository');
});

Tool('H35 H36: validate flags a tool node whose role the access map does not allow (E_TOOL_ACCESS at the node); the allowed role passes', () => {
  const access = { reviewer: ['add'], 'docs-reviewer': ['post_docs_review'] };
  const tools = new Map([['add', adder([])]]);
  const bad = validateWorkflow(flow({ a: 1, b: 2 }, { agent: 'docs-reviewer', access }), '<workflow>', { tools });
  assert.equal(bad.errors.filter((f) => f.code === 'E_TOOL_ACCESS').map((f) => f.pointer), ['/nodes/1/agent']);
  const none = validateWorkflow(flow({ a: 1, b: 2 }, { access }), '<workflow>', { tools });
  assert.equal(none.errors.filter((f) => f.code === 'E_TOOL_ACCESS').map((f) => f.pointer), ['/nodes/1/tool']);
  assert.equal(validateWorkflow(flow({ a: 1, b: 2 }, { agent: 'reviewer', access }), '<workflow>', { tools }).errors, []);
});

Tool('while a tool runs the run is at the tool node: answers are refused with E_TOOL_NODE; a claim whose process died is E_TOOL_INTERRUPTED, never re-run', async () => {
  const store = createMemoryStore();
  let t = Date.parse('2026-12-02T10:00:00Z');
  const ran: unknown[] = [];
  let release: (v: unknown) => void = () => {};
  const hanging = adder(ran, () => new Promise((resolve) => (release = resolve)));
  const engine = createEngine({ store, tools: [hanging], now: () => new Date(t) });
  const started = engine.start(flow({ a: 1, b: 2 }, { error: true }));
  await new Promise((r) => setTimeout(r, 20));
  const [summary] = await engine.runs();
  const during: RunState = await engine.status(summary.runId);
  assert.is(during.status === 'waiting' && during.pending.kind, 'tool');
  const refused = await engine.submit(summary.runId, { sum: 3 }).then(() => 'accepted', (e: { code?: string }) => e.code);
  assert.is(refused, 'E_TOOL_NODE');
  // Another process finds the claim past its lease: the call's outcome is unknown.
  t += 11 * 60_000;
  const other = createEngine({ store, tools: [adder([])], now: () => new Date(t) });
  const after = await other.status(summary.runId);
  assert.is(after.status === 'completed' && after.endNodeId, 'broken');
  assert.equal((await other.trace(summary.runId)).events.filter((e) => e.type === 'tool.failed').map((e) => e.code), ['E_TOOL_INTERRUPTED']);
  // The first process's late outcome is dropped.
  release({ sum: 3 });
  const final = await started;
  assert.is(final.status === 'completed' && final.endNodeId, 'broken');
  assert.is(ran.length, 1);
});


Tool('H41 §4.13: a run stored before tool loops were refused (tool → condition → the same tool) runs its tool 1000 times in one call at most, then fails with E_RUNAWAY naming the node — a later status runs it no more', async () => {
  const ran: unknown[] = [];
  const store = createMemoryStore();
  const loop = {
    metadata: { name: 'tool-loop', version: '1.0.0', description: 'a tool looping through a condition' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'sum' } },
      { type: 'tool', id: 'sum', tool: 'add', args: { a: 1, b: 2 }, connections: { success: 'again' } },
      { type: 'condition', id: 'again', condition: { operator: 'eq', left: 1, right: 1 }, connections: { true: 'sum', false: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  assert.equal(validateWorkflow(loop, '<workflow>', { tools: new Map([['add', adder(ran)]]) }).errors.map((e) => e.code), ['E_TRANSIENT_CYCLE'], 'validation refuses such a loop now');
  const hash = hashWorkflow(loop);
  store.putWorkflow(hash, loop);
  const at = '2026-01-01T00:00:00.000Z';
  store.create({
    runId: 'old-run', workflow: 'tool-loop', workflowHash: hash, workspace: process.cwd(), status: 'waiting', seq: 1, createdAt: at, updatedAt: at,
    snapshot: { value: 'sum', context: { vars: {}, nodes: {}, meta: { executionId: 'old-run', workflowId: 'tool-loop', userId: 'local' }, attempt: 0 } },
    pending: { kind: 'tool', nodeId: 'sum', tool: 'add', args: { a: 1, b: 2 } },
  } as never, [{ seq: 0, at, type: 'run.started' }]);
  const engine = createEngine({ store, tools: [adder(ran)] });
  const s = await engine.status('old-run');
  assert.is(s.status, 'failed', JSON.stringify(s).slice(0, 300));
  assert.is(s.status === 'failed' && s.error.code, 'E_RUNAWAY');
  assert.is(s.status === 'failed' && s.error.nodeId, 'sum');
  assert.match(s.status === 'failed' ? s.error.message : '', /1000 tool nodes in one call/);
  assert.is(ran.length, 1000);
  const again = await engine.status('old-run');
  assert.is(again.status, 'failed');
  assert.is(ran.length, 1000, 'a failed run never runs its tool again');
  const last = (await engine.trace('old-run')).events.at(-1)!;
  assert.equal([last.type, last.code, last.nodeId], ['run.failed', 'E_RUNAWAY', 'sum']);
});

Tool.run();
