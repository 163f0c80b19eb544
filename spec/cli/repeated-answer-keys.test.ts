/**
 * An answer or input that repeats a key in one object (`{"n": 1, "n": 2}`)
 * is never cut to the last value without a word, as JSON.parse would: an
 * agent's (exec, jsonl) is E_AGENT_OUTPUT and the run stops, still waiting;
 * `step --response` and `--input` are E_INPUT at the repeat's line:col; the
 * interactive prompt asks again. Workflow files and scripts refuse the same
 * with E_PARSE.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers/cli.js';
import { createInteractiveAgent } from '../../engine/hosts/interactive.js';

const Repeated = suite('answers and inputs with a repeated key');

/** `ask` takes n, then `ask2` takes v. */
function workflow(): string {
  const file = join(tempDir('countersign-repeat-'), 'wf.json');
  const directive = (id: string, field: string, type: string, next: string) => ({
    type: 'agent-directive', id, directive: `give ${field}`, completionCondition: 'given',
    inputSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
    connections: { success: next },
  });
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'repeat', version: '1.0.0', description: 'two answers' },
    variableRegistry: { topic: { type: 'string', description: 'a topic', default: 't' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      directive('ask', 'n', 'integer', 'ask2'),
      directive('ask2', 'v', 'string', 'end'),
      { type: 'end', id: 'end', finalOutput: ['ask.n', 'ask2.v'] },
    ],
  }));
  return file;
}

/** A node script that answers `ask` with `first` and anything else with {"v": "a"}, one answer per request. */
function agentScript(first: string, lines: boolean): string {
  const file = join(tempDir('countersign-repeat-agent-'), 'agent.mjs');
  const answer = `(r) => r.nodeId === 'ask' ? ${JSON.stringify(first)} : '{"v": "a"}'`;
  writeFileSync(file, lines
    ? `import { createInterface } from 'node:readline';\nconst answer = ${answer};\ncreateInterface({ input: process.stdin }).on('line', (l) => process.stdout.write(answer(JSON.parse(l)) + '\\n'));\n`
    : `let s = '';\nconst answer = ${answer};\nprocess.stdin.on('data', (d) => (s += d)).on('end', () => process.stdout.write(answer(JSON.parse(s))));\n`);
  return file;
}

Repeated('an exec or jsonl agent answering {"n":1,"n":2} is E_AGENT_OUTPUT naming the key and both places; the run stops at the node, still waiting', async () => {
  const wf = workflow();
  for (const adapter of ['exec', 'jsonl']) {
    const store = tempDir();
    const r = await cli(['run', wf, '--agent', `${adapter}:node ${agentScript('{"n":1,"n":2}', adapter === 'jsonl')}`, '--json'], { store });
    assert.is(r.code, 3, `${adapter}: ${r.stderr}`);
    assert.is(r.json.error.code, 'E_AGENT_OUTPUT', adapter);
    assert.match(r.json.error.message, 'for node "ask" repeats the key "n" in one object (column 8; the first at column 2)', adapter);
    assert.match(r.json.error.message, 'JSON would keep only the last value', adapter);
    assert.match(r.json.error.fix, 'write each key once', adapter);
    assert.equal([r.json.status, r.json.steps], ['waiting', 0], adapter);
    const status = await cli(['status', r.json.runId, '--json'], { store });
    assert.equal([status.json.status, status.json.pending.nodeId], ['waiting', 'ask'], adapter);
    // A key repeated in a nested object counts too; the same key in two objects does not.
    const nested = await cli(['run', wf, '--agent', `${adapter}:node ${agentScript('{"n":1,"x":{"a":1,"a":2}}', adapter === 'jsonl')}`, '--json'], { store: tempDir() });
    assert.is(nested.json.error.code, 'E_AGENT_OUTPUT', adapter);
    assert.match(nested.json.error.message, 'repeats the key "a" in one object', adapter);
    const apart = await cli(['run', wf, '--agent', `${adapter}:node ${agentScript('{"n":1,"$seq":1,"x":{"n":2}}', adapter === 'jsonl')}`, '--json'], { store: tempDir() });
    assert.not.match(apart.json.error?.message ?? '', 'repeats the key', adapter);
  }
});

Repeated('step --response (inline, @file) and --input with a repeated key are E_INPUT at the repeat\'s line:col; nothing is stored', async () => {
  const wf = workflow();
  const store = tempDir();
  const started = await cli(['start', wf, '--json'], { store });
  const runId = started.json.runId as string;
  const inline = await cli(['step', runId, '--seq', '1', '--response', '{"n":1, "n":2}', '--json'], { store });
  assert.is(inline.code, 2, inline.stderr);
  assert.equal([inline.json.error.code, inline.json.error.line, inline.json.error.col], ['E_INPUT', 1, 9]);
  assert.match(inline.json.error.message, 'the --response argument repeats the key "n" in one object (line 1, column 9; the first at line 1, column 2)');
  assert.match(inline.json.error.fix, 'write each key once');
  const file = join(tempDir(), 'answer.json');
  writeFileSync(file, '{\n  "n": 1,\n  "n": 2\n}\n');
  const fromFile = await cli(['step', runId, '--seq', '1', '--response', `@${file}`, '--json'], { store });
  assert.equal([fromFile.json.error.code, fromFile.json.error.file, fromFile.json.error.line, fromFile.json.error.col], ['E_INPUT', file, 3, 3]);
  assert.match(fromFile.stderr, `countersign: E_INPUT: ${file}:3:3: the --response file repeats the key "n"`);
  const status = await cli(['status', runId, '--json'], { store });
  assert.equal([status.json.status, status.json.seq, status.json.pending.nodeId], ['waiting', 1, 'ask']);
  const input = await cli(['start', wf, '--input', '{"topic":"a","topic":"b"}', '--json'], { store });
  assert.equal([input.code, input.json.error.code], [2, 'E_INPUT']);
  assert.match(input.json.error.message, 'the --input argument repeats the key "topic"');
});

Repeated('the interactive prompt asks again for an answer with a repeated key, saying which', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += String(d)));
  const agent = createInteractiveAgent({ input, output });
  const request = { kind: 'directive', nodeId: 'ask', directive: 'give n', completionCondition: 'given', inputSchema: { type: 'object' }, attempt: 1, maxRetries: 3, errors: [], runId: 'r', seq: 1 } as const;
  const answer = agent.answer(request as never, { signal: new AbortController().signal, timeoutMs: 5000 });
  input.write('{"n": 1, "n": 2}\n');
  await new Promise((r) => setTimeout(r, 50));
  input.write('{"n": 2}\n');
  assert.equal(await answer, { n: 2 });
  assert.match(shown, 'repeats the key "n"');
  await agent.close!();
});

Repeated.run();
