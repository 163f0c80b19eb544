import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cli, LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';
import { shoutProject } from '../fixtures/shout-module.js';

const WF = 'spec/fixtures/cli/two-step.json';
const Cli = suite('cli commands');

Cli('start prints the first pending directive as the run contract with seq 1', async () => {
  const store = tempDir();
  const r = await cli(['start', WF, '--json', '--input', '{"topic":"queues"}'], { store });
  assert.is(r.code, 0);
  assert.is(r.json.status, 'waiting');
  assert.is(r.json.seq, 1);
  assert.is(r.json.pending.kind, 'directive');
  assert.is(r.json.pending.nodeId, 'write');
  assert.is(r.json.pending.directive, 'Write about queues.');
  assert.is(r.json.pending.attempt, 1);
  assert.is(r.json.pending.maxRetries, 3);
  assert.equal(r.json.pending.inputSchema.required, ['words']);
  assert.is(r.json.pending.inputSchema.additionalProperties, false);
});

Cli('step: a rejected answer exits 5 with errors (on stderr as countersign: E_CODE too, with the command that answers again), the right one exits 0 and completes with output', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const bad = await cli(['step', s.json.runId, '--response', '{"words":0}', '--seq', '1', '--json'], { store });
  assert.is(bad.code, 5);
  assert.is(bad.json.status, 'waiting');
  assert.is(bad.json.seq, 2);
  assert.is(bad.json.rejected.code, 'E_ANSWER_INVALID');
  assert.equal(bad.json.pending.errors, ['/words: must be >= 1']);
  assert.match(bad.stderr, /^countersign: E_ANSWER_INVALID: the answer was rejected: \/words: must be >= 1\n  fix: answer node "write" again, fixing what is listed: `countersign step \S+ --seq 2 --response …`/);
  const replay = await cli(['step', s.json.runId, '--response', '{"words":0}', '--seq', '1', '--json'], { store });
  assert.equal([replay.code, replay.stderr], [0, ''], 'a replay of the rejected submit says nothing on stderr');
  const good = await cli(['step', s.json.runId, '--response', '{"words":250}', '--seq', '2', '--json'], { store });
  assert.is(good.code, 0);
  assert.equal(good.json, { runId: s.json.runId, seq: 2, status: 'completed', endNodeId: 'long', output: { topic: 'tests', 'write.words': 250 } });
});

