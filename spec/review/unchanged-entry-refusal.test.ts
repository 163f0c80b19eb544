/**
 * A review entered with its artifacts unchanged and no fix answer leading
 * there (an expression's `error` route, a tool node on the way, a timeout)
 * is refused on entry with E_UNCHANGED_ARTIFACT (review r84). Like every
 * entry refusal it says why where the user looks: `review.refused` (code,
 * message, fix) in the journal before the route it takes, and a line in
 * `run` progress, never a bare `via=error` route.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, defineTool, type JournalEvent, type Workflow } from '../../engine/index.js';
import { progressPrinter } from '../../engine/cli/progress.js';
import type { Io } from '../../engine/cli/io.js';

let workspaceDir = '';
const fmt = defineTool({ name: 'fmt', class: 'read', inputSchema: { type: 'object' }, run: () => ({}) });
const del = defineTool({ name: 'del', class: 'write', inputSchema: { type: 'object' }, run: () => (rmSync(join(workspaceDir, 'notes.md')), {}) });

interface Shape {
  /** A tool node (`format`, running `tool`) between the failing expression and the review. */
  tool?: 'fmt' | 'del';
  /** Whether the review has an `error` connection (to `stuck`). */
  errorRoute: boolean;
  /** Whether the fix step's answer goes through the failing expression `bump` (n / 0), whose routes lead on. */
  failingExpression?: boolean;
}

/** write → review → check → fix → [bump (fails)] → [format (tool)] → review. */
function loop(shape: Shape): Workflow {
  const toReview = shape.tool ? 'format' : 'review';
  const afterFix = shape.failingExpression === false ? toReview : 'bump';
  return {
    metadata: { name: 'unchanged-entry', version: '1.0.0', description: 'a review reached again with nothing changed and no fix answer before it' },
    variableRegistry: { n: { type: 'number', description: 'a counter', default: 1 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', connections: { success: 'review' } },
      {
        type: 'delegate-review', id: 'review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: 'review.json',
        connections: { success: 'check', exhausted: 'done', unchanged: 'done', ...(shape.errorRoute ? { error: 'stuck' } : {}) },
      },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      {
        type: 'agent-directive', id: 'fix', agent: 'author', directive: 'Fix the issues.', completionCondition: 'fixed', maxRetries: 1,
        inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } }, connections: { success: afterFix },
      },
      { type: 'expression', id: 'bump', expressions: ['n = n / 0'], connections: { default: toReview, error: toReview } },
      ...(shape.tool ? [{ type: 'tool', id: 'format', tool: shape.tool, args: {}, connections: { success: 'review' } }] : []),
      { type: 'end', id: 'stuck' },
      { type: 'end', id: 'done', finalOutput: [] },
    ],
  } as unknown as Workflow;
}

function capture(): { io: Io; text: () => string } {
  const err = new PassThrough();
  const chunks: string[] = [];
  err.on('data', (c) => chunks.push(String(c)));
  const io = { stdout: new PassThrough(), stderr: err, stdin: new PassThrough(), cwd: '/', env: {}, isTTY: false } as Io;
  return { io, text: () => chunks.join('') };
}

/** Drives the loop with `run()`: the author never touches notes.md, the reviewer always finds one issue. */
async function drive(shape: Shape) {
  workspaceDir = mkdtempSync(join(tmpdir(), 'countersign-unchanged-entry-'));
  writeFileSync(join(workspaceDir, 'notes.md'), '# A\n');
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt, del] });
  const { io, text } = capture();
  const print = progressPrinter(io, { spinner: false, reviewer: true });
  const ws = workspaceDir;
  const result = await engine.run(loop(shape), {
    workspace: ws, as: 'author', reviewerAs: 'rev', onProgress: print,
    agent: { answer: async () => ({}) },
    reviewer: { answer: async () => (writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] })), { issues_count: 1 }) },
  });
  print.stop();
  const journal = (await engine.trace(result.runId)).events;
  return { result, journal, progress: text() };
}

const refusals = (journal: JournalEvent[]) => journal.filter((e) => e.type === 'review.refused');

