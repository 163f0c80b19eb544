/**
 * §6 jsonl "stdin is closed when the run stops", and §4's one run contract
 * for the CLI and the library: a library `run()` lets go of its agents
 * when it returns — completed, failed or stopped — as `countersign run`
 * does, so a long-lived host (a server) is not left with agent processes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent, createEngine, createMemoryStore, type Agent, type Workflow } from '../../engine/index.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { aliveThenReaped } from '../helpers/processes.js';

const TWO_STEP = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8')) as Workflow;

/** A jsonl agent that logs its pid, each request, and the close of its stdin (then exits). */
function jsonlAgent(dir: string, answer = '{"words": 5}'): { spec: string; log: () => string[] } {
  const log = join(dir, 'agent.log');
  writeFileSync(log, '');
  writeFileSync(join(dir, 'agent.mjs'), `
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const say = (m) => appendFileSync(${JSON.stringify(log)}, m + '\\n');
say('start ' + process.pid);
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => { say('request ' + JSON.parse(line).runId); process.stdout.write(${JSON.stringify(answer)} + '\\n'); });
rl.on('close', () => { say('stdin closed ' + process.pid); process.exit(0); });
`);
  return { spec: `jsonl:node ${join(dir, 'agent.mjs')}`, log: () => readFileSync(log, 'utf8').trim().split('\n').filter((l) => l !== '') };
}

const pidsIn = (lines: string[]) => lines.filter((l) => l.startsWith('start ')).map((l) => Number(l.slice('start '.length)));

const test = suite('run() closes its agents');

test('a library run() with createAgent("jsonl:…") closes the agent\'s stdin before it returns, and the process is gone', async () => {
  const dir = tempDir();
  const agent = jsonlAgent(dir);
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(TWO_STEP, { agent: createAgent(agent.spec, { cwd: dir }) });
  assert.is(result.status, 'completed');
  const lines = agent.log();
  const [pid] = pidsIn(lines);
  assert.ok(lines.includes(`stdin closed ${pid}`), `the agent saw its stdin close by the time run() returned: ${lines.join(' | ')}`);
  assert.not.ok(aliveThenReaped(pid), 'the agent process is gone when run() returns');
});

test('a run that stops while still waiting (maxSteps) closes the agent too, and the same agent then serves the resumed run from a fresh process', async () => {
  const dir = tempDir();
  const agent = jsonlAgent(dir, '{"words": 0}');
  const engine = createEngine({ store: createMemoryStore() });
  const served = createAgent(agent.spec, { cwd: dir });
  const stopped = await engine.run(TWO_STEP, { agent: served, maxSteps: 1 });
  assert.is(stopped.status, 'waiting');
  assert.is(stopped.error?.code, 'E_MAX_STEPS');
  const [first] = pidsIn(agent.log());
  assert.ok(agent.log().includes(`stdin closed ${first}`), agent.log().join(' | '));
  assert.not.ok(aliveThenReaped(first));
  // Closed is not finished with: the next run() asks a fresh process.
  const resumed = await engine.run({ runId: stopped.runId }, { agent: served, maxSteps: 1 });
  assert.is(resumed.error?.code, 'E_MAX_STEPS');
  const pids = pidsIn(agent.log());
  assert.is(pids.length, 2, agent.log().join(' | '));
  assert.ok(agent.log().includes(`stdin closed ${pids[1]}`));
});

test('one agent shared by two runs at once is closed when the last of them returns, never under the other', async () => {
  const dir = tempDir();
  const agent = jsonlAgent(dir);
  const engine = createEngine({ store: createMemoryStore() });
  const shared = createAgent(agent.spec, { cwd: dir });
  // The agent answers them in turn: the first run ends while the second's request is still in flight.
  const [a, b] = await Promise.all([
    engine.run(TWO_STEP, { agent: shared }),
    engine.run(TWO_STEP, { agent: shared }),
  ]);
  assert.is(a.status, 'completed');
  assert.is(b.status, 'completed');
  const lines = agent.log();
  // One process served both runs' requests; it was closed once, after both.
  assert.is(pidsIn(lines).length, 1, lines.join(' | '));
  assert.is(lines.filter((l) => l.startsWith('request ')).length, 2, lines.join(' | '));
  assert.is(lines[lines.length - 1], `stdin closed ${pidsIn(lines)[0]}`);
});

test('a host\'s own agent with close() has it called once the drive ends (its Agent contract: release what it holds)', async () => {
  let closed = 0;
  let answered = 0;
  const agent: Agent = {
    answer: async () => {
      answered++;
      return { words: 5 };
    },
    close: async () => {
      closed++;
    },
  };
  const engine = createEngine({ store: createMemoryStore() });
  const result = await engine.run(TWO_STEP, { agent });
  assert.is(result.status, 'completed');
  assert.is(answered, 1);
  assert.is(closed, 1);
});

test('a close() that rejects after the run completed does not take its result away: run() returns the RunResult (runId, output, end node), with the close\'s failure in closeError', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({ words: 200 }), close: async () => { throw new Error('close failed'); } };
  const result = await engine.run(TWO_STEP, { agent });
  assert.is(result.status, 'completed');
  assert.is(result.endNodeId, 'long');
  assert.equal(result.output, { topic: 'tests', 'write.words': 200 });
  assert.equal((await engine.runs()).map((r) => r.runId), [result.runId]);
  assert.match(String(result.closeError), 'close failed');
});

test('one close() that throws (at once, or by rejecting) does not stop the other: the reviewer is closed, and awaited, before run() returns', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  let reviewerClosed = false;
  const reviewer: Agent = { answer: async () => ({ words: 5 }), close: async () => { await new Promise((done) => setTimeout(done, 200)); reviewerClosed = true; } };
  const throwsAtOnce: Agent = { answer: async () => ({ words: 5 }), close: () => { throw new Error('agent close failed'); } };
  const first = await engine.run(TWO_STEP, { agent: throwsAtOnce, reviewer });
  assert.is(first.status, 'completed');
  assert.ok(reviewerClosed, 'the reviewer was closed though the agent\'s close() threw synchronously');
  assert.match(String(first.closeError), 'agent close failed');
  reviewerClosed = false;
  const rejects: Agent = { answer: async () => ({ words: 5 }), close: async () => { throw new Error('agent close failed'); } };
  const second = await engine.run(TWO_STEP, { agent: rejects, reviewer });
  assert.ok(reviewerClosed, 'run() returned only once the reviewer\'s close() had ended');
  assert.match(String(second.closeError), 'agent close failed');
});

test('when the agent\'s and the reviewer\'s close() both fail, closeError names both, each with whose close it was', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({ words: 5 }), close: async () => { throw new Error('A-fail'); } };
  const reviewer: Agent = { answer: async () => ({ words: 5 }), close: async () => { throw new Error('R-fail'); } };
  const result = await engine.run(TWO_STEP, { agent, reviewer });
  assert.is(result.status, 'completed');
  assert.match(String(result.closeError), /the agent's close\(\) failed: A-fail/);
  assert.match(String(result.closeError), /the reviewer's close\(\) failed: R-fail/);
});

test('a close() that fails with an empty message (or throws "") is still reported: closeError is never blank', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  for (const failure of [new Error(''), '', undefined]) {
    const agent: Agent = { answer: async () => ({ words: 5 }), close: async () => { throw failure; } };
    const result = await engine.run(TWO_STEP, { agent });
    assert.is(result.status, 'completed');
    assert.match(String(result.closeError), /the agent's close\(\) failed \(no message\)/, JSON.stringify(result));
  }
});

test.run();
