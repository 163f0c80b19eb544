/**
 * A fix node asked again behind a tool node keeps its visit's deadline
 * (review r88): when the tool ran past that deadline, the step that would
 * ask again fires the deadline instead — the node's `timeout` route, or
 * E_TIMEOUT — never handing out an item that is already late.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { createEngine, createMemoryStore, defineTool, type ProgressEvent, type Workflow } from '../../engine/index.js';
import { progressPrinter } from '../../engine/cli/progress.js';
import type { Io } from '../../engine/cli/io.js';

const Deadline = suite('deadline of a node asked again behind tool nodes');

/** write → review → check → fix (timeoutMs 1000) → format (a tool taking `toolMs` of the clock) → review. */
function loop(timeoutRoute: boolean): Workflow {
  return {
    metadata: { name: 'fix-deadline-tool', version: '1.0.0', description: 'a slow formatter between a fix with a deadline and its review' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write.', completionCondition: 'written', connections: { success: 'review' } },
      { type: 'delegate-review', id: 'review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: 'review.json', connections: { success: 'check', exhausted: 'done', unchanged: 'done' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      {
        type: 'agent-directive', id: 'fix', agent: 'author', directive: 'Fix.', completionCondition: 'fixed', maxRetries: 2, timeoutMs: 1000,
        inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } },
        connections: { success: 'format', ...(timeoutRoute ? { timeout: 'late' } : {}) },
      },
      { type: 'tool', id: 'format', tool: 'nap', args: {}, connections: { success: 'review' } },
      { type: 'end', id: 'done' },
      { type: 'end', id: 'late' },
    ],
  } as unknown as Workflow;
}

/** A run at `fix` (attempt 1, issued at the clock's start) whose formatter takes `toolMs`; answered with an unchanged fix 30 ms in. */
async function unchangedFixThroughSlowTool(timeoutRoute: boolean, toolMs: number) {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const nap = defineTool({ name: 'nap', class: 'read', inputSchema: { type: 'object' }, run: () => { clock += toolMs; return {}; } });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-deadline-tool-'));
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const engine = createEngine({ store: createMemoryStore(), tools: [nap], now: () => new Date(clock) });
  let s = await engine.start(loop(timeoutRoute), { workspace: ws, as: 'author' });
  s = await engine.submit(s.runId, {}, { as: 'author', seq: s.seq });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { as: 'rev', seq: s.seq });
  assert.ok(s.status === 'waiting' && s.pending.nodeId === 'fix' && s.pending.deadline !== undefined, JSON.stringify(s));
  clock += 30;
  const after = await engine.submit(s.runId, {}, { as: 'author', seq: s.seq });
  return { engine, runId: s.runId, after, clock };
}

Deadline('the tool ran past the deadline: the step fires it and takes the timeout route, never issuing a late item', async () => {
  const { engine, runId, after } = await unchangedFixThroughSlowTool(true, 1500);
  assert.is(after.status, 'completed', JSON.stringify(after));
  assert.is(after.status === 'completed' && after.endNodeId, 'late', JSON.stringify(after));
  assert.is((after as { rejected?: unknown }).rejected, undefined, 'no rejection asking for an answer no host can give in time');
  assert.is(after.retriesSpent, undefined, 'the fix had retries left: the deadline, not the retries, ended its visit');
  assert.is(after.late?.code, 'E_TIMEOUT', JSON.stringify(after));
  assert.match(after.late!.errors[0], /node "fix".*E_UNCHANGED_ARTIFACT.*deadline \(2026-01-01T00:00:01\.000Z\) passed while they ran/);
  const events = (await engine.trace(runId)).events;
  const issuedFix = events.filter((e) => e.type === 'directive.issued' && e.nodeId === 'fix');
  assert.is(issuedFix.length, 1, `the fix was issued once, not again after its deadline: ${JSON.stringify(issuedFix)}`);
  const types = events.map((e) => e.type);
  assert.ok(types.includes('answer.rejected'), `the refused fix answer is on record: ${types.join(' ')}`);
  const fired = events.find((e) => e.type === 'timeout');
  assert.is(fired?.nodeId, 'fix', types.join(' '));
  assert.ok(events.some((e) => e.type === 'route' && e.from === 'fix' && e.via === 'timeout' && e.to === 'late'), types.join(' '));
  assert.ok(types.indexOf('answer.rejected') < types.indexOf('timeout'), types.join(' '));
});

Deadline('the tool ran past the deadline, with no timeout route: the run fails with E_TIMEOUT at the fix node', async () => {
  const { after } = await unchangedFixThroughSlowTool(false, 1500);
  assert.is(after.status, 'failed', JSON.stringify(after));
  assert.is(after.status === 'failed' && after.error.code, 'E_TIMEOUT', JSON.stringify(after));
  assert.is(after.status === 'failed' && after.error.nodeId, 'fix', JSON.stringify(after));
  assert.is(after.late?.code, 'E_TIMEOUT', 'the submitter is told why its answer led nowhere');
});

