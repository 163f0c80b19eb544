/**
 * What the jsonl and exec adapters share: starting an agent command through
 * `sh -c`, stopping it with everything it spawned, describing how it ended,
 * and turning its output into an answer object or an E_AGENT_OUTPUT error.
 */
import { lostNumber, repeatedKeySaid } from '../format/json-source.js';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { resolve } from 'node:path';
import { isDirectory } from '../format/make-dirs.js';
import { CountersignError } from '../errors.js';
import type { JsonValue } from '../format/model.js';

export interface AgentCommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `command` in its own process group (detached), so a timeout or
 * close can stop the shell and whatever it started, not just `sh`.
 */
export function spawnAgentCommand(command: string, opts: AgentCommandOptions, stdio: StdioOptions): ChildProcess {
  return spawn('sh', ['-c', command], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio,
    detached: true,
  });
}

/**
 * The working directory of an agent command, absolute, when it is gone (removed
 * after the agent was created, or replaced by a file): `spawn sh ENOENT` would
 * blame the shell. Undefined while it is a directory.
 */
export function workingDirGone(cwd: string): string | undefined {
  const dir = resolve(cwd);
  return isDirectory(dir) ? undefined : dir;
}

/** E_AGENT_CRASHED for an agent command whose working directory `dir` is gone: names it and how to restore it. */
export function workingDirGoneError(who: string, nodeId: string, dir: string): CountersignError {
  return new CountersignError('E_AGENT_CRASHED', `${who} could not start for node "${nodeId}": its working directory ${dir} no longer exists (or is not a directory)`, {
    nodeId,
    file: dir,
    fix: `restore or recreate ${dir} (the agent runs there), then resume the run; it is still waiting`,
  });
}

/** Sends `signal` to the child's whole process group; a group already gone is fine. */
export function killProcessGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already exited: nothing left to stop.
    }
  }
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `was killed by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

/** A short, single-line rendering of untrusted output for an error message. */
export function quoteOutput(text: string, max = 200): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * Parses an agent's output as the answer: it must be one JSON object (a
 * bare answer or `{"$error": "…"}`). Anything else is E_AGENT_OUTPUT, with
 * the output whole in `data.output` (the message quotes only its start) for
 * hosts that keep what an agent said, such as the review gate's ledger
 * (`written`: the output as the agent wrote it, when `text` is trimmed).
 */
export function parseAnswerObject(text: string, nodeId: string, source: string, written = text): JsonValue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CountersignError(
      'E_AGENT_OUTPUT',
      `${source} for node "${nodeId}" is not JSON: ${quoteOutput(text)}`,
      { nodeId, fix: 'the agent must answer with one JSON object, e.g. {"field": "value"} or {"$error": "why"}', data: { output: written } },
    );
  }
  // Never a number other than the one written: stored, it would be taken for the agent's.
  const lost = lostNumber(text);
  if (lost) {
    throw new CountersignError('E_AGENT_OUTPUT', `${source} for node "${nodeId}" holds a number JSON cannot keep: ${lost.said}`, {
      nodeId,
      fix: 'write such a number as a string ("…") if its digits matter, or as a smaller number',
      data: { output: written },
    });
  }
  // Never the last of a repeated key's values, taken without a word (workflow files and scripts refuse it too).
  const repeated = repeatedKeySaid(text, value, true);
  if (repeated) {
    throw new CountersignError('E_AGENT_OUTPUT', `${source} for node "${nodeId}" ${repeated.said}`, {
      nodeId,
      fix: 'write each key once in an object (rename or drop one of the two); the answer was not taken',
      data: { output: written },
    });
  }
  // null is an answer too: the one non-object an effective schema allows
  // (a node that takes no fields accepts {} or null); the engine judges it.
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new CountersignError(
      'E_AGENT_OUTPUT',
      `${source} for node "${nodeId}" is ${kind}, not a JSON object: ${quoteOutput(text)}`,
      { nodeId, fix: 'wrap the answer in an object, e.g. {"field": "value"} or {"$error": "why"}', data: { output: written } },
    );
  }
  return value as JsonValue;
}

/**
 * An answer line may carry `"$seq"`, the seq of the request it answers: a
 * line whose `$seq` is another request's (a stray or late line) is
 * E_AGENT_OUTPUT, never taken as this request's answer. Without it, lines
 * are matched to requests by order alone. The key is the protocol's, and is
 * removed before the engine sees the answer.
 */
export function withoutSeq(message: JsonValue, request: { nodeId: string; seq: number }, source: string, framing: 'lines' | 'output' = 'lines'): JsonValue {
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('$seq' in message)) return message;
  const { $seq, ...rest } = message;
  if (typeof $seq !== 'number') {
    throw new CountersignError('E_AGENT_OUTPUT', `${source} carries "$seq": ${JSON.stringify($seq)}, which is not a number: "$seq" echoes the request's seq (${request.seq} for node "${request.nodeId}") as a JSON number`, {
      nodeId: request.nodeId,
      fix: `write "$seq": ${request.seq} (a number, not a string), or leave "$seq" out; the run is still waiting`,
    });
  }
  if ($seq !== request.seq) {
    // jsonl: a line meant for another request; exec: one request, one output, so the seq was misread.
    throw new CountersignError('E_AGENT_OUTPUT', framing === 'lines'
      ? `${source} answers seq ${JSON.stringify($seq)}, but the request for node "${request.nodeId}" is seq ${request.seq}: a stray or late line, not this answer`
      : `${source} answers seq ${JSON.stringify($seq)}, but the request it was given (node "${request.nodeId}") is seq ${request.seq}`, {
      nodeId: request.nodeId,
      fix: framing === 'lines'
        ? 'write exactly one answer line per request line read, echoing its seq as "$seq" (or leaving it out); the run is still waiting'
        : `echo the seq of the request read on stdin ("$seq": ${request.seq} here), or leave "$seq" out; the run is still waiting`,
    });
  }
  return rest;
}

