/**
 * The scripted adapter: answers per node id, in order, from a YAML or JSON
 * file, so workflows run offline and deterministically.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { answersTaken, checkScriptNodes, createScriptedAgent, loadScript } from '../../engine/hosts/scripted.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { rejection, thrown } from '../helpers/errors.js';
import { agentRequest } from '../helpers/agent-request.js';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';

const request = agentRequest;

const opts = { signal: new AbortController().signal, timeoutMs: 1000 };



const test = suite<{ dir: string }>('scripted adapter', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-scripted-'));
});
test.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

test('a node visited again takes the next answer in its own list', async () => {
  const agent = createScriptedAgent({
    review: [{ issues_count: 2 }, { issues_count: 0 }],
    fix: [{ fixed: ['a.ts'] }],
  });
  assert.equal(await agent.answer(request('review'), opts), { issues_count: 2 });
  assert.equal(await agent.answer(request('fix'), opts), { fixed: ['a.ts'] });
  assert.equal(await agent.answer(request('review'), opts), { issues_count: 0 });
});

test('§4: an entry that is no JSON object (a YAML "- x:1" read as a string, a number, a list) is an adapter fault, E_AGENT_OUTPUT at its pointer: never an answer that spends an attempt; null is an answer', async () => {
  const agent = createScriptedAgent({ a: ['x:1', 5, [1], null, { x: 1 }] }, { file: 'answers.yaml' });
  for (const [i, what] of [[0, 'the string "x:1"'], [1, 'the number 5'], [2, 'a list']] as const) {
    const err = await rejection(agent.answer(request('a'), opts));
    assert.is(err.code, 'E_AGENT_OUTPUT');
    assert.match(err.message, `answers node "a" with ${what} (answer ${i + 1}, at /a/${i}), not a JSON object`);
    assert.is(err.pointer, `/a/${i}`);
    assert.match(err.fix!, 'a space after the colon');
  }
  assert.is(await agent.answer(request('a'), opts), null);
  assert.equal(await agent.answer(request('a'), opts), { x: 1 });
});

test('an exhausted list is E_AGENT_SCRIPT_EXHAUSTED naming the file, the node and how many answers it had', async () => {
  const agent = createScriptedAgent({ review: [{ issues_count: 0 }] }, { file: 'answers.yaml' });
  await agent.answer(request('review'), opts);
  const err = await rejection(agent.answer(request('review'), opts));
  assert.is(err.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  assert.is(err.message, 'the script answers.yaml has no answer left for node "review" (it had 1)');
  assert.is(err.nodeId, 'review');
  assert.ok(err.fix);
});

test('a node the script does not mention is E_AGENT_SCRIPT_EXHAUSTED saying it has no answers for it, and how to add them', async () => {
  const err = await rejection(createScriptedAgent({}, { file: 's.json' }).answer(request('plan'), opts));
  assert.is(err.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  assert.match(err.message, 'the script s.json has no answers for node "plan"');
  assert.is(err.fix, 'add a list of answers under "plan" in s.json');
  assert.is(err.nodeId, 'plan');
});

test('an inherited object key such as "constructor" is not mistaken for a list of answers', async () => {
  const err = await rejection(createScriptedAgent({}).answer(request('constructor'), opts));
  assert.is(err.code, 'E_AGENT_SCRIPT_EXHAUSTED');
});

test('changing an answer it gave does not change the script', async () => {
  const script = { review: [{ issues: ['x'] }] };
  const first = (await createScriptedAgent(script).answer(request('review'), opts)) as { issues: string[] };
  first.issues.push('y');
  assert.equal(script.review[0], { issues: ['x'] });
});

test('loadScript reads a YAML map of node id to answers', (c) => {
  const file = join(c.dir, 'answers.yaml');
  writeFileSync(file, 'review:\n  - issues_count: 1\n    issues: ["missing test"]\n  - issues_count: 0\nfix:\n  - {fixed: true}\n');
  assert.equal(loadScript(file), {
    review: [{ issues_count: 1, issues: ['missing test'] }, { issues_count: 0 }],
    fix: [{ fixed: true }],
  });
});

test('loadScript reads JSON files', (c) => {
  const file = join(c.dir, 'answers.json');
  writeFileSync(file, JSON.stringify({ review: [{ ok: true }] }));
  assert.equal(loadScript(file), { review: [{ ok: true }] });
});

test('invalid JSON in a .json script is E_PARSE naming the file and the line:col of the fault, as a workflow file\'s would be', (c) => {
  const file = join(c.dir, 'answers.json');
  writeFileSync(file, '{\n  "review": [\n    {"ok": true},\n  ]\n}\n');
  const err = thrown(() => loadScript(file));
  assert.is(err.code, 'E_PARSE');
  assert.is(err.file, file);
  assert.equal([err.line, err.col], [3, 17]);
  assert.match(err.message, `the script ${file} is not valid JSON at 3:17: trailing comma`);
  assert.not.match(err.message, '\n', 'one line, not the file echoed back');
  const empty = join(c.dir, 'empty.json');
  writeFileSync(empty, '  \n');
  assert.is(thrown(() => loadScript(empty)).code, 'E_INPUT', 'an empty script says what a script holds');
});

test('invalid YAML is E_PARSE with the line', (c) => {
  const file = join(c.dir, 'answers.yaml');
  writeFileSync(file, 'review:\n  - ok: true\n  bad: [unclosed\n');
  const err = thrown(() => loadScript(file));
  assert.is(err.code, 'E_PARSE');
  assert.match(err.message, file);
  assert.type(err.line, 'number');
});

test('a script that is not a map, or a node whose answers are not a list, is E_INPUT naming the file', (c) => {
  const list = join(c.dir, 'list.yaml');
  writeFileSync(list, '- a\n- b\n');
  const notMap = thrown(() => loadScript(list));
  assert.is(notMap.code, 'E_INPUT');
  assert.match(notMap.message, list);

  const single = join(c.dir, 'single.yaml');
  writeFileSync(single, 'review:\n  issues_count: 0\n');
  const notList = thrown(() => loadScript(single));
  assert.is(notList.code, 'E_INPUT');
  assert.match(notList.message, '"review"');
  assert.is(notList.pointer, '/review');
});

test('a missing script file is E_FILE_NOT_FOUND', (c) => {
  assert.is(thrown(() => loadScript(join(c.dir, 'nope.yaml'))).code, 'E_FILE_NOT_FOUND');
});

test('a node with no list of its own is never told to take another node\'s list: the fix is to add one under it', async () => {
  const agent = createScriptedAgent({ 'review-1': [{ n: 1 }] }, { file: 'a.yaml' });
  const err = await agent.answer({ kind: 'directive', nodeId: 'review-2' } as never, { signal: new AbortController().signal, timeoutMs: 1000 }).then(() => undefined, (e: CountersignError) => e);
  assert.is(err?.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  assert.is(err?.message, 'the script a.yaml has no answers for node "review-2"');
  assert.is(err?.fix, 'add a list of answers under "review-2" in a.yaml');
});

test('a resumed script that runs out says the list continued after the answers the run had already taken', async () => {
  const agent = createScriptedAgent({ ask: [{ n: 1 }] }, { file: 'fixed.yaml', answered: { ask: 1 } });
  const err = await agent.answer({ kind: 'directive', nodeId: 'ask' } as never, { signal: new AbortController().signal, timeoutMs: 1000 }).then(() => undefined, (e: CountersignError) => e);
  assert.is(err?.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  assert.match(err?.message ?? '', 'the run had already taken 1 answer(s) for it before this resume, and a resumed script continues after them');
});

test('r82 c4: answersTaken counts one answer per item handed out: a fix answer accepted and then refused behind a tool node (journaled twice) is one, so a resumed script goes on where the run stopped', () => {
  const at = '2026-12-04T10:00:00.000Z';
  const events = [
    { seq: 0, at, type: 'directive.issued', nodeId: 'fix', attempt: 1 },
    { seq: 1, at, type: 'answer.accepted', nodeId: 'fix', attempt: 1, userId: 'author' },
    { seq: 2, at, type: 'tool.started', nodeId: 'fmt' },
    { seq: 3, at, type: 'tool.succeeded', nodeId: 'fmt' },
    { seq: 4, at, type: 'answer.rejected', nodeId: 'fix', attempt: 1, userId: 'author', code: 'E_UNCHANGED_ARTIFACT' },
    { seq: 5, at, type: 'directive.issued', nodeId: 'fix', attempt: 2 },
    { seq: 6, at, type: 'answer.rejected', nodeId: 'fix', attempt: 2, userId: 'author', code: 'E_ANSWER_INVALID' },
  ];
  assert.equal(answersTaken(events as never), { fix: 2 });
});

test('r78 d4: answersTaken refuses an entry that is no journal event (null, a number, a list, an object without its type) with E_INPUT naming its index, never a TypeError; journal events are counted as before', () => {
  const events = [
    { seq: 0, at: '2026-01-01T00:00:00.000Z', type: 'run.started', nodeId: 'start' },
    { seq: 1, at: '2026-01-01T00:00:01.000Z', type: 'answer.accepted', nodeId: 'ask', userId: 'local' },
  ];
  assert.equal(answersTaken(events as never), { ask: 1 });
  for (const [bad, said] of [[null, 'null'], [5, '5'], [['answer.accepted'], 'a list'], [{ nodeId: 'ask' }, 'an object without a type']] as const) {
    const e = thrown(() => answersTaken([...events, bad] as never));
    assert.is(e.code, 'E_INPUT', String(bad));
    assert.is(e.message, `answersTaken needs the run's journal events: event 2 is ${said}, not a journal event ({seq, at, type, nodeId, …})`);
    assert.is(e.fix, 'pass (await engine.trace(runId)).events, as trace returns them');
  }
});

test('r79 d7: answersTaken refuses an object that is no journal event though it has a type (node_id for nodeId, a numeric nodeId, an answer without its nodeId, no seq) with E_INPUT naming its index, never counting it as nothing', () => {
  const events = [
    { seq: 0, at: '2026-01-01T00:00:00.000Z', type: 'run.started', nodeId: 'start' },
    { seq: 1, at: '2026-01-01T00:00:01.000Z', type: 'answer.accepted', nodeId: 'ask', userId: 'local' },
  ];
  for (const [bad, said] of [
    [{ seq: 1, at: '2026-01-01T00:00:00Z', type: 'answer.accepted', node_id: 'a', userId: 'local' }, 'an object of type "answer.accepted" without the nodeId it answers'],
    [{ seq: 1, type: 'answer.accepted', nodeId: 5, userId: 'u' }, 'an object of type "answer.accepted" whose nodeId is 5, not a string'],
    [{ seq: 1, type: 'route', nodeId: ['ask'] }, 'an object of type "route" whose nodeId is ["ask"], not a string'],
    [{ type: 'answer.accepted', nodeId: 'ask', userId: 'u' }, 'an object of type "answer.accepted" without a whole-number seq'],
  ] as const) {
    const e = thrown(() => answersTaken([...events, bad] as never));
    assert.is(e.code, 'E_INPUT', JSON.stringify(bad));
    assert.is(e.message, `answersTaken needs the run's journal events: event 2 is ${said}, not a journal event ({seq, at, type, nodeId, …})`);
    assert.is(e.fix, 'pass (await engine.trace(runId)).events, as trace returns them');
  }
  // Events without a node (none are journaled so today, but the type allows it) are still read; answers are counted as before.
  assert.equal(answersTaken([...events, { seq: 2, at: '2026-01-01T00:00:02.000Z', type: 'timeout' }] as never), { ask: 1 });
});

test('r79 d3: createScriptedAgent refuses options it does not take (a misspelt answered) with E_INPUT and a did-you-mean, never replaying the script from its start', () => {
  const e = thrown(() => createScriptedAgent({ a: [{}] }, { answerd: { a: 1 } } as never));
  assert.is(e.code, 'E_INPUT');
  assert.is(e.message, 'createScriptedAgent has no option "answerd" — did you mean "answered"?');
  assert.match(e.fix ?? '', 'createScriptedAgent takes file, answered');
  assert.is(thrown(() => createScriptedAgent({ a: [{}] }, null as never)).code, 'E_INPUT');
});


test('r80 d1: createScriptedAgent refuses null for file or answered with E_INPUT naming the option, never reading it as left out (an answered of null would replay the script from its start)', () => {
  for (const [options, said] of [
    [{ file: null }, 'createScriptedAgent\'s file must be the script\'s file name (a non-empty string), got null'],
    [{ file: 5 }, 'createScriptedAgent\'s file must be the script\'s file name (a non-empty string), got 5'],
    [{ answered: null }, 'createScriptedAgent\'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got null'],
    [{ answered: 0 }, 'createScriptedAgent\'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got 0'],
  ] as const) {
    const e = thrown(() => createScriptedAgent({ ask: [{}] }, options as never));
    assert.is(e.code, 'E_INPUT', JSON.stringify(options));
    assert.is(e.message, said);
    assert.match(e.fix ?? '', 'or leave it out');
  }
  assert.ok(createScriptedAgent({ ask: [{}] }, { file: undefined, answered: undefined }), 'undefined is still left out');
});

test('r85: a library script entry JSON would not keep as given (a class instance, symbol keys, a symbol, a function, a Date, a BigInt, a Map) is E_AGENT_OUTPUT at its pointer, as a plain agent\'s answer is: never accepted changed, never E_AGENT_CRASHED', async () => {
  const words = { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] };
  const wf = {
    metadata: { name: 'one', version: '1.0.0', description: 'one directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', directive: 'Write.', completionCondition: 'written', inputSchema: words, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['write.words'] },
    ],
  } as unknown as Workflow;
  class Counted { words = 3; }
  class Other {}
  const cases: Array<[string, unknown, string, string]> = [
    ['a class instance', new Counted(), '', '(root) is a Counted, which JSON would store in another form (as {"words":3})'],
    ['symbol keys', { words: 3, [Symbol('s')]: 1 }, '', '(root) has symbol keys, which JSON drops'],
    ['a symbol', { words: Symbol('z') }, '/words', '/words is Symbol(z), a symbol, which has no JSON form'],
    ['a function', { words: () => 1 }, '/words', '/words is a function, which has no JSON form'],
    ['a nested class instance', { words: new Other() }, '/words', '/words is an Other, which JSON would store in another form (as {})'],
    ['a Date', { words: 3, at: new Date(0) }, '/at', '/at is a Date, which JSON would store in another form (as "1970-01-01T00:00:00.000Z")'],
    ['a BigInt', { words: 3n }, '/words', '/words is 3n, a BigInt, which JSON has no number for'],
    ['a Map', { words: 3, m: new Map() }, '/m', '/m is a Map, which JSON would store as {}'],
  ];
  for (const [what, entry, inner, problem] of cases) {
    const engine = createEngine({ store: createMemoryStore() });
    const r = await engine.run(wf, { agent: createScriptedAgent({ write: [entry] }, { file: 'answers.yaml' }) });
    assert.is(r.status, 'waiting', what);
    assert.is(r.error?.code, 'E_AGENT_OUTPUT', `${what}: ${JSON.stringify(r.error)}`);
    assert.is(r.error!.pointer, `/write/0${inner}`, what);
    assert.match(r.error!.message, `the script answers.yaml answers node "write" with an entry that is not plain JSON (answer 1, at /write/0${inner}): ${problem}`, what);
    assert.match(r.error!.fix ?? '', 'plain JSON', what);
    const answers = (await engine.trace(r.runId)).events.filter((e) => e.type.startsWith('answer.'));
    assert.equal(answers, [], `${what}: no answer was taken`);
  }
});

test('r86: a library script entry that holds itself is E_AGENT_OUTPUT at the pointer of the cycle, from answer() and under run(), never a bare TypeError', async () => {
  const entry: Record<string, unknown> = { a: 1 };
  entry.self = entry;
  const e = await rejection(createScriptedAgent({ ask: [entry] }).answer(request('ask'), opts));
  assert.is(e.code, 'E_AGENT_OUTPUT');
  assert.is(e.pointer, '/ask/0/self');
  assert.match(e.message, 'not plain JSON (answer 1, at /ask/0/self)');
  assert.match(e.message, 'itself');
  const wf = {
    metadata: { name: 'one', version: '1.0.0', description: 'one directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Ask.', completionCondition: 'asked', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const r = await createEngine({ store: createMemoryStore() }).run(wf, { agent: createScriptedAgent({ ask: [entry] }, { file: 'answers.yaml' }) });
  assert.is(r.error?.code, 'E_AGENT_OUTPUT', JSON.stringify(r.error));
  assert.is(r.error!.pointer, '/ask/0/self');
  assert.match(r.error!.fix ?? '', 'plain JSON');
  // A value met twice that is no cycle is still plain JSON.
  const shared = { n: 1 };
  assert.equal(await createScriptedAgent({ ask: [{ a: shared, b: shared }] }).answer(request('ask'), opts), { a: { n: 1 }, b: { n: 1 } });
});

test('r86: a script that is a Map or another non-plain object is E_INPUT "must map node ids to lists of answers", never read as a script with no answers', () => {
  class Script { ask = [{ x: 'a' }]; }
  for (const given of [new Map([['ask', [{ x: 'a' }]]]), new Script(), new Date(0)]) {
    const e = thrown(() => createScriptedAgent(given as never));
    assert.is(e.code, 'E_INPUT', String(given));
    assert.match(e.message, 'must map node ids to lists of answers');
    assert.match(e.message, given.constructor.name);
  }
  assert.ok(createScriptedAgent(Object.assign(Object.create(null), { ask: [{}] })), 'a null-prototype object is still a plain map');
});

test('r100 e1: a script\'s structure faults are told at its line:col, as its syntax errors are — a key naming no node, answers that are no list, an entry that is no object — and the file as it was named', async (c) => {
  const unknownKey = join(c.dir, 's3.yaml');
  writeFileSync(unknownKey, 'a:\n  - {x: 1}\nb:\n  - {y: hi}\nzz:\n  - {q: 1}\n');
  const key = thrown(() => checkScriptNodes(loadScript(unknownKey), ['a', 'b'], 's3.yaml'));
  assert.equal([key.code, key.pointer, key.line, key.col], ['E_INPUT', '/zz', 5, 1]);
  assert.match(key.message, 'at line 5, column 1');
  const notList = join(c.dir, 's6.yaml');
  writeFileSync(notList, 'a:\n  - {x: 1}\nb: {y: hi}\n');
  const list = thrown(() => loadScript(notList, '--agent', 's6.yaml'));
  assert.equal([list.code, list.file, list.pointer, list.line, list.col], ['E_INPUT', 's6.yaml', '/b', 3, 4]);
  assert.match(list.message, 'the script s6.yaml: the answers for node "b" (line 3, column 4) must be a list');
  const notObject = join(c.dir, 's8.yaml');
  writeFileSync(notObject, 'a:\n  - {x: 1}\nb:\n  - 5\n');
  const agent = createScriptedAgent(loadScript(notObject), { file: 's8.yaml' });
  const entry = await rejection(agent.answer(agentRequest('b'), opts));
  assert.equal([entry.code, entry.pointer, entry.line, entry.col], ['E_AGENT_OUTPUT', '/b/0', 4, 5]);
  assert.match(entry.message, 'at /b/0, line 4, column 5');
});

test.run();
