/**
 * §4 timeoutMs: in a driving run() the node's deadline bounds the wait on
 * the agent. An agent still working when the deadline comes is told to stop
 * (its signal aborts) and the run takes the node's timeout route then, not
 * whenever the agent happens to answer; an agent that answers at once is
 * told how long it has — the time left to the deadline, not --agent-timeout.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';

const Wait = suite('run(): a node deadline bounds the wait on the agent');

function flow(timeoutMs: number): Workflow {
  return {
    metadata: { name: 'deadline-wait', version: '1.0.0', description: 'one directive with a deadline' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Answer.', completionCondition: 'answered', timeoutMs, connections: { success: 'done', timeout: 'late' } },
      { type: 'end', id: 'done' },
      { type: 'end', id: 'late' },
    ],
  } as unknown as Workflow;
}

Wait('an agent told to answer gets the time left to the deadline as its timeoutMs, never the 600 s agent timeout', async () => {
  const given: number[] = [];
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(flow(60_000), { agent: { answer: async (_req, options) => (given.push(options.timeoutMs), {}) } });
  assert.is(r.endNodeId, 'done');
  assert.is(given.length, 1);
  assert.ok(given[0] <= 60_000 && given[0] > 50_000, `the wait is the deadline's 60 s, got ${given[0]} ms`);
});

Wait('an agent still working at the deadline has its signal aborted, and the run takes the timeout route without its answer', async () => {
  let abortedBeforeAnswer: boolean | undefined;
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(flow(200), {
    agentTimeoutMs: 30_000,
    agent: {
      answer: (_req, options) => new Promise((resolve) => {
        // Answers on its own only after 3 s: the deadline (200 ms) must end the wait first.
        const late = setTimeout(() => {
          abortedBeforeAnswer = false;
          resolve({});
        }, 3_000);
        options.signal.addEventListener('abort', () => {
          clearTimeout(late);
          abortedBeforeAnswer = true;
          resolve({});
        });
      }),
    },
  });
  assert.is(abortedBeforeAnswer, true, 'the wait was cut at the deadline');
  assert.is(r.endNodeId, 'late');
  const events = (await engine.trace(r.runId)).events.map((e) => e.type);
  assert.ok(events.includes('timeout'));
  assert.not.ok(events.includes('answer.accepted'), 'the agent\'s answer was never taken');
});

Wait.run();
