/**
 * A tool's arguments are checked before anything starts (§4.13, H41), and
 * the problems are data (`argProblems`), so the same check serves a call,
 * a tool node, the review gate and `validate`. A tool's own rules that JSON
 * Schema cannot say (`refineArgs`) are part of that check: the review body
 * rule of the posting tools (§4.14) refuses a bad body before `tool.started`,
 * before the review gate, and in `validate`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createEngine,
  createMemoryStore,
  defineTool,
  gateToolChain,
  listExecutions,
  listProposals,
  validateWorkflow,
  type Agent,
  type Workflow,
} from '../../engine/index.js';
import { chain } from '../../engine/gate/chain.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { postDocsReview, postReview, prStatus } from '../../engine/tools/builtin/index.js';
import type { JsonObject } from '../../engine/format/model.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { gitRepo, useStandIn } from './standin.js';

const schema: JsonObject = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 1 }, mode: { enum: ['EXACT', 'ROUND'] }, text: { type: 'string' } },
  required: ['n', 'mode'],
  additionalProperties: false,
};

/** A tool whose own rule refuses a text containing "TODO", written defensively as refineArgs must be. */
function counted(ran: unknown[], refine: (args: JsonObject) => { pointer: string; message: string }[] = noTodo) {
  return defineTool({ name: 'count', class: 'read', inputSchema: schema, refineArgs: refine, run: async (args) => (ran.push(args), { ok: true }) });
}
function noTodo(args: JsonObject) {
  return typeof args.text === 'string' && args.text.includes('TODO') ? [{ pointer: '/text', message: 'must not hold a TODO' }] : [];
}

const review = { pr_number: 29, verdict: 'APPROVE', body: 'Checked the diff.' };

const Args = suite('tools: argument problems as data, and a tool\'s own rules (refineArgs)');

let standIn: ReturnType<typeof useStandIn>;
Args.before.each(() => {
  standIn = useStandIn();
});
Args.after.each(() => standIn.restore());

Args('§4.13: argProblems is [] for valid arguments and lists every schema problem with its pointer, message and missing property; nothing runs', () => {
  const ran: unknown[] = [];
  const tool = counted(ran);
  assert.equal(tool.argProblems({ n: 2, mode: 'EXACT' }), []);
  const problems = tool.argProblems({ n: 0, mode: 'exact', extra: 1 });
  assert.equal(problems.map((p) => p.pointer).sort(), ['/extra', '/mode', '/n']);
  assert.ok(problems.some((p) => p.pointer === '/extra' && p.message === 'property "extra" is not allowed here'));
  assert.ok(problems.some((p) => p.pointer === '/mode' && p.message.startsWith('must be one of "EXACT", "ROUND"')));
  assert.equal(tool.argProblems({ n: 1 }), [{ pointer: '', message: 'missing required property "mode"', keyword: 'required', missing: 'mode' }]);
  assert.equal(tool.argProblems([1]), [{ pointer: '', message: 'tool arguments must be a JSON object, got an array' }]);
  assert.equal(ran, []);
});

Args('H41: checkArgs keeps its E_TOOL_ARGS: the first problem\'s pointer, each problem named, the same fix, the problems as data', () => {
  const tool = counted([]);
  const e = thrownWithCode(() => tool.checkArgs({ n: 1, mode: 'exact' }), 'E_TOOL_ARGS');
  assert.is(e.pointer, '/mode');
  assert.is(e.message, 'tool "count" was called with arguments that do not fit its inputSchema: /mode: must be one of "EXACT", "ROUND"');
  assert.is(e.fix, 'call count again with arguments that satisfy its inputSchema (required: n, mode); the tool did not run and no ledger row was written');
  assert.equal(e.data, { tool: 'count', errors: ['/mode: must be one of "EXACT", "ROUND"'] });
  const root = thrownWithCode(() => tool.checkArgs('n=1'), 'E_TOOL_ARGS');
  assert.is(root.pointer, '');
  assert.match(root.message, '(root): tool arguments must be a JSON object, got "n=1"');
});

Args('§4.14: refineArgs problems follow the schema\'s, run even when the schema already refused the call, and refuse a schema-valid call before run', async () => {
  const ran: unknown[] = [];
  const tool = counted(ran);
  assert.equal(tool.argProblems({ n: 1, mode: 'EXACT', text: 'a TODO' }), [{ pointer: '/text', message: 'must not hold a TODO' }]);
  const both = tool.argProblems({ n: 1, mode: 'exact', text: 'a TODO' });
  assert.equal(both.map((p) => p.pointer), ['/mode', '/text']);
  const e = await rejection(tool.run({ n: 1, mode: 'EXACT', text: 'a TODO' }));
  assert.is(e.code, 'E_TOOL_ARGS');
  assert.is(e.pointer, '/text');
  assert.match(e.message, 'tool "count" was called with arguments it refuses: /text: must not hold a TODO');
  assert.match(e.fix!, 'the tool did not run and no ledger row was written');
  assert.equal(ran, []);
});

