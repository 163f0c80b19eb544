/**
 * A workflow object a host passes in stays the host's: validating or
 * starting it freezes nothing in it, and an edit made afterwards is seen
 * by the next validation (runs keep their own copy).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, validateWorkflow, type Workflow } from '../../engine/index.js';

const Caller = suite("the caller's workflow object");

function workflow(): Workflow {
  return {
    metadata: { name: 'caller', version: '1.0.0', description: 'owned by the caller' },
    variableRegistry: { tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, description: 'tags' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      {
        type: 'agent-directive',
        id: 'ask',
        directive: 'Answer.',
        completionCondition: 'done',
        inputSchema: {
          type: 'object',
          properties: { k: { type: 'string', enum: ['x', 'y'] } },
          required: ['k'],
          allOf: [{ required: ['k'] }],
          globalInputs: ['tags'],
        },
        connections: { success: 'done' },
      },
      { type: 'end', id: 'done' },
    ],
  };
}

const schemaOf = (wf: Workflow) => (wf.nodes[1] as { inputSchema: Record<string, any> }).inputSchema;

Caller('validating and starting freeze nothing the caller passed (required, enum, allOf, registry entries stay editable)', async () => {
  const wf = workflow();
  assert.ok(validateWorkflow(wf).ok);
  await createEngine({ store: createMemoryStore() }).start(wf);
  const s = schemaOf(wf);
  for (const [name, value] of [['required', s.required], ['allOf', s.allOf], ['properties.k.enum', s.properties.k.enum], ['variableRegistry.tags.items.enum', (wf.variableRegistry!.tags as any).items.enum]] as const) {
    assert.not.ok(Object.isFrozen(value), `${name} was frozen`);
  }
  s.required.push('other');
  assert.equal(s.required, ['k', 'other']);
});

Caller('an edit after a validation is seen by the next one: a schema made invalid is reported, not served from a cache', () => {
  const wf = workflow();
  assert.ok(validateWorkflow(wf).ok);
  schemaOf(wf).properties.k = { type: 'nope' };
  const again = validateWorkflow(wf);
  assert.not.ok(again.ok);
  assert.ok(again.errors.some((e) => e.code === 'E_INPUT_SCHEMA' && e.pointer.startsWith('/nodes/1/inputSchema/properties/k')), JSON.stringify(again.errors));
});

Caller('a run keeps its own copy: editing the caller object after start changes nothing in the run', async () => {
  const wf = workflow();
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(wf);
  schemaOf(wf).properties.k.enum.push('z');
  const r = await engine.submit(s.runId, { k: 'z', tags: [] });
  assert.is(r.status === 'waiting' && r.rejected?.code, 'E_ANSWER_INVALID');
  assert.is((await engine.submit(s.runId, { k: 'x', tags: ['a'] })).status, 'completed');
});

Caller('a caller that froze only the top of its objects still gets fresh readings and keeps its nested parts editable', () => {
  const wf = workflow();
  Object.freeze(schemaOf(wf));
  Object.freeze(wf);
  assert.ok(validateWorkflow(wf).ok);
  const required = schemaOf(wf).required as string[];
  assert.not.ok(Object.isFrozen(required), 'required was frozen');
  required.push('other');
  schemaOf(wf).properties.k.type = 'nope';
  const again = validateWorkflow(wf);
  assert.ok(again.errors.some((e) => e.code === 'E_INPUT_SCHEMA'), JSON.stringify(again.errors));
});

Caller('a registry entry edited in place after a validation is read again: a typo added to it is reported at the entry', async () => {
  const wf = workflow();
  assert.ok(validateWorkflow(wf).ok);
  (wf.variableRegistry!.tags as Record<string, unknown>).minimun = 1;
  const again = validateWorkflow(wf);
  assert.not.ok(again.ok);
  assert.ok(again.errors.some((e) => e.code === 'E_VARIABLE_SCHEMA' && e.pointer.startsWith('/variableRegistry/tags')), JSON.stringify(again.errors));
  // And a start refuses it with the same finding, not an uncoded error from the schema compiler.
  try {
    await createEngine({ store: createMemoryStore() }).start(wf);
    assert.unreachable('started an invalid workflow');
  } catch (e) {
    assert.is((e as { code?: string }).code, 'E_WORKFLOW_INVALID');
  }
});

Caller.run();
