/**
 * A fix answer that a review behind tool nodes refuses (review r83): it is
 * rejected as if it had been rejected when given. Progress says so after
 * the tool nodes it led through (never "answered"), the run keeps none of
 * its values, and a failure route on the way (an expression's `error`)
 * means no answer led to the review at all.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, createSqliteStore, defineTool, type Agent, type ProgressEvent, type Workflow } from '../../engine/index.js';
import { progressPrinter } from '../../engine/cli/progress.js';
import type { Io } from '../../engine/cli/io.js';

const fmt = defineTool({ name: 'fmt', class: 'read', inputSchema: { type: 'object' }, run: () => ({}) });

/** write → review → check → fix → `between` (a tool node, or none) → review; the fix may write the global `note`. */
function loop(between: 'tool' | 'direct', fix: Record<string, unknown> = {}): Workflow {
  return {
    metadata: { name: 'fix-then-tool', version: '1.0.0', description: 'a formatter tool between the fix step and the review' },
    variableRegistry: { note: { type: 'string', description: 'a note the fix step may rewrite', default: 'initial' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', connections: { success: 'review' } },
      { type: 'delegate-review', id: 'review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: 'review.json', connections: { success: 'check', exhausted: 'done', unchanged: 'done' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      {
        type: 'agent-directive', id: 'fix', agent: 'author', directive: 'Fix the issues.', completionCondition: 'fixed', maxRetries: 2,
        inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' }, n: { type: 'integer' }, note: { type: 'string' } }, globalInputs: ['note'] },
        connections: { success: between === 'tool' ? 'format' : 'review' },
        ...fix,
      },
      { type: 'tool', id: 'format', tool: 'fmt', args: {}, connections: { success: 'review' } },
      { type: 'end', id: 'done', finalOutput: ['fix.n', 'note'] },
    ],
  } as unknown as Workflow;
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-veto-'));
  writeFileSync(join(dir, 'notes.md'), '# A\n');
  return dir;
}

/** The author writes notes.md once and then answers the fix with `fixes` in turn, never touching the file; the reviewer always finds one issue. */
function agents(ws: string, fixes: object[]): { agent: Agent; reviewer: Agent } {
  let fixed = 0;
  return {
    agent: { answer: async (req) => (req.nodeId === 'fix' ? fixes[fixed++] ?? {} : {}) },
    reviewer: {
      answer: async () => {
        writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
        return { issues_count: 1 };
      },
    },
  };
}

function capture(): { io: Io; text: () => string } {
  const err = new PassThrough();
  const chunks: string[] = [];
  err.on('data', (c) => chunks.push(String(c)));
  const io = { stdout: new PassThrough(), stderr: err, stdin: new PassThrough(), cwd: '/', env: {}, isTTY: false } as Io;
  return { io, text: () => chunks.join('') };
}

const R = suite('a fix answer rejected behind tool nodes (r83)');

R('r83 c1: progress reports a fix answer a review behind a tool node refused as rejected, with its E_UNCHANGED_ARTIFACT errors, after the tool it led through; the run\'s failure comes after that tool too', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const events: ProgressEvent[] = [];
  const { io, text } = capture();
  const print = progressPrinter(io, { spinner: false, reviewer: true });
  const result = await engine.run(loop('tool'), {
    ...agents(ws, [{}, {}, {}]), workspace: ws, as: 'author', reviewerAs: 'rev',
    onProgress: (e) => (events.push(e), print(e)),
  });
  print.stop();
  assert.is(result.status, 'failed');
  assert.is(result.error?.code, 'E_MAX_RETRIES');
  const fixAnswers = events.filter((e): e is Extract<ProgressEvent, { type: 'answered' }> => e.type === 'answered' && e.nodeId === 'fix');
  assert.equal(fixAnswers.map((e) => e.verdict), ['rejected', 'rejected', 'rejected'], JSON.stringify(fixAnswers));
  for (const e of fixAnswers) assert.match((e.errors ?? []).join('\n'), /are unchanged since its last accepted review/);
  // In the journal's order: the tool ran, then the review refused the answer that led to it.
  const order = events.filter((e) => e.type !== 'pending' || e.state.pending.nodeId === 'fix').map((e) => (e.type === 'answered' ? `answered ${e.nodeId} ${e.verdict}` : e.type === 'tool' ? `tool ${e.nodeId}` : e.type === 'pending' ? `pending ${e.state.pending.nodeId}` : e.type));
  assert.equal(order.slice(-9), [
    'pending fix', 'tool format', 'answered fix rejected',
    'pending fix', 'tool format', 'answered fix rejected',
    'pending fix', 'tool format', 'answered fix rejected',
  ]);
  const out = text();
  assert.not.match(out, /✓ fix answered/);
  assert.match(out, /▸ fix: Fix the issues\.\n▸ format: tool fmt ✓\n {2}✗ answer rejected: the artifacts of review "review" are unchanged since its last accepted review[^\n]*\n▸ fix \(attempt 2\/3\)/);
  assert.match(out, /▸ fix \(attempt 3\/3\): Fix the issues\.\n▸ format: tool fmt ✓\n {2}✗ answer rejected: [^\n]*\n {2}✗ fix: the run failed: E_MAX_RETRIES\n$/);
});

