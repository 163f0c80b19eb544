/**
 * A workflow's tool module runs inside the command (--allow-tool-modules),
 * and may end the whole process with process.exit() before the command has
 * said anything: no --json document, no `countersign:` line, an exit status
 * of the module's choosing (0 would read as success, 3 as a resumable stop).
 * So while such a command runs, an exit that is not countersign's own is
 * reported as E_TOOL_MODULE, under --json as the one document, and the
 * status becomes 2. (countersign's own forced exit, signals.ts, says so first.)
 */
import { printJson, type Io } from './io.js';

let ownExit = false;

/** Called before countersign itself ends the process (a forced stop): not a module's doing. */
export function exitingOnPurpose(): void {
  ownExit = true;
}

export function guardEarlyExit(io: Io, json: boolean): { off(): void } {
  const onExit = (code: number) => {
    if (ownExit) return;
    const message = `the process ended (status ${code}: a tool module's process.exit(), or an error thrown where countersign cannot catch it, such as in a timer) before the command finished: its result was never written, and a run it was stepping may be left waiting at a tool node`;
    const fix = 'a tool returns its result (or throws an error from run()); it must not call process.exit nor throw from timers or callbacks. Find the run with `countersign runs` and see where it stands with `countersign status <runId>`';
    try {
      if (json) printJson(io, { error: { code: 'E_TOOL_MODULE', message, fix } });
      io.stderr.write(`countersign: E_TOOL_MODULE: ${message}\n  fix: ${fix}\n`);
    } catch {
      // the streams are gone: the status still says it
    }
    process.exitCode = 2;
  };
  process.on('exit', onExit);
  return { off: () => process.off('exit', onExit) };
}
