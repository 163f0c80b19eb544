/**
 * A run stored before validate refused looping `$ref`s may still hold such a
 * schema. An answer to it cannot be checked (checking recurses forever): it
 * is rejected (E_ANSWER_INVALID, an attempt spent) with an error saying the
 * schema is at fault, never a crash of the step; and the `validate` that
 * error points to does report the `$ref`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore } from '../../engine/index.js';
import { validateWorkflow } from '../../engine/validate/index.js';
import { hashWorkflow } from '../../engine/run/hash.js';

const Looping = suite('an answer to a stored run whose schema loops');

const workflow = {
  metadata: { name: 'loop', version: '1.0.0', description: 'd' },
  nodes: [
    { type: 'start', id: 'start', connections: { default: 'ask' } },
    {
      type: 'agent-directive', id: 'ask', directive: 'd', completionCondition: 'c', maxRetries: 1,
      inputSchema: { type: 'object', properties: { a: { type: 'integer' } } as Record<string, unknown>, allOf: undefined as unknown },
      connections: { success: 'done' },
    },
    { type: 'end', id: 'done' },
  ],
};

async function answerOnLoopingRun(loop: (inputSchema: any) => void, pointer: string) {
  const store = createMemoryStore();
  const valid = structuredClone(workflow);
  delete (valid.nodes[1] as any).inputSchema.allOf;
  // The run as an older engine stored it: its workflow copy has a looping schema validate now refuses.
  const looping = structuredClone(valid) as any;
  loop(looping.nodes[1].inputSchema);
  const loopHash = hashWorkflow(looping);
  store.putWorkflow(loopHash, looping);
  const older = new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'get') return (runId: string) => { const rec = target.get(runId); return rec && { ...rec, workflowHash: loopHash }; };
      if (key === 'update') {
        return (runId: string, mutate: (r: any) => any) => target.update(runId, (rec: any) => {
          const out = mutate(rec && { ...rec, workflowHash: loopHash });
          // Written back under the hash the run was created with, as the store requires.
          return out?.record ? { ...out, record: { ...out.record, workflowHash: rec.workflowHash } } : out;
        });
      }
      return Reflect.get(target, key, receiver);
    },
  });
  const started = await createEngine({ store }).start(valid as never);
  const engine = createEngine({ store: older });
  const answered = await engine.submit(started.runId, { a: 1 }, { seq: started.seq });
  assert.is(answered.status, 'waiting', JSON.stringify(answered));
  if (answered.status !== 'waiting') return;
  assert.is(answered.rejected?.code, 'E_ANSWER_INVALID', JSON.stringify(answered));
  const errors = (answered.pending.errors ?? []).join('\n');
  assert.ok(errors.includes('cannot be checked') && errors.includes('"$ref"') && errors.includes('countersign validate'), errors);
  assert.is(answered.pending.attempt, 2);
  const report = validateWorkflow(looping);
  assert.ok(report.errors.some((e) => e.code === 'E_INPUT_SCHEMA' && e.pointer === pointer), JSON.stringify(report.errors));
}

Looping('the answer is rejected as uncheckable, naming the looping $ref and validate, which reports it', async () => {
  await answerOnLoopingRun((schema) => (schema.allOf = [{ $ref: '#/' }]), '/nodes/1/inputSchema/allOf/0/$ref');
});

Looping('r93 c1: a loop ajv overflows on while compiling ({"x": {"$ref": "#/properties/x"}}) is rejected the same way, never a crashed step (E_INTERNAL)', async () => {
  await answerOnLoopingRun((schema) => (schema.properties.x = { $ref: '#/properties/x' }), '/nodes/1/inputSchema/properties/x/$ref');
});

Looping.run();
