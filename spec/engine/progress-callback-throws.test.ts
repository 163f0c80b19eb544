/**
 * A host's onProgress callback that throws never escapes run() as a bare
 * Error nor loses the run: the drive stops at once (no agent is asked
 * after the callback failed) and run() returns the run as stored — still
 * waiting: stopped with E_PROGRESS_FAILED, resumable; ended: its result,
 * with the callback's failure in `progressError`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, createMemoryStore, type Agent, type Workflow } from '../../engine/index.js';
import { ROOT } from '../helpers/cli.js';

const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

const S = suite('run(): an onProgress callback that throws');

function counting(answer: () => unknown = () => ({ words: 5 })): Agent & { asked: number; closed: number } {
  const agent = { asked: 0, closed: 0, answer: async () => { agent.asked++; return answer(); }, close: async () => { agent.closed++; } };
  return agent;
}

/** A callback that throws on the first event of type `at`, and records every event it was handed. */
function throwingOn(at: string, thrown: unknown = new Error(`boom at ${at}`)) {
  const seen: string[] = [];
  return { seen, onProgress: (e: { type: string }) => { seen.push(e.type); if (e.type === at) throw thrown; } };
}

for (const at of ['driving', 'pending']) {
  S(`thrown on "${at}": the run stops waiting with E_PROGRESS_FAILED naming the run, the event and the callback's message; the agent is never asked, and the run resumes`, async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const agent = counting();
    const listener = throwingOn(at);
    const r = await engine.run(TWO_STEP, { agent, onProgress: listener.onProgress });
    assert.is(r.status, 'waiting');
    assert.is(r.stopped, true);
    assert.is(r.error?.code, 'E_PROGRESS_FAILED');
    assert.match(r.error!.message, r.runId);
    assert.match(r.error!.message, `"${at}"`);
    assert.match(r.error!.message, `boom at ${at}`);
    assert.match(r.error!.message, 'node "write"');
    assert.match(r.error!.fix ?? '', `engine.run({ runId: "${r.runId}" }`);
    assert.is(agent.asked, 0, 'the agent was asked after the callback failed');
    assert.is(agent.closed, 1);
    // Nothing more is handed to the callback once it threw.
    assert.is(listener.seen[listener.seen.length - 1], at);
    assert.is((await engine.status(r.runId)).status, 'waiting');
    const resumed = await engine.run({ runId: r.runId }, { agent: counting() });
    assert.is(resumed.status, 'completed');
  });
}

for (const at of ['answered', 'route']) {
  S(`thrown on "${at}" after the run completed as stored: run() returns the completed result (output, end node) with E_PROGRESS_FAILED in progressError`, async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const agent = counting();
    const r = await engine.run(TWO_STEP, { agent, onProgress: throwingOn(at).onProgress });
    assert.is(r.status, 'completed');
    assert.is(r.endNodeId, 'short');
    assert.equal(r.output, { topic: 'tests', 'write.words': 5 });
    assert.is(r.error, undefined);
    assert.is(r.progressError?.code, 'E_PROGRESS_FAILED');
    assert.match(r.progressError!.message, r.runId);
    assert.match(r.progressError!.message, `"${at}"`);
    assert.match(r.progressError!.message, 'completed');
    assert.is(agent.closed, 1);
  });
}

S('thrown on "stopped": the stop stands as it was (the agent\'s own E_AGENT_CRASHED), with the callback\'s failure in progressError', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent = counting(() => { throw new Error('agent down'); });
  const r = await engine.run(TWO_STEP, { agent, onProgress: throwingOn('stopped', 'a bare string').onProgress });
  assert.is(r.status, 'waiting');
  assert.is(r.stopped, true);
  assert.is(r.error?.code, 'E_AGENT_CRASHED');
  assert.is(r.progressError?.code, 'E_PROGRESS_FAILED');
  assert.match(r.progressError!.message, '"stopped"');
  assert.match(r.progressError!.message, 'a bare string');
});

S('r100 d1: a thrown value that cannot be turned into text (no prototype, a toString that throws, a message getter that throws) is still kept: E_PROGRESS_FAILED, never a bare TypeError', async () => {
  const badMessage = new Error('x');
  Object.defineProperty(badMessage, 'message', { get() { throw new Error('getter'); } });
  for (const thrown of [Object.create(null), { toString() { throw new Error('ts'); } }, badMessage]) {
    const engine = createEngine({ store: createMemoryStore() });
    const r = await engine.run(TWO_STEP, { agent: counting(), onProgress: throwingOn('pending', thrown).onProgress });
    assert.is(r.status, 'waiting');
    assert.is(r.error?.code, 'E_PROGRESS_FAILED');
    assert.match(r.error!.message, r.runId);
  }
});

S('a callback that does not throw leaves no progressError', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const r = await engine.run(TWO_STEP, { agent: counting(), onProgress: () => {} });
  assert.is(r.status, 'completed');
  assert.not.ok('progressError' in r);
});

S.run();
