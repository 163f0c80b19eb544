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
