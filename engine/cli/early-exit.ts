/**
 * A workflow's tool module runs inside the command (--allow-tool-modules),
 * and may end the whole process with process.exit() — or leave a timer
 * that does so, or that keeps the process alive — before or after the
 * command has said anything. None of that is silent or changes what the
 * command said:
 * - ended before the command finished: E_TOOL_MODULE (the --json document
 *   and the `countersign:` line), exit 2;
 * - ended after it finished: the command's own status is kept, and stderr
 *   says a module ended the process;
 * - kept alive after it finished (a timer, a server left open): countersign
 *   ends the process after a grace second, saying so on stderr.
 * (countersign's own forced exit, signals.ts, says its own piece first.)
 */
import { printJson, type Io } from './io.js';

let ownExit = false;

/** Called before countersign itself ends the process (a forced stop): not a module's doing. */
export function exitingOnPurpose(): void {
  ownExit = true;
}

/** How long a process whose command has finished may stay alive for a module's leftovers before it is ended. */
const LEFTOVER_GRACE_MS = 1_000;

export interface EarlyExitGuard {
  /** The command finished with `status`: from now on an exit keeps it. */
  finished(status: number): void;
}

/**
 * `next`: how to find out where the run stands (`countersign status <id>
 * --store …`), or for validate the files being checked.
 */
export function guardEarlyExit(io: Io, json: boolean, next: string): EarlyExitGuard {
  let status: number | undefined;
  const onExit = (code: number) => {
    if (ownExit) return;
    try {
      if (status === undefined) {
        const message = `the process ended (status ${code}: a tool module's process.exit(), or an error thrown where countersign cannot catch it, such as in a timer) before the command finished: its result was never written${next?.startsWith('The files') ? '' : ', and a run it was stepping may be left waiting at a tool node'}`;
        const fix = `a tool module returns its tools, and a tool its result (or throws an error); neither may call process.exit nor throw from timers or callbacks. ${next}`;
        if (json) printJson(io, { error: { code: 'E_TOOL_MODULE', message, fix } });
        io.stderr.write(`countersign: E_TOOL_MODULE: ${message}\n  fix: ${fix}\n`);
        process.exitCode = 2;
        return;
      }
      if (code !== status) io.stderr.write(`countersign: warning: a tool module ended the process (status ${code}) after the command finished; the command's status ${status} is kept\n`);
      process.exitCode = status;
    } catch {
      // the streams are gone: the status still says it
    }
  };
  process.on('exit', onExit);
  return {
    finished(done: number) {
      status = done;
      // A module's timer or open handle would keep the process (and a waiting host) hanging after the result.
      setTimeout(() => {
        io.stderr.write(`countersign: warning: a tool module left something running (a timer, an open handle) after the command finished; the process is ended\n`);
        exitingOnPurpose();
        process.exit(done);
      }, LEFTOVER_GRACE_MS).unref();
    },
  };
}
