/**
 * Agents and reviewers run in their own process groups, out of reach of the
 * terminal's signals (a Ctrl-C meant for countersign must not kill an agent
 * mid-write). So countersign stops them itself when it is ended: Ctrl-C,
 * `kill`, or the terminal going away (SIGHUP: a closed window, a dropped
 * SSH session), then exits with the signal's conventional status.
 */
import { exitingOnPurpose } from './early-exit.js';

const EXIT_STATUS: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** The conventional exit status after `signal` (128 + its number). */
export function signalStatus(signal: string): number {
  return EXIT_STATUS[signal] ?? 1;
}

/** How long an interrupted `run` may take to record where it stopped before it is ended anyway. */
const SETTLE_MS = 5_000;

export interface Interruptible {
  /** Aborted on the first SIGINT, SIGTERM or SIGHUP: the drive stops at once (E_INTERRUPTED) and says where. */
  signal: AbortSignal;
  /** The exit status of the signal received, once one was. */
  status(): number | undefined;
  /** Removes the handlers (and the fallback timer). */
  off(): void;
}

/**
 * For a command that can stop cleanly (`run`): the first signal aborts the
 * drive, which stops the agents and reports the still-waiting run and how to
 * resume it, under --json too; the command then exits with the signal's
 * status. If that has not happened within a few seconds, or a second signal
 * comes, `stop` runs and the process exits with the signal's status.
 */
export function interruptible(stop: () => unknown): Interruptible {
  const controller = new AbortController();
  let status: number | undefined;
  let fallback: NodeJS.Timeout | undefined;
  const force = (code: number) => {
    void Promise.resolve()
      .then(stop)
      .finally(() => {
        exitingOnPurpose();
        process.exit(code);
      });
  };
  const handler = (signal: NodeJS.Signals) => {
    if (status !== undefined) return force(status);
    status = EXIT_STATUS[signal] ?? 1;
    controller.abort(signal);
    fallback = setTimeout(() => force(status!), SETTLE_MS);
  };
  for (const signal of Object.keys(EXIT_STATUS)) process.on(signal, handler);
  return {
    signal: controller.signal,
    status: () => status,
    off() {
      clearTimeout(fallback);
      for (const signal of Object.keys(EXIT_STATUS)) process.off(signal, handler);
    },
  };
}
