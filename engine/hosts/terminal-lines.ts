/**
 * The lines a person types at a terminal, edited here rather than by the
 * kernel. In its usual (canonical) mode a terminal keeps at most 4095
 * bytes of a line and silently drops the rest, so a pasted JSON answer of
 * 5 KB arrives cut short. Here the terminal is put in raw mode from the
 * adapter's first prompt until it is closed, and this module does what the
 * kernel's line editing did: echo, backspace, Ctrl-U, Ctrl-W, Ctrl-C / Ctrl-\ / Ctrl-Z as
 * signals, Ctrl-D as end of input. A line is as long as the reader's limit.
 * Unlike the kernel, it edits (and echoes) a line only once a prompt waits
 * for it: an answer typed or pasted ahead waits, unseen, for the prompt that
 * takes it and is shown after that prompt, so the transcript says which
 * answer went to which item. Ctrl-C, Ctrl-\ and Ctrl-Z typed ahead act at
 * once, and (as the kernel flushes its input) what was typed ahead of them
 * is dropped. The terminal's mode is restored when done (and by Node itself
 * at exit).
 */
import { PassThrough } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES } from './line-reader.js';
import { LineEditor, SIGNAL_KEYS } from './line-editor.js';

/** A terminal that can be put in raw mode (a tty.ReadStream). */
type RawTerminal = NodeJS.ReadableStream & { isTTY: true; setRawMode(on: boolean): unknown; ref?(): unknown; unref?(): unknown };

export interface TerminalLines {
  /** The finished lines, each ending in `\n`, as a stream a LineReader reads. */
  lines: NodeJS.ReadableStream;
  /**
   * A prompt now waits for the next line: what was typed ahead of it is
   * edited and echoed (after the prompt), then what is typed, until that
   * line ends. Lines after it wait for the next call.
   */
  wantLine(): void;
  /** Restores the terminal's mode and lets go of it. */
  dispose(): void;
}

/** Whether `input` is a terminal this module can edit lines on, echoing to `output` (a terminal too: echo written elsewhere would leave the person typing blind). */
export function canEditLines(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): input is RawTerminal {
  return (input as { isTTY?: boolean }).isTTY === true && typeof (input as { setRawMode?: unknown }).setRawMode === 'function' && (output as { isTTY?: boolean }).isTTY === true;
}


/**
 * Starts editing lines on `terminal`. `startColumn`: the width of the
 * prompt every line is typed after (erasing a tab needs the column it began at).
 */
export function editTerminalLines(terminal: RawTerminal, echo: NodeJS.WritableStream, options: { startColumn?: number; maxLineBytes?: number } = {}): TerminalLines {
  const lines = new PassThrough();
  const editor = new LineEditor(options.startColumn ?? 0, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  let done = false;
  /** A prompt waits for a line (until one ends, bytes are edited as they come). */
  let wanted = false;
  /** The terminal has ended: once what was typed ahead is edited, so are the lines. */
  let inputEnded = false;

  /** Typed bytes not yet edited: typed ahead of the prompt that will take them. */
  const queued: Buffer[] = [];
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    queued.push(bytes);
    if (wanted) edit();
    else signalTypedAhead(bytes);
  };
  const edit = () => {
    while (wanted && !done && queued.length > 0) {
      const out = editor.feed(queued.shift()!);
      if (out.echo.length > 0) echo.write(out.echo);
      for (const bytes of out.lines) lines.write(bytes);
      if (out.signal) raise(out.signal);
      else if (out.eof) finish();
      else if (out.lineEnded) {
        // What follows is the next line's: it waits for the prompt that asks for it.
        wanted = false;
        if (out.rest) {
          queued.unshift(out.rest);
          signalTypedAhead(out.rest);
        }
      }
    }
    if (inputEnded && queued.length === 0) finish();
  };
  /** A signal key among bytes typed ahead acts now, not once a prompt reads up to it. */
  const signalTypedAhead = (bytes: Buffer) => {
    for (const b of bytes) {
      const key = SIGNAL_KEYS.get(b);
      if (!key) continue;
      echo.write(key.shown);
      editor.forgetLine();
      raise(key.signal);
      return;
    }
  };
  /** As the kernel does: what was typed ahead of the key is flushed, then the signal raised. */
  const raise = (signal: NodeJS.Signals) => {
    queued.length = 0;
    if (signal === 'SIGTSTP') suspend();
    else signalGroup(signal);
  };
  // Back from Ctrl-Z (`fg`): the shell has set its own mode meanwhile.
  const onContinue = () => {
    if (!done) setRaw(true);
  };
  const onEnd = () => {
    inputEnded = true;
    if (queued.length === 0) finish();
  };
  const finish = () => {
    if (done) return;
    release();
    lines.end();
  };

  function setRaw(on: boolean): void {
    try {
      terminal.setRawMode(on);
    } catch {
      // The terminal is gone (hung up): there is no mode left to set.
    }
  }

  function suspend(): void {
    setRaw(false);
    signalGroup('SIGTSTP');
  }

  function release(): void {
    done = true;
    queued.length = 0;
    terminal.removeListener('data', onData);
    terminal.removeListener('end', onEnd);
    terminal.removeListener('close', onEnd);
    terminal.removeListener('error', onEnd);
    process.removeListener('SIGCONT', onContinue);
    setRaw(false);
    terminal.pause();
    // A terminal kept referenced would keep the process alive after the run.
    terminal.unref?.();
  }

  terminal.on('data', onData);
  // Lines typed ahead of the end are still answers for the prompts that come.
  terminal.on('end', onEnd);
  terminal.on('close', onEnd);
  terminal.on('error', onEnd);
  process.on('SIGCONT', onContinue);
  setRaw(true);
  terminal.ref?.();
  // Read all along, not only while a prompt waits: Ctrl-C must interrupt the run whenever it is typed.
  terminal.resume();
  const wantLine = () => {
    wanted = true;
    edit();
  };
  return { lines, wantLine, dispose: finish };
}

/**
 * The signal goes where the kernel would have sent it: the terminal's
 * foreground process group, which is this process's own while it reads the
 * terminal (agents run in groups of their own, out of its reach, as before).
 */
function signalGroup(signal: NodeJS.Signals): void {
  process.kill(0, signal);
}