/** setTimeout fires at once for delays past 2^31-1 ms, so longer waits are unbounded. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One wait for an answer: aborts when the driver's signal aborts or when
 * `timeoutMs` passes, and remembers which of the two it was.
 */
export interface AnswerWait {
  signal: AbortSignal;
  /** Why the wait ended early; undefined while it is still running. */
  readonly reason: 'timeout' | 'aborted' | undefined;
  dispose(): void;
}

export function startAnswerWait(options: { signal: AbortSignal; timeoutMs: number }): AnswerWait {
  const controller = new AbortController();
  let reason: 'timeout' | 'aborted' | undefined;
  const stop = (why: 'timeout' | 'aborted') => {
    if (reason) return;
    reason = why;
    controller.abort();
  };
  const onAbort = () => stop('aborted');
  if (options.signal.aborted) stop('aborted');
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    Number.isFinite(options.timeoutMs) && options.timeoutMs < MAX_TIMER_MS
      ? setTimeout(() => stop('timeout'), Math.max(0, options.timeoutMs))
      : undefined;
  return {
    signal: controller.signal,
    get reason() {
      return reason;
    },
    dispose() {
      if (timer) clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    },
  };
}

/** The E_AGENT_TIMEOUT error for a wait that ended early. */
export function waitEndedError(
  why: 'timeout' | 'aborted',
  who: string,
  nodeId: string,
  timeoutMs: number,
): CountersignError {
  if (why === 'aborted') {
    return new CountersignError('E_AGENT_TIMEOUT', `stopped waiting for ${who} to answer node "${nodeId}": the run stopped waiting`, {
      nodeId,
      fix: 'the run is still waiting; answer it with `countersign step <runId>`',
    });
  }
  return new CountersignError('E_AGENT_TIMEOUT', `${who} did not answer node "${nodeId}" within ${timeoutMs} ms`, {
    nodeId,
    fix: 'make the agent answer sooner, or raise --agent-timeout (seconds); the run is still waiting and `countersign step <runId>` can answer it',
  });
}