R('r83 c1: a refusal behind a tool node that spends the fix node\'s last retry is said with the route it then took, not the route the answer took to the tool', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const wf = loop('tool', { maxRetries: 0, connections: { success: 'format', maxRetriesExceeded: 'done' } });
  const { io, text } = capture();
  const print = progressPrinter(io, { spinner: false, reviewer: true });
  const answered: ProgressEvent[] = [];
  const result = await engine.run(wf, { ...agents(ws, [{}]), workspace: ws, as: 'author', reviewerAs: 'rev', onProgress: (e) => (e.type === 'answered' && e.nodeId === 'fix' && answered.push(e), print(e)) });
  print.stop();
  assert.is(result.status, 'completed');
  assert.equal(answered.map((e) => e.type === 'answered' && [e.verdict, e.via, e.to]), [['rejected', 'maxRetriesExceeded', 'done']]);
  assert.match(text(), /▸ format: tool fmt ✓\n {2}✗ answer rejected: [^\n]*\n {2}· fix: maxRetriesExceeded → done\n$/);
});

R('r83 c1: an answer accepted behind a tool node still shows as answered before the tool it led to', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const { io, text } = capture();
  const print = progressPrinter(io, { spinner: false, reviewer: true });
  const result = await engine.run(loop('tool'), { ...agents(ws, [{ unchanged_reason: 'fine as is' }]), workspace: ws, as: 'author', reviewerAs: 'rev', onProgress: print });
  print.stop();
  assert.is(result.status, 'completed');
  assert.match(text(), /▸ fix: Fix the issues\.\n {2}✓ fix answered\n▸ format: tool fmt ✓\n$/);
});

