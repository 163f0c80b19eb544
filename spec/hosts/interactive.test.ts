/**
 * The interactive adapter with in-memory streams standing in for a TTY:
 * what the person sees, multi-line answers, typos that do not cost an
 * attempt, and a closed input.
 */
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { createInteractiveAgent } from '../../engine/hosts/interactive.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { rejection } from '../helpers/errors.js';

function request(over: Partial<Extract<AgentRequest, { kind: 'directive' }>> = {}): AgentRequest {
  return {
    kind: 'directive',
    nodeId: 'review',
    directive: 'Review src/app.ts and list every issue.',
    completionCondition: 'The review file is written',
    inputSchema: { type: 'object', properties: { issues_count: { type: 'integer' } }, required: ['issues_count'] },
    attempt: 2,
    maxRetries: 3,
    errors: ['/issues_count: must be integer'],
    runId: 'run-1',
    seq: 4,
    ...over,
  };
}

const opts = (timeoutMs = 5000, signal = new AbortController().signal) => ({ signal, timeoutMs });

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += String(d)));
  return { input, output, shown: () => shown };
}


const test = suite('interactive adapter');

test('the prompt shows the node, attempt of attempts, directive, completion condition, previous errors and schema', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{"issues_count": 0}\n');
  assert.equal(await answer, { issues_count: 0 });
  const shown = t.shown();
  assert.match(shown, 'review');
  assert.match(shown, 'attempt 2 of 4');
  assert.match(shown, 'Review src/app.ts and list every issue.');
  assert.match(shown, 'The review file is written');
  assert.match(shown, '/issues_count: must be integer');
  assert.match(shown, JSON.stringify(request().inputSchema, null, 2));
  await agent.close!();
});

test('an answer may span several lines', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{\n  "issues_count": 2,\n  "issues": ["a", "b"]\n}\n');
  assert.equal(await answer, { issues_count: 2, issues: ['a', 'b'] });
  await agent.close!();
});

test('a line of bad JSON re-prompts, and the next good line is the answer', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{issues_count: 1}\n{"issues_count": 1}\n');
  assert.equal(await answer, { issues_count: 1 });
  assert.match(t.shown(), 'not valid JSON');
  await agent.close!();
});

test('a typo is said on one line, without the typed text quoted back; a partial answer and then closed input is "input closed", never "type the answer again"', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('oops\n{"issues_count": 1}\n');
  assert.equal(await answer, { issues_count: 1 });
  const said = t.shown().split('\n').find((l) => l.includes('not valid JSON')) ?? '';
  assert.match(said, /that is not valid JSON \(Unexpected token 'o'\); type the answer again\.$/);
  await agent.close!();

  const u = terminal();
  const closed = createInteractiveAgent(u);
  const pending = rejection(closed.answer(request(), opts()));
  u.input.end('{"issues_count":');
  const e = await pending;
  assert.is(e.code, 'E_AGENT_CRASHED');
  assert.not.match(u.shown(), 'type the answer again');
});

test('a line that leaves a string open is refused at once (no later line can close it): the next line, a good answer, is taken', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{"note": "forgot the quote\n{"issues_count": 1}\n');
  assert.equal(await answer, { issues_count: 1 });
  assert.match(t.shown(), /that is not valid JSON \(Bad control character in string literal[^)]*\); type the answer again\./);
  await agent.close!();
});

test('piped input (not a terminal, so nothing is echoed) is written after the prompt, so what follows starts on a line of its own', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{"issues_count":\n1}\n');
  assert.equal(await answer, { issues_count: 1 });
  assert.match(t.shown(), '> {"issues_count":\n… 1}\n');
  await agent.close!();
  // A terminal echoes by itself: nothing is written twice.
  const tty = terminal();
  Object.assign(tty.input, { isTTY: true });
  const typed = createInteractiveAgent(tty);
  const pending = typed.answer(request(), opts());
  tty.input.write('{"issues_count": 2}\n');
  assert.equal(await pending, { issues_count: 2 });
  assert.not.match(tty.shown(), '{"issues_count": 2}');
  await typed.close!();
});

