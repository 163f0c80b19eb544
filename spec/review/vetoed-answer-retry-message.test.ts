/**
 * An answer the review it leads to refuses (E_ARTIFACT_MISSING,
 * E_UNCHANGED_ARTIFACT) costs its node an attempt like any rejected
 * answer, so it goes back with the node's retryMessage, last (issue §4;
 * README limits: "the retryMessage is always kept, last") — whether the
 * review follows the node directly or behind tool nodes (review r85).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, defineTool, type RunState, type Workflow } from '../../engine/index.js';

const fmt = defineTool({ name: 'fmt', class: 'read', inputSchema: { type: 'object' }, run: () => ({}) });

const WRITE_RETRY = 'Write the file notes.md before you answer.';
const FIX_RETRY = 'Change notes.md, or say why not in unchanged_reason.';

/** write → review → check → fix → `between` (a tool node, or none) → review; `write` and `fix` carry a retryMessage. */
function loop(between: 'tool' | 'direct', fix: Record<string, unknown> = {}): Workflow {
  return {
    metadata: { name: 'vetoed-retry-message', version: '1.0.0', description: 'a review refuses the answer that led to it' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', retryMessage: WRITE_RETRY, connections: { success: 'review' } },
      { type: 'delegate-review', id: 'review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: 'review.json', connections: { success: 'check', exhausted: 'done', unchanged: 'done' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      {
        type: 'agent-directive', id: 'fix', agent: 'author', directive: 'Fix the issues.', completionCondition: 'fixed', maxRetries: 2, retryMessage: FIX_RETRY,
        inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } },
        connections: { success: between === 'tool' ? 'format' : 'review' },
        ...fix,
      },
      { type: 'tool', id: 'format', tool: 'fmt', args: {}, connections: { success: 'review' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
}

type Waiting = Extract<RunState, { status: 'waiting' }>;

function waiting(s: RunState, nodeId: string): Waiting {
  assert.is(s.status === 'waiting' && s.pending.nodeId, nodeId, JSON.stringify(s).slice(0, 400));
  return s as Waiting;
}

const V = suite('review: an answer a review refuses goes back with its node\'s retryMessage (r85)');

V('E_ARTIFACT_MISSING: the write answer the review refuses costs an attempt and goes back with write\'s retryMessage, last, in pending.errors, rejected.errors and the journal', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-veto-retry-'));
  const started = await engine.start(loop('direct'), { workspace: ws, as: 'author' });
  const s = waiting(await engine.submit(started.runId, {}, { as: 'author' }), 'write');
  assert.is(s.rejected?.code, 'E_ARTIFACT_MISSING');
  assert.is(s.pending.attempt, 2);
  const errors = s.pending.errors ?? [];
  assert.match(errors[0] ?? '', /nothing to review at .*notes\.md/);
  assert.is(errors.at(-1), WRITE_RETRY, JSON.stringify(errors));
  assert.equal(s.rejected?.errors, errors);
  const journaled = (await engine.trace(started.runId)).events.find((e) => e.type === 'answer.rejected');
  assert.equal(journaled?.errors, errors);
});

V('E_UNCHANGED_ARTIFACT: a fix answer refused directly or behind a tool node goes back with fix\'s retryMessage, last', async () => {
  for (const between of ['direct', 'tool'] as const) {
    const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
    const ws = mkdtempSync(join(tmpdir(), 'countersign-veto-retry-'));
    writeFileSync(join(ws, 'notes.md'), '# A\n');
    let s: RunState = await engine.start(loop(between), { workspace: ws, as: 'author' });
    s = await engine.submit(s.runId, {}, { as: 'author' });
    writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
    s = await engine.submit(s.runId, { issues_count: 1 }, { as: 'rev' });
    const w = waiting(await engine.submit(waiting(s, 'fix').runId, {}, { as: 'author' }), 'fix');
    assert.is(w.rejected?.code, 'E_UNCHANGED_ARTIFACT', between);
    assert.is(w.pending.attempt, 2, between);
    const errors = w.pending.errors ?? [];
    assert.match(errors[0] ?? '', /unchanged since its last accepted review/, between);
    assert.is(errors.at(-1), FIX_RETRY, `${between}: ${JSON.stringify(errors)}`);
    assert.equal(w.rejected?.errors, errors, between);
  }
});

V('E_UNCHANGED_ARTIFACT: when the refusal spends the last retry, the failure names the review\'s reason and then the retryMessage', async () => {
  for (const between of ['direct', 'tool'] as const) {
    const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
    const ws = mkdtempSync(join(tmpdir(), 'countersign-veto-retry-'));
    writeFileSync(join(ws, 'notes.md'), '# A\n');
    let s: RunState = await engine.start(loop(between, { maxRetries: 0 }), { workspace: ws, as: 'author' });
    s = await engine.submit(s.runId, {}, { as: 'author' });
    writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
    s = await engine.submit(s.runId, { issues_count: 1 }, { as: 'rev' });
    const done = await engine.submit(waiting(s, 'fix').runId, {}, { as: 'author' });
    assert.is(done.status === 'failed' && done.error.code, 'E_MAX_RETRIES', between);
    const message = done.status === 'failed' ? done.error.message : '';
    assert.match(message, /unchanged since its last accepted review.*; Change notes\.md, or say why not in unchanged_reason\.$/, between);
  }
});

V.run();
