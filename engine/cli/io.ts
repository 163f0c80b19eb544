/**
 * CLI plumbing shared by every command: reading JSON arguments, printing
 * results (exactly one JSON document on stdout with --json; progress and
 * logs on stderr), and turning errors into `countersign: E_CODE: message`.
 */
import { createReadStream, statSync } from 'node:fs';
import { CountersignError, isCountersignError } from '../errors.js';
import type { RunFailure } from '../run/contract.js';
import type { JsonObject } from '../format/model.js';
import { offsetToPosition } from '../format/offsets.js';
import { withoutBom } from '../format/bom.js';
import { decodeUtf8 } from '../format/utf8.js';
import { lostNumber, repeatedKeySaid } from '../format/json-source.js';
import { jsonErrorOffset, jsonParseReason } from '../format/json-parse-message.js';
import { resolve } from 'node:path';
import { withStore } from './render.js';
import { mappedStack } from './bundle-stack.js';
import { ownStdout } from './stdout-guard.js';
import { noteStdoutFailure } from './stdout-failure.js';
import { relayedStdout, takeLaunchTime, takeRelayedStdout } from './relayed-stdout.js';
import { acceptRelayedSignals } from './relayed-signals.js';
import { missingCurrentDirectory } from './current-directory.cjs';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
  /** The clock commands read (a `step` without --seq notes when its answer was read); the system clock when left out. */
  now?: () => Date;
  /**
   * When the command was launched: an answer written on its command line
   * (or in a file already there) was made by then. The process's start
   * when left out of a real process; `now()` otherwise.
   */
  startedAt?: Date;
}

/**
 * The process's own streams, environment and directory. A current
 * directory that was removed (a shell left inside it) is E_USAGE saying so:
 * every relative path, the store's lookup and the default workspace would
 * start there.
 */
export function processIo(): Io {
  const gone = missingCurrentDirectory(process.env);
  if (gone) throw new CountersignError(gone.code, gone.message, { fix: gone.fix });
  return { ...processStreams(), cwd: process.cwd() };
}

/** stdout and stderr of this process, and what comes with them; enough to report an error when processIo() cannot be made. */
export function processStreams(): Omit<Io, 'cwd'> {
  // A reader that stops early (`| head -1`, a host that stops reading
  // stderr) closes the pipe, and a stderr on a full disk takes no more: in
  // neither case is there anywhere left to say so. What is left to write is
  // dropped, and the command runs to its end: a run still drives, its agents
  // are closed, and the exit status is the command's own.
  if (!process.stderr.listeners('error').includes(ignoreUnwritableStderr)) process.stderr.on('error', ignoreUnwritableStderr);
  // On stdout, any other failed write (a full disk) is noted and said when the command ends (main.ts), never a crash.
  if (!process.stdout.listeners('error').includes(noteStdoutFailure)) process.stdout.on('error', noteStdoutFailure);
  // Run relayed by the launcher (stdout-relay.cjs): stdout is the descriptor it names, and its signals come over IPC too.
  const relayed = takeRelayedStdout(process.env);
  const launched = takeLaunchTime(process.env);
  if (relayed !== undefined) acceptRelayedSignals();
  return {
    stdout: ownStdout(relayed === undefined ? undefined : relayedStdout(relayed)),
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
    // The process's own start (the launcher runs commands in-process), or the relaying launcher's.
    startedAt: launched ?? new Date(Math.floor(performance.timeOrigin)),
  };
}

/** stderr is where a failure would be said: one of its own can only be dropped (never a crash, never another status). */
function ignoreUnwritableStderr(): void {}

export function usage(message: string, fix?: string): CountersignError {
  return new CountersignError('E_USAGE', message, { fix: fix ?? 'run `countersign --help`' });
}

/**
 * `--input`: a JSON object of the workflow's inputs. Anything else is
 * E_INPUT naming where it came from (the file, standard input or the
 * argument) and what it holds.
 */
export async function readInputArg(value: string | undefined, io: Io): Promise<JsonObject> {
  if (value === undefined) return {};
  const input = await readJsonArg(value, '--input', io);
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input as JsonObject;
  const file = value.startsWith('@') ? resolve(io.cwd, value.slice(1)) : undefined;
  const where = value === '-' ? '--input on standard input' : file ? `the --input file ${file}` : 'the --input argument';
  const held = input === null ? 'null' : Array.isArray(input) ? 'a list' : `a ${typeof input}`;
  throw new CountersignError('E_INPUT', `${where} holds ${held}, not a JSON object`, {
    ...(file ? { file } : {}),
    fix: `give the workflow's inputs as one JSON object, e.g. --input '{"artifact_path": "docs/api.md"}'`,
  });
}

