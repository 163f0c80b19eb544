/**
 * The jsonl adapter keeps each answer with its own request (issue 4, seed
 * §4.4 fail closed): a stream it can no longer match to the requests — a
 * malformed line, a timed-out request that called tools, a timed-out
 * decision review — is discarded with its process, so a late reply can never
 * answer (and approve) a later proposal.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Agent } from '../../engine/hosts/agent.js';
import { createJsonlAgent } from '../../engine/hosts/jsonl.js';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { agentRequest } from '../helpers/agent-request.js';
import { rejection } from '../helpers/errors.js';
import { tempDir } from '../helpers/cli.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/agents/jsonl-late-agent.mjs', import.meta.url));
const agentIn = (mode: string): Agent => createJsonlAgent(`node '${FIXTURE}' ${mode}`, { cwd: tempDir('countersign-resync-') });
/** The same agent echoing "$seq" on its lines, having answered one request (seq 10) so the adapter has seen it echo. */
async function echoingAgentIn(mode: string, dir = tempDir('countersign-resync-')): Promise<Agent> {
  const agent = createJsonlAgent(`node '${FIXTURE}' ${mode} seq`, { cwd: dir });
  assert.is(answerOf(await agent.answer(directive(10), opts(5000))).seq, 10);
  return agent;
}
const opts = (timeoutMs: number) => ({ signal: new AbortController().signal, timeoutMs, tools: { allowed: new Set(['get_sop_text']) } });
const directive = (seq: number) => agentRequest('n', seq);
const decision = (seq: number) => agentRequest('review', seq, { kind: 'review', contract: 'decision', persona: { name: 'reviewer', model: 'm', max_turns: 5, tools: ['get_sop_text'] } } as unknown as Partial<AgentRequest>);
const answerOf = (v: unknown) => v as { seq: number; pid: number; late?: boolean };

const Resync = suite('jsonl adapter: answers stay with their requests');

Resync('§4.4: after a line that is not JSON, the agent\'s own answer to that request is not taken as the next request\'s answer', async () => {
  const agent = agentIn('chatty');
  try {
    const err = await rejection(agent.answer(directive(1), opts(5000)));
    assert.is(err.code, 'E_AGENT_OUTPUT');
    const second = answerOf(await agent.answer(directive(2), opts(5000)));
    assert.is(second.seq, 2, 'request 2 gets its own answer');
  } finally {
    await agent.close?.();
  }
});

Resync('§4.4: a request that times out in the middle of a tool exchange is discarded: its late reply does not answer the next request', async () => {
  const agent = agentIn('tool-slow');
  try {
    const err = await rejection(agent.answer(directive(1), opts(300)));
    assert.is(err.code, 'E_AGENT_TIMEOUT');
    const second = answerOf(await agent.answer(directive(2), opts(5000)));
    assert.equal([second.seq, second.late], [2, undefined]);
  } finally {
    await agent.close?.();
  }
});

Resync('§4.4: a timed-out request whose late conversation starts calling tools is not resumed: the next request is asked again of a fresh process', async () => {
  const agent = agentIn('late-tool');
  try {
    assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
    // Let the late $tool line arrive before the next request is read.
    await new Promise((r) => setTimeout(r, 800));
    const second = answerOf(await agent.answer(directive(2), opts(5000)));
    assert.equal([second.seq, second.late], [2, undefined]);
  } finally {
    await agent.close?.();
  }
});

Resync('§4.4: a timed-out request\'s late tool call that carries its "$seq" is no late answer to skip: whether it comes between requests or during the next, that request is asked again of a fresh process and answered by it', async () => {
  for (const pause of [800, 0]) {
    const agent = agentIn('late-tool-seq');
    try {
      assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
      await new Promise((r) => setTimeout(r, pause));
      const second = answerOf(await agent.answer(directive(2), opts(5000)));
      assert.equal([second.seq, second.late], [2, undefined], `pause ${pause} ms`);
      const third = answerOf(await agent.answer(directive(3), opts(5000)));
      assert.equal([third.seq, third.pid], [3, second.pid], 'the fresh process goes on answering');
    } finally {
      await agent.close?.();
    }
  }
});

Resync('§4.4: a timed-out plain request lets an agent that does not echo "$seq" go: its late answer would be told from the next one by order alone, so the next request is asked of a fresh process — an agent that answers as requests come never has answers swapped', async () => {
  for (const mode of ['slow-first', 'as-they-come', 'late-stray', 'late-garbage']) {
    const agent = agentIn(mode);
    try {
      const warm = answerOf(await agent.answer(directive(10), opts(5000)));
      assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
      await new Promise((r) => setTimeout(r, 800));
      const second = answerOf(await agent.answer(directive(2), opts(5000)));
      assert.equal([second.seq, second.late], [2, undefined], `${mode}: request 2 gets its own answer`);
      assert.ok(second.pid !== warm.pid, `${mode}: a fresh process answers it`);
    } finally {
      await agent.close?.();
    }
  }
});

