/**
 * Tool calls by agents (issue 4, the jsonl protocol amendment): `$tool`
 * lines are answered with `$toolResult` / `$toolError`; only the request's
 * effective tools run — a reviewer's persona list, so the runtime filter
 * holds against an external agent (B13–B16); every message is one turn and
 * a reviewer past max_turns is cut off and rejected (B5); every call is
 * journaled as tool.called.
 */
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { createEngine, createMemoryStore, type Agent } from '../../engine/index.js';
import { createJsonlAgent } from '../../engine/hosts/jsonl.js';
import { mediate, toolSession, type ToolRunner } from '../../engine/hosts/tool-mediation.js';
import { agentRequest } from '../helpers/agent-request.js';
import type { JsonValue } from '../../engine/format/model.js';
import { tempDir } from '../helpers/cli.js';

const GATE = fileURLToPath(new URL('../../workflows/ongrid-review-gate.json', import.meta.url));
const REVIEWER = fileURLToPath(new URL('../fixtures/gate/tool-reviewer.mjs', import.meta.url));

function runner(ran: string[]): ToolRunner {
  return {
    names: () => ['get_sop_text', 'run_shell', 'broken'],
    async call(name, args): Promise<JsonValue> {
      ran.push(name);
      if (name === 'broken') throw new CountersignError('E_TOOL_ARGS', 'device_id must be an integer');
      return name === 'get_sop_text' ? { sop_id: 'SOP-007', args } : { ran: true };
    },
  };
}

async function gate(calls: string[], maxTurns = 5, decision = 'approve') {
  const ran: string[] = [];
  const cwd = tempDir('countersign-tools-');
  const agent = createJsonlAgent([process.execPath, REVIEWER, decision, ...calls].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), { cwd });
  const engine = createEngine({ store: createMemoryStore() });
  try {
    const result = await engine.run(GATE, {
      agent,
      tools: runner(ran),
      input: {
        tool: 'host_restart_service',
        tool_class: 'write',
        proposal: { action: 'host_restart_service', target: { device_id: 7 }, reason: 'r', blast_radius: 'single_device', operator: 'u', context_summary: 's' },
        proposal_hash: 'h',
        persona: { name: 'reviewer', model: 'm', max_turns: maxTurns, tools: ['get_sop_text', 'broken'], body: 'Review it.' },
      },
    });
    const { events } = await engine.trace(result.runId);
    const state = await engine.status(result.runId);
    return { ran, events, outcome: state.status === 'completed' ? state.outcome : state.status, nodes: result.output };
  } finally {
    await agent.close?.();
  }
}

/** One directive whose answer writes the global msg: what the library-agent tests run. */
const SAY_HI = {
  metadata: { name: 'simple', version: '1.0.0', description: 'd' },
  variableRegistry: { msg: { type: 'string', description: 'm' } },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'ask' } },
    { id: 'ask', type: 'agent-directive', directive: 'say hi', completionCondition: 'done', inputSchema: { type: 'object', properties: {}, globalInputs: ['msg'], required: ['msg'] }, connections: { success: 'end' } },
    { id: 'end', type: 'end', finalOutput: ['msg'] },
  ],
};

const Tools = suite('tool calls by agents ($tool mediation)');

Tools('B13 B14 B15: a tool outside the persona\'s list is refused with E_TOOL_DENIED and never runs; an allowed one runs and its result goes back', async () => {
  const r = await gate(['run_shell:{"cmd":"reboot"}', 'get_sop_text:{"action":"restart"}']);
  assert.equal(r.ran, ['get_sop_text'], 'run_shell never ran');
  assert.is(r.outcome, 'approved');
  const called = r.events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok, e.code]);
  assert.equal(called, [['run_shell', false, 'E_TOOL_DENIED'], ['get_sop_text', true, undefined]]);
});

Tools('a malformed $tool line is refused (E_TOOL_REQUEST) and journaled with no name, never as a tool named "undefined"', async () => {
  const r = await gate(['raw={"$tool":"garbage"}', 'raw={"$tool":{"args":{}}}']);
  assert.equal(r.ran, []);
  const called = r.events.filter((e) => e.type === 'tool.called');
  assert.equal(called.map((e) => [e.name, e.ok, e.code]), [[undefined, false, 'E_TOOL_REQUEST'], [undefined, false, 'E_TOOL_REQUEST']]);
  assert.ok(called.every((e) => !('name' in e)), 'no name key at all');
});

