/**
 * The `jsonl:<command>` adapter: one long-lived agent process, started
 * lazily through `sh -c` in the run's working directory with the inherited
 * environment. Each pending item is one request line on its stdin; the
 * agent answers each with one line on stdout (after any `$tool` lines,
 * each answered by the engine). Requests are strictly sequential. When the
 * stream can no longer be matched to the requests — a malformed line, a
 * timed-out request that had called tools, a timed-out decision review —
 * the process is stopped and the next request starts a fresh one.
 */
import { keepTail, stderrNote } from './stderr-tail.js';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonValue } from '../format/model.js';
import type { AgentRequest } from '../run/contract.js';
import type { Agent, AnswerOptions } from './agent.js';
import {
  describeExit,
  killProcessGroup,
  parseAnswerObject,
  withoutSeq,
  spawnAgentCommand,
  startAnswerWait,
  waitEndedError,
  workingDirGone,
  workingDirGoneError,
  type AgentCommandOptions,
} from './agent-process.js';
import { LineReader } from './line-reader.js';
import { MAX_TOOL_CALLS_PER_ITEM, mediate, tooManyToolCalls, toolRequestOf } from './tool-mediation.js';

/** How long `close()` lets the agent exit on its own after stdin EOF. */
const CLOSE_GRACE_MS = 2000;
/** How long to wait for an exit status once stdout has ended, for the error message. */
const EXIT_STATUS_WAIT_MS = 1000;
/** After the process exits, how long lines already written may still take to be read. */
const EXITED_GRACE_MS = 200;
const GONE = Symbol('the process exited');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: Error;
}

interface AgentProcess {
  child: ChildProcess;
  reader: LineReader;
  exited: Promise<Exit>;
  exit?: Exit;
  /** Answers still owed to requests that timed out: the next lines belong to them. */
  stale: number;
  /** The seqs of those requests: a late line that echoes one is skipped whenever it comes. */
  late: Set<number>;
  /** Answers it has given. */
  answered: number;
  /** It echoes each request's seq as "$seq": its late lines say whose they are, so a timed-out request need not cost the process. */
  echoesSeq: boolean;
}

export interface JsonlAgentOptions extends AgentCommandOptions {
  /**
   * Where the agent's stderr goes. Left out, the agent writes to this
   * process's stderr directly; given (the CLI's progress display, which
   * keeps it off its spinner line), it is piped and written there.
   */
  stderr?: NodeJS.WritableStream;
}

