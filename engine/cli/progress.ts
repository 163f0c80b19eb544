/**
 * `run` progress on stderr, node by node. On a terminal a spinner shows
 * that the agent is still working on the pending item; elsewhere (CI,
 * pipes) only whole lines are written, so logs stay readable.
 */
import { StringDecoder } from 'node:string_decoder';
import type { ProgressEvent } from '../run/driver.js';
import type { Io } from './io.js';

/**
 * The engine's hints name `step`'s flag (`--as`); under `run`, `--as` is
 * the agent's identity and a reviewer's is `--reviewer-id`.
 */
function inRun(error: string): string {
  return error.replace(/\(answer with --as <([^>]+)>\)$/, '(give the $1 another identity: run --resume … --reviewer-id <id>)');
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;
/** The longest unfinished agent line held back (characters); a longer one is written out, ended by a newline. */
const PARTIAL_CAP = 64 * 1024;

export interface ProgressPrinter {
  (event: ProgressEvent): void;
  /** Clears the spinner line; call when the run ends. */
  stop(): void;
  /**
   * Where agents' stderr goes: whole lines, each written after the spinner
   * line is cleared (the spinner redraws below them), so an agent's own
   * output never ends up glued to it.
   */
  agentOutput: NodeJS.WritableStream;
}

export function progressPrinter(io: Io, opts: { spinner: boolean; reviewer?: boolean }): ProgressPrinter {
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  /** A failure further on than the answered node: printed after the tool nodes on the way. */
  let deferred: string | undefined;
  const flush = () => {
    if (deferred) io.stderr.write(deferred);
    deferred = undefined;
  };
  const clear = () => {
    if (!timer) return;
    clearInterval(timer);
    timer = undefined;
    io.stderr.write('\r\x1b[2K');
  };
  const spin = (nodeId: string, who: string) => {
    if (!opts.spinner) return;
    let frame = 0;
    started = Date.now();
    timer = setInterval(() => {
      const secs = Math.floor((Date.now() - started) / 1000);
      io.stderr.write(`\r\x1b[2K  ${FRAMES[frame++ % FRAMES.length]} waiting for ${who} on ${nodeId} (${secs}s)`);
    }, FRAME_MS);
    timer.unref();
  };
  /**
   * An agent's line not yet ended: held while the spinner runs, written once
   * its newline comes, or once it passes PARTIAL_CAP (a progress bar drawn
   * with \r, a dump on one line), so memory stays bounded and nothing an
   * agent printed waits for a newline that may never come.
   */
  let partial: string[] = [];
  let partialLength = 0;
  // Chunks may split a UTF-8 character: the decoder keeps its first bytes for the next chunk.
  const decoder = new StringDecoder('utf8');
  const flushPartial = (final = false) => {
    const text = partial.join('') + (final ? decoder.end() : '');
    if (text) io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    partial = [];
    partialLength = 0;
  };
  const agentOutput = {
    write(chunk: string | Uint8Array): boolean {
      // Whole lines only, with or without a spinner: an unfinished line waits
      // for its newline (or the next progress line, which ends it first).
      const text = typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk));
      // Only the new text is searched: a long line arriving in many chunks costs its length, not its square.
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        partial.push(text);
        partialLength += text.length;
        if (partialLength > PARTIAL_CAP) {
          if (timer) io.stderr.write('\r\x1b[2K');
          flushPartial();
        }
        return true;
      }
      if (timer) io.stderr.write('\r\x1b[2K');
      io.stderr.write(partial.join('') + text.slice(0, end + 1));
      partial = [text.slice(end + 1)];
      partialLength = partial[0].length;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const print = ((e: ProgressEvent) => {
    clear();
    flushPartial();
    if (e.type === 'pending' || e.type === 'stopped') flush();
    switch (e.type) {
      case 'pending': {
        const p = e.state.pending;
        const first = p.kind === 'directive'
          ? (p.directive.split('\n').find((l) => l.trim()) ?? '')
          : p.kind === 'tool'
            ? `tool ${p.tool} (run by the engine)`
            : p.contract === 'issues'
            ? `review ${p.iteration} by ${p.reviewer} → ${p.report}`
            : `decision by persona ${p.persona.name} (${p.persona.model})`;
        io.stderr.write(`▸ ${p.nodeId}${p.attempt > 1 ? ` (attempt ${p.attempt}/${p.maxRetries + 1})` : ''}: ${first.length > 100 ? `${first.slice(0, 99).trimEnd()}…` : first}\n`);
        // Review items go to --reviewer (when given): the line names who is awaited.
        spin(p.nodeId, p.kind === 'review' && opts.reviewer ? 'the reviewer' : 'the agent');
        break;
      }
      case 'answered': {
        const verdict = e.verdict ?? (e.state.status === 'waiting' && e.state.rejected ? 'rejected' : 'accepted');
        if (verdict === 'replayed' || verdict === 'late') {
          io.stderr.write(verdict === 'late'
            ? `  ⏱ ${e.nodeId}: the answer came after the node's deadline and was not used\n`
            : `  ↺ ${e.nodeId} was answered elsewhere first (another step or host): this answer was not used\n`);
          break;
        }
        if (verdict !== 'accepted') {
          const errors = e.errors ?? (e.state.status === 'waiting' && e.state.rejected ? e.state.rejected.errors : []);
          io.stderr.write(
            verdict === 'error' ? `  ✗ ${e.nodeId}: the agent declared failure: ${errors.join('; ')}\n`
            : verdict === 'discarded' ? `  ✗ ${e.nodeId}: the answer was not taken: ${errors.join('; ')}\n`
            : `  ✗ answer rejected: ${errors.map(inRun).join('; ')}\n`,
          );
          // The deadline fired instead of asking again: its own ⏱ (or failure) line follows and says where the run went.
          if (e.deadlineFired) break;
          if (e.state.status === 'failed' && (e.state.error.nodeId ?? e.nodeId) === e.nodeId) io.stderr.write(`  ✗ ${e.nodeId}: the run failed: ${e.state.error.code}\n`);
          // Out of the node by its failure route (maxRetriesExceeded, error): said, since no ✓ leads there.
          else if (e.to) {
            io.stderr.write(`  · ${e.nodeId}: ${e.via} → ${e.to}\n`);
            // The run failed further on, past that route: said where, after the tool nodes on the way.
            if (e.state.status === 'failed') deferred = `  ✗ ${e.state.error.nodeId ?? e.to}: the run failed: ${e.state.error.code}\n`;
          }
          break;
        }
        if (e.state.status === 'failed') {
          // The run may fail further on (a tool node, the next review, a
          // condition): then this answer was accepted, and the failure is
          // said after the tool nodes on the way, when the drive ends.
          const at = e.state.error.nodeId ?? e.nodeId;
          if (at !== e.nodeId) {
            io.stderr.write(`  ✓ ${e.nodeId} answered\n`);
            deferred = `  ✗ ${at}: the run failed: ${e.state.error.code}\n`;
          } else io.stderr.write(`  ✗ ${at}: the run failed: ${e.state.error.code}\n`);
        } else io.stderr.write(`  ✓ ${e.nodeId} answered\n`);
        break;
      }
      case 'tool':
        io.stderr.write(e.ok ? `▸ ${e.nodeId}: tool ${e.tool} ✓\n` : `▸ ${e.nodeId}: tool ${e.tool} ✗ ${e.code}: ${e.message}\n`);
        break;
      case 'route':
        io.stderr.write(`  · ${e.from}${e.via === 'default' ? '' : `: ${e.via}`} → ${e.to}\n`);
        break;
      case 'refused':
        // No item was issued, so no ▸ line: why the node was left, then where to.
        io.stderr.write(`  ✗ ${e.nodeId}: ${e.code}: ${e.message}\n  · ${e.nodeId}: ${e.via} → ${e.to}\n`);
        break;
      case 'timeout':
        // Failed at the node itself (no timeout route): the deadline ended the run there.
        if (e.state.status === 'failed' && (!e.to || (e.state.error.nodeId ?? e.nodeId) === e.nodeId)) {
          io.stderr.write(`  ✗ ${e.nodeId}: deadline passed: the run failed: ${e.state.error.code}\n`);
          break;
        }
        io.stderr.write(`  ⏱ ${e.nodeId}: deadline passed${e.to ? ` → ${e.to}` : ''}\n`);
        // The timeout route led on to a node where the run failed: said there.
        if (e.state.status === 'failed') deferred = `  ✗ ${e.state.error.nodeId ?? e.to}: the run failed: ${e.state.error.code}\n`;
        break;
      case 'stopped':
        io.stderr.write(`  ■ stopped: ${e.error.code}: ${e.error.message}\n`);
        break;
    }
  }) as ProgressPrinter;
  print.stop = () => {
    clear();
    flushPartial(true);
    flush();
  };
  print.agentOutput = agentOutput;
  return print;
}