Tools('a $tool line with a key the protocol does not take ("reasn", "extra") is refused (E_TOOL_REQUEST, naming the key) and the tool never runs', async () => {
  const r = await gate(['raw={"$tool":{"name":"get_sop_text","args":{},"reasn":"why"}}']);
  assert.equal(r.ran, []);
  const called = r.events.filter((e) => e.type === 'tool.called');
  assert.equal(called.map((e) => [e.name, e.ok, e.code]), [['get_sop_text', false, 'E_TOOL_REQUEST']]);
  assert.match(String(called[0].message), '"reasn"');
});

Tools('a $tool line that also holds an answer\'s fields ("note" beside "$tool") is refused (E_TOOL_REQUEST naming them): they are never dropped without a word, and the tool never runs', async () => {
  const r = await gate(['raw={"$tool":{"name":"get_sop_text","args":{}},"note":"my answer"}']);
  assert.equal(r.ran, []);
  const called = r.events.filter((e) => e.type === 'tool.called');
  assert.equal(called.map((e) => [e.name, e.ok, e.code]), [['get_sop_text', false, 'E_TOOL_REQUEST']]);
  assert.match(String(called[0].message), '"note"');
});

Tools('a failing tool comes back as $toolError with its code, and the reviewer still replies', async () => {
  const r = await gate(['broken']);
  assert.equal(r.ran, ['broken']);
  assert.equal(r.events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok, e.code]), [['broken', false, 'E_TOOL_ARGS']]);
  assert.is(r.outcome, 'approved');
});

Tools('a $toolError carries the error\'s fix, so the agent can act on it; a tool that returns nothing is E_TOOL_FAILED, never a null result', async () => {
  const lent: ToolRunner = {
    names: () => ['needs_gh', 'silent'],
    async call(name): Promise<JsonValue> {
      if (name === 'needs_gh') throw new CountersignError('E_TOOL_FAILED', 'gh could not be started', { fix: 'install the GitHub CLI (https://cli.github.com)' });
      return undefined as unknown as JsonValue;
    },
  };
  const request = agentRequest('work', 1);
  const session = toolSession(request, lent);
  assert.equal(await mediate({ name: 'needs_gh', args: {} }, session, request), { $toolError: { code: 'E_TOOL_FAILED', message: 'gh could not be started', fix: 'install the GitHub CLI (https://cli.github.com)' } });
  const calls: Array<{ name?: string; ok: boolean; code?: string }> = [];
  const recorded = toolSession(request, lent, (c) => calls.push(c));
  assert.equal(await mediate({ name: 'silent', args: {} }, recorded, request), { $toolError: { code: 'E_TOOL_FAILED', message: 'tool "silent" ran (it may have taken effect), but returned nothing (undefined)' } });
  assert.equal(calls.map((c) => [c.name, c.ok, c.code]), [['silent', false, 'E_TOOL_FAILED']], 'journaled as the failure the agent was told');
});

Tools('B5 §4.4: each $tool line is a turn, a refused one too; a reviewer whose last turn goes to a tool is cut off and the review is a reject', async () => {
  // max_turns 3: two tool lines and the reply fit.
  assert.is((await gate(['run_shell', 'get_sop_text'], 3)).outcome, 'approved');
  // max_turns 2: the second tool line uses the last turn; no reply can follow.
  const r = await gate(['run_shell', 'get_sop_text'], 2);
  assert.is(r.outcome, 'rejected');
  assert.equal(r.ran, [], 'the tool on the last turn never ran');
  const parsed = r.events.find((e) => e.type === 'decision.parsed');
  assert.is(parsed?.decision, 'reject');
  assert.equal(r.events.filter((e) => e.type === 'tool.called').map((e) => e.code), ['E_TOOL_DENIED', 'E_MAX_TURNS']);
});

Tools('B5 §4.4: a library (in-process) reviewer is held to the same count: its refused calls are turns too, and the same conversation is rejected as a jsonl one', async () => {
  const ran: string[] = [];
  const outcomes: string[] = [];
  const agent: Agent = {
    async answer(request, options) {
      for (const name of ['run_shell', 'get_sop_text']) {
        try {
          await options.tools!.runner!.call(name, {}, request);
          outcomes.push('ok');
        } catch (e) {
          outcomes.push((e as { code: string }).code);
        }
      }
      return { reply: '**Decision: approve**' };
    },
  };
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(GATE, {
    agent,
    tools: runner(ran),
    input: {
      tool: 'host_restart_service', tool_class: 'write',
      proposal: { action: 'host_restart_service', target: { device_id: 7 }, reason: 'r', blast_radius: 'single_device', operator: 'u', context_summary: 's' },
      proposal_hash: 'h',
      persona: { name: 'reviewer', model: 'm', max_turns: 2, tools: ['get_sop_text', 'broken'], body: 'Review it.' },
    },
  });
  const state = await engine.status(result.runId);
  assert.is(state.status === 'completed' && state.outcome, 'rejected');
  assert.equal(outcomes, ['E_TOOL_DENIED', 'E_MAX_TURNS']);
  assert.equal(ran, [], 'the tool on the last turn never ran');
});