test('a line typed in another encoding than UTF-8 is refused and re-prompts (never taken with U+FFFD in it), even split inside a character; UTF-8 split across chunks is read whole', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request({ inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] } }), opts());
  t.input.write(Buffer.from('{"note": "caf\xe9"}\n', 'latin1'));
  const euro = Buffer.from('{"note": "€"}\n');
  t.input.write(euro.subarray(0, 11));
  t.input.write(euro.subarray(11));
  assert.equal(await answer, { note: '€' });
  assert.match(t.shown(), 'that line is not UTF-8 text');
  await agent.close!();
});

test('r78: a typed integer a number cannot hold exactly is asked again, never stored as another number', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{"issues_count": 12345678901234567891}\n');
  t.input.write('{"issues_count": 3}\n');
  assert.equal(await answer, { issues_count: 3 });
  assert.match(t.shown(), 'the integer 12345678901234567891 is beyond the integers a JSON number keeps exactly');
  await agent.close!();
});

test('a line over the limit (a paste gone wrong) is dropped and re-prompts, however the input is chunked; the prompt keeps working', async () => {
  for (const chunks of [1, 17]) {
    const t = terminal();
    const agent = createInteractiveAgent(t);
    const answer = agent.answer(request(), opts());
    const big = `{"x": "${'y'.repeat(17 * 1024 * 1024)}"}\n`;
    const size = Math.ceil(big.length / chunks);
    for (let i = 0; i < big.length; i += size) t.input.write(big.slice(i, i + size));
    t.input.write('{"issues_count": 2}\n');
    assert.equal(await answer, { issues_count: 2 }, `${chunks} chunk(s)`);
    assert.match(t.shown(), /a line longer than 16777216 bytes was dropped/);
    await agent.close!();
  }
});

test('an empty line submits an incomplete answer, which re-prompts', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('{"issues_count": 1\n\n{"issues_count": 3}\n');
  assert.equal(await answer, { issues_count: 3 });
  await agent.close!();
});

test('JSON that is not an object re-prompts', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('[1, 2]\n{"issues_count": 0}\n');
  assert.equal(await answer, { issues_count: 0 });
  assert.match(t.shown(), 'must be a JSON object');
  await agent.close!();
});

test('`$error: why` declares failure as {"$error": why}', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.write('$error: the repository is gone\n');
  assert.equal(await answer, { $error: 'the repository is gone' });
  await agent.close!();
});

test('answers to successive requests come from successive input', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  t.input.write('{"n": 1}\n{"n": 2}\n');
  assert.equal(await agent.answer(request(), opts()), { n: 1 });
  assert.equal(await agent.answer(request({ seq: 5 }), opts()), { n: 2 });
  await agent.close!();
});

test('closed input is E_AGENT_CRASHED ("input closed") with the node id, and its fix resumes this run (never "run it again", which would start a new one)', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(request(), opts());
  t.input.end();
  const err = await rejection(answer);
  assert.is(err.code, 'E_AGENT_CRASHED');
  assert.match(err.message, 'input closed');
  assert.is(err.nodeId, 'review');
  assert.match(err.fix ?? '', 'countersign run --resume run-1 --agent interactive');
  assert.match(err.fix ?? '', 'countersign step run-1 --seq 4');
  // The prompt's line is ended: the stop that follows starts on a line of its own.
  assert.ok(t.shown().endsWith('> \n'), JSON.stringify(t.shown().slice(-20)));
});

test('nobody answering within timeoutMs is E_AGENT_TIMEOUT', async () => {
  const t = terminal();
  const agent = createInteractiveAgent(t);
  const err = await rejection(agent.answer(request(), opts(100)));
  assert.is(err.code, 'E_AGENT_TIMEOUT');
  assert.is(err.nodeId, 'review');
  await agent.close!();
});

test.run();
