/**
 * A signal (Ctrl-C, `kill`, a closed terminal) that ends a command which
 * has no stop of its own (every command but `run`, `gate` and `mcp`): the
 * process still ends by that signal, as a shell expects, but first says so
 * — under --json as the one document on stdout — with where the run stands,
 * read from the store: the step it was taking is one transaction, so it was
 * either stored or not, and the fix says which (give the same command again,
 * or see the run with `status`).
 */
import { exitingOnPurpose, resetNotes, standing, whenRunCreated, where, type EarlyExitContext } from './early-exit.js';
import { printJson, type Io } from './io.js';
import { tellLauncher } from './relayed-signals.js';
import { withToolModules } from './render.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface SignalGuard {
  /** The command has said its result: a signal from now on just ends the process. */
  finished(): void;
}

/** The guard in force, for a command that takes signals itself from some point on (run, once it drives). */
let active: SignalGuard | undefined;

/** From now on the command stops on a signal itself (run's drive: signals.ts): the guard steps aside. */
export function handOverSignals(): void {
  active?.finished();
}

export function guardSignals(io: Io, json: boolean, context: EarlyExitContext): SignalGuard {
  resetNotes();
  const began = new Date().toISOString();
  const off = () => {
    for (const s of SIGNALS) process.off(s, handler);
  };
  function handler(signal: NodeJS.Signals): void {
    off();
    // First, before the store is read: the launcher then waits for this command's own word.
    tellLauncher({ countersign: 'signal-taken' });
    try {
      const said = interrupted(signal, context, began);
      // Run as printed, a command on a run whose workflow loads tool modules needs the flag this one was given.
      const error = context.toolModules ? { ...said, fix: withToolModules(said.fix) } : said;
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
  // Under --allow-tool-modules a module's code may hold the process so this handler never runs: the launcher
  // then ends the command and says this instead (stdout-relay.cjs).
  tellLauncher({ countersign: 'signals-guarded', json, ...held(context) });
  let released = false;
  // (Not once released: a run created after that, by run's drive, is the drive's to stop, not this guard's.)
  whenRunCreated((runId) => released || tellLauncher({ countersign: 'signals-guarded', json, ...held({ ...context, runId }) }));
  const guard: SignalGuard = {
    finished() {
      released = true;
      if (active === guard) active = undefined;
      off();
      tellLauncher({ countersign: 'signals-released' });
    },
  };
  active = guard;
  return guard;
}

/**
 * What the launcher says when a signal found the command held by a tool
 * module's code (execSync, a busy loop) and it was ended without reading
 * the store: the step it was taking is one transaction, so where the run
 * stands is for `status` to say. `%SIGNAL%` is the signal.
 */
function held(context: EarlyExitContext): { message: string; fix: string } {
  const head = `interrupted by %SIGNAL% before ${context.command} finished, while a tool module's code held the process (the command could not take the signal within ${HELD_MS / 1000} s), so it was ended without reading the store`;
  const mend = 'a tool should await its work (a promise, an async child process), never hold the process (execSync, a busy loop)';
  if (context.files !== undefined) return { message: `${head}: nothing was printed`, fix: `${mend}; then ${context.command} again` };
  const status = (runId: string) => `countersign status ${runId}${context.store} --allow-tool-modules`;
  if (context.runId !== undefined) {
    return { message: `${head}: run ${context.runId} may be left waiting at a tool node (a step is one transaction: stored whole or not at all)`, fix: `see where run ${context.runId} stands with ${status(context.runId)}; ${mend}` };
  }
  return { message: `${head}: a run it ${context.command === 'start' ? 'started' : 'was stepping'} may be left waiting at a tool node`, fix: `find the run with countersign runs${context.store} (it may not have been stored) and see where it stands with ${status('<runId>')}; ${mend}` };
}

/** How long the launcher gives a command to take a signal it passed on (stdout-relay.cjs HELD_MS, the same). */
const HELD_MS = 1_000;

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
