/**
 * The validator rejects cycles of transient nodes; the compiled machine
 * still guards against them (xstate maxIterations), so a graph that slipped
 * past validation fails the run with E_RUNAWAY instead of hanging.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileWorkflow } from '../../engine/compile/machine.js';
import { firstStep } from '../../engine/run/step.js';
import type { Workflow } from '../../engine/format/model.js';
import type { RunRecord } from '../../engine/store/store.js';

const Runaway = suite('runaway guard');

Runaway('a transient cycle that bypassed validation fails with E_RUNAWAY and a run.failed event', () => {
  const wf: Workflow = {
    metadata: { name: 'spin', version: '1.0.0', description: 'condition ping-pong' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'condition', id: 'a', condition: { operator: 'eq', left: 1, right: 1 }, connections: { true: 'b', false: 'b' } },
      { type: 'condition', id: 'b', condition: { operator: 'eq', left: 1, right: 1 }, connections: { true: 'a', false: 'a' } },
      { type: 'end', id: 'done' },
    ],
  };
  const compiled = compileWorkflow(wf, 'spin-hash');
  const base: RunRecord = {
    runId: 'r', workflow: 'spin', workflowHash: 'spin-hash', workspace: '/', status: 'waiting', snapshot: {}, seq: 0,
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  };
  const meta = { executionId: 'r', workflowId: 'spin', userId: 'local' };
  const settled = firstStep(compiled, base, { context: compiled.initialContext(meta, {}) }, new Date('2026-01-01T00:00:01Z'), { workspace: '/', skip: [] });
  assert.is(settled.record.status, 'failed');
  assert.is(settled.record.error?.code, 'E_RUNAWAY');
  assert.equal(settled.events.map((e) => e.type), ['run.failed']);
});

Runaway.run();
