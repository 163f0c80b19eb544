/**
 * The validator rejects cycles of transient nodes; the compiled machine
 * still guards against them (xstate maxIterations), so a graph that slipped
 * past validation fails the run with E_RUNAWAY instead of hanging. A review
 * whose entry keeps routing back to it (a valid graph: the loop depends on
 * the run's data) fails the same way, naming the node and why.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileWorkflow } from '../../engine/compile/machine.js';
import { firstStep } from '../../engine/run/step.js';
import type { Workflow } from '../../engine/format/model.js';
import type { RunRecord } from '../../engine/store/store.js';
import { createEngine, createMemoryStore, createSqliteStore, defineTool, validateWorkflow } from '../../engine/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  assert.is(settled.record.error?.nodeId, 'start', 'the run\'s first step began at its start node');
  assert.is(settled.record.error?.message, 'transient nodes kept transitioning without reaching a waiting or end node, from node "start"');
  assert.ok(Object.isFrozen(settled.record.error));
});

Runaway('a review whose entry keeps routing back to itself fails the run with E_RUNAWAY naming it and the entry\'s cause; the journal keeps the accepted answer and its routes; the failure is read-only on both stores', async () => {
  const wf = {
    metadata: { name: 'entry-loop', version: '1.0.0', description: 'a decision review whose error route is itself' },
    variableRegistry: { persona: { type: 'object', description: 'the reviewer persona' }, proposal: { type: 'object', description: 'the call' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Go.', completionCondition: 'done', connections: { success: 'dr' } },
      { type: 'delegate-review', id: 'dr', contract: 'decision', persona: { contextPath: 'persona' }, proposal: { contextPath: 'proposal' }, connections: { success: 'done', error: 'dr' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  assert.ok(validateWorkflow(wf).ok, 'a valid graph: whether it loops depends on the data');
  for (const store of [createMemoryStore(), createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-runaway-')))]) {
    const engine = createEngine({ store });
    const started = await engine.start(wf);
    const failed = await engine.submit(started.runId, {});
    if (failed.status !== 'failed') throw new Error(JSON.stringify(failed));
    assert.is(failed.error.code, 'E_RUNAWAY');
    assert.is(failed.error.nodeId, 'dr');
    assert.match(failed.error.message, /^node "dr" kept routing on entry without the run resting anywhere \(1000 entries in one step\); its last entry: E_DECISION_INPUT: decision review "dr" cannot be issued: .*\(route "error"\)$/);
    assert.throws(() => ((failed.error as { code: string }).code = 'EDITED'), TypeError);
    assert.is((await engine.status(started.runId)).status === 'failed' && ((await engine.status(started.runId)) as { error: { code: string } }).error.code, 'E_RUNAWAY');
    const journal = (await engine.trace(started.runId)).events.map((e) => [e.type, e.nodeId ?? null]);
    // The refused entry is journaled (review.refused, r91) before the route it took.
    assert.equal(journal.slice(-6), [['directive.issued', 'ask'], ['answer.accepted', 'ask'], ['route', 'ask'], ['review.refused', 'dr'], ['route', 'dr'], ['run.failed', 'dr']]);
    store.close();
  }
});

/** ask → decision review `dr` (nothing to decide on: its entry takes `error`) → tool node `note` (a write tool) → dr. */
function entryLoopThroughTool(): Workflow {
  return {
    metadata: { name: 'entry-loop-tool', version: '1.0.0', description: 'a decision review whose error route comes back to it through a tool node' },
    variableRegistry: { persona: { type: 'object', description: 'the reviewer persona' }, proposal: { type: 'object', description: 'the call' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Go.', completionCondition: 'done', connections: { success: 'dr' } },
      { type: 'delegate-review', id: 'dr', contract: 'decision', persona: { contextPath: 'persona' }, proposal: { contextPath: 'proposal' }, connections: { success: 'done', error: 'note' } },
      { type: 'tool', id: 'note', tool: 'notify', args: {}, connections: { success: 'dr' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
}

Runaway('r83 c3: a review whose entry routes back to it through a tool node stops at the first entry that routes the same way again: the tool ran once, and the E_RUNAWAY names the review, the entry\'s cause and the connection to route elsewhere', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-runaway-tool-')))]) {
    let calls = 0;
    const notify = defineTool({ name: 'notify', class: 'write', inputSchema: { type: 'object' }, run: () => (calls++, { posted: true }) });
    const engine = createEngine({ store, tools: [notify] });
    const started = await engine.start(entryLoopThroughTool());
    const failed = await engine.submit(started.runId, {});
    if (failed.status !== 'failed') throw new Error(JSON.stringify(failed));
    assert.is(calls, 1, 'a side effect the loop repeats is never run again');
    assert.is(failed.error.code, 'E_RUNAWAY');
    assert.is(failed.error.nodeId, 'dr');
    assert.match(failed.error.message, /^node "dr" kept routing on entry without the run resting anywhere: entered again through tool node "note" with no answer on the way, it routed by "error" again \(E_DECISION_INPUT: decision review "dr" cannot be issued: /);
    assert.match(failed.error.fix ?? '', /^route node "dr"'s "error" connection somewhere other than back to it through tool node "note" .*; then start a new run$/);
    const journal = (await engine.trace(started.runId)).events.map((e) => [e.type, e.nodeId ?? null]);
    assert.equal(journal.slice(-9), [
      ['answer.accepted', 'ask'], ['route', 'ask'], ['review.refused', 'dr'], ['route', 'dr'],
      ['tool.started', 'note'], ['answer.accepted', 'note'], ['tool.succeeded', 'note'], ['route', 'note'],
      ['run.failed', 'dr'],
    ]);
    store.close();
  }
});

Runaway('r83 c3: an entry that routes through a tool node which repairs what it lacked comes to rest on its next entry: no runaway', async () => {
  const wf = entryLoopThroughTool() as unknown as { nodes: Array<Record<string, unknown>> };
  // The tool's result is the proposal the review reads: the second entry finds everything it needs.
  wf.nodes[2].proposal = { contextPath: 'note.result' };
  (wf as unknown as { variableRegistry: Record<string, unknown> }).variableRegistry.persona = { type: 'object', description: 'the reviewer persona', default: { name: 'critic', model: 'm', max_turns: 1, tools: [], body: 'Judge it.' } };
  let calls = 0;
  const notify = defineTool({ name: 'notify', class: 'write', inputSchema: { type: 'object' }, run: () => (calls++, { summary: 'ship it' }) });
  const engine = createEngine({ store: createMemoryStore(), tools: [notify] });
  const started = await engine.start(wf as unknown as Workflow);
  const waiting = await engine.submit(started.runId, {});
  assert.is(waiting.status === 'waiting' && waiting.pending.nodeId, 'dr', JSON.stringify(waiting));
  assert.is(calls, 1);
});

Runaway.run();
