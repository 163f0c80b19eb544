/**
 * A registry entry is a JSON Schema of its own: a `$ref` in it to its own
 * `definitions` (or to itself, `#`) keeps pointing there when globalInputs
 * inlines the entry into a node's effective inputSchema (and into the start
 * input's schema). An entry valid alone stays valid, inlined anywhere.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore } from '../../engine/index.js';
import { validateWorkflow } from '../../engine/validate/index.js';

const Refs = suite('registry entries with their own $ref, inlined');

/** `v` refers to its own definitions; `a` writes it through globalInputs, its own property for it narrowing it (or not). */
function workflow(own?: Record<string, unknown>): Record<string, any> {
  return {
    metadata: { name: 'refs', version: '1.0.0', description: 'registry $ref' },
    variableRegistry: {
      v: { type: 'object', description: 'v', definitions: { x: { type: 'string' } }, properties: { s: { $ref: '#/definitions/x' } }, default: {} },
      tree: { type: 'object', description: 'a tree', properties: { kids: { type: 'array', items: { $ref: '#' } } }, default: {} },
    },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      {
        type: 'agent-directive', id: 'a', directive: 'give v', completionCondition: 'given',
        inputSchema: { type: 'object', globalInputs: ['v', 'tree'], ...(own ? { properties: { v: own } } : {}) },
        connections: { success: 'end' },
      },
      { type: 'end', id: 'end', finalOutput: ['v', 'tree'] },
    ],
  };
}

Refs('validate takes an entry whose $ref points into its own definitions, inlined as it is or narrowed by the node', () => {
  for (const own of [undefined, { type: 'object', required: ['s'] }]) {
    const report = validateWorkflow(workflow(own));
    assert.equal(report.errors.map((e) => `${e.code} ${e.pointer} ${e.message}`), [], JSON.stringify(own));
  }
});

Refs('a run judges an answer by the entry\'s own definitions: a string s is taken, a number refused at /v/s; a recursive entry (#) checks every level', async () => {
  for (const own of [undefined, { type: 'object', required: ['s'] }]) {
    const engine = createEngine({ store: createMemoryStore() });
    const started = await engine.start(workflow(own) as never);
    assert.is(started.status, 'waiting');
    const runId = started.runId;
    const bad = await engine.submit(runId, { v: { s: 5 }, tree: { kids: [{ kids: [{ kids: 'no' }] }] } }, { seq: started.seq });
    assert.is(bad.status, 'waiting', JSON.stringify(own));
    const errors = bad.status === 'waiting' ? (bad.pending.errors ?? []) : [];
    assert.ok(errors.some((e) => e.startsWith('/v/s: must be string')), errors.join('\n'));
    assert.ok(errors.some((e) => e.startsWith('/tree/kids/0/kids/0/kids: must be array')), errors.join('\n'));
    const ok = await engine.submit(runId, { v: { s: 'x' }, tree: { kids: [{ kids: [] }] } }, { seq: bad.seq });
    assert.is(ok.status, 'completed', JSON.stringify(ok));
  }
});

Refs('a start input is judged by the entry\'s own definitions too', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const refused = await engine.start(workflow() as never, { input: { v: { s: 5 } } }).then(() => undefined, (e: { code?: string; message?: string }) => e);
  assert.is(refused?.code, 'E_INPUT');
  assert.match(refused?.message ?? '', '/v/s: must be string');
  const taken = await engine.start(workflow() as never, { input: { v: { s: 'x' } } });
  assert.is(taken.status, 'waiting');
});

/** `n` is capped by a `$ref` to its own definitions; an expression adds 1 to it, after an agent step or straight from start. */
function capped(afterAgent: boolean): Record<string, any> {
  return {
    metadata: { name: 'capped', version: '1.0.0', description: 'registry $ref read by an expression' },
    variableRegistry: {
      n: { type: 'integer', description: 'n', default: 1, definitions: { small: { maximum: 3 } }, allOf: [{ $ref: '#/definitions/small' }] },
    },
    nodes: [
      { type: 'start', id: 'start', connections: { default: afterAgent ? 'a' : 'x' } },
      ...(afterAgent ? [{ type: 'agent-directive', id: 'a', directive: 'go', completionCondition: 'done', connections: { success: 'x' } }] : []),
      { type: 'expression', id: 'x', expressions: ['n = n + 1'], connections: { default: 'end' } },
      { type: 'end', id: 'end', finalOutput: ['n'] },
    ],
  };
}

Refs('an expression assigning a global judges the value by the entry\'s own definitions: 2 is kept, 4 fails the expression (E_EXPRESSION naming the cap), never an internal error', async () => {
  assert.equal(validateWorkflow(capped(true)).errors, []);
  const engine = createEngine({ store: createMemoryStore() });
  const waiting = await engine.start(capped(true) as never);
  const done = await engine.submit(waiting.runId, {}, { seq: waiting.seq });
  assert.equal(done.status === 'completed' && done.output, { n: 2 }, JSON.stringify(done));
  const direct = await engine.start(capped(false) as never, { input: { n: 1 } });
  assert.equal(direct.status === 'completed' && direct.output, { n: 2 }, JSON.stringify(direct));
  const over = await engine.start(capped(false) as never, { input: { n: 3 } });
  assert.is(over.status === 'failed' && over.error.code, 'E_EXPRESSION', JSON.stringify(over));
  assert.match(over.status === 'failed' ? over.error.message : '', 'gives n the value 4, which its variableRegistry entry does not allow ((root): must be <= 3)');
});

