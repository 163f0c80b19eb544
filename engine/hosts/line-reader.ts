/**
 * Reads a byte stream as lines, one awaited `read()` at a time. Shared by
 * the jsonl adapter (the agent's stdout) and the interactive adapter (the
 * person's stdin). The stream is paused whenever nobody is waiting, and a
 * line that arrives after its reader gave up stays queued for the next
 * `read()`. Disposed, it also lets go of the stream's handle: a paused
 * stdin (a terminal, a pipe held open) would otherwise keep the process
 * alive after the run has ended.
 */

import { isUtf8 } from 'node:buffer';

/** Why `read()` resolved without a line. */
export type LineEnd = { end: 'eof'; unfinished?: string; notUtf8?: true } | { end: 'too-long'; limit: number } | { end: 'aborted' };

/** A line; `notUtf8` when its bytes are no UTF-8 text (`line` then holds U+FFFD where they were: never to be taken as written). */
export type LineResult = { line: string; notUtf8?: true } | LineEnd;

interface Waiter {
  settle: (r: LineResult) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Lines longer than this many bytes are refused rather than buffered without bound. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

type TooLong = { end: 'too-long'; limit: number };
/** A socket-backed stream (stdin on a terminal or pipe, a child's stdout): its handle keeps the process alive unless unref'd. */
type Refable = { ref(): unknown; unref(): unknown };

export class LineReader {
  /** Lines not yet read, and (when over-long lines are skipped) where one was. */
  private readonly lines: Array<Line | TooLong> = [];
  private readonly waiters: Waiter[] = [];
  /** The bytes of the line under way (chunks, joined once its newline comes). */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private ended: LineEnd | undefined;
  private disposed = false;
  /** Dropping the rest of an over-long line, up to its newline. */
  private skipping = false;
  /** unread() is taking in everything the stream holds. */
  private draining = false;

  private readonly onData = (chunk: string | Buffer): void => this.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = (): void => this.finish({ end: 'eof' });

  /**
   * `overlong`: what a line longer than `maxLineBytes` does. `end` (a
   * protocol stream, the jsonl agent's stdout): the reader ends, the stream
   * is out of step. `skip` (a person typing): that line is dropped and
   * read() says so once, and the lines after it are read as usual.
   */
  constructor(
    private readonly stream: NodeJS.ReadableStream,
    private readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
    private readonly overlong: 'end' | 'skip' = 'end',
    /**
     * What text after the last newline is at the end of the stream. `line`
     * (a person's last line): a line. `unfinished` (a protocol stream): not
     * a line — the writer stopped mid-line — handed over as the end's
     * `unfinished`, for the reader to judge by how the writer ended.
     */
    private readonly unterminated: 'line' | 'unfinished' = 'line',
  ) {
    // Bytes, not text: a line is decoded once whole, and one that is no UTF-8 is said so (never read with U+FFFD in it).
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('close', this.onEnd);
    stream.on('error', this.onEnd);
    stream.pause();
    // A reader made again on a stream an earlier one let go of (the same stdin, a second run).
    (stream as Partial<Refable>).ref?.();
  }

  /**
   * The next line without its line break (a trailing `\r` is dropped), or
   * why there is none. Aborting `signal` resolves `{end: 'aborted'}` and
   * leaves later lines for the next call.
   */
  read(signal?: AbortSignal): Promise<LineResult> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(this.ended);
    if (signal?.aborted) return Promise.resolve({ end: 'aborted' });
    return new Promise((resolve) => {
      const waiter: Waiter = { settle: resolve, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.removeWaiter(waiter);
          resolve({ end: 'aborted' });
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.stream.resume();
    });
  }

  /**
   * Takes the lines written so far that nobody has read: those already
   * queued, and those waiting in the stream, read in one turn of the event
   * loop. Blank lines are left out. For a protocol where nothing may come
   * unasked (the jsonl agent before a request).
   */
  async unread(): Promise<string[]> {
    if (!this.ended && !this.disposed && this.waiters.length === 0) {
      // Every chunk waiting in the stream, not only the first: a line
      // delivered with nobody waiting would otherwise pause it again.
      this.draining = true;
      this.stream.resume();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      this.draining = false;
      if (this.waiters.length === 0 && !this.disposed) this.stream.pause();
    }
    return this.lines.splice(0).flatMap((l) => ('line' in l && l.line.trim() !== '' ? [l.line] : []));
  }

