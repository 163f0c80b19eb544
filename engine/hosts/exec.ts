/**
 * The `exec:<command>` adapter: one `sh -c` process per pending item. The
 * request JSON goes to stdin (then stdin is closed), and the whole stdout,
 * trimmed, is the answer. Suits agents written as plain scripts that
 * answer once and exit.
 */
import { isUtf8 } from 'node:buffer';
import type { ChildProcess } from 'node:child_process';
import { CountersignError } from '../errors.js';
import type { JsonValue } from '../format/model.js';
import type { AgentRequest } from '../run/contract.js';
import type { Agent, AnswerOptions } from './agent.js';
import { keepTail, stderrNote } from './stderr-tail.js';
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

/** Output past this is refused rather than buffered without bound. */
const MAX_STDOUT_BYTES = 16 * 1024 * 1024;

export interface ExecAgentOptions extends AgentCommandOptions {
  /**
   * Where the agent's stderr is echoed as it arrives (default
   * process.stderr; null keeps it only for crash messages).
   */
  stderr?: NodeJS.WritableStream | null;
}

export function createExecAgent(command: string, opts: ExecAgentOptions): Agent {
  const who = `the exec agent \`${command}\``;
  const echo = opts.stderr === undefined ? process.stderr : opts.stderr;
  // Processes still answering, so close() can stop them when the run stops.
  // Every request's process group, kept after its shell exits: what it left
  // running in the background is still the run's, and is stopped at close().
  const groups = new Set<ChildProcess>();

  function answer(request: AgentRequest, options: AnswerOptions): Promise<JsonValue> {
    const nodeId = request.nodeId;
    const wait = startAnswerWait(options);
    if (wait.reason) {
      wait.dispose();
      return Promise.reject(waitEndedError(wait.reason, who, nodeId, options.timeoutMs));
    }
    // A working directory removed since the agent was created: said as such, never as `spawn sh ENOENT`.
    const gone = workingDirGone(opts.cwd);
    if (gone !== undefined) {
      wait.dispose();
      return Promise.reject(workingDirGoneError(who, nodeId, gone));
    }
    return new Promise<JsonValue>((resolve, reject) => {
      const child = spawnAgentCommand(command, opts, ['pipe', 'pipe', 'pipe']);
      groups.add(child);
      // Kept only while something in the group lives on: an emptied group is
      // forgotten at once, so its id (reused by the system later) is never signalled.
      child.once('close', () => {
        if (!groupAlive(child)) groups.delete(child);
      });
      const stdoutChunks: Buffer[] = [];
      let stdoutBytes = 0;
      let stderrTail = '';
      let overflow = false;
      let settled = false;

      const finish = (outcome: () => JsonValue) => {
        if (settled) return;
        settled = true;
        wait.dispose();
        wait.signal.removeEventListener('abort', onWaitEnded);
        try {
          resolve(outcome());
        } catch (err) {
          reject(err);
        }
      };
      const onWaitEnded = () => {
        killProcessGroup(child);
        finish(() => {
          throw waitEndedError(wait.reason ?? 'aborted', who, nodeId, options.timeoutMs);
        });
      };
      wait.signal.addEventListener('abort', onWaitEnded, { once: true });

      // Bytes: the answer is decoded once whole, and output that is no UTF-8 is said so (never taken with U+FFFD in it).
      child.stdout!.on('data', (chunk: Buffer) => {
        if (overflow) return;
        stdoutChunks.push(chunk);
        stdoutBytes += chunk.length;
        if (stdoutBytes > MAX_STDOUT_BYTES) {
          overflow = true;
          killProcessGroup(child);
        }
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        echo?.write(chunk);
        stderrTail = keepTail(stderrTail, chunk);
      });
      // An agent that exits without reading stdin raises EPIPE here; its exit status decides.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(`${JSON.stringify(request)}\n`); // one line, as jsonl sends it: line readers (`read -r line`) get it too

      child.once('error', (err) => {
        finish(() => {
          // Removed between the check above and the spawn.
          const removed = workingDirGone(opts.cwd);
          if (removed !== undefined) throw workingDirGoneError(who, nodeId, removed);
          throw new CountersignError('E_AGENT_CRASHED', `${who} could not start for node "${nodeId}": ${err.message}`, {
            nodeId,
            fix: 'check that `sh` exists and the working directory is readable',
          });
        });
      });
      // The answer is what the command printed before it exited: by the time
      // its exit is seen, all of that is in the pipe, and the next turn of
      // the event loop has read it. A background process it left behind may
      // hold the pipes open for ever, or write into them later: what it
      // writes after the exit is never part of the answer (so the same agent
      // never gets a different answer by timing), and is not waited for.
      let grace: NodeJS.Immediate | undefined;
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (grace !== undefined) clearImmediate(grace);
        if (!settled) {
          child.stdout!.destroy();
          child.stderr!.destroy();
        }
        finish(() => {
          if (overflow) {
            throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote more than ${MAX_STDOUT_BYTES} bytes (16 MiB) for node "${nodeId}"`, {
              nodeId,
              fix: 'print only the answer object on stdout; send logs to stderr',
            });
          }
          if (code !== 0) throw crashed(who, nodeId, describeExit(code, signal), stderrTail);
          const bytes = Buffer.concat(stdoutChunks);
          if (!isUtf8(bytes)) {
            throw new CountersignError('E_AGENT_OUTPUT', `${who} wrote output that is not UTF-8 text for node "${nodeId}"; it was not taken (read as UTF-8 it would hold U+FFFD where those bytes are): ${quoteStart(bytes.toString('utf8'))}`, {
              nodeId,
              fix: 'write the answer as UTF-8 JSON on stdout (set the agent\'s output encoding to UTF-8); the run is still waiting',
            });
          }
          const stdout = bytes.toString('utf8');
          const text = stdout.trim();
          if (text === '') {
            throw new CountersignError('E_AGENT_OUTPUT', `${who} exited without writing an answer for node "${nodeId}"`, {
              nodeId,
              fix: 'print one JSON object on stdout, e.g. {"field": "value"} or {"$error": "why"}',
            });
          }
          return withoutSeq(parseAnswerObject(text, nodeId, `the output of ${who}`, stdout), request, `the output of ${who}`, 'output');
        });
      };
      child.once('exit', (code, signal) => {
        // Two turns: the poll that saw the exit may have come before the one that reads the last bytes.
        grace = setImmediate(() => {
          grace = setImmediate(() => settle(code, signal));
        });
      });
      child.once('close', (code, signal) => settle(code, signal));
    });
  }

  return {
    answer,
    // One process, one answer: no turn in which a tool's result could come back.
    callsTools: false,
    async close() {
      for (const child of groups) killProcessGroup(child);
      groups.clear();
    },
  };
}

function crashed(who: string, nodeId: string, how: string, stderrTail: string): CountersignError {
  return new CountersignError('E_AGENT_CRASHED', `${who} ${how} for node "${nodeId}"${stderrNote(stderrTail)}`, {
    nodeId,
    fix: 'run the command by hand with the request JSON on stdin to see why it fails; the run is still waiting',
  });
}

/** Whether any process is left in the child's process group. */
function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The start of some output, as quoted in a message. */
function quoteStart(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
