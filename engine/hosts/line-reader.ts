/**
 * Reads a byte stream as lines, one awaited `read()` at a time. Shared by
 * the jsonl adapter (the agent's stdout) and the interactive adapter (the
 * person's stdin). The stream is paused whenever nobody is waiting, and a
 * line that arrives after its reader gave up stays queued for the next
 * `read()`. Disposed, it also lets go of the stream's handle: a paused
 * stdin (a terminal, a pipe held open) would otherwise keep the process
 * alive after the run has ended.
 */

/** Why `read()` resolved without a line. */
export type LineEnd = { end: 'eof'; unfinished?: string } | { end: 'too-long'; limit: number } | { end: 'aborted' };

export type LineResult = { line: string } | LineEnd;

interface Waiter {
  settle: (r: LineResult) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Lines longer than this are refused rather than buffered without bound. */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

type TooLong = { end: 'too-long'; limit: number };
/** A socket-backed stream (stdin on a terminal or pipe, a child's stdout): its handle keeps the process alive unless unref'd. */
type Refable = { ref(): unknown; unref(): unknown };

export class LineReader {
  /** Lines not yet read, and (when over-long lines are skipped) where one was. */
  private readonly lines: Array<string | TooLong> = [];
  private readonly waiters: Waiter[] = [];
  private partial = '';
  private ended: LineEnd | undefined;
  private disposed = false;
  /** Dropping the rest of an over-long line, up to its newline. */
  private skipping = false;
  /** unread() is taking in everything the stream holds. */
  private draining = false;

  private readonly onData = (chunk: string | Buffer): void => this.push(String(chunk));
  private readonly onEnd = (): void => this.finish({ end: 'eof' });

  /**
   * `overlong`: what a line longer than `maxLineChars` does. `end` (a
   * protocol stream, the jsonl agent's stdout): the reader ends, the stream
   * is out of step. `skip` (a person typing): that line is dropped and
   * read() says so once, and the lines after it are read as usual.
   */
  constructor(
    private readonly stream: NodeJS.ReadableStream,
    private readonly maxLineChars: number = DEFAULT_MAX_LINE_CHARS,
    private readonly overlong: 'end' | 'skip' = 'end',
    /**
     * What text after the last newline is at the end of the stream. `line`
     * (a person's last line): a line. `unfinished` (a protocol stream): not
     * a line — the writer stopped mid-line — handed over as the end's
     * `unfinished`, for the reader to judge by how the writer ended.
     */
    private readonly unterminated: 'line' | 'unfinished' = 'line',
  ) {
    stream.setEncoding('utf8');
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
    if (queued !== undefined) return Promise.resolve(typeof queued === 'string' ? { line: queued } : queued);
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
    return this.lines.splice(0).filter((l): l is string => typeof l === 'string' && l.trim() !== '');
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

  private push(text: string): void {
    if (this.ended) return;
    let rest = this.partial + text;
    if (this.skipping) {
      const end = rest.indexOf('\n');
      if (end === -1) {
        this.partial = '';
        return;
      }
      rest = rest.slice(end + 1);
      this.skipping = false;
    }
    let nl = rest.indexOf('\n');
    while (nl !== -1) {
      const raw = rest.slice(0, nl);
      // Measured per line, so the limit holds however the stream is chunked.
      if (raw.length > this.maxLineChars) {
        if (!this.tooLong()) return;
      } else this.deliver(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
      rest = rest.slice(nl + 1);
      nl = rest.indexOf('\n');
    }
    this.partial = rest;
    if (this.partial.length > this.maxLineChars) {
      this.partial = '';
      if (this.tooLong()) this.skipping = true;
    }
  }

  /** An over-long line: ends the reader (false), or is dropped and said (true: go on reading). */
  private tooLong(): boolean {
    const end: TooLong = { end: 'too-long', limit: this.maxLineChars };
    if (this.overlong === 'end') {
      this.partial = '';
      this.finish(end);
      return false;
    }
    this.deliver(end);
    return true;
  }

  private deliver(line: string | TooLong): void {
    const waiter = this.waiters.shift();
    if (waiter) this.settle(waiter, typeof line === 'string' ? { line } : line);
    else this.lines.push(line);
    if (this.waiters.length === 0 && !this.draining) this.stream.pause();
  }

  private finish(end: LineEnd): void {
    if (this.ended) return;
    if (end.end === 'eof' && this.partial !== '') {
      const last = this.partial.endsWith('\r') ? this.partial.slice(0, -1) : this.partial;
      this.partial = '';
      // A final line without a trailing newline: a line, or said as unfinished.
      if (this.unterminated === 'line') this.deliver(last);
      else end = { end: 'eof', unfinished: last };
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