Cli('step: an answer rejected with no retries left, whose node routes on by maxRetriesExceeded, exits 0 (the run advanced) but says the answer was refused: retriesSpent in the output, countersign: E_CODE on stderr', async () => {
  const dir = tempDir();
  const wf = join(dir, 'spent.json');
  writeFileSync(wf, JSON.stringify({
    metadata: { name: 'spent', version: '1.0.0', description: 'no retries' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'a word', completionCondition: 'c', maxRetries: 0, inputSchema: { type: 'object', properties: { word: { type: 'string', minLength: 2 } }, required: ['word'] }, connections: { success: 'done', maxRetriesExceeded: 'fallback' } },
      { type: 'agent-directive', id: 'fallback', directive: 'explain', completionCondition: 'c', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const store = tempDir();
  const s = await cli(['start', wf, '--json'], { store });
  const r = await cli(['step', s.json.runId, '--response', '{"word":"x"}', '--seq', '1', '--json'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.pending.nodeId, 'fallback');
  assert.equal(r.json.retriesSpent, { nodeId: 'ask', code: 'E_ANSWER_INVALID', errors: ['/word: must NOT have fewer than 2 characters'], via: 'maxRetriesExceeded', to: 'fallback' });
  assert.is(r.stderr, 'countersign: E_ANSWER_INVALID: the answer was rejected: /word: must NOT have fewer than 2 characters; node "ask" had no retries left, so the run took its maxRetriesExceeded route to "fallback"\n');
  const human = await cli(['status', s.json.runId], { store });
  assert.not.match(human.stdout, 'answer rejected', 'said once, to the submit that was refused: a later status is the run as it stands');
});

Cli('step --json lists in toolsRun only the tool nodes this step ran, never those an earlier command ran', async () => {
  const dir = tempDir();
  const wf = join(dir, 'tools.json');
  writeFileSync(wf, JSON.stringify({
    metadata: { name: 'two-tools', version: '1.0.0', description: 'a tool node before and after an answer' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'first' } },
      { type: 'tool', id: 'first', tool: 'pr_status', args: { pr_number: 1 }, connections: { success: 'ask', error: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'go on', completionCondition: 'c', connections: { success: 'second' } },
      { type: 'tool', id: 'second', tool: 'pr_status', args: { pr_number: 2 }, connections: { success: 'done', error: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  // Outside a git repository pr_status fails at once (E_TOOL_FAILED): each tool node takes its error route.
  const store = tempDir();
  const s = await cli(['start', wf, '--workspace', dir, '--json'], { store });
  assert.equal(s.json.toolsRun.map((t: { nodeId: string }) => t.nodeId), ['first'], s.stdout);
  const r = await cli(['step', s.json.runId, '--response', '{}', '--json'], { store });
  assert.is(r.json.status, 'completed', r.stdout);
  assert.equal(r.json.toolsRun.map((t: { nodeId: string }) => t.nodeId), ['second']);
});

Cli('step without --seq answers the item pending when its answer was read: one read before another process moved the run on replays (exit 0), answers nothing and says so on stderr', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const calledAt = new Date();
  await new Promise((r) => setTimeout(r, 20));
  const first = await cli(['step', s.json.runId, '--response', '{"words":0}', '--json'], { store });
  assert.is(first.json.seq, 2, 'the wrong answer re-issued the item');
  const late = await cli(['step', s.json.runId, '--response', '{"words":3}', '--json'], { store, now: () => calledAt });
  assert.is(late.code, 0, late.stderr);
  assert.is(late.json.replayed, true);
  assert.is(late.json.status, 'waiting');
  assert.match(late.stderr, `countersign: warning: another answer reached run ${s.json.runId} first, so this one was not used; the run now waits at node "write", seq 2`);
  const human = await cli(['step', s.json.runId, '--response', '{"words":3}'], { store, now: () => calledAt });
  assert.match(human.stdout, 'the run moved on before this answer was applied, so it was not used');
  const answers = (await cli(['trace', s.json.runId, '--json'], { store })).json.events.filter((e: { type: string }) => e.type.startsWith('answer.'));
  assert.equal(answers.map((e: { type: string }) => e.type), ['answer.rejected']);
});

Cli('§4 seq: two `step`s launched together without --seq, answers on their command lines, never both advance the run: one is applied, the other replays and says its answer was not used', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const cs = `${JSON.stringify(process.execPath)} ${JSON.stringify(LAUNCHER)}`;
  const both = `${cs} step ${s.json.runId} --response '{"words":0}' --json > ${store}/a.json 2>${store}/a.err & ${cs} step ${s.json.runId} --response '{"words":0}' --json > ${store}/b.json 2>${store}/b.err & wait`;
  const r = spawnSync('sh', ['-c', both], { encoding: 'utf8', env: { ...process.env, COUNTERSIGN_STORE: store }, timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const answers = (await cli(['trace', s.json.runId, '--json'], { store })).json.events.filter((e: { type: string }) => e.type.startsWith('answer.'));
  assert.equal(answers.map((e: { type: string; seq: number }) => [e.type, e.seq]), [['answer.rejected', 1]], 'one answer was taken, for item 1');
  const outs = ['a', 'b'].map((x) => JSON.parse(readFileSync(join(store, `${x}.json`), 'utf8')));
  assert.equal(outs.map((o) => o.replayed === true).sort(), [false, true]);
  assert.match(readFileSync(join(store, outs[0].replayed ? 'a.err' : 'b.err'), 'utf8'), 'so this one was not used');
});

Cli('§4 seq: an answer in a file that was there when `step` was launched is for the item pending then; one written later (or read from a pipe) is for the item pending when it was read', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const file = join(store, 'answer.json');
  writeFileSync(file, '{"words":3}');
  const launched = new Date();
  await new Promise((r) => setTimeout(r, 20));
  await cli(['step', s.json.runId, '--response', '{"words":0}'], { store });
  const early = await cli(['step', s.json.runId, '--response', `@${file}`, '--json'], { store, startedAt: launched });
  assert.is(early.json.replayed, true, 'the file was there at the launch, before the run moved on');
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(file, '{"words":4}');
  const later = await cli(['step', s.json.runId, '--response', `@${file}`, '--json'], { store, startedAt: launched });
  assert.is(later.json.replayed, undefined, later.stderr);
  assert.is(later.json.status, 'completed');
});

Cli('an answer that is not UTF-8 (an @file, standard input, a scripted agent\'s file) is refused at the byte at fault, never taken with U+FFFD in it', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const file = join(store, 'latin1.json');
  writeFileSync(file, Buffer.from('{"words": 3, "note": "caf\xe9"}', 'latin1'));
  const r = await cli(['step', s.json.runId, '--response', `@${file}`, '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_INPUT');
  assert.match(r.json.error.message, `the --response file is not UTF-8 text: the byte 0xE9 at line 1, column 26`);
  assert.equal([r.json.error.file, r.json.error.line, r.json.error.col], [file, 1, 26]);
  const piped = await cli(['step', s.json.runId, '--response', '-', '--json'], { store, stdin: Buffer.from('{"words": 3, "n": "\xff"}', 'latin1') });
  assert.is(piped.json.error.code, 'E_INPUT');
  assert.match(piped.json.error.message, '--response on standard input is not UTF-8 text: the byte 0xFF at line 1, column 20');
  assert.is((await cli(['status', s.json.runId, '--json'], { store })).json.seq, 1, 'neither was taken');
  const script = join(store, 'script.yaml');
  writeFileSync(script, Buffer.from('write:\n  - {words: 3, note: "caf\xe9"}\n', 'latin1'));
  const run = await cli(['run', WF, '--agent', `scripted:${script}`, '--json'], { store });
  assert.is(run.code, 2, run.stderr);
  assert.is(run.json.error.code, 'E_PARSE');
  assert.match(run.json.error.message, `the script ${script} is not UTF-8 text: the byte 0xE9 at line 2, column 26`);
});

Cli('the commands start, status, step and run suggest for a run whose workflow names toolModules carry --allow-tool-modules (and --store), so run as printed they are not refused', async () => {
  const { dir, file } = shoutProject('countersign-hint-modules-');
  const wf = JSON.parse(readFileSync(file, 'utf8'));
  wf.nodes = [
    { type: 'start', id: 'start', connections: { default: 'ask' } },
    { type: 'agent-directive', id: 'ask', directive: 'go', completionCondition: 'done', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, connections: { success: 'shout' } },
    ...wf.nodes.slice(1),
  ];
  writeFileSync(file, JSON.stringify(wf));
  const store = join(dir, 'my store');
  const started = await cli(['start', file, '--allow-tool-modules', '--store', store]);
  const runId = /run (\S+) is waiting/.exec(started.stdout)![1];
  assert.match(started.stdout, `answer with: countersign step ${runId} --store '${store}' --allow-tool-modules --seq 1 --response '<json>'`);
  assert.match((await cli(['status', runId, '--store', store])).stdout, `countersign step ${runId} --store '${store}' --allow-tool-modules --seq 1`);
  const rejected = await cli(['step', runId, '--allow-tool-modules', '--store', store, '--response', '{"n": "x"}', '--json']);
  assert.is(rejected.code, 5);
  assert.match(rejected.stderr, `fix: answer node "ask" again, fixing what is listed: \`countersign step ${runId} --store '${store}' --allow-tool-modules --seq 2`);
  // As printed, the suggestion is taken.
  const done = await cli(['step', runId, '--store', store, '--allow-tool-modules', '--seq', '2', '--response', '{"n": 1}', '--json']);
  assert.is(done.json.status, 'completed', done.stderr);
  const script = join(dir, 'empty.yaml');
  writeFileSync(script, 'ask: []\n');
  const stopped = await cli(['run', file, '--allow-tool-modules', '--store', store, '--agent', `scripted:${script}`]);
  assert.is(stopped.code, 3);
  assert.match(stopped.stdout, `--store '${store}' --allow-tool-modules --agent <adapter>  (or answer with countersign step `);
  // The step it suggests is a whole command: with the seq and a --response to fill in.
  assert.match(stopped.stdout, /or answer with countersign step \S+ --store '[^']+' --allow-tool-modules --seq 1 --response '<json>'\)/);
  // A run whose workflow names none is suggested no flag.
  const plain = await cli(['start', WF], { store: tempDir() });
  assert.not.match(plain.stdout, '--allow-tool-modules');
});

Cli('r76: an answer or input holding an integer JSON cannot keep exactly (past ±2^53) is refused at its position (E_INPUT), never stored as another number; so is an agent\'s (E_AGENT_OUTPUT, the run waits)', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const r = await cli(['step', s.json.runId, '--response', '{"words": 12345678901234567}', '--json'], { store });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_INPUT');
  assert.match(r.json.error.message, 'holds a number JSON cannot keep (line 1, column 11): the integer 12345678901234567 is beyond the integers a JSON number keeps exactly');
  const input = await cli(['start', WF, '--input', '{"topic": 9007199254740993}', '--json'], { store });
  assert.is(input.json.error.code, 'E_INPUT');
  const agent = await cli(['run', WF, '--agent', `exec:echo '{"words": 12345678901234567}'`, '--json'], { store });
  assert.is(agent.code, 3);
  assert.is(agent.json.error.code, 'E_AGENT_OUTPUT');
  assert.match(agent.json.error.message, 'holds a number JSON cannot keep');
});

Cli('r76: suggested commands run as printed: a --store holding a quote or starting with "-" (with --allow-tool-modules), validate with --allow-tool-modules for an invalid workflow naming tool modules, start with the flag and the required inputs for an ended run', async () => {
  const { dir, file } = shoutProject('countersign-hint-quote-');
  const wf = JSON.parse(readFileSync(file, 'utf8'));
  wf.nodes = [
    { type: 'start', id: 'start', connections: { default: 'ask' } },
    { type: 'agent-directive', id: 'ask', directive: 'go', completionCondition: 'done', connections: { success: 'shout' } },
    ...wf.nodes.slice(1),
  ];
  wf.variableRegistry = { topic: { type: 'string', description: 'what about' } };
  wf.requiredInputs = ['topic'];
  writeFileSync(file, JSON.stringify(wf));
  for (const store of [join(dir, "it's"), '-dash']) {
    const started = await cli(['start', file, '--allow-tool-modules', `--store=${store}`, '--input', '{"topic": "x"}'], { cwd: dir });
    const line = /answer with: (.*)$/m.exec(started.stdout)![1];
    const args = (line.match(/'(?:[^']|'\\'')*'|\S+/g) ?? []).slice(1).map((a) => (a.startsWith("'") ? a.slice(1, -1).replace(/'\\''/g, "'") : a)).map((a) => (a === "<json>" ? '{}' : a));
    const stepped = await cli(args.map((a) => (a.startsWith('--store=') ? a.replace(/^--store='(.*)'$/, '--store=$1') : a)), { cwd: dir });
    assert.is(stepped.code, 0, `${line}\n${stepped.stderr}`);
    const ended = await cli(['step', /run (\S+) completed/.exec(stepped.stdout)![1], `--store=${store}`, '--allow-tool-modules', '--response', '{}', '--json'], { cwd: dir });
    assert.is(ended.json.error.code, 'E_RUN_NOT_WAITING');
    assert.match(ended.json.error.fix, `--allow-tool-modules --input '{"topic":"…"}'`);
  }
  const broken = JSON.parse(readFileSync(file, 'utf8'));
  broken.nodes[2].tool = 'shoot';
  writeFileSync(file, JSON.stringify(broken));
  const invalid = await cli(['start', file, '--allow-tool-modules', '--input', '{"topic": "x"}', '--json'], { store: tempDir() });
  assert.is(invalid.json.error.code, 'E_WORKFLOW_INVALID');
  assert.match(invalid.json.error.fix, `--allow-tool-modules\` to see every finding`);
});

Cli('r76: a seq-less step that lost the race says so on stderr whatever happened: the run ended, or the other answer was rejected (never "applied"), with --as in the command it suggests for a review loop', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const calledAt = new Date();
  await new Promise((r) => setTimeout(r, 20));
  await cli(['step', s.json.runId, '--response', '{"words": 3}'], { store });
  const lost = await cli(['step', s.json.runId, '--response', '{"words": 4}', '--json'], { store, startedAt: calledAt });
  assert.equal([lost.code, lost.json.replayed, lost.json.status], [0, true, 'completed']);
  assert.match(lost.stderr, `countersign: warning: another answer reached run ${s.json.runId} first and the run completed, so this answer was not used`);
  const again = await cli(['start', WF, '--json'], { store });
  const at = new Date();
  await new Promise((r) => setTimeout(r, 20));
  await cli(['step', again.json.runId, '--response', '{"words": 0}'], { store });
  const second = await cli(['step', again.json.runId, '--response', '{"words": 4}', '--as', 'alice'], { store, startedAt: at });
  assert.match(second.stderr, `another answer reached run ${again.json.runId} first, so this one was not used; the run now waits at node "write", seq 2: answer it with \`countersign step ${again.json.runId} --seq 2 --as alice --response …\``);
  assert.not.match(second.stderr, 'applied');
});

Cli('a shell pipeline whose last step reads its answer from stdin (--response -) answers the item pending once that input is complete, though all its commands started together', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const cs = `${JSON.stringify(process.execPath)} ${JSON.stringify(LAUNCHER)}`;
  const agent = `${JSON.stringify(process.execPath)} -e "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>{JSON.parse(t);console.log(JSON.stringify({words:5}))})"`;
  const pipeline = `${cs} step ${s.json.runId} --response '{"words":0}' --json | ${agent} | ${cs} step ${s.json.runId} --response - --json`;
  const r = spawnSync('sh', ['-c', pipeline], { encoding: 'utf8', env: { ...process.env, COUNTERSIGN_STORE: store }, timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).status, 'completed', r.stdout);
  assert.not.match(r.stderr, 'was not used');
});

Cli('step: an answered seq replays (exit 0, replayed), an unissued seq is E_SEQ (exit 2), an unknown run is E_RUN_NOT_FOUND (exit 2)', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  await cli(['step', s.json.runId, '--response', '{"words":0}', '--seq', '1'], { store });
  const replay = await cli(['step', s.json.runId, '--response', '{"words":0}', '--seq', '1', '--json'], { store });
  assert.is(replay.code, 0);
  assert.is(replay.json.replayed, true);
  assert.is(replay.json.seq, 2);
  const ahead = await cli(['step', s.json.runId, '--response', '{}', '--seq', '9', '--json'], { store });
  assert.is(ahead.code, 2);
  assert.is(ahead.json.error.code, 'E_SEQ');
  assert.match(ahead.stderr, /^countersign: E_SEQ: /m);
  const unknown = await cli(['step', 'nope', '--response', '{}', '--json'], { store });
  assert.is(unknown.code, 2);
  assert.is(unknown.json.error.code, 'E_RUN_NOT_FOUND');
  assert.ok(unknown.json.error.fix);
});

Cli('step reads the answer from a file (@file) and from standard input (-)', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const file = join(tempDir(), 'answer.json');
  writeFileSync(file, '{"words": 3}');
  const fromFile = await cli(['step', s.json.runId, '--response', `@${file}`, '--json'], { store });
  assert.is(fromFile.json.endNodeId, 'short');
  const s2 = await cli(['start', WF, '--json'], { store });
  const fromStdin = await cli(['step', s2.json.runId, '--response', '-', '--json'], { store, stdin: '{"words": 500}' });
  assert.is(fromStdin.json.endNodeId, 'long');
});

Cli('malformed --response JSON is E_INPUT with its position, exit 2, and the run is untouched', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const r = await cli(['step', s.json.runId, '--response', '{"words": }', '--json'], { store });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_INPUT');
  assert.match(r.json.error.message, /line 1, column 11/);
  const st = await cli(['status', s.json.runId, '--json'], { store });
  assert.is(st.json.seq, 1);
  assert.is(st.json.status, 'waiting');
});

Cli('status, runs (newest first) and trace --json print the documented shapes', async () => {
  const store = tempDir();
  const a = await cli(['start', WF, '--json'], { store });
  await new Promise((r) => setTimeout(r, 5)); // b is created a few milliseconds later: the newer run
  const b = await cli(['start', WF, '--json'], { store });
  await cli(['step', b.json.runId, '--response', '{"words":5}'], { store });
  const st = await cli(['status', a.json.runId, '--json'], { store });
  assert.is(st.code, 0);
  assert.equal(st.json, a.json);
  const runs = await cli(['runs', '--json'], { store });
  assert.equal(runs.json.runs.map((r: any) => r.runId), [b.json.runId, a.json.runId], 'newest first');
  for (const r of runs.json.runs) assert.equal(Object.keys(r).sort(), ['createdAt', 'runId', 'status', 'updatedAt', 'workflow']);
  const waiting = await cli(['runs', '--status', 'waiting', '--json'], { store });
  assert.equal(waiting.json.runs.map((r: any) => r.runId), [a.json.runId]);
  // For people: a header, and both times, so the order (by start) reads right even when an older run was updated later.
  const human = (await cli(['runs'], { store })).stdout.split('\n').filter(Boolean);
  assert.match(human[0], /^RUN ID\s+STATUS\s+STARTED\s+UPDATED\s+WORKFLOW$/);
  assert.equal(human.slice(1).map((l) => l.split(/\s+/).slice(0, 4)), runs.json.runs.map((r: any) => [r.runId, r.status, r.createdAt, r.updatedAt]));
  const tr = await cli(['trace', b.json.runId, '--json'], { store });
  assert.is(tr.json.runId, b.json.runId);
  assert.equal(
    tr.json.events.map((e: any) => e.type),
    ['run.started', 'route', 'directive.issued', 'answer.accepted', 'route', 'condition.evaluated', 'route', 'run.completed'],
  );
  // Every event names its node, the first one too (the start node).
  assert.ok(tr.json.events.every((e: any) => typeof e.nodeId === 'string'), JSON.stringify(tr.json.events));
  assert.is(tr.json.events[0].nodeId, 'start');
  const cond = tr.json.events.find((e: any) => e.type === 'condition.evaluated');
  assert.equal({ seq: cond.seq, nodeId: cond.nodeId, result: cond.result }, { seq: 1, nodeId: 'check', result: false });
  assert.ok(!('payload' in cond) && typeof cond.at === 'string');
  const route = tr.json.events.filter((e: any) => e.type === 'route')[2];
  assert.equal({ from: route.from, to: route.to, via: route.via }, { from: 'check', to: 'short', via: 'false' });
  const missing = await cli(['status', 'no-such-run', '--json'], { store });
  assert.is(missing.code, 2);
  assert.is(missing.json.error.code, 'E_RUN_NOT_FOUND');
});

Cli('graph prints mermaid by default and dot on request; an unknown format is a usage error', async () => {
  const m = await cli(['graph', WF]);
  assert.is(m.code, 0);
  assert.not.match(m.stderr, /warning/, 'a valid workflow draws without a warning');
  assert.match(m.stdout, /^flowchart TD\n/);
  assert.match(m.stdout, /n2 -->\|"true"\| n3/);
  const d = await cli(['graph', WF, '--format', 'dot']);
  assert.match(d.stdout, /^digraph workflow \{/);
  assert.match(d.stdout, /n2 -> n4 \[label="false"\];/);
  const bad = await cli(['graph', WF, '--format', 'svg']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /countersign: E_USAGE: /);
});

Cli('graph --json (the common option, before or after the command) prints one document: the drawing, its format and whether the workflow validates', async () => {
  for (const args of [['graph', WF, '--json'], ['--json', 'graph', WF, '--format', 'dot']]) {
    const r = await cli(args);
    assert.is(r.code, 0, r.stderr);
    const doc = r.json as { file: string; format: string; graph: string; valid: boolean; errors: number };
    assert.is(doc.file, WF);
    assert.is(doc.valid, true);
    assert.is(doc.errors, 0);
    assert.match(doc.graph, doc.format === 'dot' ? /^digraph workflow \{/ : /^flowchart TD\n/);
  }
  const dir = tempDir();
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify({ metadata: { name: 'b', version: '1.0.0', description: 'd' }, nodes: [{ type: 'start', id: 'start', connections: { default: 'nowhere' } }] }));
  const r = await cli(['graph', broken, '--json']);
  assert.is(r.code, 0);
  assert.is(r.json.valid, false);
  assert.ok(r.json.errors >= 1);
  assert.match(r.stderr, /does not validate/);
});

Cli('graph draws a workflow that does not validate (exit 0) and warns on stderr with its error count and first finding; a missing connection target is a node of its own (never a real node, even one drawn as n2), and both nodes that share an id are drawn', async () => {
  const file = join(tempDir(), 'broken.json');
  writeFileSync(
    file,
    JSON.stringify({
      metadata: { name: 'broken', version: '1.0.0', description: 'a graph with faults' },
      nodes: [
        { type: 'start', id: 'start', connections: { default: 'n2' } },
        { type: 'agent-directive', id: 'a', connections: { success: 'a-b' } },
        { type: 'end', id: 'other' },
        { type: 'condition', id: 'a', connections: { true: 'a_b', false: 'other' } },
      ],
    }),
  );
  const drawn = await cli(['graph', file, '--format', 'dot']);
  assert.is(drawn.code, 0, 'drawing is how one finds what is wrong: still exit 0');
  assert.match(
    drawn.stderr,
    /^countersign: warning: .*broken\.json does not validate \(\d+ errors\); the graph shows it as written\. The first: .*broken\.json:1:\d+ error E_[A-Z_]+ .*Fix: run `countersign validate /,
  );
  // A first finding that ends with its own full stop (no metadata): one full stop before the fix, never two.
  const bare = join(tempDir(), 'bare.json');
  writeFileSync(bare, JSON.stringify({ nodes: [{ type: 'start', id: 'start', connections: { default: 'e' } }, { type: 'end', id: 'e' }] }));
  const warned = (await cli(['graph', bare])).stderr;
  assert.match(warned, 'purpose of the workflow. Fix: run');
  assert.not.match(warned, '..', 'one full stop between the finding and the fix');
  const dot = drawn.stdout;
  assert.match(dot, /n0 -> missing_0 \[label="default"\];/);
  assert.match(dot, /missing_0 \[label="n2\\n\(missing\)", shape=box, style=dashed\];/);
  assert.not.match(dot, /n0 -> n2/, 'not drawn into the node that happens to be n2');
  assert.match(dot, /n1 \[label="a\\nagent-directive"/);
  assert.match(dot, /n3 \[label="a \(duplicate id\)\\ncondition"/);
  assert.match(dot, /n3 -> n2 \[label="false"\];/);
  const mermaid = (await cli(['graph', file])).stdout;
  assert.match(mermaid, /n1 -->\|"success"\| missing_1\n/);
  assert.match(mermaid, /n3 -->\|"true"\| missing_2\n/, 'a-b and a_b stay two missing nodes');
  assert.match(mermaid, /n3\{"a \(duplicate id\)"\}/);
  assert.match(mermaid, /missing_0\["n2<br\/><small>\(missing\)<\/small>"\]/);
  assert.match(mermaid, /  classDef missing stroke-dasharray: 5 5\n  class missing_0,missing_1,missing_2 missing\n$/, 'missing targets are dashed in Mermaid too');
});

Cli('step with an answer nested thousands of levels deep (from a file) is the E_ANSWER_TOO_DEEP rejection: exit 5, still waiting', async () => {
  const store = tempDir();
  const started = await cli(['start', 'spec/fixtures/cli/two-step.json', '--json'], { store });
  const file = join(tempDir(), 'deep.json');
  writeFileSync(file, `{"words": ${'['.repeat(5000)}${']'.repeat(5000)}}`);
  const r = await cli(['step', started.json.runId, '--response', `@${file}`, '--json'], { store });
  assert.is(r.code, 5, r.stderr);
  assert.is(r.json.status, 'waiting');
  assert.is(r.json.rejected.code, 'E_ANSWER_TOO_DEEP');
});

Cli('graph: a connection to a placeholder label ("(node 1)") is missing, not an edge into the node without an id; Mermaid text is escaped (|, ", #, line breaks)', async () => {
  const file = join(tempDir(), 'odd.json');
  writeFileSync(
    file,
    JSON.stringify({
      metadata: { name: 'odd', version: '1.0.0', description: 'odd names' },
      nodes: [
        { type: 'start', id: 's', connections: { default: '(node 1)', 'a|b': 'e', 'x\ny': 'e', 'say "#quot;"': 'e', '`md`': 'e', 'c&amp;d': 'e' } },
        { type: 'end' },
        { type: 'end', id: 'e' },
      ],
    }),
  );
  const mermaid = (await cli(['graph', file])).stdout;
  assert.match(mermaid, /n0 -->\|"default"\| missing_0\n/);
  assert.match(mermaid, /n1\(\["\(node 1\)"\]\)/, 'the node without an id is still drawn, under its placeholder');
  assert.match(mermaid, /n0 -->\|"a#124;b"\| n2\n/);
  assert.match(mermaid, /n0 -->\|"x<br\/>y"\| n2\n/);
  assert.match(mermaid, /n0 -->\|"say #quot;#35;quot;#quot;"\| n2\n/);
  // A leading backtick would make Mermaid read markdown; an & would start an entity it decodes.
  assert.match(mermaid, /n0 -->\|"#96;md#96;"\| n2\n/);
  assert.match(mermaid, /n0 -->\|"c#38;amp;d"\| n2\n/);
  const dot = (await cli(['graph', file, '--format', 'dot'])).stdout;
  assert.match(dot, /n0 -> missing_0 \[label="default"\];/);
  // r98 a3: DOT's own escapes, never JSON's: a quote and a backslash escaped, & as &amp; (Graphviz decodes entities), a break as \n.
  assert.ok(dot.includes('n0 -> n2 [label="c&amp;amp;d"];'), dot);
  assert.ok(dot.includes('n0 -> n2 [label="say \\"#quot;\\""];'), dot);
  assert.ok(dot.includes('n0 -> n2 [label="x\\ny"];'), dot);
});

Cli('r98 a2: an answer or input past 64 MiB (stdin or @file) is refused while it is read — E_ANSWER_TOO_LARGE for --response, E_INPUT for --input — never a crash; the run is as it was', async () => {
  const store = tempDir();
  const run = await cli(['start', WF, '--json'], { store });
  const huge = Buffer.alloc(64 * 1024 * 1024 + 10, 'a');
  const viaStdin = await cli(['step', run.json.runId, '--response', '-', '--json'], { store, stdin: huge });
  assert.is(viaStdin.code, 2, viaStdin.stderr);
  assert.is(viaStdin.json.error.code, 'E_ANSWER_TOO_LARGE');
  assert.match(viaStdin.json.error.message, '--response on standard input holds more than 64 MiB, the most countersign reads of one: nothing was submitted');
  const file = join(tempDir(), 'huge.json');
  writeFileSync(file, huge);
  const viaFile = await cli(['start', WF, '--input', `@${file}`, '--json'], { store });
  assert.is(viaFile.code, 2);
  assert.equal([viaFile.json.error.code, viaFile.json.error.file], ['E_INPUT', file]);
  assert.match(viaFile.json.error.message, `the --input file ${file} is 64.0 MiB, past the 64 MiB countersign reads of one`);
  // r99 a1: a device or FIFO has no size to check first: the cap holds while it is read.
  const endless = await cli(['step', run.json.runId, '--response', '@/dev/zero', '--json'], { store });
  assert.is(endless.code, 2);
  assert.equal([endless.json.error.code, endless.json.error.message], ['E_ANSWER_TOO_LARGE', '--response file /dev/zero holds more than 64 MiB, the most countersign reads of one: nothing was submitted'.replace(/^/, 'the ')]);
  assert.is((await cli(['status', run.json.runId, '--json'], { store })).json.seq, 1);
});

Cli('r98 a3: graph --format dot draws an id as written: a tab kept, a control character shown as its \\u code, an entity as its text', async () => {
  const file = join(tempDir(), 'odd-ids.json');
  writeFileSync(file, JSON.stringify({ nodes: [{ type: 'start', id: 'tab\there', connections: { default: '\u0001ctl' } }, { type: 'end', id: '\u0001ctl' }, { type: 'end', id: 'e&amp;f' }] }));
  const dot = (await cli(['graph', file, '--format', 'dot'])).stdout;
  assert.ok(dot.includes('[label="tab\there\\nstart"'), dot);
  assert.ok(dot.includes('[label="\\\\u0001ctl\\nend"'), dot);
  assert.ok(dot.includes('[label="e&amp;amp;f\\nend"'), dot);
  assert.not.ok(/\\t|\\u0001/.test(dot.replace(/\\\\u0001/g, '')), 'no JSON escapes DOT would draw as letters');
});

Cli('graph of a document that is null is E_SCHEMA (no nodes to draw), not a crash; help after a global option still finds its topic', async () => {
  const file = join(tempDir(), 'null.yaml');
  writeFileSync(file, '~\n');
  const r = await cli(['graph', file]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^countersign: E_SCHEMA: .*null\.yaml: the document has no "nodes" list to draw/);
  const help = await cli(['--store', tempDir(), 'help', 'status']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^countersign status <runId>/);
  const valueNotTopic = await cli(['help', '--store', 'status']);
  assert.match(valueNotTopic.stdout, /usage: countersign <command>/, '--store\'s value is not a topic: the general help');
  const unknown = await cli(['help', 'frobnicate']);
  assert.is(unknown.code, 2, 'a topic that is no command is a usage error, as the command itself would be');
  assert.match(unknown.stderr, /countersign: E_USAGE: no help topic "frobnicate"/);
});

Cli('a global --store before the command is ignored by commands that keep no runs (validate, graph), as a wrapper always passing it expects', async () => {
  const store = tempDir();
  for (const args of [['--store', store, 'validate', WF], [`--store=${store}`, 'graph', WF], ['--json', '--store', store, 'validate', WF]]) {
    const r = await cli(args);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
});

Cli('a replayed step exits 0 whatever the run did since, also when the step it repeats failed the run (the host retrying after a crash)', async () => {
  const store = tempDir();
  const wf = JSON.parse(readFileSync(join(ROOT, 'spec/fixtures/cli/two-step.json'), 'utf8'));
  wf.nodes[1].maxRetries = 0;
  const file = join(tempDir(), 'strict.json');
  writeFileSync(file, JSON.stringify(wf));
  const started = await cli(['start', file, '--json'], { store });
  const failed = await cli(['step', started.json.runId, '--seq', '1', '--response', '{"words": 0}', '--json'], { store });
  assert.is(failed.code, 1, failed.stderr);
  const again = await cli(['step', started.json.runId, '--seq', '1', '--response', '{"words": 0}', '--json'], { store });
  assert.is(again.code, 0, again.stderr);
  assert.equal([again.json.status, again.json.replayed], ['failed', true]);
});

Cli('usage errors exit 2 with {error} on stdout under --json: unknown command, unknown flag, missing argument', async () => {
  const unknown = await cli(['frobnicate', '--json']);
  assert.is(unknown.code, 2);
  assert.is(unknown.json.error.code, 'E_USAGE');
  const flag = await cli(['status', 'x', '--bogus', '--json']);
  assert.is(flag.code, 2);
  assert.is(flag.json.error.code, 'E_USAGE');
  const missing = await cli(['step', 'x', '--json']);
  assert.is(missing.code, 2);
  assert.match(missing.json.error.message, /--response/);
});

Cli('start refuses an invalid workflow with exit 2, names the first finding, and its fix is a validate command that runs as printed', async () => {
  const dir = tempDir();
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ metadata: { name: 'b', version: '1.0.0', description: 'd' }, nodes: [{ type: 'start', id: 'start', connections: { default: 'gone' } }, { type: 'end', id: 'done' }] }, null, 2));
  const r = await cli(['start', file, '--json'], { store: tempDir() });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_WORKFLOW_INVALID');
  assert.match(r.stderr, /E_DANGLING_CONNECTION/);
  assert.match(r.stderr, /bad\.json:\d+:\d+/);
  // The command it suggests names the file: copied as printed, it runs.
  assert.is(r.json.error.fix, `run \`countersign validate ${file}\` to see every finding`);
});

Cli('--store DIR overrides COUNTERSIGN_STORE', async () => {
  const envStore = tempDir();
  const flagStore = tempDir();
  const s = await cli(['start', WF, '--json', '--store', flagStore], { store: envStore });
  assert.is((await cli(['status', s.json.runId, '--json', '--store', flagStore])).code, 0);
  assert.is((await cli(['status', s.json.runId, '--json'], { store: envStore })).code, 2);
});

Cli.run();

const Human = suite('cli human output');

Human('--help, help <command> and --version print usage and exit 0; no command is E_USAGE on stderr (with the help) and exits 2', async () => {
  const help = await cli(['--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /usage: countersign <command>/);
  const stepHelp = await cli(['help', 'step']);
  assert.match(stepHelp.stdout, /^countersign step <runId> --response/);
  const flagHelp = await cli(['run', '--help']);
  assert.match(flagHelp.stdout, /adapters: scripted:<file>/);
  const version = await cli(['--version']);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const none = await cli([]);
  assert.is(none.code, 2);
  assert.is(none.stdout, '');
  assert.match(none.stderr, /usage: countersign <command>[\s\S]*\ncountersign: E_USAGE: no command given\n  fix: name one: validate, /);
});

Human('under --json, help, a command\'s --help and --version are one JSON document each; no command is an {error} document', async () => {
  const help = await cli(['--help', '--json']);
  assert.is(help.code, 0);
  assert.match(help.json.usage, /usage: countersign <command>/);
  assert.match((await cli(['help', 'status', '--json'])).json.usage, /^countersign status <runId>/);
  assert.match((await cli(['status', '--help', '--json'])).json.usage, /^countersign status <runId>/);
  assert.match((await cli(['--json', '--version'])).json.version, /^\d+\.\d+\.\d+$/);
  const none = await cli(['--json']);
  assert.is(none.code, 2);
  assert.is(none.json.error.code, 'E_USAGE');
});

Human('human output: start shows the directive and how to answer; trace prints one line per event', async () => {
  const store = tempDir();
  const s = await cli(['start', WF, '--json'], { store });
  const st = await cli(['status', s.json.runId], { store });
  assert.match(st.stdout, /is waiting at "write" — seq 1, attempt 1 of 4/);
  assert.match(st.stdout, /directive:\n  Write about tests\./);
  assert.match(st.stdout, new RegExp(`answer with: countersign step ${s.json.runId} --seq 1 --response`));
  const bad = await cli(['step', s.json.runId, '--response', '{"words": -3}'], { store });
  assert.match(bad.stdout, /^answer rejected \(E_ANSWER_INVALID\):\n  \/words: must be >= 1/);
  const tr = await cli(['trace', s.json.runId], { store });
  const lines = tr.stdout.trim().split('\n');
  assert.is(lines.length, 5);
  assert.match(lines[3], /#1\s+answer\.rejected\s+write\s+attempt=1 code=E_ANSWER_INVALID errors=\["\/words: must be >= 1"\]/);
});

Human('human output: with --store DIR, the "answer with" line of start, step and status names that store, so run as printed it finds the run', async () => {
  const dir = tempDir();
  const store = join(dir, 'my store');
  const s = await cli(['start', WF, '--store', store]);
  const runId = /run (\S+) is waiting/.exec(s.stdout)![1];
  const line = (out: string) => /answer with: (countersign step .*)/.exec(out)![1];
  assert.is(line(s.stdout), `countersign step ${runId} --store '${store}' --seq 1 --response '<json>'`);
  const st = await cli(['status', runId, '--store', store]);
  assert.match(line(st.stdout), `--store '${store}' --seq 1`);
  const bad = await cli(['step', runId, '--store', store, '--response', '{"words": -3}']);
  assert.match(line(bad.stdout), `--store '${store}' --seq 2`);
  // Following the printed line (minus the placeholder answer) from the same directory reaches the run.
  const followed = await cli(['step', runId, '--store', store, '--seq', '2', '--response', '{"words": 250}']);
  assert.is(followed.code, 0, followed.stderr);
  // Without --store (default store, or $COUNTERSIGN_STORE) the line stays as it was.
  const plain = await cli(['status', runId], { store });
  assert.not.match(plain.stdout, '--store');
});

Human('mcp --workflows "" (an unset shell variable) is a usage error, as an empty --store is', async () => {
  const r = await cli(['mcp', '--workflows', '']);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'countersign: E_USAGE: --workflows "" names no folder');
});

Human('r97 a1: an unknown option before the command is named (with a did-you-mean), never "no command given" when a command was given', async () => {
  const frob = await cli(['--frob', 'status', 'x', '--json']);
  assert.is(frob.code, 2);
  assert.equal(frob.json.error.message, 'unknown option "--frob" before the command');
  assert.match(frob.json.error.fix, 'countersign status --help');
  const typo = await cli(['--jsno', 'runs']);
  assert.is(typo.code, 2);
  assert.match(typo.stderr, 'countersign: E_USAGE: unknown option "--jsno" before the command — did you mean --json?');
  const none = await cli(['--jsno']);
  assert.match(none.stderr, 'countersign: E_USAGE: no command given');
  // r113 a1: `--store runs` took the command as its directory: said so, never "--store is unknown — did you mean --store?".
  for (const args of [['--store', 'runs', '--json'], ['--json', '--store', 'status']]) {
    const taken = await cli(args);
    assert.is(taken.code, 2);
    assert.equal(taken.json.error.message, `--store took "${args.includes('runs') ? 'runs' : 'status'}" as its directory, and no command is left`);
    assert.match(taken.json.error.fix, '--store DIR');
  }
});

Human('r116: a usage error\'s fix says what to write (the values a flag takes, the command as it is used), never only "run countersign --help"', async () => {
  const wf = join(ROOT, 'spec/fixtures/cli/two-step.json');
  const cases: Array<[string[], string]> = [
    [['graph', wf, '--format', 'svg'], 'write --format mermaid (the default) or --format dot'],
    [['runs', '--status', 'done'], 'write --status waiting, --status completed, --status failed, or leave it out to list every run'],
    [['step', 'r1'], "countersign step r1 --response '{\"field\": \"value\"}'"],
    [['step', 'r1', '--response', '{}', '--seq', 'x'], 'pass the seq the run shows (`countersign status r1`), or leave --seq out'],
    [['run', wf, '--agent', 'scripted:x.yaml', '--max-steps', '0'], 'write it as --max-steps 10, or leave it out'],
    [['status'], 'countersign status <runId> (`countersign runs` lists them)'],
    // r117 a1: run as printed, each suggested command names the run and the store given.
    [['step', 'r1', '--store', '/tmp/cs st2'], "countersign step r1 --store '/tmp/cs st2' --response '{\"field\": \"value\"}' (`countersign status r1 --store '/tmp/cs st2'` shows the schema"],
  ];
  for (const [args, fix] of cases) {
    const r = await cli([...args, '--json']);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.json.error.code, 'E_USAGE');
    assert.match(r.json.error.fix, fix, args.join(' '));
    assert.is.not(r.json.error.fix, 'run `countersign --help`');
  }
});

Human('r105 a1: an unknown option after the command is E_USAGE in our words, with the option meant (--jsno: --json, --inptu: --input, --fromat: --format); a misspelt command gets its did-you-mean too', async () => {
  const cases: Array<[string[], string]> = [
    [['validate', '--jsno', 'w.json'], 'unknown option "--jsno" for validate — did you mean --json?'],
    [['start', 'w.json', '--inptu', '{}'], 'unknown option "--inptu" for start — did you mean --input?'],
    [['graph', 'w.json', '--fromat', 'dot', '--json'], 'unknown option "--fromat" for graph — did you mean --format?'],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, `countersign: E_USAGE: ${message}`);
    assert.match(r.stderr, 'usage: countersign');
  }
  const json = await cli(['graph', 'w.json', '--fromat', 'dot', '--json']);
  assert.is(json.json.error.code, 'E_USAGE');
  assert.match(json.json.error.fix, 'write --format');
  const far = await cli(['runs', '--frobnicate']);
  assert.match(far.stderr, 'countersign: E_USAGE: unknown option "--frobnicate" for runs\n');
  const command = await cli(['vaildate', 'w.json']);
  assert.is(command.code, 2);
  assert.match(command.stderr, 'countersign: E_USAGE: unknown command "vaildate" — did you mean validate?');
});

Human('usage errors are one line: --store without a directory says so (not "no command given"); a value starting with "-" says how to pass it', async () => {
  for (const args of [['--store'], ['--store', '--json']]) {
    const r = await cli(args);
    assert.is(r.code, 2);
    assert.match(r.stderr, 'countersign: E_USAGE: --store needs a directory');
  }
  const dash = await cli(['step', 'abc', '--as', '-x', '--response', '{}', '--json']);
  assert.is(dash.code, 2);
  assert.is(dash.json.error.message, '--as got a value starting with "-"');
  // A negative seq however written (--seq -1, --seq=-1) or 0 names no item, and says so (E_SEQ), never "not issued" as if it might be later.
  const store = tempDir();
  const run = await cli(['start', WF, '--json'], { store });
  for (const [bad, seq] of [[['--seq=-1'], -1], [['--seq', '-1'], -1], [['--seq=0'], 0]] as const) {
    const r = await cli(['step', run.json.runId, ...bad, '--response', '{"words": 3}', '--json'], { store });
    assert.is(r.code, 2, bad.join(" "));
    assert.equal([r.json.error.code, r.json.error.message], ['E_SEQ', `run ${run.json.runId} is at seq 1; seq ${seq} names no item: seqs start at 1`], bad.join(" "));
    assert.match(r.json.error.fix, 'answer seq 1 (the pending item), or omit --seq');
  }
  const other = await cli(['start', 'x.json', '--input', '-x', '--json']);
  assert.match(other.json.error.fix, 'if the value really starts with "-", write it as --input=<value>');
  // Past 2^53 a number is not the one typed: said as typed, never as another seq or in exponent form.
  for (const huge of ['9007199254740993', '123456789012345678901234']) {
    const r = await cli(['step', run.json.runId, '--seq', huge, '--response', '{"words": 3}', '--json'], { store });
    assert.is(r.code, 2, huge);
    assert.equal([r.json.error.code, r.json.error.message], ['E_USAGE', `--seq ${huge} is larger than any seq (the largest is 9007199254740991)`]);
  }
  // Its fix is a command that finds the run, run as printed.
  const otherStore = tempDir();
  const elsewhere = await cli(['--store', otherStore, 'step', run.json.runId, '--seq', '9007199254740993', '--response', '{}']);
  assert.match(elsewhere.stderr, `fix: pass the seq the run shows: \`countersign status ${run.json.runId} --store ${otherStore}\``);
});

Human('with --store DIR, the commands an error\'s fix suggests name that store (an unknown run from status, step, trace, run --resume)', async () => {
  const dir = tempDir();
  const store = join(dir, 'st1');
  const s = await cli(['start', WF, '--store', store, '--json']);
  assert.is(s.code, 0);
  for (const args of [['status', 'nope'], ['trace', 'nope'], ['step', 'nope', '--response', '{}'], ['run', '--resume', 'nope', '--agent', 'interactive']]) {
    const r = await cli([...args, '--store', store, '--json']);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.json.error.code, 'E_RUN_NOT_FOUND', args.join(' '));
    assert.match(r.json.error.fix, `\`countersign runs --store ${store}\``, args.join(' '));
    assert.match(r.stderr, `countersign runs --store ${store}`);
  }
  // Followed as printed, it lists the run that store holds.
  const listed = await cli(['runs', '--store', store, '--json']);
  assert.equal(listed.json.runs.map((r: { runId: string }) => r.runId), [s.json.runId]);
  // Prose that merely contains the words is never rewritten: only commands.
  const { withStore } = await import('../../engine/cli/render.js');
  assert.is(withStore('relative to the directory countersign runs in (not --workspace)', store), 'relative to the directory countersign runs in (not --workspace)');
  assert.is(withStore('countersign status r1 --store x', store), 'countersign status r1 --store x', 'a command naming a store already is kept');
  // "start a new run" names the store too: run as printed, the new run goes where the old one was.
  assert.is(withStore('start a new run with `countersign start`', 'st'), 'start a new run with `countersign start --store st`');
  assert.is(withStore('the run starts when countersign starts it', 'st'), 'the run starts when countersign starts it');
  // An answer to a run that has ended: the fix names its workflow file and the store, and runs as printed.
  const done = await cli(['start', WF, '--store', store, '--json']);
  const completed = await cli(['step', done.json.runId, '--response', '{"words": 3}', '--store', store, '--json']);
  assert.is(completed.json.status, 'completed');
  const ended = await cli(['step', done.json.runId, '--response', '{"words": 3}', '--store', store, '--json']);
  assert.is(ended.json.error.code, 'E_RUN_NOT_WAITING');
  assert.is(ended.json.error.fix, `start a new run with \`countersign start --store ${store} ${join(ROOT, WF)}\``);
  const again = await cli(['start', '--store', store, join(ROOT, WF), '--json']);
  assert.is(again.code, 0, again.stderr);
  const missing = await cli(['run', WF, '--agent', 'scripted:nope.yaml', '--store', store]);
  assert.match(missing.stderr, 'relative to the directory countersign runs in (not --workspace)');
  // Without --store the hint stays as it was.
  const plain = await cli(['status', 'nope', '--json'], { store });
  assert.match(plain.json.error.fix, '`countersign runs`;');
});

Human.run();