Tools('§4.4: tool calls made before the reviewer crashed are journaled (tool.called) even though no answer followed', async () => {
  const r = await gate(['get_sop_text'], 5, 'crash');
  assert.equal(r.ran, ['get_sop_text']);
  assert.equal(r.events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok]), [['get_sop_text', true]]);
});

Tools('a library agent that calls a lent tool after the run stopped waiting for it (it timed out) is refused with E_TOOL_SESSION_OVER: the tool does not run, off the record', async () => {
  const ran: string[] = [];
  const tools: ToolRunner = { names: () => ['lookup'], async call(name) { ran.push(name); return { ok: 1 }; } };
  let late: CountersignError | undefined;
  let lateCall: Promise<void> = Promise.resolve();
  const agent: Agent = {
    answer: (request, options) => {
      lateCall = new Promise((r) => setTimeout(r, 300)).then(() => options.tools!.runner!.call('lookup', {}, request)).then(() => undefined, (e) => { late = e; });
      return lateCall.then(() => ({ msg: 'hi' }));
    },
  };
  const workflow = SAY_HI;
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(workflow as never, { agent, tools, agentTimeoutMs: 100 });
  assert.is(r.error?.code, 'E_AGENT_TIMEOUT');
  await lateCall;
  assert.is(late?.code, 'E_TOOL_SESSION_OVER');
  assert.match(late!.message, 'after the run stopped waiting for this agent (the wait ended: E_AGENT_TIMEOUT): it did not run');
  assert.equal(ran, [], 'the tool never ran');
});

Tools('an agent looping on tool calls is stopped after 1000 calls for one item (E_AGENT_OUTPUT, the run waits, resumable), never left to run and journal until its timeout: a jsonl agent, and a library agent', async () => {
  const workflow = SAY_HI;
  const looping = createJsonlAgent(`while read l; do echo '{"$tool":"nope"}'; done`, { cwd: tempDir('countersign-loop-') });
  const engine = createEngine({ store: createMemoryStore() });
  try {
    const r = await engine.run(workflow as never, { agent: looping, agentTimeoutMs: 60_000 });
    assert.equal([r.status, r.error?.code], ['waiting', 'E_AGENT_OUTPUT']);
    assert.match(r.error!.message, 'the agent made more than 1000 tool calls for node "ask" without answering');
    const called = (await engine.trace(r.runId)).events.filter((e) => e.type === 'tool.called');
    assert.is(called.length, 1000);
  } finally {
    await looping.close?.();
  }
  const ran: string[] = [];
  const tools: ToolRunner = { names: () => ['lookup'], async call(name) { ran.push(name); return { ok: 1 }; } };
  const codes: string[] = [];
  const library: Agent = {
    async answer(request, options) {
      for (let i = 0; i < 1005; i++) await options.tools!.runner!.call('lookup', {}, request).catch((e: CountersignError) => codes.push(e.code));
      return { msg: 'hi' };
    },
  };
  const lib = await engine.run(workflow as never, { agent: library, tools });
  assert.equal([lib.status, lib.error?.code], ['waiting', 'E_AGENT_OUTPUT'], 'its answer is not taken: the run stops, waiting');
  assert.is(ran.length, 1000, 'the calls past the limit did not run');
  assert.equal(codes, ['E_AGENT_OUTPUT', 'E_TOOL_SESSION_OVER', 'E_TOOL_SESSION_OVER', 'E_TOOL_SESSION_OVER', 'E_TOOL_SESSION_OVER']);
  assert.is((await engine.trace(lib.runId)).events.filter((e) => e.type === 'tool.called').length, 1001, 'the refusal is on the record once');
});

Tools('a $tool line whose "args" is null (or a list) is refused (E_TOOL_ARGS), never run as {}; "args" left out is {}', async () => {
  const ran: unknown[] = [];
  const runner: ToolRunner = { names: () => ['opt'], async call(_n, args) { ran.push(args); return { ok: 1 }; } };
  const session = toolSession(agentRequest('n', 1), runner, () => undefined);
  const sessionAll = { ...session, allowed: new Set(['opt']) };
  for (const args of [null, [1]]) {
    const reply = await mediate({ name: 'opt', args }, sessionAll, agentRequest('n', 1));
    assert.is((reply.$toolError as { code: string }).code, 'E_TOOL_ARGS', JSON.stringify(args));
  }
  const ok = await mediate({ name: 'opt', args: undefined }, sessionAll, agentRequest('n', 1));
  assert.ok('$toolResult' in ok, JSON.stringify(ok));
  assert.equal(ran, [{}]);
});

Tools.run();