Resync('§4.4: an agent that echoes "$seq" keeps its process after a timed-out request; a line past the late answer (unasked), or a line that is not JSON where the late answer was due, is E_AGENT_OUTPUT, and the next request is answered by a fresh process, never one answer off', async () => {
  for (const [mode, pauses] of [['late-stray', [1000]], ['late-garbage', [1000, 0]]] as const) {
    for (const pause of pauses) {
      const dir = tempDir('countersign-resync-');
      const agent = await echoingAgentIn(mode, dir);
      try {
        assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
        // Either the late lines are out before the next request (waited for), or they come while it is read.
        if (pause > 0) for (const end = Date.now() + 10_000; !existsSync(join(dir, 'late-written')) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, pause > 0 ? 100 : 0));
        const e = await rejection(agent.answer(directive(2), opts(5000)));
        assert.is(e.code, 'E_AGENT_OUTPUT', `${mode}, pause ${pause} ms: ${e.message}`);
        const third = answerOf(await agent.answer(directive(3), opts(5000)));
        assert.equal([third.seq, third.late], [3, undefined], `${mode}, pause ${pause} ms: request 3 gets its own answer`);
      } finally {
        await agent.close?.();
      }
    }
  }
});

Resync('§4.4: with an agent that echoes "$seq", a timed-out request\'s late answer of null (an answer, for a node that takes no fields, which cannot carry "$seq") is skipped as its late answer, before or during the next request; the process is kept', async () => {
  for (const pause of [1000, 0]) {
    const dir = tempDir('countersign-resync-');
    const agent = await echoingAgentIn('late-null', dir);
    try {
      assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
      if (pause > 0) for (const end = Date.now() + 10_000; !existsSync(join(dir, 'late-written')) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, pause > 0 ? 100 : 0));
      const second = answerOf(await agent.answer(directive(2), opts(5000)));
      const third = answerOf(await agent.answer(directive(3), opts(5000)));
      assert.equal([second.seq, third.seq, second.pid === third.pid], [2, 3, true], `pause ${pause} ms`);
    } finally {
      await agent.close?.();
    }
  }
});

Resync('§4.4: after a timed-out request, a line whose "$seq" names no request owed an answer is E_AGENT_OUTPUT, never skipped as the late answer', async () => {
  const agent = await echoingAgentIn('wrong-seq');
  try {
    assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
    const e = await rejection(agent.answer(directive(2), opts(5000)));
    assert.is(e.code, 'E_AGENT_OUTPUT');
    assert.match(e.message, 'whose "$seq" (7) is neither this request\'s (2');
  } finally {
    await agent.close?.();
  }
});

Resync('§4.4: a line whose "$seq" names no request owed an answer is E_AGENT_OUTPUT also when it arrives between requests, never counted as the timed-out request\'s late answer', async () => {
  const dir = tempDir('countersign-resync-');
  const agent = await echoingAgentIn('late-wrong-seq', dir);
  try {
    assert.is((await rejection(agent.answer(directive(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
    for (const end = Date.now() + 10_000; !existsSync(join(dir, 'late-written')) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const e = await rejection(agent.answer(directive(2), opts(5000)));
    assert.is(e.code, 'E_AGENT_OUTPUT');
    assert.match(e.message, /nobody asked for.*\$seq/);
  } finally {
    await agent.close?.();
  }
});

Resync('E11 §4.4: a decision review that times out stops the reviewer; the next proposal is reviewed by a fresh process', async () => {
  const agent = agentIn('late-tool');
  try {
    assert.is((await rejection(agent.answer(decision(1), opts(200)))).code, 'E_AGENT_TIMEOUT');
    // Were the reviewer kept, its late tool call and approval would be waiting here.
    await new Promise((r) => setTimeout(r, 800));
    const next = answerOf(await agent.answer(decision(2), opts(5000)));
    assert.equal([next.seq, next.late], [2, undefined]);
    // A plain request keeps the process of an agent that echoes "$seq" after a timeout (its late line is skipped).
    const plain = await echoingAgentIn('slow-first');
    try {
      await rejection(plain.answer(directive(1), opts(200)));
      const a = answerOf(await plain.answer(directive(2), opts(5000)));
      const b = answerOf(await plain.answer(directive(3), opts(5000)));
      assert.equal([a.seq, b.seq, a.pid === b.pid], [2, 3, true]);
    } finally {
      await plain.close?.();
    }
  } finally {
    await agent.close?.();
  }
});

Resync('§4.4 through run: a node whose deadline passes takes its timeout route, and the next node gets its own answer from an agent that answers as requests come (the late one never recorded in its place)', async () => {
  const answer = { type: 'object', properties: { seq: { type: 'integer' }, pid: { type: 'integer' }, late: { type: 'boolean' } } };
  const workflow = {
    metadata: { name: 'late', version: '1.0.0', description: 'a deadline, then a second node' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'first' } },
      { type: 'agent-directive', id: 'first', directive: 'd', completionCondition: 'c', inputSchema: answer, timeoutMs: 300, connections: { success: 'second', timeout: 'second' } },
      { type: 'agent-directive', id: 'second', directive: 'd', completionCondition: 'c', inputSchema: answer, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['second.seq', 'second.late'] },
    ],
  } as unknown as Workflow;
  const agent = createJsonlAgent(`node '${FIXTURE}' as-they-come`, { cwd: tempDir('countersign-resync-') });
  try {
    const result = await createEngine({ store: createMemoryStore() }).run(workflow, { agent });
    assert.is(result.status, 'completed', JSON.stringify(result));
    assert.equal((result as { output?: unknown }).output, { 'second.seq': 2 }, JSON.stringify(result));
  } finally {
    await agent.close?.();
  }
});

Resync.run();