/** A JSON argument: inline JSON, `@file`, or `-` for standard input. */
export async function readJsonArg(value: string, what: string, io: Io): Promise<unknown> {
  let text: string;
  let source: string;
  let fromFile: string | undefined;
  if (value === '-') {
    text = textOf(await readAll(io.stdin, (read) => tooLarge(what, `${what} on standard input`, read, undefined)), `${what} on standard input`, undefined);
    source = 'standard input';
  } else if (value.startsWith('@')) {
    // `@$FILE` with the variable unset: no file named, never the working directory read as one.
    if (value.slice(1).trim() === '') {
      throw new CountersignError('E_USAGE', `${what} @ names no file after the @`, { fix: `write ${what} @<file> (is the shell variable you passed unset?), or pass the JSON itself` });
    }
    // Relative to where the command was given (io.cwd), as every other path the CLI reads.
    const file = resolve(io.cwd, value.slice(1));
    let bytes: Buffer;
    try {
      const stat = statSync(file);
      if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      if (stat.size > MAX_JSON_ARG_BYTES) throw tooLarge(what, `the ${what} file ${file}`, stat.size, file);
      // Read as a stream, never at once: a FIFO or device (@/dev/stdin, @<(cmd)) has no size to check first,
      // so the cap holds while it is read, and a signal is still heard while a writer is slow.
      bytes = await readAll(createReadStream(file), (read) => tooLarge(what, `the ${what} file ${file}`, read, undefined));
    } catch (e) {
      if (isCountersignError(e)) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      const [why, fix] = code === 'ENOENT' || code === 'ENOTDIR'
        ? ['no such file', 'check the path after @']
        : code === 'EISDIR'
          ? ['it is a directory', 'name a file after @, not a folder']
          : code === 'EACCES' || code === 'EPERM'
            ? ['permission denied', `make ${file} readable by this user`]
            : [(e as Error).message, 'check the file after @'];
      throw new CountersignError('E_FILE_NOT_FOUND', `cannot read ${what} file ${file}: ${why}`, { file, fix });
    }
    text = textOf(bytes, `the ${what} file`, file);
    source = file;
    fromFile = file;
  } else {
    text = value;
    source = `the ${what} argument`;
  }
  text = withoutBom(text);
  try {
    const value: unknown = JSON.parse(text);
    // Never a number other than the one written: an answer or input is stored and passed on as it reads.
    const lost = lostNumber(text);
    if (lost) {
      const pos = offsetToPosition(text, lost.offset);
      throw new CountersignError('E_INPUT', `${fromFile ? `the ${what} file` : source} holds a number JSON cannot keep (line ${pos.line}, column ${pos.col}): ${lost.said}`, {
        ...(fromFile ? { file: fromFile } : {}),
        line: pos.line,
        col: pos.col,
        fix: 'write such a number as a string ("…") if its digits matter, or as a smaller number',
      });
    }
    // Never the last of a repeated key's values, taken without a word (workflow files and scripts refuse it too).
    const repeated = repeatedKeySaid(text, value);
    if (repeated) {
      throw new CountersignError('E_INPUT', `${fromFile ? `the ${what} file` : source} ${repeated.said}`, {
        ...(fromFile ? { file: fromFile } : {}),
        line: repeated.at.line,
        col: repeated.at.col,
        fix: 'write each key once in an object (rename or drop one of the two)',
      });
    }
    return value;
  } catch (e) {
    if (isCountersignError(e)) throw e;
    const at = await jsonErrorOffset(text, (e as Error).message);
    const pos = at !== undefined ? offsetToPosition(text, at) : undefined;
    // The position and what is said of it name one place: V8's token is
    // where its scan stopped, which may be past the fault jsonc-parser found.
    const said = (p: unknown): string => {
      const reason = jsonParseReason((e as Error).message, p !== undefined);
      const token = /^Unexpected token '(.+)'$/.exec(reason);
      return token && at !== undefined && text[at] !== undefined && !text.startsWith(token[1], at) ? `unexpected ${JSON.stringify(text.slice(at, at + 12).split(/[\s,\]}:]/)[0] || text[at])}` : reason;
    };
    // From a file: the error names it with its line:col, as a malformed workflow or script does.
    if (fromFile !== undefined) {
      throw new CountersignError('E_INPUT', `the ${what} file is not valid JSON: ${said(pos)}`, {
        file: fromFile,
        ...(pos ? { line: pos.line, col: pos.col } : {}),
        fix: `correct the JSON in ${fromFile}${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}`,
      });
    }
    throw new CountersignError('E_INPUT', `${source} is not valid JSON${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}: ${said(pos)}`, {
      ...(pos ? { line: pos.line, col: pos.col } : {}),
      fix: `pass ${what} as a JSON object, e.g. '{"key": "value"}', or @file.json`,
    });
  }
}