R('r83 c2: a fix answer rejected behind a tool node writes none of its values into the run (its fields and globals), as when it is rejected directly', async () => {
  for (const store of [createMemoryStore(), createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-veto-store-')))]) {
    const outputs: Record<string, unknown> = {};
    for (const between of ['direct', 'tool'] as const) {
      const engine = createEngine({ store, tools: [fmt] });
      const ws = workspace();
      const r = await engine.run(loop(between), { ...agents(ws, [{ n: 1, note: 'from rejected answer' }, { unchanged_reason: 'fine as is' }]), workspace: ws, as: 'author', reviewerAs: 'rev' });
      assert.is(r.status, 'completed', JSON.stringify(r));
      const rejected = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.rejected').map((e) => [e.nodeId, e.code]);
      assert.equal(rejected, [['fix', 'E_UNCHANGED_ARTIFACT']]);
      outputs[between] = r.output;
    }
    assert.equal(outputs.direct, { note: 'initial' });
    assert.equal(outputs.tool, outputs.direct);
    store.close();
  }
});

R('r83 c2: a rejected answer behind a tool node gives back the fields and globals the node had before it, not blanks', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  // The first fix answer is accepted (the notes change), the second is refused behind the tool, the third gives a reason.
  let fixed = 0;
  const agent: Agent = {
    answer: async (req) => {
      if (req.nodeId !== 'fix') return {};
      fixed++;
      if (fixed === 1) {
        writeFileSync(join(ws, 'notes.md'), '# A\nbody\n');
        return { n: 1, note: 'first fix' };
      }
      return fixed === 2 ? { n: 2, note: 'refused fix' } : { unchanged_reason: 'fine as is' };
    },
  };
  const { reviewer } = agents(ws, []);
  const r = await engine.run(loop('tool'), { agent, reviewer, workspace: ws, as: 'author', reviewerAs: 'rev' });
  assert.is(r.status, 'completed', JSON.stringify(r));
  assert.equal(r.output, { 'fix.n': 1, note: 'first fix' });
});

/** fix → expression `bump` (fails: n / 0) whose default and error routes both lead to the review. */
function throughFailingExpression(): Workflow {
  const wf = loop('direct', { maxRetries: 1, connections: { success: 'bump' } }) as unknown as { variableRegistry: Record<string, unknown>; nodes: Array<Record<string, unknown>> };
  wf.variableRegistry.n = { type: 'number', description: 'a counter', default: 1 };
  wf.nodes.splice(5, 0, { type: 'expression', id: 'bump', expressions: ['n = n / 0'], connections: { default: 'review', error: 'review' } });
  return wf as unknown as Workflow;
}

R('r83 c4: an expression\'s error route between the fix and the review means no answer led there: the review fails the run with E_UNCHANGED_ARTIFACT, the fix is not re-asked, and the expression\'s failure stays in the journal', async () => {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const started = await engine.start(throughFailingExpression(), { workspace: ws, as: 'author' });
  await engine.submit(started.runId, {}, { as: 'author' });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
  await engine.submit(started.runId, { issues_count: 1 }, { as: 'rev' });
  const after = await engine.submit(started.runId, {}, { as: 'author' });
  if (after.status !== 'failed') throw new Error(`expected the run to fail at the review: ${JSON.stringify(after)}`);
  assert.is(after.error.code, 'E_UNCHANGED_ARTIFACT');
  assert.is(after.error.nodeId, 'review');
  assert.match(after.error.message, /no fix answer led here/);
  const journal = (await engine.trace(started.runId)).events;
  const tail = journal.slice(-6).map((e) => [e.type, e.nodeId, e.via ?? e.code ?? null]);
  // The review says why it refused (review.refused, r84) before the run fails there.
  assert.equal(tail, [
    ['answer.accepted', 'fix', null],
    ['route', 'fix', 'success'],
    ['expression.evaluated', 'bump', null],
    ['route', 'bump', 'error'],
    ['review.refused', 'review', 'E_UNCHANGED_ARTIFACT'],
    ['run.failed', 'review', 'E_UNCHANGED_ARTIFACT'],
  ]);
  assert.match(String(journal.at(-4)?.error), /^expression "n = n \/ 0" failed/, JSON.stringify(journal.at(-4)));
  assert.not.ok(journal.some((e) => e.type === 'answer.rejected'));
});

R('r83 c4: behind a tool node too, an expression\'s error route on the way to the review means no fix answer led there', async () => {
  const wf = throughFailingExpression() as unknown as { nodes: Array<Record<string, unknown>> };
  (wf.nodes.find((n) => n.id === 'bump') as { connections: object }).connections = { default: 'format', error: 'format' };
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const started = await engine.start(wf as unknown as Workflow, { workspace: ws, as: 'author' });
  await engine.submit(started.runId, {}, { as: 'author' });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
  await engine.submit(started.runId, { issues_count: 1 }, { as: 'rev' });
  const after = await engine.submit(started.runId, {}, { as: 'author' });
  assert.is(after.status === 'failed' && after.error.code, 'E_UNCHANGED_ARTIFACT', JSON.stringify(after));
  assert.is(after.status === 'failed' && after.error.nodeId, 'review');
  assert.not.ok('rejected' in after);
});

