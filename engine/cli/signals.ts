/**
 * Agents and reviewers run in their own process groups, out of reach of the
 * terminal's signals (a Ctrl-C meant for countersign must not kill an agent
 * mid-write). So countersign stops them itself when it is ended: Ctrl-C,
 * `kill`, or the terminal going away (SIGHUP: a closed window, a dropped
 * SSH session), then exits with the signal's conventional status.
 */
const EXIT_STATUS: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Runs `stop` (closing the agents) when the process is signalled, then exits; the returned function removes the handlers. */
export function onInterrupt(stop: () => unknown): () => void {
  const handler = (signal: NodeJS.Signals) => {
    void Promise.resolve()
      .then(stop)
      .finally(() => process.exit(EXIT_STATUS[signal] ?? 1));
  };
  for (const signal of Object.keys(EXIT_STATUS)) process.once(signal, handler);
  return () => {
    for (const signal of Object.keys(EXIT_STATUS)) process.off(signal, handler);
  };
}
