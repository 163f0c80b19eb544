/**
 * `countersign run` and `engine.run` with a reviewer (issue 3, Hosts):
 * review items go to the reviewer adapter and every other item to the
 * agent, each answer is attributed to its adapter's identity, and the
 * engine refuses a run that has no independent reviewer (seed 003 G1/G4).
 * The agents are the deterministic scripts in spec/fixtures/review/.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Agent, type AgentRequest, type JournalEvent, type Workflow } from '../../engine/index.js';
import { cli, tempDir } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';
import {
  ARTIFACT,
  CRITERION,
  NARRATIVE,
  REMINDER,
  REPORT,
  plainWorkflow,
  producerCommand,
  reviewLoop,
  reviewerCommand,
  writeWorkflow,
} from '../fixtures/review/loop.js';

/** A fresh workspace holding the workflow file, and a private store outside it. */
function setup(workflow: Workflow = reviewLoop()) {
  const ws = tempDir('countersign-review-ws-');
  return { ws, store: tempDir('countersign-review-store-'), wf: writeWorkflow(ws, workflow) };
}

function lines(file: string): any[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

async function journal(runId: string, store: string): Promise<JournalEvent[]> {
  const t = await cli(['trace', runId, '--json'], { store });
  assert.is(t.code, 0, t.stderr);
  return t.json.events;
}

const byType = (events: JournalEvent[], type: string) => events.filter((e) => e.type === type);

/** The identity run gives an adapter by default: its kind and a digest of its normalised string, never the command. */
function identityOf(spec: string): string {
  const colon = spec.indexOf(':');
  const kind = spec.slice(0, colon).trim();
  return `${kind}-${createHash('sha256').update(`${kind}:${spec.slice(colon + 1).trim()}`).digest('hex').slice(0, 12)}`;
}

const Run = suite('review: countersign run --reviewer');

Run('G1/G4/G6/G8: an exec producer and a jsonl reviewer converge 2 → 0 (exit 0); trace attributes producer answers to --agent and review answers to --reviewer', async () => {
  const { ws, store, wf } = setup();
  const dumps = tempDir();
  const agent = `exec:${producerCommand(join(dumps, 'producer.jsonl'))}`;
  const reviewer = `jsonl:${reviewerCommand('honest', join(dumps, 'reviewer.jsonl'))}`;
  const r = await cli(['run', wf, '--agent', agent, '--reviewer', reviewer, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.status, 'completed');
  assert.is(r.json.endNodeId, 'done');
  assert.is(r.json.steps, 4);
  assert.equal(r.json.output, { issues_count: 0 });

  const events = await journal(r.json.runId, store);
  const who = byType(events, 'answer.accepted').map((e) => `${e.nodeId} ${e.userId}`);
  // §2: the agent answers as `local` unless named; the reviewer, who must be someone else, as its adapter.
  assert.equal(who, ['write local', `review ${identityOf(reviewer)}`, 'fix local', `review ${identityOf(reviewer)}`]);
  assert.not.match(JSON.stringify(events), 'producer.jsonl', 'the command line never becomes an identity in the journal');
  assert.equal(byType(events, 'review.accepted').map((e) => e.issues_count), [2, 0]);
  // The human trace shows the convergence path in order.
  const human = (await cli(['trace', r.json.runId], { store })).stdout;
  const path = [...human.matchAll(/review\.accepted.*issues_count=(\d+)/g)].map((m) => m[1]);
  assert.equal(path, ['2', '0']);

  // Each adapter saw only its own kind of item.
  assert.equal(lines(join(dumps, 'producer.jsonl')).map((q) => `${q.kind} ${q.nodeId}`), ['directive write', 'directive fix']);
  assert.equal(lines(join(dumps, 'reviewer.jsonl')).map((q) => `${q.kind} ${q.nodeId} ${q.iteration}`), ['review review 1', 'review review 2']);
  // The fix really changed the artifact, and the report of review 1 is the one generation kept.
  assert.match(readFileSync(join(ws, ARTIFACT), 'utf8'), 'About usage.');
  assert.equal(JSON.parse(readFileSync(join(ws, REPORT), 'utf8')), { issues: [] });
  assert.equal(JSON.parse(readFileSync(join(ws, `${REPORT}.prev`), 'utf8')).issues.length, 2);
});

Run('G1/G4: --agent-id and --reviewer-id (or --as for the agent, or both agreeing once trimmed) replace the adapter strings as the identities in the journal', async () => {
  // --as and --agent-id that differ only by white space name one identity, as each alone does (trimmed).
  for (const ids of [['--agent-id', 'author-bot', '--reviewer-id', 'checker-bot'], ['--as', 'author-bot', '--reviewer-id', 'checker-bot'], ['--as', 'author-bot ', '--agent-id', 'author-bot', '--reviewer-id', 'checker-bot']]) {
    const { ws, store, wf } = setup();
    const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--reviewer', `exec:${reviewerCommand('honest')}`, ...ids, '--workspace', ws, '--json'], { store });
    assert.is(r.code, 0, r.stderr);
    const events = await journal(r.json.runId, store);
    assert.is(events[0].userId, 'author-bot', 'run.started names the agent identity');
    const who = byType(events, 'answer.accepted').map((e) => `${e.nodeId} ${e.userId}`);
    assert.equal(who, ['write author-bot', 'review checker-bot', 'fix author-bot', 'review checker-bot'], ids.join(' '));
  }
});

Run('G1: run on a workflow with review nodes and no --reviewer is refused before anything runs: exit 2, E_NO_REVIEWER', async () => {
  const { ws, store, wf } = setup();
  const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_NO_REVIEWER');
  assert.match(r.json.error.fix, '--reviewer');
  assert.equal((await cli(['runs', '--json'], { store })).json.runs, [], 'no run was started');
  assert.not.ok(existsSync(join(ws, ARTIFACT)), 'the producer was never asked');
});

Run('G1/G2: the same adapter string for --agent and --reviewer, or one identity for both, is refused: exit 2, E_SELF_REVIEW', async () => {
  const producer = `exec:${producerCommand()}`;
  const checker = `exec:${reviewerCommand('honest')}`;
  const cases: [string, string[]][] = [
    ['same adapter string', ['--agent', producer, '--reviewer', producer]],
    ['same ids', ['--agent', producer, '--reviewer', checker, '--agent-id', 'pat', '--reviewer-id', 'pat']],
    ['--as equals --reviewer-id', ['--agent', producer, '--reviewer', checker, '--as', 'pat', '--reviewer-id', 'pat']],
    ['--reviewer-id is the agent\'s default identity, local', ['--agent', producer, '--reviewer', checker, '--reviewer-id', 'local']],
    ['same adapter, spelt apart', ['--agent', producer, '--reviewer', ` ${producer} `]],
    ['--agent-id is the reviewer adapter\'s identity', ['--agent', producer, '--reviewer', checker, '--agent-id', identityOf(checker)]],
  ];
  for (const [name, args] of cases) {
    const { ws, store, wf } = setup();
    const r = await cli(['run', wf, ...args, '--workspace', ws, '--json'], { store });
    assert.is(r.code, 2, `${name}: ${r.stderr}`);
    assert.is(r.json.error.code, 'E_SELF_REVIEW', name);
    assert.not.match(r.json.error.message, '[object Object]', `${name}: the message names the adapter`);
    if (name.startsWith('same adapter')) assert.match(r.json.error.message, '--reviewer is the same adapter as --agent (the reviewer (--reviewer exec:');
    assert.equal((await cli(['runs', '--json'], { store })).json.runs, [], `${name}: no run was started`);
    assert.not.ok(existsSync(join(ws, ARTIFACT)), `${name}: the producer was never asked`);
  }
});

Run('G1: the reviewer requirement applies only to review nodes: a workflow without them still runs with --agent alone (exit 0)', async () => {
  const { ws, store, wf } = setup(plainWorkflow());
  const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'done');
  assert.ok(existsSync(join(ws, ARTIFACT)));
});

Run('G1/G4: --agent interactive with --reviewer interactive is refused (exit 2): one terminal cannot be two independent people', async () => {
  const { ws, store, wf } = setup();
  const r = await cli(['run', wf, '--agent', 'interactive', '--reviewer', 'interactive', '--agent-id', 'a', '--reviewer-id', 'b', '--workspace', ws, '--json'], { store });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_USAGE');
  assert.match(r.json.error.message, 'cannot both be interactive');
});

Run('G1: a bad --reviewer value is reported under --reviewer, not --agent (exit 2, E_ADAPTER)', async () => {
  const { ws, store, wf } = setup();
  for (const bad of ['foo', 'exec:']) {
    const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--reviewer', bad, '--workspace', ws, '--json'], { store });
    assert.is(r.code, 2, bad);
    assert.is(r.json.error.code, 'E_ADAPTER', bad);
    assert.match(r.json.error.message, /^--reviewer /, bad);
  }
});

Run('G8/G11: a stopped review run prints a resume hint that names --reviewer, and --resume refuses to move the run to another --workspace', async () => {
  const { ws, store, wf } = setup();
  const agent = `exec:${producerCommand()}`;
  const reviewer = `exec:${reviewerCommand('honest')}`;
  const stopped = await cli(['run', wf, '--agent', agent, '--reviewer', reviewer, '--workspace', ws, '--max-steps', '1'], { store });
  assert.is(stopped.code, 3, stopped.stderr);
  assert.match(stopped.stdout, /resume with: countersign run --resume \S+ --agent <adapter> --reviewer <adapter>/);
  const runId = /run (\S+) is still waiting/.exec(stopped.stdout)![1];
  const moved = await cli(['run', '--resume', runId, '--agent', agent, '--reviewer', reviewer, '--workspace', tempDir(), '--json'], { store });
  assert.is(moved.code, 2);
  assert.is(moved.json.error.code, 'E_USAGE');
  assert.match(moved.json.error.message, ws);
  const resumed = await cli(['run', '--resume', runId, '--agent', agent, '--reviewer', reviewer, '--workspace', ws, '--json'], { store });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is(resumed.json.status, 'completed');
});

Run('G28/G30/G31: a jsonl reviewer receives the review pending object — absolute paths, the fixed prompt with its role line — and no systemReminder or producer text', async () => {
  const { ws, store, wf } = setup(reviewLoop({ systemReminder: REMINDER }));
  const dumps = tempDir();
  const r = await cli([
    'run', wf,
    '--agent', `jsonl:${producerCommand(join(dumps, 'producer.jsonl'))}`,
    '--reviewer', `jsonl:${reviewerCommand('honest', join(dumps, 'reviewer.jsonl'))}`,
    '--workspace', ws, '--json',
  ], { store });
  assert.is(r.code, 0, r.stderr);
  // The reminder and the narrative really were in the run: the producer got both.
  const produced = lines(join(dumps, 'producer.jsonl'));
  assert.match(produced[0].directive, REMINDER);
  assert.match(produced[0].directive, NARRATIVE);

  const raw = readFileSync(join(dumps, 'reviewer.jsonl'), 'utf8');
  const requests = lines(join(dumps, 'reviewer.jsonl'));
  assert.is(requests.length, 2);
  for (const [i, q] of requests.entries()) {
    assert.equal(Object.keys(q).sort(), [
      'artifacts', 'attempt', 'context', 'contract', 'criteria', 'inputSchema', 'iteration', 'kind',
      'maxRetries', 'nodeId', 'prompt', 'report', 'reviewer', 'runId', 'seq',
    ]);
    assert.is(q.kind, 'review');
    assert.is(q.contract, 'issues');
    assert.is(q.nodeId, 'review');
    assert.is(q.reviewer, 'reviewer');
    assert.is(q.runId, r.json.runId);
    assert.is(q.iteration, i + 1);
    assert.is(q.attempt, 1);
    assert.is(q.maxRetries, 3);
    assert.equal(q.artifacts, [join(ws, ARTIFACT)]);
    assert.ok(isAbsolute(q.report));
    assert.is(q.report, join(ws, REPORT));
    assert.equal(q.criteria, [CRITERION]);
    assert.equal(q.context, []);
    assert.equal(q.inputSchema.required, ['issues_count']);
    assert.ok(q.prompt.startsWith('YOU ARE reviewer. Your assessment determines if we proceed.\n'), q.prompt);
    assert.match(q.prompt, join(ws, ARTIFACT));
    assert.match(q.prompt, join(ws, REPORT));
    assert.match(q.prompt, CRITERION);
  }
  assert.not.match(raw, 'REMINDER-7f3a', 'the systemReminder never reaches the reviewer');
  assert.not.match(raw, 'NARRATIVE-91c2', 'the producer directive never reaches the reviewer');
  assert.not.match(raw, 'Fix the', 'the fix directive never reaches the reviewer');
  assert.not.match(raw, 'heading \\"Setup\\"', 'the previous findings are not copied into the request (G14)');
});

Run('G13: an exec reviewer that edits the artifact fails the run: exit 1, E_REVIEWER_MODIFIED, journaled as answer.rejected and never re-asked', async () => {
  const { ws, store, wf } = setup();
  const dumps = tempDir();
  const r = await cli(['run', wf, '--agent', `exec:${producerCommand()}`, '--reviewer', `exec:${reviewerCommand('tamper', join(dumps, 'reviewer.jsonl'))}`, '--workspace', ws, '--json'], { store });
  assert.is(r.code, 1, r.stderr);
  assert.is(r.json.status, 'failed');
  assert.is(r.json.error.code, 'E_REVIEWER_MODIFIED');
  assert.is(r.json.error.nodeId, 'review');
  const events = await journal(r.json.runId, store);
  const rejected = byType(events, 'answer.rejected');
  assert.is(rejected.length, 1);
  assert.is(rejected[0].nodeId, 'review');
  assert.is(rejected[0].code, 'E_REVIEWER_MODIFIED');
  assert.is(byType(events, 'review.issued').length, 1, 'the review is not re-asked');
  assert.is(byType(events, 'review.accepted').length, 0);
  assert.is(byType(events, 'run.failed')[0].code, 'E_REVIEWER_MODIFIED');
  assert.is(lines(join(dumps, 'reviewer.jsonl')).length, 1);
  const st = await cli(['status', r.json.runId, '--json'], { store });
  assert.is(st.json.status, 'failed');
});

/** In-process agents for the library API: a producer and a checker of `notes.md` in `ws`. */
function libraryAgents(ws: string) {
  const seen = { agent: [] as AgentRequest[], reviewer: [] as AgentRequest[] };
  const agent: Agent = {
    async answer(req) {
      seen.agent.push(req);
      writeFileSync(join(ws, ARTIFACT), req.nodeId === 'write' ? '# A\n' : '# A\nbody\n');
      return {};
    },
  };
  const reviewer: Agent = {
    async answer(req) {
      seen.reviewer.push(req);
      if ((req.kind !== 'review' || req.contract !== 'issues')) return { $error: 'not a review' };
      const body = readFileSync(req.artifacts[0], 'utf8').includes('body');
      const issues = body ? [] : ['heading "A" has no body'];
      writeFileSync(req.report, JSON.stringify({ issues }));
      return { issues_count: issues.length };
    },
  };
  return { agent, reviewer, seen };
}

const Lib = suite('review: engine.run with a reviewer');

Lib('G1/G4: review items go only to the reviewer, every other item only to the agent, under the identities "local" and "reviewer" by default', async () => {
  const ws = tempDir();
  const engine = createEngine({ store: createMemoryStore() });
  const { agent, reviewer, seen } = libraryAgents(ws);
  const r = await engine.run(reviewLoop(), { agent, reviewer, workspace: ws });
  assert.is(r.status, 'completed', JSON.stringify(r.error));
  assert.is(r.endNodeId, 'done');
  assert.equal(seen.agent.map((q) => `${q.kind} ${q.nodeId}`), ['directive write', 'directive fix']);
  assert.equal(seen.reviewer.map((q) => `${q.kind} ${q.nodeId}`), ['review review', 'review review']);
  const who = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.accepted').map((e) => `${e.nodeId} ${e.userId}`);
  assert.equal(who, ['write local', 'review reviewer', 'fix local', 'review reviewer']);
});

Lib('G1/G4: as and reviewerAs name the two identities in the journal', async () => {
  const ws = tempDir();
  const engine = createEngine({ store: createMemoryStore() });
  const { agent, reviewer } = libraryAgents(ws);
  const r = await engine.run(reviewLoop(), { agent, reviewer, workspace: ws, as: 'ada', reviewerAs: 'grace' });
  assert.is(r.status, 'completed', JSON.stringify(r.error));
  const who = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.accepted').map((e) => `${e.nodeId} ${e.userId}`);
  assert.equal(who, ['write ada', 'review grace', 'fix ada', 'review grace']);
});

Lib('G1/G2: the same agent object as reviewer, or reviewerAs equal to as, is E_SELF_REVIEW and starts no run', async () => {
  const ws = tempDir();
  const engine = createEngine({ store: createMemoryStore() });
  const { agent, reviewer, seen } = libraryAgents(ws);
  const same = await rejection(engine.run(reviewLoop(), { agent, reviewer: agent, workspace: ws }));
  assert.is(same.code, 'E_SELF_REVIEW');
  const sameId = await rejection(engine.run(reviewLoop(), { agent, reviewer, workspace: ws, as: 'pat', reviewerAs: 'pat' }));
  assert.is(sameId.code, 'E_SELF_REVIEW');
  const defaultClash = await rejection(engine.run(reviewLoop(), { agent, reviewer, workspace: ws, as: 'reviewer' }));
  assert.is(defaultClash.code, 'E_SELF_REVIEW', 'as "reviewer" clashes with the default reviewer identity');
  assert.equal(await engine.runs(), []);
  assert.equal(seen.agent, []);
});

Lib('G1: a workflow with review nodes and no reviewer is E_NO_REVIEWER, on start and on resume {runId}; the waiting run is left as it was', async () => {
  const ws = tempDir();
  const engine = createEngine({ store: createMemoryStore() });
  const { agent, reviewer, seen } = libraryAgents(ws);
  const onStart = await rejection(engine.run(reviewLoop(), { agent, workspace: ws }));
  assert.is(onStart.code, 'E_NO_REVIEWER');
  assert.equal(await engine.runs(), [], 'no run was started');

  const started = await engine.start(reviewLoop(), { workspace: ws });
  const onResume = await rejection(engine.run({ runId: started.runId }, { agent }));
  assert.is(onResume.code, 'E_NO_REVIEWER');
  assert.equal(seen.agent, [], 'the agent was never asked');
  const after = await engine.status(started.runId);
  assert.is(after.status, 'waiting');
  assert.is(after.seq, started.seq);

  const done = await engine.run({ runId: started.runId }, { agent, reviewer });
  assert.is(done.status, 'completed', JSON.stringify(done.error));
});

Run.run();
Lib.run();

const Blank = suite('review: engine.run refuses blank identities up front');

Blank('G4: a blank as or reviewerAs is E_IDENTITY_REQUIRED before any run starts', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const agent: Agent = { answer: async () => ({}) };
  const reviewer: Agent = { answer: async () => ({ issues_count: 0 }) };
  for (const opts of [{ as: '  ' }, { reviewerAs: '' }]) {
    const e = await rejection(engine.run(reviewLoop(), { agent, reviewer, workspace: tempDir(), ...opts }));
    assert.is((e as { code?: string }).code, 'E_IDENTITY_REQUIRED', JSON.stringify(opts));
  }
  assert.equal(await engine.runs(), []);
});

Blank.run();
