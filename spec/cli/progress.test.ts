import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { progressPrinter } from '../../engine/cli/progress.js';
import type { Io } from '../../engine/cli/io.js';

const Progress = suite('run progress');

const waiting = {
  runId: 'r', seq: 1, status: 'waiting' as const,
  pending: { kind: 'directive' as const, nodeId: 'write', directive: '\nWrite it.\nMore.', completionCondition: 'c', inputSchema: {}, attempt: 1, maxRetries: 3 },
};

function capture(): { io: Io; text: () => string } {
  const err = new PassThrough();
  const chunks: string[] = [];
  err.on('data', (c) => chunks.push(String(c)));
  const io = { stdout: new PassThrough(), stderr: err, stdin: new PassThrough(), cwd: '/', env: {}, isTTY: true } as Io;
  return { io, text: () => chunks.join('') };
}

Progress('on a terminal a spinner runs while the agent works and is cleared before the next line', async () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: true });
  p({ type: 'pending', state: waiting });
  await new Promise((r) => setTimeout(r, 200));
  p({ type: 'answered', state: { runId: 'r', seq: 1, status: 'completed', endNodeId: 'done', output: {} }, nodeId: 'write' });
  p.stop();
  const out = text();
  assert.match(out, /^▸ write: Write it\.\n/);
  assert.match(out, /⠋ waiting for the agent on write \(0s\)/);
  assert.match(out, /\r\x1b\[2K  ✓ write answered\n$/);
});

Progress('on a terminal the spinner names the reviewer while a review item is out to --reviewer', async () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: true, reviewer: true });
  const review = { ...waiting, pending: { kind: 'review' as const, contract: 'issues' as const, nodeId: 'review', reviewer: 'reviewer', prompt: 'p', artifacts: [], criteria: [], context: [], report: '/r.json', iteration: 1, attempt: 1, maxRetries: 3, inputSchema: {} } };
  p({ type: 'pending', state: review });
  await new Promise((r) => setTimeout(r, 200));
  p.stop();
  assert.match(text(), /waiting for the reviewer on review \(0s\)/);
});

Progress('an agent\'s stderr lines never land on the spinner\'s line: the line is cleared before each, and a partial line waits for its newline', async () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: true });
  p({ type: 'pending', state: waiting });
  await new Promise((r) => setTimeout(r, 120));
  p.agentOutput.write('agent: working');
  await new Promise((r) => setTimeout(r, 120));
  p.agentOutput.write(' hard\nagent: half');
  await new Promise((r) => setTimeout(r, 120));
  p({ type: 'answered', state: { runId: 'r', seq: 1, status: 'completed', endNodeId: 'done', output: {} }, nodeId: 'write' });
  p.stop();
  const out = text();
  assert.match(out, /\(0s\)\r\x1b\[2Kagent: working hard\n/, 'the spinner line is cleared, then the whole agent line');
  assert.not.match(out, /\(0s\)agent/, 'never glued to the spinner text');
  assert.match(out, /\r\x1b\[2Kagent: half\n  ✓ write answered\n$/, 'the partial line is ended before the next progress line');
  const plain = capture();
  const q = progressPrinter(plain.io, { spinner: false });
  q.agentOutput.write('as is\nthinking...');
  assert.is(plain.text(), 'as is\n', 'without a spinner whole lines pass straight through');
  q({ type: 'answered', state: { runId: 'r', seq: 1, status: 'completed', endNodeId: 'done', output: {} }, nodeId: 'write' });
  assert.is(plain.text(), 'as is\nthinking...\n  ✓ write answered\n', 'an unfinished line is ended before the next progress line');
});

Progress('an agent\'s unfinished line is held only up to 64 KiB: a longer one (a \\r progress bar, a dump on one line) is written out without waiting for a newline, whole, and a UTF-8 character split across chunks stays whole', () => {
  const plain = capture();
  const q = progressPrinter(plain.io, { spinner: false });
  const chunk = 'x'.repeat(16 * 1024);
  for (let i = 0; i < 8; i++) q.agentOutput.write(Buffer.from(chunk));
  assert.ok(plain.text().length >= 64 * 1024, `written before any newline came (${plain.text().length} characters so far)`);
  q.agentOutput.write(Buffer.from([0xe2, 0x9c]));
  q.agentOutput.write(Buffer.from([0x93, 0x0a]));
  q.stop();
  const out = plain.text();
  assert.is(out.replace(/\n/g, '').length, 8 * chunk.length + 1, 'nothing is lost');
  assert.ok(out.endsWith('✓\n'), 'the split character is decoded whole');
});