/**
 * write (author) → review (rev, one issue) → fix answered by `fixer` without touching notes.md (rejected
 * E_UNCHANGED_ARTIFACT, directly or behind the tool), then the author really fixes it and the review is issued again.
 */
async function afterRejectedFix(between: 'tool' | 'direct', fixer: string) {
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  const wf = loop(between, { directive: 'Fix the issues (the last to answer: {{userId}}).' });
  const started = await engine.start(wf, { workspace: ws, as: 'author' });
  await engine.submit(started.runId, {}, { as: 'author' });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
  await engine.submit(started.runId, { issues_count: 1 }, { as: 'rev' });
  const rejected = await engine.submit(started.runId, { n: 1 }, { as: fixer });
  writeFileSync(join(ws, 'notes.md'), '# A\nbody\n');
  const fixed = await engine.submit(started.runId, {}, { as: 'author' });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: [] }));
  return { engine, runId: started.runId, rejected, fixed };
}

R('r84 c2: an identity whose fix answer a review behind a tool node rejected changed no artifact: it may review them afterwards, as when its answer is rejected directly', async () => {
  for (const between of ['direct', 'tool'] as const) {
    const { engine, runId, rejected, fixed } = await afterRejectedFix(between, 'rev2');
    assert.is(rejected.status === 'waiting' && rejected.rejected?.code, 'E_UNCHANGED_ARTIFACT', `${between}: ${JSON.stringify(rejected)}`);
    assert.is(fixed.status === 'waiting' && fixed.pending.nodeId, 'review', between);
    const reviewed = await engine.submit(runId, { issues_count: 0 }, { as: 'rev2' });
    assert.is(reviewed.status, 'completed', `${between}: ${JSON.stringify(reviewed)}`);
    assert.is(reviewed.status === 'completed' && reviewed.endNodeId, 'done', between);
  }
});

R('r84 c2: the identity whose fix answer was accepted and stays accepted is still an author: it may not review (E_SELF_REVIEW), behind a tool node or not', async () => {
  for (const between of ['direct', 'tool'] as const) {
    // `author` gives the rejected answer too: its accepted fix keeps it an author.
    const { engine, runId } = await afterRejectedFix(between, 'author');
    const refused = await engine.submit(runId, { issues_count: 0 }, { as: 'author' });
    assert.is(refused.status === 'waiting' && refused.rejected?.code, 'E_SELF_REVIEW', `${between}: ${JSON.stringify(refused)}`);
  }
});

R('r84 c2: a fix answer rejected behind a tool node does not become the run\'s user: the re-asked fix renders {{userId}} as when it was rejected directly', async () => {
  const directives: Record<string, string> = {};
  for (const between of ['direct', 'tool'] as const) {
    const { rejected } = await afterRejectedFix(between, 'rev2');
    if (rejected.status !== 'waiting' || rejected.pending.kind !== 'directive') throw new Error(`${between}: ${JSON.stringify(rejected)}`);
    directives[between] = rejected.pending.directive;
  }
  assert.match(directives.direct, '(the last to answer: rev)');
  assert.is(directives.tool, directives.direct);
});

/**
 * write → review → check → fix → `between` → review, where `between` mixes tool nodes (`fmt`) and
 * expression nodes that count every pass (`count = count + 1`, a round counter).
 */