const U = suite('review: unchanged on entry with no fix answer before it (r84)');

U('r84 c2: taking its error route, the review journals review.refused (E_UNCHANGED_ARTIFACT, its message and fix) right before the route, directly or behind a tool node', async () => {
  for (const tool of [undefined, 'fmt'] as const) {
    const { result, journal } = await drive({ tool, errorRoute: true });
    assert.is(result.status, 'completed', JSON.stringify(result));
    assert.is(result.endNodeId, 'stuck');
    const [refused, ...more] = refusals(journal);
    assert.is(more.length, 0, `${tool}: one refusal`);
    assert.is(refused?.code, 'E_UNCHANGED_ARTIFACT', `${tool}: ${JSON.stringify(journal.slice(-4))}`);
    assert.is(refused?.nodeId, 'review');
    assert.match(String(refused?.message), 'the artifacts of review "review" are unchanged since its last accepted review and no fix answer led here');
    // The fix says what happened and what to change, for a run that went on by the error route (no new run needed).
    assert.match(String(refused?.fix), /no fix answer before it/);
    assert.match(String(refused?.fix), 'the run took review "review"\'s error route');
    assert.not.match(String(refused?.fix), /start a new run/, String(refused?.fix));
    const tail = journal.slice(-3).map((e) => [e.type, e.nodeId, e.via ?? e.code ?? null]);
    assert.equal(tail, [['review.refused', 'review', 'E_UNCHANGED_ARTIFACT'], ['route', 'review', 'error'], ['run.completed', 'stuck', null]], tool);
  }
});

U('r84 c2: without an error route the run fails, and the journal has review.refused before run.failed, with the fix the run\'s error carries', async () => {
  for (const tool of [undefined, 'fmt'] as const) {
    const { result, journal } = await drive({ tool, errorRoute: false });
    assert.is(result.status, 'failed', JSON.stringify(result));
    assert.is(result.error?.code, 'E_UNCHANGED_ARTIFACT');
    const refused = refusals(journal);
    assert.equal(refused.map((e) => e.code), ['E_UNCHANGED_ARTIFACT'], tool);
    assert.equal(journal.slice(-2).map((e) => e.type), ['review.refused', 'run.failed']);
    assert.is(refused[0].fix, result.error?.fix);
    assert.match(String(refused[0].fix), 'an "error" connection');
    assert.match(String(refused[0].fix), 'start a new run');
  }
});

U('r84 c2: run progress says why the review took its error route (code and message), then the route, after the tool nodes on the way', async () => {
  const { progress } = await drive({ tool: 'fmt', errorRoute: true });
  assert.match(progress, /▸ format: tool fmt ✓\n {2}✗ review: E_UNCHANGED_ARTIFACT: the artifacts of review "review" are unchanged since its last accepted review and no fix answer led here\n {2}· review: error → stuck\n$/, progress);
  const direct = await drive({ errorRoute: true });
  assert.match(direct.progress, /· bump: error → review\n {2}✗ review: E_UNCHANGED_ARTIFACT: [^\n]*\n {2}· review: error → stuck\n$/, direct.progress);
});

U('r84 c2: any entry refusal that routes on is said in progress the same way (a tool that deleted the artifact: E_ARTIFACT_MISSING)', async () => {
  const { result, progress } = await drive({ tool: 'del', errorRoute: true, failingExpression: false });
  assert.is(result.endNodeId, 'stuck', JSON.stringify(result));
  assert.match(progress, /▸ format: tool del ✓\n {2}✗ review: E_ARTIFACT_MISSING: review "review" has nothing to review at [^\n]*notes\.md: no such file or folder\n {2}· review: error → stuck\n$/, progress);
});

U('r84 c2: a run that fails at the refusing review says the failure once, at the review, not also as a route', async () => {
  const { progress } = await drive({ tool: 'fmt', errorRoute: false });
  assert.match(progress, /▸ format: tool fmt ✓\n {2}✗ review: the run failed: E_UNCHANGED_ARTIFACT\n$/, progress);
});

U.run();
