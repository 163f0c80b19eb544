/**
 * `"$ref": "#/"` and `"$ref": ""` both mean the schema's root to ajv, as
 * `"#"` does. Written inside that root while checking the same value
 * (`allOf`), they loop forever: validate reports them at the `$ref`, quoting
 * what the user wrote, and such a workflow never starts. A registry entry
 * recursing through `"#/"` (through `items`: a smaller value each time) is
 * fine, as it is with `"#"`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore } from '../../engine/index.js';
import { validateWorkflow } from '../../engine/validate/index.js';

const RootRefs = suite('$ref "#/" and "" name the root, as "#" does');

function looping(ref: string): Record<string, any> {
  return {
    metadata: { name: 'loop', version: '1.0.0', description: 'd' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      {
        type: 'agent-directive', id: 'ask', directive: 'd', completionCondition: 'c',
        inputSchema: { type: 'object', properties: { a: { type: 'integer' } }, allOf: [{ $ref: ref }] },
        connections: { success: 'done' },
      },
      { type: 'end', id: 'done' },
    ],
  };
}

RootRefs('validate reports a loop through "#/" or "" at that $ref, quoting it', () => {
  for (const ref of ['#/', '', '#']) {
    const report = validateWorkflow(looping(ref));
    assert.is(report.ok, false, ref);
    const error = report.errors.find((e) => e.code === 'E_INPUT_SCHEMA');
    assert.ok(error, `${JSON.stringify(ref)}: ${report.errors.map((e) => `${e.code} ${e.message}`).join(' | ')}`);
    assert.is(error!.pointer, '/nodes/1/inputSchema/allOf/0/$ref');
    assert.ok(error!.message.includes(`"$ref" ${JSON.stringify(ref)} leads back`), error!.message);
  }
});

RootRefs('a workflow looping through "#/" or "" does not start', async () => {
  for (const ref of ['#/', '']) {
    const engine = createEngine({ store: createMemoryStore() });
    const refused = await engine.start(looping(ref) as never).then(() => undefined, (e: { code?: string }) => e);
    assert.is(refused?.code, 'E_WORKFLOW_INVALID', ref);
  }
});

function registryTree(ref: string): Record<string, any> {
  return {
    metadata: { name: 'regrec', version: '1.0.0', description: 'd' },
    variableRegistry: { tree: { type: 'object', description: 'a tree', properties: { kids: { type: 'array', items: { $ref: ref } } } } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      {
        type: 'agent-directive', id: 'ask', directive: 'd', completionCondition: 'c',
        inputSchema: { type: 'object', properties: {}, globalInputs: ['tree'] },
        connections: { success: 'done' },
      },
      { type: 'end', id: 'done', finalOutput: ['tree'] },
    ],
  };
}

RootRefs('a registry entry recursing through "#/" is the entry itself, as "#" is: valid, and every level is checked', async () => {
  for (const ref of ['#/', '#']) {
    const report = validateWorkflow(registryTree(ref));
    assert.equal(report.errors.map((e) => `${e.code} ${e.pointer} ${e.message}`), [], ref);
    const engine = createEngine({ store: createMemoryStore() });
    const started = await engine.start(registryTree(ref) as never);
    const bad = await engine.submit(started.runId, { tree: { kids: [{ kids: 5 }] } }, { seq: started.seq });
    const errors = bad.status === 'waiting' ? (bad.pending.errors ?? []) : [];
    assert.ok(errors.some((e) => e.startsWith('/tree/kids/0/kids: must be array')), `${ref}: ${JSON.stringify(bad)}`);
    const ok = await engine.submit(started.runId, { tree: { kids: [{ kids: [] }] } }, { seq: bad.seq });
    assert.is(ok.status, 'completed', ref);
  }
});

RootRefs('r92 b1: a definition nothing refers to is never compiled, so its own $ref loop is no fault (as ajv has it); referred to, the loop is one finding at its $ref', () => {
  const wf = looping('#') as any;
  const node = wf.nodes.find((n: any) => n.inputSchema);
  node.inputSchema = { type: 'object', properties: { a: { type: 'string' } }, definitions: { d: { $ref: '#/definitions/d' } } };
  assert.equal(validateWorkflow(wf).errors.map((e) => e.pointer), []);
  node.inputSchema.properties.b = { $ref: '#/definitions/d' };
  const at = validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer}`);
  assert.equal(at.length, 1, at.join('\n'));
  assert.match(at[0]!, /E_INPUT_SCHEMA .*\/definitions\/d\/\$ref$/);
});

RootRefs.run();