function countedLoop(between: Array<'tool' | 'expr'>): Workflow {
  const wf = loop('direct') as unknown as { variableRegistry: Record<string, unknown>; nodes: Array<Record<string, unknown>> };
  wf.variableRegistry.count = { type: 'integer', description: 'fix passes that reached the review', default: 0 };
  const ids = between.map((kind, i) => `${kind}${i + 1}`);
  const fix = wf.nodes.find((n) => n.id === 'fix')!;
  fix.connections = { success: ids[0] ?? 'review' };
  const mid = between.map((kind, i) => {
    const to = ids[i + 1] ?? 'review';
    return kind === 'tool'
      ? { type: 'tool', id: ids[i], tool: 'fmt', args: {}, connections: { success: to } }
      : { type: 'expression', id: ids[i], expressions: ['count = count + 1'], connections: { default: to } };
  });
  wf.nodes.splice(wf.nodes.findIndex((n) => n.id === 'format'), 1, ...mid);
  (wf.nodes.find((n) => n.id === 'done') as { finalOutput: string[] }).finalOutput = ['fix.n', 'note', 'count'];
  return wf as unknown as Workflow;
}

R('r88 c1: an expression behind the tool nodes keeps nothing of a fix answer the review refused: a round counter counts it as when the answer is rejected directly', async () => {
  const shapes: Array<Array<'tool' | 'expr'>> = [['expr'], ['expr', 'tool'], ['tool', 'expr'], ['tool', 'expr', 'tool'], ['tool', 'expr', 'tool', 'expr']];
  for (const [between, store] of shapes.flatMap((shape) => [[shape, createMemoryStore()], [shape, createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-count-store-')))]] as const)) {
    const engine = createEngine({ store, tools: [fmt] });
    const ws = workspace();
    const r = await engine.run(countedLoop(between), { ...agents(ws, [{ n: 1, note: 'refused fix' }, { unchanged_reason: 'fine as is' }]), workspace: ws, as: 'author', reviewerAs: 'rev' });
    const shape = between.join(' → ');
    assert.is(r.status, 'completed', `${shape}: ${JSON.stringify(r)}`);
    const rejected = (await engine.trace(r.runId)).events.filter((e) => e.type === 'answer.rejected').map((e) => [e.nodeId, e.code]);
    assert.equal(rejected, [['fix', 'E_UNCHANGED_ARTIFACT']], shape);
    // Only the accepted fix answer's pass counts: once per expression on the way.
    const passes = between.filter((kind) => kind === 'expr').length;
    assert.equal(r.output, { note: 'initial', count: passes }, shape);
    store.close();
  }
});

R('r88 c1: a round counter after a formatter tool does not spend the loop\'s bound on refused fix answers', async () => {
  const wf = countedLoop(['tool', 'expr']) as unknown as { nodes: Array<Record<string, unknown>> };
  // The review goes round while count < 2; a refused answer must not bring it there.
  const check = wf.nodes.find((n) => n.id === 'check')!;
  check.condition = { operator: 'and', conditions: [{ operator: 'gt', left: { contextPath: 'issues_count' }, right: 0 }, { operator: 'lt', left: { contextPath: 'count' }, right: 2 }] };
  check.connections = { true: 'fix', false: 'done' };
  const engine = createEngine({ store: createMemoryStore(), tools: [fmt] });
  const ws = workspace();
  let fixed = 0;
  const agent: Agent = {
    answer: async (req) => {
      if (req.nodeId !== 'fix') return {};
      fixed++;
      // 1: refused (nothing changed); 2: a real change; 3: refused again; 4: a real change.
      if (fixed % 2 === 0) writeFileSync(join(ws, 'notes.md'), `# A\nbody ${fixed}\n`);
      return { n: fixed };
    },
  };
  const { reviewer } = agents(ws, []);
  const r = await engine.run(wf as unknown as Workflow, { agent, reviewer, workspace: ws, as: 'author', reviewerAs: 'rev' });
  assert.is(r.status, 'completed', JSON.stringify(r));
  assert.is(fixed, 4, 'two fix answers refused and two accepted before the counter reaches its bound');
  assert.equal(r.output, { 'fix.n': 4, note: 'initial', count: 2 });
});

R.run();
