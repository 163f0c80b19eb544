/**
 * The line under way at a terminal in raw mode and what each key does to
 * it, as the kernel's line editing would: echo, backspace over whole
 * characters (wide ones, tabs), Ctrl-U, Ctrl-W, the signal keys, Ctrl-D.
 * terminal-lines.ts feeds it the bytes typed and acts on what it returns.
 */
const ESC = 0x1b;
const TAB_STOP = 8;

/** The keys that raise a signal (Ctrl-C, Ctrl-\, Ctrl-Z), wherever they are typed. */
export const SIGNAL_KEYS: ReadonlyMap<number, { signal: NodeJS.Signals; shown: string }> = new Map([
  [0x03, { signal: 'SIGINT', shown: '^C' }],
  [0x1c, { signal: 'SIGQUIT', shown: '^\\' }],
  [0x1a, { signal: 'SIGTSTP', shown: '^Z' }],
]);

export interface Fed {
  /** What to show: typed text, and the erasing of what was taken back. */
  echo: string | Buffer;
  /** Bytes for the reader: finished lines (with `\n`), or a line's start it no longer waits on. */
  lines: Buffer[];
  signal?: NodeJS.Signals;
  eof?: boolean;
  /** A line ended (Enter, or Ctrl-D ending a dropped one): the bytes after it are the next line's. */
  lineEnded?: boolean;
  /** The chunk's bytes after the line's end, left for the prompt that asks for the next line. */
  rest?: Buffer;
}

/** The line under way and what each key does to it. */
export class LineEditor {
  /** The line's bytes so far (chunks; joined when it ends). */
  private parts: Buffer[] = [];
  private bytes = 0;
  /**
   * Past the limit: the line is dropped. The reader gets it (and says so)
   * only at its end, so the prompt that asks again comes after it, not
   * amid the rest of it, which is neither kept nor echoed.
   */
  private overflow = false;
  /** Inside an escape sequence (an arrow key, a function key): 'esc' after ESC, 'csi' after ESC [, 'ss3' after ESC O. */
  private escape: 'esc' | 'csi' | 'ss3' | undefined;
  /** The last byte ended a line with `\r`: a `\n` right after it is the same line end. */
  private afterCR = false;

  constructor(
    private readonly startColumn: number,
    private readonly maxLineBytes: number,
  ) {}