Progress('an answer not taken because a tool failed while the agent worked says so (never "answered"), with the error route it took', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  p({ type: 'answered', state: { runId: 'r', seq: 2, status: 'completed', endNodeId: 'end2', output: {} }, nodeId: 'ask', verdict: 'discarded', errors: ['node "ask": tool "deploy" failed while the agent worked on this item: registry down'], via: 'error', to: 'end2' });
  assert.is(text(), '  ✗ ask: the answer was not taken: node "ask": tool "deploy" failed while the agent worked on this item: registry down\n  · ask: error → end2\n');
});

Progress('a directive line longer than 100 characters is shortened with an ellipsis, so it never reads as the whole directive', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  const long = `${'word '.repeat(30)}end`;
  p({ type: 'pending', state: { ...waiting, pending: { ...waiting.pending, directive: long } } });
  assert.match(text(), /^▸ write: (word ){19}word…\n$/);
  const { io: io2, text: text2 } = capture();
  progressPrinter(io2, { spinner: false })({ type: 'pending', state: { ...waiting, pending: { ...waiting.pending, directive: 'short one' } } });
  assert.is(text2(), '▸ write: short one\n');
});

Progress('without a spinner only whole lines are written (CI logs, pipes)', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  p({ type: 'pending', state: { ...waiting, pending: { ...waiting.pending, attempt: 2 } } });
  p({ type: 'stopped', error: { code: 'E_AGENT_CRASHED', message: 'exit 1', nodeId: 'write' } });
  assert.is(text(), '▸ write (attempt 2/4): Write it.\n  ■ stopped: E_AGENT_CRASHED: exit 1\n');
});

Progress('a run that fails entering the next node (a refused review path) shows the answer as accepted and the failure at that node', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  const failed = (nodeId: string) => ({ runId: 'r', seq: 2, status: 'failed' as const, error: { code: 'E_PATH_OUTSIDE_WORKSPACE', message: 'outside', nodeId } });
  p({ type: 'answered', state: failed('review'), nodeId: 'produce' });
  p.stop();
  assert.is(text(), '  ✓ produce answered\n  ✗ review: the run failed: E_PATH_OUTSIDE_WORKSPACE\n');
  p({ type: 'answered', state: failed('review'), nodeId: 'review' });
  assert.match(text(), /\n  ✗ review: the run failed: E_PATH_OUTSIDE_WORKSPACE\n$/);
  assert.not.match(text(), 'review answered');
});

Progress('tool nodes on the way are shown after the answer that led to them and before the failure they caused', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  const failed = { runId: 'r', seq: 3, status: 'failed' as const, error: { code: 'E_TOOL_FAILED', message: 'gh exited 1', nodeId: 'post' } };
  p({ type: 'answered', state: failed, nodeId: 'review' });
  p({ type: 'tool', nodeId: 'post', tool: 'post_review', ok: false, code: 'E_TOOL_FAILED', message: 'gh exited 1' });
  p.stop();
  assert.is(text(), '  ✓ review answered\n▸ post: tool post_review ✗ E_TOOL_FAILED: gh exited 1\n  ✗ post: the run failed: E_TOOL_FAILED\n');
});

Progress('an answer another step or host gave first is said with ↺ (this answer was not used); a late one with ⏱', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  p({ type: 'answered', state: waiting, nodeId: 'write', verdict: 'replayed' });
  p({ type: 'answered', state: waiting, nodeId: 'write', verdict: 'late' });
  p.stop();
  assert.is(text(), "  ↺ write was answered elsewhere first (another step or host): this answer was not used\n  ⏱ write: the answer came after the node's deadline and was not used\n");
});

Progress('under run, a self-review rejection\'s hint names run\'s flag for the reviewer\'s identity (--reviewer-id), never step\'s --as (the agent\'s identity under run)', () => {
  const { io, text } = capture();
  const p = progressPrinter(io, { spinner: false });
  const rejected = { ...waiting, rejected: { code: 'E_SELF_REVIEW', errors: ['"agent" produced or fixed the artifacts of review "review" (answer with --as <reviewer>)'] } };
  p({ type: 'answered', state: rejected, nodeId: 'review', verdict: 'rejected', errors: rejected.rejected.errors });
  p.stop();
  assert.match(text(), '(give the reviewer another identity: run --resume … --reviewer-id <id>)');
  assert.not.match(text(), '--as');
});

Progress.run();
