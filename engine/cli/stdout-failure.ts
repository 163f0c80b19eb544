/**
 * A write to stdout that failed for another reason than its reader going
 * away (a full disk, an I/O error): noted where it happens (every write to
 * stdout goes through one place), so the command ends saying so on stderr
 * (E_OUTPUT), never with a stack trace or a status that says something else
 * went wrong. A reader that went away (EPIPE) is no failure: the rest is
 * dropped, as a closed pipe asks.
 */
let failure: NodeJS.ErrnoException | undefined;

export function noteStdoutFailure(e: unknown): void {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EPIPE') return;
  failure ??= err;
}

/** The first failed write since the last call, if any. */
export function takeStdoutFailure(): NodeJS.ErrnoException | undefined {
  const noted = failure;
  failure = undefined;
  return noted;
}

/** What main() knows of the command whose result could not be written: enough to say how to get that result. */
export interface CommandDone {
  /** The command, when one was recognised (not for a usage error or --help). */
  command?: string;
  /** ` --store DIR` as the command was given it ('' for the default). */
  store: string;
  /** The run the command names (step, run --resume). */
  runId?: string;
  /** The run the command created (start, run). */
  created?: string;
  toolModules?: boolean;
}

/** Commands that change a run: what they did is read back with `status`, never by doing it again. */
const CHANGES_RUNS: ReadonlySet<string> = new Set(['start', 'step', 'run']);

/**
 * The E_OUTPUT lines for a result that could not be written. The fix fits
 * the command: one that started or advanced a run names it (giving the
 * command again would start a second run, or answer twice); one that only
 * reads (validate, graph, status, --help, a usage error) is given again.
 */
export function outputFailureSaid(failed: NodeJS.ErrnoException, status: number, done: CommandDone): string {
  const why = `${failed.code ?? 'error'}: ${failed.message.replace(/^\w+: /, '').split(',')[0]}`;
  const writable = 'send stdout where it can be written (free space on its device, or another file)';
  // A named run that a refused command (status 2: unknown run, E_SEQ, usage) never changed has nothing to read back.
  const runId = done.created ?? (done.command !== undefined && CHANGES_RUNS.has(done.command) && status !== 2 ? done.runId : undefined);
  let what = '';
  let fix = `${writable}, then give the same command again`;
  if (runId !== undefined) {
    const see = `countersign status ${runId}${done.store}${done.toolModules ? ' --allow-tool-modules' : ''}`;
    what = done.created !== undefined ? `: it started run ${runId}` : `: on run ${runId}`;
    fix = `${writable}, then see where run ${runId} stands with ${see} (not the same command again: it would ${done.created !== undefined ? 'start another run' : 'answer the run again'})`;
  } else if (done.command === 'gate' && status !== 2) {
    fix = `${writable}, then see the decision it recorded with countersign audit${done.store} (not the same command again: it would record the proposal twice)`;
  } else if (done.command === 'confirm' && status === 0) {
    fix = `${writable} for the next command; this confirmation was recorded (valid 10 minutes; a proposal finds it by its operator, action and target), so it needs no giving again`;
  }
  return `countersign: E_OUTPUT: could not write the result to stdout (${why}); the command itself finished, with status ${status}${what}\n  fix: ${fix}\n`;
}
