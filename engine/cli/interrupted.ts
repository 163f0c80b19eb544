/**
 * A signal (Ctrl-C, `kill`, a closed terminal) that ends a command which
 * has no stop of its own (every command but `run`, `gate` and `mcp`): the
 * process still ends by that signal, as a shell expects, but first says so
 * — under --json as the one document on stdout — with where the run stands,
 * read from the store: the step it was taking is one transaction, so it was
 * either stored or not, and the fix says which (give the same command again,
 * or see the run with `status`).
 */
import { exitingOnPurpose, resetNotes, standing, where, type EarlyExitContext } from './early-exit.js';
import { printJson, type Io } from './io.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface SignalGuard {
  /** The command has said its result: a signal from now on just ends the process. */
  finished(): void;
}

export function guardSignals(io: Io, json: boolean, context: EarlyExitContext): SignalGuard {
  resetNotes();
  const began = new Date().toISOString();
  const off = () => {
    for (const s of SIGNALS) process.off(s, handler);
  };
  function handler(signal: NodeJS.Signals): void {
    off();
    try {
      const error = interrupted(signal, context, began);
      if (json) printJson(io, { error });
      io.stderr.write(`countersign: ${error.code}: ${error.message}\n  fix: ${error.fix}\n`);
    } catch {
      // the streams are gone: the signal still says it
    }
    exitingOnPurpose();
    // Ended by the signal itself (status 128+n to a shell), now nothing listens for it.
    process.kill(process.pid, signal);
  }
  for (const s of SIGNALS) process.on(s, handler);
  return { finished: off };
}

function interrupted(signal: NodeJS.Signals, context: EarlyExitContext, began: string): { code: string; message: string; fix: string } {
  const { runId, rec, changed, checking, startsRun, storeOpened } = standing(context, began);
  const head = `interrupted by ${signal} before ${context.command} finished`;
  const again = 'give the same command again';
  if (checking) return { code: 'E_INTERRUPTED', message: `${head}: nothing was printed`, fix: again };
  // Still reading its input (an answer on stdin, say): the store was not even opened.
  // (Whether a run it names exists is not known yet: said of the command, not of the run.)
  if (!storeOpened) return { code: 'E_INTERRUPTED', message: `${head}, before it opened the store: nothing was stored`, fix: again };
  if (rec) {
    return changed
      ? { code: 'E_INTERRUPTED', message: `${head}, after it stored its step: run ${runId} now ${where(rec)}`, fix: `see where it stands with countersign status ${runId}${context.store}` }
      : { code: 'E_INTERRUPTED', message: `${head}: nothing of this command was stored, and run ${runId} ${where(rec)}, as before`, fix: again };
  }
  if (startsRun) return { code: 'E_INTERRUPTED', message: `${head}: no run was stored`, fix: `${context.command} the workflow again` };
  return { code: 'E_INTERRUPTED', message: `${head}: nothing was changed`, fix: again };
}