export function createJsonlAgent(command: string, opts: JsonlAgentOptions): Agent {
  const who = `the jsonl agent \`${command}\``;
  let current: AgentProcess | undefined;
  // Requests are answered strictly in order; a second caller waits its turn.
  let queue: Promise<unknown> = Promise.resolve();
  let closing: Promise<void> | undefined;
  // The end of the current process's stderr (when piped), for its crash message.
  let stderrTail = '';

  function start(nodeId: string): AgentProcess {
    stderrTail = '';
    // A working directory removed since the agent was created: said as such, never as `spawn sh ENOENT`.
    const gone = workingDirGone(opts.cwd);
    if (gone !== undefined) throw workingDirGoneError(who, nodeId, gone);
    const child = spawnAgentCommand(command, opts, ['pipe', 'pipe', opts.stderr ? 'pipe' : 'inherit']);
    if (opts.stderr) {
      const sink = opts.stderr;
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        stderrTail = keepTail(stderrTail, chunk);
        sink.write(chunk);
      });
    }
    // Writing to an agent that already exited raises EPIPE here; the exit itself is reported.
    child.stdin!.on('error', () => undefined);
    const proc: AgentProcess = {
      child,
      // A line ends at its newline: text after the last one is judged by how the process ended.
      reader: new LineReader(child.stdout!, undefined, 'end', 'unfinished'),
      stale: 0,
      late: new Set(),
      answered: 0,
      echoesSeq: false,
      exited: new Promise<Exit>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', (spawnError) => resolve({ code: null, signal: null, spawnError }));
      }),
    };
    void proc.exited.then((exit) => {
      proc.exit = exit;
    });
    return proc;
  }

  async function crashedError(proc: AgentProcess, nodeId: string, unfinished?: string): Promise<CountersignError> {
    const exit = await exitWithin(proc, EXIT_STATUS_WAIT_MS);
    // Removed between the check in start() and the spawn.
    const removed = exit?.spawnError ? workingDirGone(opts.cwd) : undefined;
    if (removed !== undefined) return workingDirGoneError(who, nodeId, removed);
    const how = !exit
      ? 'closed its stdout'
      : exit.spawnError
        ? `could not start (${exit.spawnError.message})`
        : describeExit(exit.code, exit.signal);
    const midLine = unfinished === undefined ? '' : ` (it stopped in the middle of a line, which was never taken as an answer: ${quote(unfinished)})`;
    // Piped (the CLI's progress display), its stderr's last lines are quoted; inherited, they went to this process's stderr as written.
    return new CountersignError('E_AGENT_CRASHED', `${who} ${how} before answering node "${nodeId}"${midLine}${opts.stderr ? stderrNote(stderrTail) : ''}`, {
      nodeId,
      fix: `run the command by hand with one request line on stdin to see why it stops${opts.stderr ? '' : ' (what it wrote to stderr went to this process\'s stderr)'}; the run is still waiting`,
    });
  }

  /**
   * The next line, or GONE when the process has exited and no line came
   * within a short grace: its stdout may stay open in a process it left
   * behind, and waiting for the end of it would wait out the timeout.
   */
  async function readWhileAlive(proc: AgentProcess, signal: AbortSignal): Promise<Awaited<ReturnType<LineReader['read']>> | typeof GONE> {
    const exited = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    void proc.exited.then(() => {
      timer = setTimeout(() => exited.abort(), EXITED_GRACE_MS);
      timer.unref?.();
    });
    try {
      const next = await proc.reader.read(AbortSignal.any([signal, exited.signal]));
      return 'end' in next && next.end === 'aborted' && exited.signal.aborted && !signal.aborted ? GONE : next;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A gone process's last line without a newline: its answer if it exited 0, else (or with no such line) a crash. */
  async function lastLine(proc: AgentProcess, nodeId: string, unfinished: { line: string; notUtf8?: true } | undefined): Promise<{ line: string; notUtf8?: true }> {
    const exit = await exitWithin(proc, EXIT_STATUS_WAIT_MS);
    if (unfinished && exit && exit.code === 0 && !exit.signal && !exit.spawnError) return unfinished;
    const crashed = await crashedError(proc, nodeId, unfinished?.line);
    discard(proc);
    throw crashed;
  }

  /** A process that exited after its last answer: the run's one jsonl process is gone. */
  function exitedBetween(proc: AgentProcess, nodeId: string): CountersignError {
    const how = proc.exit?.spawnError ? `could not start (${proc.exit.spawnError.message})` : describeExit(proc.exit?.code ?? null, proc.exit?.signal ?? null);
    return new CountersignError('E_AGENT_CRASHED', `${who} ${how} after its last answer, before the request for node "${nodeId}"${opts.stderr ? stderrNote(stderrTail) : ''}`, {
      nodeId,
      fix: 'a jsonl agent answers every request of the run from one process, reading requests until stdin closes (use exec: for one process per request); resume the run to start it again',
    });
  }

  /** Processes being let go: close() waits for each, so nothing outlives the run. */
  const retiring = new Set<Promise<void>>();

  /**
   * Stops a process whose stdout is out of step with the requests; the next
   * request starts a fresh one. Nothing more it writes is read, and it is
   * let go as at the end of a run: its stdin is closed (an agent that
   * saves its state at end of input gets to), then after a grace its
   * process group is stopped.
   */
  function discard(proc: AgentProcess): void {
    if (current === proc) current = undefined;
    proc.reader.dispose();
    const done = letGo(proc);
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
  }

  async function ask(request: AgentRequest, options: AnswerOptions): Promise<JsonValue> {
    const nodeId = request.nodeId;
    const wait = startAnswerWait(options);
    let proc: AgentProcess | undefined;
    try {
      if (wait.reason) throw waitEndedError(wait.reason, who, nodeId, options.timeoutMs);
      if (current?.exit) {
        // The one long-lived process is gone: said once, loudly (the next request starts a fresh one).
        const gone = current;
        current = undefined;
        throw exitedBetween(gone, nodeId);
      }
      if (!current) current = start(nodeId);
      proc = current;
      setReferenced(proc.child, true);
      if (proc.answered > 0 || proc.stale > 0) {
        // Nothing may come unasked: a line written since the last answer would
        // be taken as this request's answer (a second answer, a stray line).
        // (A fresh process's startup output races its first request: not checked.)
        // A timed-out request's late answer is skipped here too: one that says
        // whose it is ("$seq") whenever it comes, else one JSON object per
        // late answer still owed; anything past those is unasked. A late line
        // that is a tool call means that conversation goes on and would take
        // this request as its tool result: a fresh process is asked.
        const late = proc.late;
        let lateToolCall = false;
        const stray: string[] = [];
        for (const line of await proc.reader.unread()) {
          const echoed = late.size > 0 || proc.stale > 0 ? seqOf(line) : undefined;
          // A line that names a request by "$seq" is that request's or nobody's: never counted as another's late answer.
          if (echoed !== undefined && !late.has(echoed)) stray.push(line);
          else if (echoed !== undefined) {
            if (isToolLine(line)) lateToolCall = true;
            else {
              late.delete(echoed);
              if (proc.stale > 0) proc.stale--;
            }
          } else if (proc.stale > 0 && isToolLine(line)) lateToolCall = true;
          else if (proc.stale > 0 && isAnswerLine(line)) proc.stale--;
          else stray.push(line);
        }
        if (lateToolCall && stray.length === 0) {
          discard(proc);
          proc = current = start(nodeId);
          setReferenced(proc.child, true);
        }
        if (stray.length > 0) {
          discard(proc);
          throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote a line nobody asked for before the request for node "${nodeId}": ${quote(stray[0])}`, {
            nodeId,
            fix: 'write exactly one answer line per request line read, and nothing before the first request (logs go to stderr); the run is still waiting',
          });
        }
        if (proc.exit) {
          current = undefined;
          throw exitedBetween(proc, nodeId);
        }
      }
      proc.child.stdin!.write(`${JSON.stringify(request)}\n`);
      let turns = 0;
      for (;;) {
        const read = await readWhileAlive(proc, wait.signal);
        // The process is gone with a last line that has no newline: its stdout ended with it, or a
        // process it started still holds stdout open (GONE). Either way the line is judged by the exit.
        const last = read === GONE ? { unfinished: proc.reader.takeUnfinished() }
          : 'end' in read && read.end === 'eof' && read.unfinished !== undefined ? { unfinished: { line: read.unfinished, ...(read.notUtf8 ? { notUtf8: true as const } : {}) } }
          : undefined;
        const next = last ? await lastLine(proc, nodeId, last.unfinished) : (read as Exclude<typeof read, typeof GONE>);
        if ('line' in next) {
          if (next.notUtf8) {
            // Never read with U+FFFD in place of what was written: the stream is out of step too.
            discard(proc);
            throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote a line that is not UTF-8 text for node "${nodeId}"; it was not taken: ${quote(next.line)}`, {
              nodeId,
              fix: 'write answers as UTF-8 JSON, one object per line (set the agent\'s output encoding to UTF-8); the run is still waiting, and the next request starts a fresh process',
            });
          }
          if (next.line.trim() === '') continue;
          // With "$seq" a line says whose it is: a timed-out request's late
          // line is skipped whenever it comes, and this request's answer is
          // taken even while such a line is still owed.
          // Read only while a timed-out request's line may still come: the common line is parsed once, below.
          const echoed = proc.late.size > 0 || proc.stale > 0 ? seqOf(next.line) : undefined;
          const lateLine = echoed !== undefined && proc.late.has(echoed);
          if (lateLine && !isToolLine(next.line)) {
            proc.late.delete(echoed);
            if (proc.stale > 0) proc.stale--;
            continue;
          }
          if (echoed === request.seq) proc.stale = 0;
          if (proc.stale > 0 || lateLine) {
            if (!isToolLine(next.line)) {
              // The late answer owed is one JSON object (or null): anything else is a
              // fault, never skipped in its place (the real late answer would
              // then be read as this request's).
              if (!isAnswerLine(next.line)) {
                discard(proc);
                throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote a line that is not an answer (one JSON object, or null) while the late answer to an earlier, timed-out request was due, before answering node "${nodeId}": ${quote(next.line)}`, {
                  nodeId,
                  fix: 'write one JSON object per line on stdout (logs go to stderr); the run is still waiting, and the next request starts a fresh process',
                });
              }
              // A line that says whose it is, and names no request owed an answer, is nobody's late answer.
              if (carriesSeq(next.line) && !lateLine) {
                discard(proc);
                throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote a line whose "$seq" (${JSON.stringify((JSON.parse(next.line) as { $seq: unknown }).$seq)}) is neither this request's (${request.seq}, node "${nodeId}") nor a timed-out request's: ${quote(next.line)}`, {
                  nodeId,
                  fix: 'echo the seq of the request a line answers as "$seq" (a number), or leave "$seq" out; the run is still waiting, and the next request starts a fresh process',
                });
              }
              proc.stale--;
              continue;
            }
            // A timed-out request's conversation is still calling tools: its
            // reply is yet to come, and this request's line would reach it as
            // a tool result. The stream cannot be put back in step: start a
            // fresh process and ask it this request.
            discard(proc);
            proc = current = start(nodeId);
            setReferenced(proc.child, true);
            proc.child.stdin!.write(`${JSON.stringify(request)}\n`);
            continue;
          }
          let message: JsonValue;
          try {
            message = withoutSeq(parseAnswerObject(next.line, nodeId, `the line ${who} wrote`), request, `the line ${who} wrote`);
          } catch (e) {
            // A gate reviewer that printed its review as plain text: the audit
            // row keeps all of it (reviewer-text.ts), not only its first line.
            const failure = isDecisionReview(request) ? await withFollowingText(e, proc.reader) : e;
            // Whatever the agent meant to answer may still follow this line,
            // and would be read as the answer to the next request.
            discard(proc);
            throw failure;
          }
          const call = toolRequestOf(message);
          if (!call) {
            proc.answered++;
            if (!proc.echoesSeq && carriesSeq(next.line)) proc.echoesSeq = true;
            return message;
          }
          turns++;
          if (turns > MAX_TOOL_CALLS_PER_ITEM) {
            // Looping on calls: a fault of the agent (the run stops, resumable), never a wait until its timeout.
            discard(proc);
            throw tooManyToolCalls(nodeId);
          }
          const session = options.tools ?? { allowed: new Set<string>() };
          if (session.maxTurns !== undefined && turns >= session.maxTurns) {
            // Its last turn went to a tool call: no reply can follow. Cut off
            // (a fresh process serves the next request), and fail closed.
            session.onCall?.({ ...(typeof call.name === 'string' && call.name !== '' ? { name: call.name } : {}), ok: false, code: 'E_MAX_TURNS' });
            discard(proc);
            return { $error: `E_MAX_TURNS: ${turns} message(s) used, the limit is max_turns ${session.maxTurns}, and no reply came` };
          }
          const reply = await mediate(call, session, request);
          proc.child.stdin!.write(`${JSON.stringify(reply)}\n`);
          continue;
        }
        if (next.end === 'aborted') {
          // A late line can be skipped only when it will say whose it is: an
          // agent that answers requests as they come (not in turn) would send
          // this request's late answer after the next one's, and order alone
          // would swap them. So the process is kept only when it echoes
          // "$seq"; a conversation that has called tools may send any number
          // of lines, and a gate's decision review must never leak a late
          // reply into the next proposal.
          if (turns > 0 || isDecisionReview(request) || !proc.echoesSeq) discard(proc);
          else {
            proc.stale++;
            proc.late.add(request.seq);
          }
          throw waitEndedError(wait.reason ?? 'aborted', who, nodeId, options.timeoutMs);
        }
        if (next.end === 'too-long') {
          // The stream is out of step with the requests now; start afresh next time.
          discard(proc);
          throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote a line longer than ${next.limit} bytes (16 MiB) for node "${nodeId}"`, {
            nodeId,
            fix: 'answer with one JSON object per line, ending each answer with a newline',
          });
        }
        // Gone, or its stdout closed while it runs on: either way it can
        // answer nothing more, so the next request (a resume) starts afresh.
        const crashed = await crashedError(proc, nodeId);
        discard(proc);
        throw crashed;
      }
    } finally {
      wait.dispose();
      if (proc && proc === current) setReferenced(proc.child, false);
    }
  }

  return {
    answer(request, options) {
      // What the agent wrote to stderr before it answered is shown before the answer is: its pipe is another than
      // stdout's, so its pending lines are read first (two loop turns: the poll that read the answer may be mid-way).
      const turn = queue.then(() => ask(request, options)).finally(() => (opts.stderr ? loopTurns(2) : undefined));
      queue = turn.catch(() => undefined);
      return turn;
    },
    // An answer still in flight sees the agent exit and rejects with E_AGENT_CRASHED.
    // A second close while one is under way (Ctrl-C during the grace period)
    // waits for it: returning at once would let the process exit first.
    close() {
      if (!closing) closing = shutDown().finally(() => (closing = undefined));
      return closing;
    },
  };

  async function shutDown(): Promise<void> {
    const proc = current;
    current = undefined;
    if (proc) await letGo(proc);
    await Promise.all([...retiring]);
  }

  /** Closes a process's stdin, waits a grace for it to exit, then stops its group; nothing it started outlives it. */
  async function letGo(proc: AgentProcess): Promise<void> {
    if (!proc.exit) {
      setReferenced(proc.child, true);
      proc.child.stdin!.end();
      if (!(await exitWithin(proc, CLOSE_GRACE_MS))) {
        killProcessGroup(proc.child, 'SIGTERM');
        await exitWithin(proc, CLOSE_GRACE_MS / 4);
        // The shell may be gone while what it started ignores SIGTERM and
        // holds the pipes open: kill whatever is left of the group.
        killProcessGroup(proc.child, 'SIGKILL');
        await proc.exited;
      }
    }
    killProcessGroup(proc.child, 'SIGKILL');
    proc.reader.dispose();
  }
}

/** A line as quoted in a message: its start, at most 200 characters. */
function quote(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}

/** A line that is an answer: one JSON object, or null (which a node that takes no fields accepts). */
function isAnswerLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return v === null || (typeof v === 'object' && !Array.isArray(v));
  } catch {
    return false;
  }
}

/** Whether a line is a `{"$tool": …}` call (a malformed line is not). */
function isToolLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) && '$tool' in v;
  } catch {
    return false;
  }
}

/** How long a plain-text reply may pause between its lines and still be one reply. */
const TEXT_QUIET_MS = 200;
/** The most plain text kept from one reply (characters), as a reviewer's answer is capped. */
const TEXT_MAX_CHARS = 1024 * 1024;

/**
 * E_AGENT_OUTPUT for a line that is no JSON, its `data.output` grown by
 * the lines the agent printed right after it (until it pauses, stops
 * writing, or the text passes TEXT_MAX_CHARS): the reply as written.
 */
async function withFollowingText(error: unknown, reader: LineReader): Promise<unknown> {
  const first = isCountersignError(error) && error.code === 'E_AGENT_OUTPUT' ? (error.data as { output?: unknown } | undefined)?.output : undefined;
  if (typeof first !== 'string') return error;
  const lines = [first];
  let size = first.length;
  while (size <= TEXT_MAX_CHARS) {
    const next = await reader.read(AbortSignal.timeout(TEXT_QUIET_MS));
    if (!('line' in next)) break;
    lines.push(next.line);
    size += next.line.length + 1;
  }
  const e = error as CountersignError;
  return new CountersignError(e.code, e.message, { ...(e.nodeId !== undefined ? { nodeId: e.nodeId } : {}), ...(e.fix !== undefined ? { fix: e.fix } : {}), data: { ...(e.data as object), output: lines.join('\n') } });
}

function isDecisionReview(request: AgentRequest): boolean {
  return request.kind === 'review' && (request as { contract?: string }).contract === 'decision';
}

/** The process's exit, or undefined if it is still running after `ms`. */
async function exitWithin(proc: AgentProcess, ms: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    proc.exited,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]);
  clearTimeout(timer);
  return exit;
}

/**
 * An idle agent must not keep the host process alive (a host that forgets
 * `close()` still exits, and the agent then sees EOF); a waited-on one must.
 */
function setReferenced(child: ChildProcess, on: boolean): void {
  const handles = [child, child.stdin as unknown as Socket | null, child.stdout as unknown as Socket | null];
  for (const h of handles) {
    if (!h) continue;
    if (on) h.ref?.();
    else h.unref?.();
  }
}

/** Whether the line is a JSON object with a "$seq" key, whatever its value. */
function carriesSeq(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, '$seq');
  } catch {
    return false;
  }
}

/** The `$seq` a line echoes, when it is a JSON object carrying a numeric one. */
function seqOf(line: string): number | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { $seq?: unknown }).$seq === 'number' ? (v as { $seq: number }).$seq : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves after `n` turns of the event loop: output already in a pipe is read meanwhile. */
async function loopTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((done) => setImmediate(done));
}
