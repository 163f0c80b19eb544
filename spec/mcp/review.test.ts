/** `countersign mcp`: a delegate-review loop answered by two identities, with the independence rules of issue 3 unchanged. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { connect, MCP_WORKFLOWS, type McpSession } from '../fixtures/mcp/client.js';

const Review = suite<{ mcp: McpSession; ws: string }>('mcp: review loop');

Review.before(async (ctx) => {
  ctx.ws = tempDir('countersign-mcp-review-ws-');
  // The server's own default workspace is the temp folder: runs started without one work there.
  ctx.mcp = await connect(['--store', join(tempDir('countersign-mcp-review-'), 'store'), '--workflows', MCP_WORKFLOWS, '--workspace', ctx.ws]);
});
Review.after(async (ctx) => {
  await ctx.mcp?.close();
});

Review('a review loop converges 2 → 0 over MCP with a producer and a reviewer identity (G1 G4 G7 G8)', async ({ mcp, ws }) => {
  const started = await mcp.call('start', { workflow: 'notes-review' });
  assert.is(started.isError, false, started.text);
  const { runId } = started.structured;
  assert.is(started.structured.pending.requiresIdentity, true);
  assert.match(started.text, /IDENTITY REQUIRED/);
  assert.match(started.text, /"as": "<your identity>"/);

  // The producer needs an identity too: without one nothing is used up.
  const anonymous = await mcp.call('step', { runId, seq: 1, answer: {} });
  assert.is(anonymous.isError, true);
  assert.is(anonymous.structured.error.code, 'E_IDENTITY_REQUIRED');
  assert.match(anonymous.structured.error.fix, /^answer with the "as" argument set to <identity>;/, 'the hint names the MCP argument, not --as');

  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const review = await mcp.call('step', { runId, seq: 1, as: 'author', answer: {} });
  assert.is(review.isError, false, review.text);
  const item = review.structured.pending;
  assert.is(item.kind, 'review');
  const report = join(ws, 'review.json');
  assert.is(item.report, report);
  assert.ok(review.text.includes(item.prompt), 'the text carries the review prompt');
  assert.ok(review.text.includes(report), 'the text carries the report path');
  assert.match(review.text, /another identity than the one that produced/);
  assert.match(review.text, /"seq": 2, "as": "<reviewer identity>", "answer": \{"issues_count": N\}/);
  assert.match(review.text, /YOU ARE reviewer\. Your assessment determines if we proceed\./);

  // Identity rules hold unchanged: no identity is a tool error, the producer's identity a rejection that costs no attempt.
  const noAs = await mcp.call('step', { runId, seq: 2, answer: { issues_count: 0 } });
  assert.is(noAs.isError, true);
  assert.is(noAs.structured.error.code, 'E_IDENTITY_REQUIRED');
  writeFileSync(report, JSON.stringify({ issues: [] }));
  const self = await mcp.call('step', { runId, seq: 2, as: 'author', answer: { issues_count: 0 } });
  assert.is(self.isError, false);
  assert.is(self.structured.rejected.code, 'E_SELF_REVIEW');
  assert.is(self.structured.pending.attempt, 1);
  assert.match(self.text, /REJECTED \(E_SELF_REVIEW\)/);
  assert.match(self.structured.rejected.errors.join(' '), /answer with the "as" argument set to <reviewer>/);
  assert.not.match(self.text, /--as/);
  // A free rejection leaves the item as issued: the real reviewer still answers seq 2.
  assert.is(self.structured.seq, 2);

  writeFileSync(report, JSON.stringify({ issues: ['heading A has no body', 'the file has no title'] }));
  const fix = await mcp.call('step', { runId, seq: 2, as: 'checker', answer: { issues_count: 2 } });
  assert.is(fix.isError, false, fix.text);
  assert.is(fix.structured.pending.nodeId, 'fix');
  assert.match(fix.text, new RegExp(`Fix the 2 issue\\(s\\) listed in ${report.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

  writeFileSync(join(ws, 'notes.md'), '# Notes\n\n## A\nbody\n');
  const again = await mcp.call('step', { runId, seq: 3, as: 'author', answer: {} });
  assert.is(again.structured.pending.kind, 'review');
  assert.is(again.structured.pending.iteration, 2);
  assert.ok(existsSync(`${report}.prev`), 'the previous report is kept as .prev');
  assert.ok(!existsSync(report), 'the report was moved aside for the new review');

  writeFileSync(report, JSON.stringify({ issues: [] }));
  const done = await mcp.call('step', { runId, seq: 4, as: 'checker', answer: { issues_count: 0 } });
  assert.equal(done.structured, { runId, seq: 4, status: 'completed', endNodeId: 'done', output: { issues_count: 0 } });

  const trace = await mcp.call('trace', { runId });
  const events = trace.structured.events as Array<{ type: string; nodeId?: string; userId?: string; issues_count?: number }>;
  assert.equal(events.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count), [2, 0]);
  assert.equal([...new Set(events.filter((e) => e.type === 'answer.accepted' && e.nodeId === 'review').map((e) => e.userId))], ['checker']);
  assert.equal(JSON.parse(readFileSync(`${report}.prev`, 'utf8')).issues.length, 2);
});

Review('seed 003 G8 G17: a reviewer that answers a count the report does not hold is rejected with E_REPORT_MISMATCH and asked again', async ({ mcp }) => {
  const ws = tempDir('countersign-mcp-review-ws2-');
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const { runId } = (await mcp.call('start', { workflow: 'notes-review', workspace: ws })).structured;
  await mcp.call('step', { runId, seq: 1, as: 'author', answer: {} });
  writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['one'] }));
  const r = await mcp.call('step', { runId, seq: 2, as: 'checker', answer: { issues_count: 3 } });
  assert.is(r.isError, false);
  assert.is(r.structured.rejected.code, 'E_REPORT_MISMATCH');
  assert.match(r.text, /REJECTED \(E_REPORT_MISMATCH\)[\s\S]*attempt 2 of 4/);
});

Review('seed 003 G8 G15: a review with a .md report tells the reviewer to write Markdown list items, and a reviewer who does so is taken at its count', async ({ mcp }) => {
  const ws = tempDir('countersign-mcp-review-md-');
  const workflow = join(ws, 'notes-review-md.yaml');
  writeFileSync(workflow, readFileSync(join(MCP_WORKFLOWS, 'notes-review.yaml'), 'utf8').replace('report: review.json', 'report: review.md').replace('name: notes-review,', 'name: notes-review-md,'));
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const { runId } = (await mcp.call('start', { workflow, workspace: ws })).structured;
  const review = await mcp.call('step', { runId, seq: 1, as: 'author', answer: {} });
  const report = review.structured.pending.report as string;
  assert.is(report, join(ws, 'review.md'));
  // Both parts of the text ask for the same thing: the review prompt and the report-file line.
  assert.match(review.text, /with Markdown: one top-level list item/);
  assert.match(review.text, /REPORT FILE \(overwrite it with Markdown/);
  assert.not.match(review.text, /\{"issues"/, 'no JSON report shape is suggested for a .md report');
  writeFileSync(report, '- heading A has no body\n- the file has no title\n');
  const fix = await mcp.call('step', { runId, seq: 2, as: 'checker', answer: { issues_count: 2 } });
  assert.is(fix.isError, false, fix.text);
  assert.is(fix.structured.pending.nodeId, 'fix', fix.text);
});

Review.run();