  /**
   * Whether input is already there beyond what was read: a queued line, a
   * line under way, or bytes the paused stream holds (text pasted ahead of
   * the prompt that would ask for it).
   */
  hasUnread(): boolean {
    return this.lines.length > 0 || this.partialBytes > 0 || ((this.stream as { readableLength?: number }).readableLength ?? 0) > 0;
  }

  /** Text after the last newline so far, taken out of the reader (its writer is gone though its stream is not). */
  takeUnfinished(): { line: string; notUtf8?: true } | undefined {
    return this.partialBytes > 0 ? lineOf(this.takePartial()) : undefined;
  }

  /** Stops listening and pauses the stream; pending reads see EOF. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stream.removeListener('data', this.onData);
    this.stream.removeListener('end', this.onEnd);
    this.stream.removeListener('close', this.onEnd);
    this.stream.removeListener('error', this.onEnd);
    this.stream.pause();
    (this.stream as Partial<Refable>).unref?.();
    this.finish({ end: 'eof' });
  }

  private push(chunk: Buffer): void {
    if (this.ended) return;
    let start = 0;
    if (this.skipping) {
      const end = chunk.indexOf(10);
      if (end === -1) return;
      start = end + 1;
      this.skipping = false;
    }
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      // Measured per line, so the limit holds however the stream is chunked.
      if (this.partialBytes + piece.length > this.maxLineBytes) {
        this.dropPartial();
        if (!this.tooLong()) return;
        continue;
      }
      this.deliver(lineOf(this.takePartial(piece)));
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.partial.push(rest);
      this.partialBytes += rest.length;
      if (this.partialBytes > this.maxLineBytes) {
        this.dropPartial();
        if (this.tooLong()) this.skipping = true;
      }
    }
  }

  /** The line under way, ending with `last`; the buffer is emptied. */
  private takePartial(last?: Buffer): Buffer {
    const parts = last ? [...this.partial, last] : this.partial;
    const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.dropPartial();
    return bytes;
  }

  private dropPartial(): void {
    this.partial = [];
    this.partialBytes = 0;
  }

  /** An over-long line: ends the reader (false), or is dropped and said (true: go on reading). */
  private tooLong(): boolean {
    const end: TooLong = { end: 'too-long', limit: this.maxLineBytes };
    if (this.overlong === 'end') {
      this.dropPartial();
      this.finish(end);
      return false;
    }
    this.deliver(end);
    return true;
  }

  private deliver(line: Line | TooLong): void {
    const waiter = this.waiters.shift();
    if (waiter) this.settle(waiter, line);
    else this.lines.push(line);
    if (this.waiters.length === 0 && !this.draining) this.stream.pause();
  }

  private finish(end: LineEnd): void {
    if (this.ended) return;
    if (end.end === 'eof' && this.partialBytes > 0) {
      const last = lineOf(this.takePartial());
      // A final line without a trailing newline: a line, or said as unfinished.
      if (this.unterminated === 'line') this.deliver(last);
      else end = { end: 'eof', unfinished: last.line, ...(last.notUtf8 ? { notUtf8: true as const } : {}) };
    }
    this.ended = end;
    for (const waiter of this.waiters.splice(0)) this.settle(waiter, end);
  }

  private settle(waiter: Waiter, result: LineResult): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
    waiter.settle(result);
  }

  private removeWaiter(waiter: Waiter): void {
    const i = this.waiters.indexOf(waiter);
    if (i !== -1) this.waiters.splice(i, 1);
    if (this.waiters.length === 0 && !this.disposed) this.stream.pause();
  }
}

type Line = { line: string; notUtf8?: true };

/** A line's text, without its line break's `\r`. */
function lineOf(bytes: Buffer): Line {
  const body = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, -1) : bytes;
  const line = body.toString('utf8');
  return isUtf8(body) ? { line } : { line, notUtf8: true };
}