  feed(chunk: Buffer): Fed {
    const echo: Array<string | Buffer> = [];
    const out: Fed = { echo: '', lines: [] };
    let run = -1;
    const flush = (end: number) => {
      if (run === -1) return;
      const typed = Buffer.from(chunk.subarray(run, end));
      run = -1;
      echo.push(this.append(typed));
    };
    for (let i = 0; i < chunk.length && out.signal === undefined && !out.eof && !out.lineEnded; i++) {
      const b = chunk[i];
      if (this.escape && this.skipEscape(b)) continue;
      const lf = b === 0x0a;
      if (lf && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      this.afterCR = false;
      if ((b >= 0x20 && b !== 0x7f) || b === 0x09) {
        if (run === -1) run = i;
        continue;
      }
      flush(i);
      if (b === 0x0d || lf) {
        this.afterCR = b === 0x0d;
        // Shown as the kernel shows it: a newline, which the terminal's output processing makes \r\n.
        echo.push('\n');
        this.endLine(out, chunk, i);
      } else if (b === 0x04 && this.overflow) {
        // Ends a dropped line as Enter does: the reader says so only now, and the prompt asks again on a line of its own.
        echo.push('\n');
        this.endLine(out, chunk, i);
      } else if (b === 0x7f || b === 0x08) echo.push(this.eraseChar());
      else if (b === 0x15) echo.push(this.eraseLine());
      else if (b === 0x17) echo.push(this.eraseWord());
      else if (SIGNAL_KEYS.has(b)) {
        // As the kernel does: say the key, forget the line, raise the signal.
        const key = SIGNAL_KEYS.get(b)!;
        echo.push(key.shown);
        this.drop();
        out.signal = key.signal;
      } else if (b === 0x04) {
        // On an empty line, end of input; after text, that text goes to the reader without a line end (a second Ctrl-D then ends the input).
        if (this.bytes === 0) out.eof = true;
        else out.lines.push(this.take(false));
      } else if (b === ESC) this.escape = 'esc';
      // Any other control key has no meaning here and is not part of an answer.
    }
    if (out.signal === undefined && !out.eof && !out.lineEnded) flush(chunk.length);
    out.echo = echo.length === 1 ? echo[0] : Buffer.concat(echo.map((e) => (typeof e === 'string' ? Buffer.from(e) : e)));
    return out;
  }

  /** Adds typed text to the line; returns what of it to echo (none past the limit). */
  private append(typed: Buffer): Buffer {
    if (this.overflow) return EMPTY;
    const room = this.maxLineBytes - this.bytes;
    this.parts.push(typed);
    this.bytes += typed.length;
    if (typed.length <= room) return typed;
    // Kept (limit + 1 bytes at most) for the reader, whose limit drops the line and says so when it ends.
    this.overflow = true;
    this.parts[this.parts.length - 1] = typed.subarray(0, room + 1);
    this.bytes = this.maxLineBytes + 1;
    return typed.subarray(0, characterStart(typed, room));
  }

  /** Hands the line over with its end; the chunk's bytes after byte `at` are left for the next line. */
  private endLine(out: Fed, chunk: Buffer, at: number): void {
    out.lines.push(this.take(true));
    out.lineEnded = true;
    if (at + 1 < chunk.length) out.rest = chunk.subarray(at + 1);
  }

  /** A signal key typed ahead: the line under way is forgotten, as the kernel forgets it. */
  forgetLine(): void {
    this.drop();
  }

  /** The line so far, handed over (with its line end when `ended`), and a fresh one begun. */
  private take(ended: boolean): Buffer {
    const body = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    this.drop();
    return ended ? Buffer.concat([body, Buffer.from('\n')]) : body;
  }

  private drop(): void {
    this.parts = [];
    this.bytes = 0;
    this.overflow = false;
  }

  /**
   * Consumes a byte of an escape sequence (its keys — arrows, Home, F1… —
   * edit nothing here). A control key ends the sequence and is itself read
   * (false): Esc then Enter still ends the line.
   */
  private skipEscape(b: number): boolean {
    if (b < 0x20 || b === 0x7f) {
      this.escape = undefined;
      return false;
    }
    if (this.escape === 'esc') this.escape = b === 0x5b ? 'csi' : b === 0x4f ? 'ss3' : undefined;
    else if (this.escape === 'ss3') this.escape = undefined;
    else if (b >= 0x40 && b <= 0x7e) this.escape = undefined;
    return true;
  }

  /** Takes back the last character (all of its bytes) and returns what erases it on screen. */
  private eraseChar(): string {
    const last = this.popCharacter();
    if (last === undefined) return '';
    const width = last === '\t' ? this.tabWidthAfter() : displayWidth(last.codePointAt(0)!);
    return '\b'.repeat(width) + (last === '\t' ? '' : ' '.repeat(width) + '\b'.repeat(width));
  }

  /** Ctrl-U: the whole line, measured once (a long paste is not taken back one character at a time). */
  private eraseLine(): string {
    if (this.overflow || this.bytes === 0) return '';
    const width = this.columnAfterLine() - this.startColumn;
    this.drop();
    return '\b'.repeat(width) + ' '.repeat(width) + '\b'.repeat(width);
  }

  private eraseWhile(keep: (c: string) => boolean): string {
    let shown = '';
    for (let c = this.peekCharacter(); c !== undefined && keep(c); c = this.peekCharacter()) shown += this.eraseChar();
    return shown;
  }

  /** Ctrl-W: the blanks before the cursor, then the word before them. */
  private eraseWord(): string {
    return this.eraseWhile((c) => c === ' ' || c === '\t') + this.eraseWhile((c) => c !== ' ' && c !== '\t');
  }

  /** The last character of the line, left in it. */
  private peekCharacter(): string | undefined {
    const tail = this.tail();
    return tail === undefined ? undefined : tail.toString('utf8');
  }

  private popCharacter(): string | undefined {
    const tail = this.tail();
    if (tail === undefined) return undefined;
    let left = tail.length;
    this.bytes -= left;
    while (left > 0) {
      const last = this.parts[this.parts.length - 1];
      const cut = Math.min(left, last.length);
      if (cut === last.length) this.parts.pop();
      else this.parts[this.parts.length - 1] = last.subarray(0, last.length - cut);
      left -= cut;
    }
    return tail.toString('utf8');
  }

  /** The bytes of the line's last character: its UTF-8 lead byte and what follows it (one byte when they are no UTF-8). */
  private tail(): Buffer | undefined {
    if (this.overflow || this.bytes === 0) return undefined;
    const end: number[] = [];
    for (let p = this.parts.length - 1; p >= 0 && end.length < 4; p--) {
      const part = this.parts[p];
      for (let i = part.length - 1; i >= 0 && end.length < 4; i--) end.unshift(part[i]);
    }
    let start = end.length - 1;
    while (start > 0 && (end[start] & 0xc0) === 0x80 && end.length - start < 4) start--;
    const bytes = Buffer.from(end.slice(start));
    // Continuation bytes with no lead byte before them: one byte at a time.
    return (bytes[0] & 0xc0) === 0x80 ? bytes.subarray(bytes.length - 1) : bytes;
  }

  /** How many columns the tab just taken back had moved the cursor (read from the line before it). */
  private tabWidthAfter(): number {
    return TAB_STOP - (this.columnAfterLine() % TAB_STOP);
  }

  /** The column the cursor is at after the line so far, tabs going to their stops. */
  private columnAfterLine(): number {
    let column = this.startColumn;
    for (const c of (this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts)).toString('utf8')) {
      column = c === '\t' ? column + TAB_STOP - (column % TAB_STOP) : column + displayWidth(c.codePointAt(0)!);
    }
    return column;
  }
}

const EMPTY = Buffer.alloc(0);

/** Where the UTF-8 character holding byte `at` of `bytes` starts (the echo of a dropped line stops short of a cut character). */
function characterStart(bytes: Buffer, at: number): number {
  let start = Math.min(at, bytes.length);
  for (let back = 0; start > 0 && back < 3 && (bytes[start] & 0xc0) === 0x80; back++) start--;
  return start;
}

/** Columns a character takes on a terminal: 0 for combining marks and zero-width ones, 2 for East Asian wide ones and emoji. */
function displayWidth(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x20d0 && cp <= 0x20ff)) return 0;
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) || (cp >= 0x3400 && cp <= 0x4dbf)
    || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff)
    || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f)
    || (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}