/**
 * The most a JSON argument (`--response`, `--input`, …) may hold: far past
 * any answer the engine takes (1 MiB of JSON, pretty-printed or not), and
 * far below what one string can be. Past it, reading stops at once: the
 * input is refused, never held in memory whole nor turned into a crash.
 */
export const MAX_JSON_ARG_BYTES = 64 * 1024 * 1024;

/** E_ANSWER_TOO_LARGE for an answer, E_INPUT for anything else; nothing was submitted. */
function tooLarge(what: string, where: string, bytes: number, file: string | undefined): CountersignError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  const answer = what === '--response';
  const size = file === undefined ? `holds more than ${mib(MAX_JSON_ARG_BYTES)}, the most` : `is ${mib(bytes)}, past the ${mib(MAX_JSON_ARG_BYTES)}`;
  return new CountersignError(answer ? 'E_ANSWER_TOO_LARGE' : 'E_INPUT', `${where} ${size} countersign reads of one: nothing was ${answer ? 'submitted' : 'read'}`, {
    ...(file ? { file } : {}),
    fix: answer
      ? 'an answer may be at most 1 MiB of JSON: keep large content in files and answer with their paths'
      : `give ${what} as a smaller JSON object: keep large content in files and pass their paths`,
  });
}

/** The whole stream, or `refuse(bytes read)` thrown as soon as it passes MAX_JSON_ARG_BYTES. */
async function readAll(stream: NodeJS.ReadableStream, refuse: (read: number) => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    read += bytes.length;
    if (read > MAX_JSON_ARG_BYTES) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw refuse(read);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/** UTF-8 text, or E_INPUT at the first byte that is not (never U+FFFD in an answer). */
function textOf(bytes: Buffer, what: string, file: string | undefined): string {
  const decoded = decodeUtf8(bytes);
  if ('text' in decoded) return decoded.text;
  const { message, line, col, fix } = decoded.problem;
  throw new CountersignError('E_INPUT', `${what} ${message}`, { ...(file ? { file } : {}), line, col, fix: file ? fix : 'send UTF-8 text' });
}

export function printJson(io: Pick<Io, 'stdout'>, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function toError(e: unknown): CountersignError {
  if (isCountersignError(e)) return e;
  const err = e as Error;
  return new CountersignError('E_INTERNAL', err?.stack ? mappedStack(err.stack) : String(e), { fix: 'this is a countersign bug; please report it with the command you ran' });
}

/**
 * Reports a command failure on stderr (and as `{error}` on stdout with
 * --json). `store`: the --store DIR given, named in the commands the fix suggests.
 */
export function reportError(io: Pick<Io, 'stdout' | 'stderr'>, e: unknown, json: boolean, store?: string): void {
  const thrown = toError(e);
  const err = thrown.fix === undefined || store === undefined ? thrown : Object.assign(Object.create(Object.getPrototypeOf(thrown)) as CountersignError, thrown, { fix: withStore(thrown.fix, store), message: thrown.message });
  // The file leads the line once: a message that names it already (a store's own errors) is not prefixed again.
  const where = err.file && !err.message.includes(err.file) ? `${err.file}${err.line ? `:${err.line}:${err.col}` : ''}: ` : '';
  io.stderr.write(`countersign: ${err.code}: ${where}${err.message}\n`);
  if (err.fix) io.stderr.write(`  fix: ${err.fix}\n`);
  if (json) {
    const body: Record<string, unknown> = { code: err.code, message: err.message };
    if (err.fix) body.fix = err.fix;
    if (err.file) body.file = err.file;
    if (err.pointer !== undefined) body.pointer = err.pointer;
    if (err.line) Object.assign(body, { line: err.line, col: err.col });
    if (err.nodeId) body.nodeId = err.nodeId;
    if (err.data !== undefined) body.details = err.data;
    printJson(io, { error: body });
  }
}

/** The run's failure, or why driving stopped, in the CLI's error form on stderr. */
export function reportFailure(io: Io, error: RunFailure): void {
  io.stderr.write(`countersign: ${error.code}: ${error.message}\n`);
  if (error.fix) io.stderr.write(`  fix: ${error.fix}\n`);
}