Args('refineArgs that trips over arguments the schema already refused adds nothing; on schema-valid arguments its failure is not hidden', () => {
  const fragile = counted([], (args) => ((args.text as string).includes('TODO') ? [{ pointer: '/text', message: 'no TODO' }] : []));
  assert.equal(fragile.argProblems({ n: 1, mode: 'EXACT', text: 5 }).map((p) => p.pointer), ['/text']);
  assert.throws(() => fragile.argProblems({ n: 1, mode: 'EXACT' }), /includes/);
  const e = thrownWithCode(() => defineTool({ name: 'x', class: 'read', inputSchema: schema, refineArgs: 'no' as never, run: () => 1 }), 'E_TOOL_DEFINITION');
  assert.match(e.message, 'refineArgs is not a function');
});

Args('§4.14: post_review and post_docs_review report a body with its own heading or verdict line as a problem at /body, next to any schema problem', () => {
  assert.equal(postReview.argProblems(review), []);
  const [verdictLine] = postReview.argProblems({ ...review, body: 'fine\n\n### Verdict: APPROVE' });
  assert.is(verdictLine.pointer, '/body');
  assert.match(verdictLine.message, 'verdict line (line 3: "### Verdict: APPROVE")');
  assert.match(verdictLine.message, 'post_review adds "## Code Review Summary"');
  const [heading] = postDocsReview.argProblems({ ...review, body: 'x\n## Docs Review Summary' });
  assert.equal([heading.pointer, heading.message.includes('review heading (line 2')], ['/body', true]);
  // With a verdict typo too, both are named; a body that is not a string is the schema's problem alone.
  assert.equal(postReview.argProblems({ ...review, verdict: 'APROVE', body: '### Verdict: APPROVE' }).map((p) => p.pointer), ['/verdict', '/body']);
  assert.equal(postReview.argProblems({ ...review, body: 42 }).map((p) => p.pointer), ['/body']);
  assert.equal(prStatus.argProblems({ pr_number: 3 }), []);
});

Args('§4.14 H41: a chained post_review passes argProblems through, and a bad body is refused before tenant_bind or the review gate: no reviewer asked, no proposal row, gh never started', async () => {
  const store = createMemoryStore();
  let asked = 0;
  const reviewer: Agent = { answer: async () => (asked++, { reply: 'Decision: approve\nSOP: SOP-12 applies.' }) };
  const chained = chain(postReview, gateToolChain({ store, reviewer }));
  assert.equal(chained.argProblems({ ...review, body: '### Verdict: APPROVE' }).map((p) => p.pointer), ['/body']);
  const e = await rejection(chained.run({ ...review, body: 'ok\n### Verdict: REQUEST_CHANGES' }, { userId: 'user_42', reason: 'post it', workspace: gitRepo('https://github.com/acme/widgets.git') } as never));
  assert.is(e.code, 'E_TOOL_ARGS');
  assert.is(e.pointer, '/body');
  assert.equal([asked, listProposals(store), listExecutions(store)], [0, [], []]);
  assert.equal(standIn.calls(), []);
  // A read tool's chain has no gate and passes the problems through all the same.
  assert.equal(chain(prStatus, { tenantBind: tenantBindDecorator() }).argProblems({ pr_number: 0 }).map((p) => p.pointer), ['/pr_number']);
});

Args('§4.14 H36: an agent\'s $tool post_review with a bad body gets E_TOOL_ARGS before the gate: no proposal row, no execution row, gh never started', async () => {
  const store = createMemoryStore();
  let asked = 0;
  const reviewer: Agent = { answer: async () => (asked++, { reply: 'Decision: approve\nSOP: SOP-12 applies.' }) };
  const wf = {
    metadata: { name: 'gated-body', version: '1.0.0', description: 'an agent posts through the gate' },
    access: { reviewer: ['post_review'] },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'work' } },
      {
        type: 'agent-directive', id: 'work', agent: 'reviewer', directive: 'Post the review.', completionCondition: 'posted',
        inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] }, connections: { success: 'done' },
      },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const codes: Array<string | undefined> = [];
  const agent: Agent = {
    async answer(request, options) {
      await options.tools!.runner!.call('post_review', { ...review, body: 'ok\n### Verdict: REQUEST_CHANGES' }, request, { reason: 'post it' })
        .then(() => codes.push('posted'), (e: { code?: string }) => codes.push(e.code));
      return { note: 'done' };
    },
  };
  const r = await createEngine({ store }).run(wf, { agent, toolChain: gateToolChain({ store, reviewer }), workspace: gitRepo('https://github.com/acme/widgets.git') });
  assert.is(r.status, 'completed');
  assert.equal(codes, ['E_TOOL_ARGS']);
  assert.equal([asked, listProposals(store), listExecutions(store)], [0, [], []]);
  assert.equal(standIn.calls(), []);
});

