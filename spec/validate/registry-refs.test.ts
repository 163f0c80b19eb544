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

Refs.run();
