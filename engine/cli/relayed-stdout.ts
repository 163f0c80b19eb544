/**
 * The command's own stdout when the launcher runs it relayed
 * (stdout-relay.cjs): descriptor 1 is then a pipe copied to stderr, and
 * the real stdout is the descriptor the launcher names. Written
 * synchronously, as Node writes its own stdout to files and pipes, so the
 * document is whole before the process exits whatever ends it.
 */
import fs from 'node:fs';
import tty from 'node:tty';
import { Writable } from 'node:stream';
import { noteStdoutFailure } from './stdout-failure.js';

const STDOUT_FD_VAR = 'COUNTERSIGN_STDOUT_FD';

/**
 * The real stdout's descriptor when this process runs relayed, else
 * undefined. Taken out of `env`: a process the command starts (an agent, a
 * tool's child) is not relayed, and must not write its stdout there.
 */
export function takeRelayedStdout(env: NodeJS.ProcessEnv): number | undefined {
  const given = env[STDOUT_FD_VAR];
  if (given === undefined) return undefined;
  delete env[STDOUT_FD_VAR];
  const fd = Number(given);
  return Number.isInteger(fd) && fd > 2 ? fd : undefined;
}

/** When the launcher that relays this process started, taken out of `env` like the descriptor; undefined when not relayed. */
export function takeLaunchTime(env: NodeJS.ProcessEnv): Date | undefined {
  const given = env.COUNTERSIGN_LAUNCHED_AT;
  if (given === undefined) return undefined;
  delete env.COUNTERSIGN_LAUNCHED_AT;
  const at = Number(given);
  return Number.isSafeInteger(at) && at > 0 ? new Date(at) : undefined;
}

/** A stream on `fd` that writes each chunk whole before returning; a reader that went away (EPIPE) drops the rest, as a closed stdout does, and so does a failed write (noted). */
export function relayedStdout(fd: number): NodeJS.WritableStream {
  if (tty.isatty(fd)) return new tty.WriteStream(fd);
  let closed = false;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!closed) {
        try {
          writeAll(fd, chunk);
        } catch (e) {
          // Gone (EPIPE) or failing (a full disk): the rest is dropped; a failure is said when the command ends.
          noteStdoutFailure(e);
          closed = true;
        }
      }
      done();
    },
  });
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, chunk: Buffer): void {
  for (let at = 0; at < chunk.length; ) {
    try {
      at += fs.writeSync(fd, chunk, at, chunk.length - at);
    } catch (e) {
      // A pipe left non-blocking by whoever shares it: full for now, written once the reader catches up.
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