/** start → post_review (body from the start input) → done, or → failed on error. */
function postingFlow(body: string): Workflow {
  return {
    metadata: { name: 'post-body', version: '1.0.0', description: 'posts a review' },
    variableRegistry: { text: { type: 'string', description: 'the review text' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'post' } },
      { type: 'tool', id: 'post', tool: 'post_review', args: { pr_number: 7, verdict: 'APPROVE', body }, connections: { success: 'done', error: 'failed' } },
      { type: 'end', id: 'done', finalOutput: ['post.result'] },
      { type: 'end', id: 'failed' },
    ],
  } as unknown as Workflow;
}

Args('§4.14 H41: a tool node whose rendered body holds a verdict line is refused with E_TOOL_ARGS before tool.started; gh is never started', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(postingFlow('{{text}}'), { input: { text: 'Looks fine.\n### Verdict: REQUEST_CHANGES' }, workspace: gitRepo('https://github.com/acme/widgets.git') });
  assert.is(s.status === 'completed' && s.endNodeId, 'failed', JSON.stringify(s));
  const events = (await engine.trace(s.runId)).events;
  assert.equal(events.filter((e) => e.type.startsWith('tool.')).map((e) => [e.type, (e as { code?: string }).code]), [['tool.failed', 'E_TOOL_ARGS']]);
  assert.equal(standIn.calls(), []);
  // The same flow with a clean body posts (the test can fail the other way).
  const ok = await engine.start(postingFlow('{{text}}'), { input: { text: 'Looks fine.' }, workspace: gitRepo('https://github.com/acme/widgets.git') });
  assert.is(ok.status === 'completed' && ok.endNodeId, 'done', JSON.stringify(ok));
  assert.is(standIn.calls().length, 1);
});

