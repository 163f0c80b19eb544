/**
 * Tool nodes across processes and hosts (issue 5): a process that lacks a
 * tool or may not load the workflow's modules leaves the run as it was;
 * a resumed run offers its agents the same tools; a refused or failed
 * tool node says what to repair, for the workflow's author.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError, createEngine, createMemoryStore, defineTool, validateWorkflow, type Agent, type AgentRequest, type JsonObject, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';

const deploy = (ran: string[]) => defineTool({
  name: 'deploy', class: 'read',
  inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'], additionalProperties: false },
  run: async ({ tag }) => (ran.push(tag as string), { deployed: tag }),
});

/** start → directive `ask` (answers {tag}) → tool node `ship` → end. */
function flow(tool: string, args: Record<string, unknown> = { tag: '{{ask.tag}}' }, extra: Record<string, unknown> = {}): Workflow {
  return {
    metadata: { name: 'ship', version: '1.0.0', description: 'ask, then run a tool' },
    ...extra,
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Which tag?', completionCondition: 'a tag', inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] }, connections: { success: 'ship' } },
      { type: 'tool', id: 'ship', tool, args, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['ship.result'] },
    ],
  } as unknown as Workflow;
}

function moduleProject(): string {
  const dir = tempDir('countersign-modrt-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'shout.mjs'), `export const tools = [{
  name: 'shout', class: 'read',
  inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'], additionalProperties: false },
  run: async ({ tag }) => ({ loud: tag.toUpperCase() }),
}];\n`);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify(flow('shout', { tag: '{{ask.tag}}' }, { toolModules: ['./tools/shout.mjs'] })));
  return file;
}

const T = suite('tool nodes across processes');

T('a process without the host\'s tool keeps the answer and leaves the run waiting at the tool node, unclaimed, saying why (held: E_TOOL_UNKNOWN); the host that has it finishes the run', async () => {
  const store = createMemoryStore();
  const ran: string[] = [];
  const host = createEngine({ store, tools: [deploy(ran)] });
  const s = await host.start(flow('deploy'));
  const other = createEngine({ store });
  const r = await other.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  assert.is(r.status, 'waiting');
  const held = r.status === 'waiting' ? r.held : undefined;
  assert.is(held?.code, 'E_TOOL_UNKNOWN');
  assert.match(held?.message ?? '', /"deploy" is not registered in this process/);
  assert.match(held?.fix ?? '', /host that registers "deploy"/);
  assert.equal((await other.status(s.runId)).status === 'waiting' && (await other.status(s.runId) as { held?: { code: string } }).held?.code, 'E_TOOL_UNKNOWN');
  const waiting = await host.trace(s.runId);
  assert.not.ok(waiting.events.some((e) => e.type === 'tool.started' || e.type === 'tool.failed'), 'the node was neither claimed nor failed');
  const done = await host.status(s.runId);
  assert.is(done.status, 'completed');
  assert.equal(ran, ['v1']);
});

T('status of a run resting at a tool node, in a process that may not load the workflow\'s modules, is a read: the state with held E_TOOL_MODULE_BLOCKED, nothing run', async () => {
  const store = createMemoryStore();
  const dir = join(moduleProject(), '..');
  const file = join(dir, 'host-tool.json');
  writeFileSync(file, JSON.stringify(flow('deploy', { tag: '{{ask.tag}}' }, { toolModules: ['./tools/shout.mjs'] })));
  const s = await createEngine({ store, allowToolModules: true, tools: [deploy([])] }).start(file);
  // A process with the modules but not the host's tool takes the answer: the run rests at the tool node.
  const taken = await createEngine({ store, allowToolModules: true }).submit(s.runId, { tag: 'v4' }, { seq: s.seq });
  assert.is(taken.status === 'waiting' && taken.held?.code, 'E_TOOL_UNKNOWN');
  const r = await createEngine({ store }).status(s.runId);
  assert.is(r.status === 'waiting' && r.pending.kind, 'tool');
  assert.is(r.status === 'waiting' && r.held?.code, 'E_TOOL_MODULE_BLOCKED');
  const events = (await createEngine({ store }).trace(s.runId)).events;
  assert.not.ok(events.some((e) => e.type === 'tool.started'));
});

T('an answer to a run whose workflow brings toolModules, in a process that may not load them, is refused before it is stored (E_TOOL_MODULE_BLOCKED)', async () => {
  const store = createMemoryStore();
  const file = moduleProject();
  const s = await createEngine({ store, allowToolModules: true }).start(file);
  const code = await createEngine({ store }).submit(s.runId, { tag: 'v2' }, { seq: s.seq }).then(() => 'stored', (e: CountersignError) => e.code);
  assert.is(code, 'E_TOOL_MODULE_BLOCKED');
  const trace = await createEngine({ store }).trace(s.runId);
  assert.not.ok(trace.events.some((e) => e.type === 'answer.accepted'), 'nothing was stored');
  const done = await createEngine({ store, allowToolModules: true }).submit(s.runId, { tag: 'v2' }, { seq: s.seq });
  assert.equal(done.status === 'completed' && done.output, { 'ship.result': { loud: 'V2' } });
});

T('H35: a run resumed in a new process offers its directive agents the workflow\'s module tools, as a fresh run does; without permission it is E_TOOL_MODULE_BLOCKED', async () => {
  const store = createMemoryStore();
  const file = moduleProject();
  const s = await createEngine({ store, allowToolModules: true }).start(file);
  let offered: string[] = [];
  let called: unknown;
  const agent: Agent = {
    async answer(request: AgentRequest, options) {
      offered = (request.toolSpecs ?? []).map((t) => t.name);
      called = await options.tools?.runner?.call('shout', { tag: 'x' }, request);
      return { tag: 'v3' };
    },
  };
  const blocked = await createEngine({ store }).run({ runId: s.runId }, { agent }).then(() => 'ran', (e: CountersignError) => e.code);
  assert.is(blocked, 'E_TOOL_MODULE_BLOCKED');
  const r = await createEngine({ store, allowToolModules: true }).run({ runId: s.runId }, { agent });
  assert.is(r.status, 'completed');
  assert.ok(offered.includes('shout'), offered.join(','));
  assert.equal(called, { loud: 'X' });
});

T('H41: arguments that render from an unset variable are E_TOOL_ARGS naming the template, with a fix for the workflow\'s author; the tool never starts', async () => {
  const ran: string[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [deploy(ran)] });
  const wf = flow('deploy', { tag: '{{release}}' }) as unknown as { variableRegistry: Record<string, unknown> };
  wf.variableRegistry = { release: { type: 'string', description: 'the tag to ship' } };
  const s = await engine.start(wf as unknown as Workflow);
  const r = await engine.submit(s.runId, { tag: 'ignored' }, { seq: s.seq });
  assert.is(r.status, 'failed');
  const error = r.status === 'failed' ? r.error : undefined;
  assert.is(error?.code, 'E_TOOL_ARGS');
  assert.match(error?.message ?? '', /read unset variable\(s\) \{\{release\}\}/);
  assert.match(error?.fix ?? '', /give those variables a value/);
  assert.not.match(error?.message ?? '', /call deploy again/);
  assert.equal(ran, []);
  const events = (await engine.trace(s.runId)).events;
  assert.not.ok(events.some((e) => e.type === 'tool.started'));
});

T('§4.13: a tool\'s own fix reaches the run\'s failure (error.fix) and the tool.failed event', async () => {
  const failing = defineTool({
    name: 'deploy', class: 'read',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    run: async () => {
      throw new CountersignError('E_TOOL_FAILED', 'the registry refused the tag', { fix: 'push the tag first, then run the workflow again' });
    },
  });
  const engine = createEngine({ store: createMemoryStore(), tools: [failing] });
  const s = await engine.start(flow('deploy'));
  const r = await engine.submit(s.runId, { tag: 'v9' }, { seq: s.seq });
  assert.is(r.status === 'failed' && r.error.fix, 'push the tag first, then run the workflow again');
  const failed = (await engine.trace(s.runId)).events.find((e) => e.type === 'tool.failed');
  assert.is(failed?.fix, 'push the tag first, then run the workflow again');
});

T.run();

const R = suite('tool nodes: long runs, odd results, odd tools');

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

R('a tool running past the 10-minute lease keeps its claim while its process renews it; another process does not fail it', async () => {
  let t = Date.parse('2026-12-02T10:00:00Z');
  const now = () => new Date(t);
  const store = createMemoryStore();
  const release = deferred<void>();
  const slow = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => (await release.promise, { done: true }) });
  const a = createEngine({ store, now, tools: [slow], toolHeartbeatMs: 5 });
  const s = await a.start(flow('deploy', {}));
  const submitted = a.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  await sleep(20);
  t += 11 * 60_000;
  await sleep(30); // the running process renews its claim at the new time
  const seen = await createEngine({ store, now, tools: [slow] }).status(s.runId);
  assert.is(seen.status, 'waiting', 'a live claim is not taken for a dead one');
  release.resolve();
  const done = await submitted;
  assert.is(done.status, 'completed');
});

R('r78 d5: createEngine\'s toolHeartbeatMs must be a positive whole number of milliseconds a timer can wait: anything else is E_INPUT naming it, never a heartbeat of 1 ms', () => {
  for (const ms of ['x', -1, 0, Number.NaN, Infinity, 1.5, 2 ** 31, null, '60000']) {
    let e: CountersignError | undefined;
    try {
      createEngine({ store: createMemoryStore(), toolHeartbeatMs: ms as number });
    } catch (err) {
      e = err as CountersignError;
    }
    assert.is(e?.code, 'E_INPUT', String(ms));
    assert.match(e!.message, "createEngine's toolHeartbeatMs must be a positive whole number of milliseconds (at most 2147483647), got ");
    assert.match(e!.fix!, 'or leave it out (60000: a running tool node renews its claim every minute)');
  }
  for (const ms of [1, 60_000, 2 ** 31 - 1]) createEngine({ store: createMemoryStore(), toolHeartbeatMs: ms });
});

R('a claim that was not renewed is E_TOOL_INTERRUPTED; when the tool still finishes, its outcome is journaled as tool.late, never applied', async () => {
  let t = Date.parse('2026-12-02T10:00:00Z');
  const now = () => new Date(t);
  const store = createMemoryStore();
  const release = deferred<void>();
  const slow = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => (await release.promise, { done: true }) });
  const a = createEngine({ store, now, tools: [slow], toolHeartbeatMs: 3_600_000 });
  const s = await a.start(flow('deploy', {}));
  const submitted = a.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  await sleep(20);
  t += 11 * 60_000;
  const seen = await createEngine({ store, now, tools: [slow] }).status(s.runId);
  assert.is(seen.status === 'failed' && seen.error.code, 'E_TOOL_INTERRUPTED');
  release.resolve();
  await submitted;
  const events = (await a.trace(s.runId)).events;
  const late = events.find((e) => e.type === 'tool.late');
  assert.equal([late?.tool, late?.ok], ['deploy', true]);
  assert.is((await a.status(s.runId)).status, 'failed');
});

R('§4.13: whatever a tool throws is E_TOOL_FAILED, its own code and message kept in the message (never a code that says it did not start)', async () => {
  const odd = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw new CountersignError('E_TOOL_ARGS', 'the tag is not released'); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [odd] });
  const s = await engine.start(flow('deploy', {}));
  const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  assert.is(r.status === 'failed' && r.error.code, 'E_TOOL_FAILED');
  assert.match(r.status === 'failed' ? r.error.message : '', /tool "deploy" failed: E_TOOL_ARGS: the tag is not released/);
});

R('a result that is not plain JSON (a function, NaN, undefined, a Map, a Date, RegExp or Error, a toJSON object), too large or too deep to store is E_TOOL_FAILED saying the tool ran (it may have taken effect)', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [() => 1, /ran \(it may have taken effect\), but its result \(a function\) is not JSON/],
    [10n, /cannot be stored as JSON/],
    ['x'.repeat(1024 * 1024 + 10), /bytes; a node's stored answer may hold/],
    [JSON.parse('['.repeat(80) + ']'.repeat(80)), /nests deeper than 64 levels/],
    [undefined, /ran \(it may have taken effect\), but it returned nothing \(undefined\)/],
    [{ f: () => 1, a: 1 }, /holds a value JSON cannot keep at \/f: it is a function, which has no JSON form/],
    [{ n: Number.NaN }, /at \/n: it is NaN, which JSON has no number for/],
    [{ a: 1, gone: undefined }, /at \/gone: it is undefined, which JSON would drop/],
    [{ 'a/b': [1, undefined] }, /at \/a~1b\/1: it is undefined \(or a hole\)/],
    [{ m: new Map([['a', 1]]) }, /at \/m: it is a Map, which JSON would store as \{\}/],
    [{ s: new Set([1]) }, /at \/s: it is a Set/],
    // JSON would keep these in another form: never stored changed.
    [{ re: /x/ }, /at \/re: it is a RegExp, which JSON would store in another form \(as \{\}\)/],
    [{ e: new Error('disk full') }, /at \/e: it is an Error, which JSON would store in another form \(as \{\}\)/],
    [{ when: new Date(0) }, /at \/when: it is a Date, which JSON would store in another form \(as "1970-01-01T00:00:00.000Z"\)/],
    [{ m: { toJSON: () => 'hidden' } }, /at \/m: it is an object with its own toJSON, which JSON would store in another form \(as "hidden"\)/],
  ];
  for (const [value, pattern] of cases) {
    const tool = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => value });
    const engine = createEngine({ store: createMemoryStore(), tools: [tool] });
    const s = await engine.start(flow('deploy', {}));
    const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
    assert.is(r.status === 'failed' && r.error.code, 'E_TOOL_FAILED');
    assert.match(r.status === 'failed' ? r.error.message : '', pattern);
  }
});

R('a tool whose own argument check throws is reported by validate (E_TOOL_DEFINITION) and fails its node at run time instead of stranding the run', async () => {
  const broken = defineTool({
    name: 'deploy', class: 'read',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } } },
    refineArgs: (args) => {
      if (args.tag === 'v1') throw new TypeError('boom');
      return [];
    },
    run: async () => 'ran',
  });
  const tools = new Map([['deploy', broken]]);
  const report = validateWorkflow(flow('deploy', { tag: 'v1' }), '<workflow>', { tools });
  assert.equal(report.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_DEFINITION', '/nodes/2/args']]);
  const engine = createEngine({ store: createMemoryStore(), tools: [broken] });
  const s = await engine.start(flow('deploy', { tag: '{{ask.tag}}' }));
  const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  assert.is(r.status === 'failed' && r.error.code, 'E_TOOL_DEFINITION');
  assert.match(r.status === 'failed' ? r.error.message : '', /could not check the arguments of node "ship": boom/);
});

R('two projects with the same workflow text and different tool modules each run their own module', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store, allowToolModules: true });
  const one = moduleProject();
  const two = moduleProject();
  writeFileSync(join(two, '..', 'tools', 'shout.mjs'), `export const tools = [{ name: 'shout', class: 'read', inputSchema: { type: 'object' }, run: async () => ({ loud: 'PROJECT TWO' }) }];\n`);
  const a = await engine.start(one);
  const b = await engine.start(two);
  const ra = await engine.submit(a.runId, { tag: 'a' }, { seq: a.seq });
  const rb = await engine.submit(b.runId, { tag: 'b' }, { seq: b.seq });
  assert.equal(ra.status === 'completed' && ra.output, { 'ship.result': { loud: 'A' } });
  assert.equal(rb.status === 'completed' && rb.output, { 'ship.result': { loud: 'PROJECT TWO' } });
});

R('a workflow given as an object may not name relative toolModules (they would resolve against whichever cwd continues the run): E_TOOL_MODULE', async () => {
  const wf = flow('shout', { tag: 'x' }, { toolModules: ['./tools/shout.mjs'] });
  const report = validateWorkflow(wf);
  assert.equal(report.errors.map((f) => [f.code, f.pointer]), [['E_TOOL_MODULE', '/toolModules/0']]);
  const code = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(wf).then(() => 'started', (e: CountersignError) => e.code);
  assert.ok(code === 'E_TOOL_MODULE' || code === 'E_WORKFLOW_INVALID', String(code));
});

R.run();

const F = suite('tool failures are said, never worked around');

F('H41: a template mixed with text that reads an unset variable is E_TOOL_ARGS naming it; the tool never runs with a gap', async () => {
  const ran: string[] = [];
  const engine = createEngine({ store: createMemoryStore(), tools: [deploy(ran)] });
  const wf = flow('deploy', { tag: 'v-{{release}}' }) as unknown as { variableRegistry: Record<string, unknown> };
  wf.variableRegistry = { release: { type: 'string', description: 'the release' } };
  const s = await engine.start(wf as unknown as Workflow);
  const r = await engine.submit(s.runId, { tag: 'x' }, { seq: s.seq });
  assert.is(r.status === 'failed' && r.error.code, 'E_TOOL_ARGS');
  assert.match(r.status === 'failed' ? r.error.message : '', /\{\{release\}\}/);
  assert.equal(ran, []);
});

F('H9 H10: the error route can read what failed (node-id.error: code, message, fix), and validate knows the field', async () => {
  const failing = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw new CountersignError('E_TOOL_FAILED', 'registry down', { fix: 'try later' }); } });
  const wf = {
    metadata: { name: 'report-failure', version: '1.0.0', description: 'an error route that reports' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ship' } },
      { type: 'tool', id: 'ship', tool: 'deploy', args: {}, connections: { success: 'done', error: 'tell' } },
      { type: 'agent-directive', id: 'tell', directive: 'Tell the user: {{ship.error.code}}: {{ship.error.message}}', completionCondition: 'told', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const tools = new Map([['deploy', failing]]);
  assert.equal(validateWorkflow(wf, '<workflow>', { tools }).errors, []);
  const engine = createEngine({ store: createMemoryStore(), tools: [failing] });
  const s = await engine.start(wf);
  assert.is(s.status === 'waiting' && s.pending.kind === 'directive' && s.pending.directive.split('\n')[0], 'Tell the user: E_TOOL_FAILED: registry down');
  const events = (await engine.trace(s.runId)).events;
  assert.ok(events.some((e) => e.type === 'tool.failed' && e.code === 'E_TOOL_FAILED'));
});

F('a tool node runs with the run\'s user as ctx.userId (not its role, not the engine)', async () => {
  const seen: Array<string | undefined> = [];
  const who = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async (_a, ctx) => (seen.push(ctx.userId), 'ok') });
  const engine = createEngine({ store: createMemoryStore(), tools: [who] });
  const wf = flow('deploy', {}) as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes[2].agent = 'reviewer';
  const s = await engine.start(wf as unknown as Workflow, { as: 'alice' });
  await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq, as: 'bob' });
  assert.equal(seen, ['bob']);
});

F('§4.13: a tool that throws something other than an Error keeps its message', async () => {
  const odd = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw { message: 'quota exceeded', code: 429 }; } });
  const engine = createEngine({ store: createMemoryStore(), tools: [odd] });
  const s = await engine.start(flow('deploy', {}));
  const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  assert.match(r.status === 'failed' ? r.error.message : '', /quota exceeded \(code 429\)/);
});

F('§4.13: a plain Error that carries its own code keeps it too, as a thrown object does; a Node error, whose message opens with its code, is not said twice', async () => {
  for (const [thrown, said] of [
    [Object.assign(new Error('err boom'), { code: 'E_ERR' }), 'err boom (code E_ERR)'],
    [Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: 'ENOENT' }), "ENOENT: no such file or directory, open 'x'"],
  ] as const) {
    const tool = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw thrown; } });
    const engine = createEngine({ store: createMemoryStore(), tools: [tool] });
    const s = await engine.start(flow('deploy', {}));
    const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
    const message = r.status === 'failed' ? r.error.message : '';
    assert.ok(message.endsWith(said), message);
  }
});

F('H9 H10 §4.13: an engine tool an agent called that failed stops the directive (its error route, or the run), whatever the agent answers; the journal keeps the message', async () => {
  const failing = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw new Error('registry down'); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [failing] });
  const agent: Agent = {
    async answer(request, options) {
      if (request.kind === 'directive' && request.nodeId === 'ask') {
        await options.tools?.runner?.call('deploy', {}, request).catch(() => undefined);
        return { tag: 'posted anyway' };
      }
      return {};
    },
  };
  const r = await engine.run(flow('deploy', {}), { agent });
  assert.is(r.status, 'failed');
  assert.is(r.error?.code, 'E_TOOL_FAILED', 'the tool failed, not the agent');
  assert.match(r.error?.message ?? '', /tool "deploy" failed while the agent worked on this item: .*registry down/);
  // The run has ended: the fix says what can still be done (a new run, or an error route), never "run the step again".
  assert.match(r.error?.fix ?? '', 'start a new run');
  assert.not.match(r.error?.fix ?? '', 'run the step again');
  const called = (await engine.trace(r.runId)).events.find((e) => e.type === 'tool.called');
  assert.equal([called?.ok, called?.code], [false, 'E_TOOL_FAILED']);
  assert.match(String(called?.message), /registry down/);
});

F('§4.13: a typed error from another copy of countersign (a tool module importing the package while the CLI runs its bundle) keeps its code and fix', async () => {
  const foreign = Object.assign(new Error('typed boom'), { code: 'E_INPUT', fix: 'do x', [Symbol.for('countersign.error')]: true });
  const odd = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { throw foreign; } });
  const engine = createEngine({ store: createMemoryStore(), tools: [odd] });
  const s = await engine.start(flow('deploy', {}));
  const r = await engine.submit(s.runId, { tag: 'v1' }, { seq: s.seq });
  assert.match(r.status === 'failed' ? r.error.message : '', /failed: E_INPUT: typed boom/);
  assert.is(r.status === 'failed' && r.error.fix, 'do x');
});

F('§4.13: a typed error an engine tool throws for an agent is E_TOOL_FAILED (its own code kept in the message) and stops the step too; a refusal keeps its code', async () => {
  const failing = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, run: async () => { throw new CountersignError('E_LOOKUP_DOWN', 'lookup is down'); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [failing] });
  const codes: Array<string | undefined> = [];
  const agent: Agent = {
    async answer(request, options) {
      if (request.kind === 'directive' && request.nodeId === 'ask') {
        for (const args of [{ n: 'x' }, {}] as JsonObject[]) await options.tools?.runner?.call('deploy', args, request).catch((e: { code?: string }) => codes.push(e.code));
        return { tag: 'fine' };
      }
      return {};
    },
  };
  const r = await engine.run(flow('deploy', {}), { agent });
  assert.equal(codes, ['E_TOOL_ARGS', 'E_TOOL_FAILED']);
  assert.is(r.status === 'failed' && r.error?.code, 'E_TOOL_FAILED');
  assert.match(r.error?.message ?? '', /E_LOOKUP_DOWN: lookup is down/);
});

F.run();

const S = suite('a failed tool stops the item');

S('H9: once an engine tool failed in an item, no further tool runs in it (E_TOOL_STOPPED): not the same tool again, not another one, and a tool it may not call is E_TOOL_STOPPED too', async () => {
  let runs = 0;
  const failing = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => { runs++; throw new Error('registry down'); } });
  const engine = createEngine({ store: createMemoryStore(), tools: [failing] });
  const lent: string[] = [];
  const host = { names: () => ['notify'], call: async (name: string) => (lent.push(name), 'ok') };
  const codes: Array<string | undefined> = [];
  const agent: Agent = {
    async answer(request, options) {
      if (request.kind === 'directive' && request.nodeId === 'ask') {
        // After the failure: the same tool, a lent one, and one no agent may call; each is E_TOOL_STOPPED.
        for (const name of ['deploy', 'deploy', 'notify', 'no_such_tool']) await options.tools?.runner?.call(name, {}, request).catch((e: { code?: string }) => codes.push(e.code));
        return { tag: 'fine' };
      }
      return {};
    },
  };
  const verdicts: Array<string | undefined> = [];
  const r = await engine.run(flow('deploy', {}), { agent, tools: host, onProgress: (e) => (e.type === 'answered' ? verdicts.push(e.verdict) : undefined) });
  assert.equal(verdicts, ['discarded']);
  assert.equal(codes, ['E_TOOL_FAILED', 'E_TOOL_STOPPED', 'E_TOOL_STOPPED', 'E_TOOL_STOPPED']);
  assert.is(runs, 1);
  // The answer given after the failure is on record as not taken, and progress says so (never "answered").
  const discarded = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.discarded');
  assert.equal(discarded.map((e) => [e.nodeId, e.code, e.tool, e.attempt]), [['ask', 'E_TOOL_FAILED', 'deploy', 1]]);
  assert.equal(lent, []);
  assert.is(r.status === 'failed' && r.error?.code, 'E_TOOL_FAILED');
});

S('§4.13: a lent tool its host declares destructive is refused without a gate (E_GATE_REQUIRED) and never runs', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [deploy([])] });
  const lent: string[] = [];
  const host = {
    names: () => ['wipe_disk'],
    spec: (name: string) => ({ name, class: 'destructive' as const, inputSchema: { type: 'object' } }),
    call: async (name: string) => (lent.push(name), 'wiped'),
  };
  let code: string | undefined;
  let offered: string[] = [];
  const agent: Agent = {
    async answer(request, options) {
      if (request.kind === 'directive' && request.nodeId === 'ask') {
        offered = (request.toolSpecs ?? []).map((t) => t.name);
        await options.tools?.runner?.call('wipe_disk', {}, request).catch((e: { code?: string }) => (code = e.code));
        return { tag: 'v1' };
      }
      return {};
    },
  };
  await engine.run(flow('deploy'), { agent, tools: host });
  assert.is(code, 'E_GATE_REQUIRED');
  assert.not.ok(offered.includes('wipe_disk'));
  assert.equal(lent, []);
});

S.run();
