/**
 * Signals when the launcher runs the command relayed (stdout-relay.cjs).
 * The command's process stays in the terminal's process group, so Ctrl-C
 * or a closed terminal reach it directly — and the launcher too, which
 * passes every signal it gets on over the IPC channel, since one sent to
 * the launcher alone (`kill <pid>`, a host stopping it) must reach the
 * command as well. The same signal arriving both ways is one signal: a
 * relayed one acts only when the command has not just had it directly, and
 * then is raised here, so the command's own handling (signals.ts: stop the
 * run, say where it stopped) or Node's default applies, as without relay.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** A relayed signal this soon after the same one came directly is that one, passed on. */
const SAME_SIGNAL_MS = 1_000;
/** How long a relayed signal waits for the direct one it may duplicate to be seen first. */
const SETTLE_MS = 100;

export function acceptRelayedSignals(): void {
  if (typeof process.send !== 'function' || !process.channel) return;
  const direct = new Map<string, number>();
  // Signals this process raised itself for a relayed one: not direct, so a second relayed signal is never taken for their echo.
  const raised = new Map<string, number>();
  for (const signal of SIGNALS) {
    const seen = () => {
      const own = raised.get(signal) ?? 0;
      if (own > 0) raised.set(signal, own - 1);
      else direct.set(signal, Date.now());
      // Alone, this listener would swallow the signal: the default (ending the process) applies, as without relay.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, seen);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, seen);
  }
  process.on('message', (message: unknown) => {
    const signal = (message as { countersignSignal?: unknown } | null)?.countersignSignal;
    if (!SIGNALS.includes(signal as (typeof SIGNALS)[number])) return;
    setTimeout(() => {
      if (Date.now() - (direct.get(signal as string) ?? -Infinity) < SAME_SIGNAL_MS) return;
      raised.set(signal as string, (raised.get(signal as string) ?? 0) + 1);
      process.kill(process.pid, signal as NodeJS.Signals);
    }, SETTLE_MS).unref();
  });
  // The launcher gone (killed outright): as a closed terminal.
  process.on('disconnect', () => process.kill(process.pid, 'SIGHUP'));
  // The channel must not keep the command alive once it is done.
  process.channel.unref();
}