Args('§4.14: validate flags a literal body with its own heading as E_TOOL_ARGS at the node\'s args/body', () => {
  const bad = validateWorkflow(postingFlow('## Code Review Summary\nfine'));
  assert.equal(bad.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_ARGS', '/nodes/1/args/body']]);
  assert.match(bad.errors[0].message, 'review heading');
  assert.equal(validateWorkflow(postingFlow('fine')).errors, []);
});

Args.run();

const Shape = suite('tools: a refineArgs that answers in another shape');

Shape('§4.13: a refineArgs returning something other than an array of {pointer, message} is E_TOOL_DEFINITION, not "no problems"; the tool never runs', async () => {
  const ran: unknown[] = [];
  const odd = defineTool({
    name: 'odd', class: 'read', inputSchema: { type: 'object' },
    refineArgs: () => ({ pointer: '/x', message: 'no' }) as unknown as [],
    run: async (args) => (ran.push(args), 'ran'),
  });
  assert.throws(() => odd.argProblems({}), (e: { code?: string }) => e.code === 'E_TOOL_DEFINITION');
  await odd.run({}).then(() => assert.unreachable('ran'), (e: { code?: string }) => assert.is(e.code, 'E_TOOL_DEFINITION'));
  assert.equal(ran, []);
});

Shape('H41: a pr_number past GitHub\'s 32-bit range (1e21, 2^53 + 1) is E_TOOL_ARGS before gh starts: it would be printed as 1e+21 or rounded to another PR', () => {
  for (const pr_number of [1e21, 9007199254740993]) {
    const problems = postReview.argProblems({ pr_number, verdict: 'APPROVE', body: 'ok' });
    assert.equal(problems.map((p) => p.pointer), ['/pr_number'], String(pr_number));
  }
  assert.equal(prStatus.argProblems({ pr_number: 2147483647 }), []);
});

Shape('a host that edits its schema object and defines the tool again gets the edited schema, not a cached compile', () => {
  const schema: Record<string, any> = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const first = defineTool({ name: 'edit', class: 'read', inputSchema: schema, run: () => 1 });
  assert.equal(first.argProblems({ n: 1 }), []);
  schema.properties.n = { type: 'string' };
  const second = defineTool({ name: 'edit', class: 'read', inputSchema: schema, run: () => 1 });
  assert.equal(second.argProblems({ n: 'x' }), []);
  assert.equal(second.argProblems({ n: 1 }).map((p) => p.pointer), ['/n']);
});

Shape('a tool keeps its own frozen copy of its schema: what it publishes is what it enforces after the caller edits its object, which is never frozen', () => {
  const mine: Record<string, any> = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const tool = defineTool({ name: 'counted', class: 'read', inputSchema: mine, run: async () => ({}) });
  mine.properties.n.type = 'string';
  assert.ok(!Object.isFrozen(mine) && !Object.isFrozen(mine.properties.n), 'the caller\'s object is left as it was given');
  assert.is((tool.inputSchema as any).properties.n.type, 'integer', 'published as defined');
  assert.ok(Object.isFrozen((tool.inputSchema as any).properties.n));
  assert.equal(tool.argProblems({ n: 'x' }).map((p) => p.pointer), ['/n'], 'enforced as published');
  const chained = chain(tool, {});
  assert.is(chained.inputSchema, tool.inputSchema);
});

Shape('arguments JSON cannot carry (a function, a symbol) are E_TOOL_ARGS naming where, chained or not', async () => {
  const tool = defineTool({ name: 'loose', class: 'read', inputSchema: { type: 'object' }, run: async () => ({ ok: true }) });
  const args = { q: 'x', nested: { f: () => 1 } };
  assert.equal(tool.argProblems(args).map((p) => p.pointer), ['/nested/f']);
  const plain = await rejection(tool.run(args as never));
  assert.is(plain.code, 'E_TOOL_ARGS');
  assert.is(plain.pointer, '/nested/f');
  const chained = await rejection(chain(tool, {}).run(args as never));
  assert.is(chained.code, 'E_TOOL_ARGS');
  assert.is(chained.pointer, '/nested/f');
  assert.equal(await tool.run({ q: 'x' }), { ok: true });
  // However deep it sits, and a cycle too.
  let deep: Record<string, unknown> = { f: () => 1 };
  for (let i = 0; i < 200; i++) deep = { d: deep };
  assert.is((await rejection(tool.run(deep as never))).code, 'E_TOOL_ARGS');
  const loop: Record<string, unknown> = { q: 'x' };
  loop.self = loop;
  const cyc = tool.argProblems(loop);
  assert.equal(cyc.map((p) => p.pointer), ['/self']);
  assert.match(cyc[0].message, /contains itself/);
  // Arguments nested past 64 levels are refused as too deep, like answers.
  let nested: unknown = 1;
  for (let i = 0; i < 70; i++) nested = [nested];
  const [tooDeep] = tool.argProblems({ q: nested });
  assert.match(tooDeep.message, /nests deeper than 64 levels/);
});

Shape('arguments JSON would change (undefined, a hole, NaN, a Date, a Map, a class instance) are E_TOOL_ARGS at their pointer: what a reviewer approves and the audit row keep is what runs', async () => {
  let ran = 0;
  const tool = defineTool({ name: 'loose', class: 'read', inputSchema: { type: 'object' }, run: async () => { ran++; return { ok: true }; } });
  class Point { x = 1; }
  const cases: Array<[unknown, string, RegExp]> = [
    [{ n: undefined }, '/n', /is undefined, which JSON drops/],
    [{ list: [1, , 3] }, '/list/1', /is undefined/],
    [{ n: Number.NaN }, '/n', /is NaN/],
    [{ at: new Date(0) }, '/at', /is a Date object/],
    [{ m: new Map() }, '/m', /is a Map object/],
    [{ p: new Point() }, '/p', /is a Point object/],
  ];
  for (const [args, pointer, message] of cases) {
    const [problem] = tool.argProblems(args);
    assert.is(problem?.pointer, pointer, JSON.stringify(problem));
    assert.match(problem.message, message);
    const e = await rejection(chain(tool, {}).run(args as never));
    assert.is(e.code, 'E_TOOL_ARGS');
    assert.is(e.pointer, pointer);
  }
  assert.is(ran, 0, 'nothing ran');
  assert.equal(tool.argProblems(Object.assign(Object.create(null), { q: 'x' })), [], 'an object without a prototype is plain data');
});

Shape('a tool runs on its own copy of the checked arguments: the caller editing its object while the tool works changes nothing', async () => {
  let seen = 0;
  const tool = defineTool({
    name: 'slow',
    class: 'read',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', maximum: 5 } }, required: ['n'] },
    run: async (args: { n: number }) => {
      await new Promise((r) => setTimeout(r, 5));
      seen = args.n;
      return {};
    },
  });
  const args = { n: 3 };
  const running = tool.run(args);
  args.n = 999_999;
  await running;
  assert.is(seen, 3);
});

Shape.run();