Deadline('a timeout route to a waiting node: that node is issued under the next seq, and the late fix item never was', async () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const nap = defineTool({ name: 'nap', class: 'read', inputSchema: { type: 'object' }, run: () => { clock += 1500; return {}; } });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-deadline-tool-'));
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const flow = loop(true) as unknown as { nodes: Array<Record<string, unknown>> };
  flow.nodes = flow.nodes.map((n) => (n.id === 'late' ? { type: 'agent-directive', id: 'late', agent: 'author', directive: 'Say why.', completionCondition: 'said', connections: { success: 'done' } } : n));
  const engine = createEngine({ store: createMemoryStore(), tools: [nap], now: () => new Date(clock) });
  let s = await engine.start(flow as unknown as Workflow, { workspace: ws, as: 'author' });
  s = await engine.submit(s.runId, {}, { as: 'author', seq: s.seq });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { as: 'rev', seq: s.seq });
  const fixSeq = s.seq;
  const after = await engine.submit(s.runId, {}, { as: 'author', seq: fixSeq });
  assert.ok(after.status === 'waiting' && after.pending.nodeId === 'late', JSON.stringify(after));
  assert.is(after.seq, fixSeq + 2, 'the tool item, then the timeout route\'s item: no seq for an item never issued');
  assert.is(after.late?.code, 'E_TIMEOUT');
  const events = (await engine.trace(s.runId)).events;
  assert.equal(events.filter((e) => e.type === 'directive.issued').map((e) => [e.nodeId, e.seq]), [['write', 1], ['fix', fixSeq], ['late', fixSeq + 2]]);
  assert.is(events.find((e) => e.type === 'timeout')?.seq, fixSeq + 1, 'fired in the step that applied the tool\'s outcome');
  // The late item is answered as any other.
  const done = await engine.submit(s.runId, {}, { as: 'author', seq: after.seq });
  assert.is(done.status, 'completed', JSON.stringify(done));
});

Deadline('the tool finished inside the deadline: the fix is asked again under the same deadline, and the answer is rejected as given', async () => {
  const { after, clock } = await unchangedFixThroughSlowTool(true, 500);
  assert.is(after.status, 'waiting', JSON.stringify(after));
  assert.ok(after.status === 'waiting' && after.pending.nodeId === 'fix' && after.pending.attempt === 2, JSON.stringify(after));
  assert.is((after as { rejected?: { code: string } }).rejected?.code, 'E_UNCHANGED_ARTIFACT');
  const deadline = after.status === 'waiting' ? after.pending.deadline : undefined;
  assert.ok(deadline !== undefined && Date.parse(deadline) > clock, `issued before its deadline: ${deadline}`);
});

Deadline('a driven run: progress says the fix answer was rejected behind the tool, then the deadline fired (never that the answer came late)', async () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const nap = defineTool({ name: 'nap', class: 'read', inputSchema: { type: 'object' }, run: () => { clock += 1500; return {}; } });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-deadline-tool-'));
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const engine = createEngine({ store: createMemoryStore(), tools: [nap], now: () => new Date(clock) });
  const progress: ProgressEvent[] = [];
  const reviewer = { answer: async () => (writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] })), { issues_count: 1 }) };
  const end = await engine.run(loop(true), { workspace: ws, as: 'author', agent: { answer: async () => ({}) }, reviewer, onProgress: (e) => progress.push(e) });
  assert.equal([end.status, end.endNodeId], ['completed', 'late'], JSON.stringify(end));
  const fix = progress.filter((e): e is Extract<ProgressEvent, { type: 'answered' }> => e.type === 'answered' && e.nodeId === 'fix');
  assert.equal(fix.map((e) => e.verdict), ['rejected'], JSON.stringify(fix));
  assert.match(fix[0].errors?.join(' ') ?? '', /unchanged/);
  const fired = progress.find((e): e is Extract<ProgressEvent, { type: 'timeout' }> => e.type === 'timeout');
  assert.equal([fired?.nodeId, fired?.to], ['fix', 'late']);
});

/** A run driven to its end through the fix loop, with the lines `countersign run` prints for its progress. */
async function drivenProgressText(timeoutRoute: boolean): Promise<string> {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const nap = defineTool({ name: 'nap', class: 'read', inputSchema: { type: 'object' }, run: () => { clock += 1500; return {}; } });
  const ws = mkdtempSync(join(tmpdir(), 'countersign-deadline-tool-'));
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const engine = createEngine({ store: createMemoryStore(), tools: [nap], now: () => new Date(clock) });
  const err = new PassThrough();
  const chunks: string[] = [];
  err.on('data', (c) => chunks.push(String(c)));
  const io = { stdout: new PassThrough(), stderr: err, stdin: new PassThrough(), cwd: ws, env: {}, isTTY: false } as Io;
  const print = progressPrinter(io, { spinner: false, reviewer: true });
  const reviewer = { answer: async () => (writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] })), { issues_count: 1 }) };
  await engine.run(loop(timeoutRoute), { workspace: ws, as: 'author', agent: { answer: async () => ({}) }, reviewer, onProgress: print });
  print.stop();
  return chunks.join('');
}

const count = (text: string, re: RegExp) => (text.match(new RegExp(re.source, 'g')) ?? []).length;

Deadline('a driven run prints the rejection once, then the deadline and its timeout route once (never the route as the rejection\'s)', async () => {
  const text = await drivenProgressText(true);
  assert.is(count(text, /✗ answer rejected: .*unchanged/), 1, text);
  assert.is(count(text, /⏱ fix: deadline passed → late/), 1, text);
  assert.is(count(text, /fix: timeout → late/), 0, `no route line for the rejected answer: the deadline took it\n${text}`);
  assert.ok(text.indexOf('✗ answer rejected') < text.indexOf('⏱ fix'), text);
});

Deadline('a driven run with no timeout route prints the rejection, then the deadline failing the run, once', async () => {
  const text = await drivenProgressText(false);
  assert.is(count(text, /✗ answer rejected: .*unchanged/), 1, text);
  assert.is(count(text, /E_TIMEOUT/), 1, text);
  assert.match(text, /✗ fix: deadline passed: the run failed: E_TIMEOUT/);
  assert.ok(text.indexOf('✗ answer rejected') < text.indexOf('deadline passed'), text);
});

Deadline.run();