Refs('a default or initialData value that breaks the entry\'s $ref\'d constraint is E_VARIABLE_VALUE at that value, as a start input with it would be refused', () => {
  const wf = capped(false);
  wf.variableRegistry.n.default = 7;
  wf.nodes[0].initialData = { variables: { n: { description: 'n', value: 9 } } };
  const found = validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer} ${e.message}`);
  assert.ok(found.some((f) => f.startsWith('E_VARIABLE_VALUE /variableRegistry/n/default this default') && f.includes('must be <= 3')), found.join('\n'));
  assert.ok(found.some((f) => f.startsWith('E_VARIABLE_VALUE /nodes/0/initialData/variables/n/value this initialData value') && f.includes('must be <= 3')), found.join('\n'));
});

/** Two entries each name a definition with the same `$id` anchor (`#item`), for different types. */
function anchored(together: boolean): Record<string, any> {
  const entry = (type: string) => ({ type: 'object', description: type, definitions: { i: { $id: '#item', type } }, properties: { v: { $ref: '#item' } } });
  const node = (id: string, globals: string[], next: string) => ({
    type: 'agent-directive', id, directive: 'go', completionCondition: 'done', inputSchema: { properties: {}, globalInputs: globals }, connections: { success: next },
  });
  return {
    metadata: { name: 'anchors', version: '1.0.0', description: 'the same $id anchor in two entries' },
    variableRegistry: { a: entry('integer'), b: entry('string') },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'n' } },
      ...(together ? [node('n', ['a', 'b'], 'end')] : [node('n', ['a'], 'm'), node('m', ['b'], 'end')]),
      { type: 'end', id: 'end', finalOutput: ['a', 'b'] },
    ],
  };
}

Refs('two entries may each use the same $id anchor: each means its own, in the start input and in answers, inlined apart or together', async () => {
  for (const together of [false, true]) {
    assert.equal(validateWorkflow(anchored(together)).errors.map((e) => `${e.code} ${e.pointer} ${e.message}`), [], `together: ${together}`);
    const engine = createEngine({ store: createMemoryStore() });
    const refused = await engine.start(anchored(together) as never, { input: { a: { v: 'x' } } }).then(() => undefined, (e: { code?: string; message?: string }) => e);
    assert.is(refused?.code, 'E_INPUT');
    assert.match(refused?.message ?? '', '/a/v: must be integer');
    const started = await engine.start(anchored(together) as never, { input: { a: { v: 1 }, b: { v: 's' } } });
    assert.is(started.status, 'waiting', JSON.stringify(started));
    const answer = together ? { a: { v: 's' }, b: { v: 2 } } : { a: { v: 's' } };
    const bad = await engine.submit(started.runId, answer, { seq: started.seq });
    const errors = bad.status === 'waiting' ? (bad.pending.errors ?? []) : [];
    assert.ok(errors.includes('/a/v: must be integer'), errors.join('\n'));
    if (together) assert.ok(errors.includes('/b/v: must be string'), errors.join('\n'));
    let state = await engine.submit(started.runId, together ? { a: { v: 2 }, b: { v: 't' } } : { a: { v: 2 } }, { seq: bad.seq });
    if (!together) state = await engine.submit(started.runId, { b: { v: 't' } }, { seq: state.seq });
    assert.equal(state.status === 'completed' && state.output, { a: { v: 2 }, b: { v: 't' } }, JSON.stringify(state));
  }
});

Refs('a URI $id names one schema: two entries giving it to different schemas run apart, and a node inlining both is E_INPUT_SCHEMA naming the $id, never a crash', async () => {
  const uri = (wf: Record<string, any>) => {
    for (const name of ['a', 'b']) {
      wf.variableRegistry[name].definitions.i.$id = 'http://example.test/item';
      wf.variableRegistry[name].properties.v.$ref = 'http://example.test/item';
    }
    return wf;
  };
  assert.equal(validateWorkflow(uri(anchored(false))).errors, []);
  const engine = createEngine({ store: createMemoryStore() });
  const refused = await engine.start(uri(anchored(false)) as never, { input: { b: { v: 1 } } }).then(() => undefined, (e: { code?: string; message?: string }) => e);
  assert.equal([refused?.code, refused?.message], ['E_INPUT', 'the start input does not fit the variableRegistry: /b/v: must be string']);
  const found = validateWorkflow(uri(anchored(true))).errors.map((e) => `${e.code} ${e.pointer} ${e.message}`);
  // Said at the globalInputs item whose entry repeats the $id: the inlined entry is nowhere in the node.
  assert.equal(found, ['E_INPUT_SCHEMA /nodes/1/inputSchema/globalInputs/1 the inputSchema does not compile: "$id" "http://example.test/item" is given to more than one schema (those of the registry entries globalInputs inlines count too); give each schema its own "$id", or refer to a definition by its pointer ("#/definitions/name") instead']);
});

Refs.run();
