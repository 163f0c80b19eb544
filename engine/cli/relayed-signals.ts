/**
 * The command's side of the launcher's relay (stdout-relay.cjs). Signals
 * reach this process as themselves, passed on by the launcher or straight
 * from the terminal, so nothing is done about them here. Only the launcher
 * going away without passing anything on (killed outright, SIGKILL) is
 * noticed, by its IPC channel closing: taken as the terminal closing
 * (SIGHUP), so the command stops as it would, never running on unseen.
 */
let relayed = false;

export function acceptRelayedSignals(): void {
  if (typeof process.send !== 'function' || !process.channel) return;
  relayed = true;
  process.on('disconnect', () => process.kill(process.pid, 'SIGHUP'));
  // The channel must not keep the command alive once it is done.
  process.channel.unref();
}

/** Whether a launcher relays this command (and so watches it end: tellLauncher reaches it). */
export function launcherWatches(): boolean {
  return relayed && process.connected;
}

/**
 * What the launcher says for this command when a signal reaches it and the
 * command cannot say it itself: its code held by a tool module, so it is
 * ended (interrupted.ts). `message` holds `%SIGNAL%` where the signal goes.
 */
export interface LauncherNote {
  countersign: 'signals-guarded' | 'signal-taken' | 'signals-released';
  json?: boolean;
  message?: string;
  fix?: string;
}

/** Tells the relaying launcher; nothing when there is none. (A pipe write: it reaches the launcher at once, even if this process then blocks.) */
export function tellLauncher(note: LauncherNote): void {
  if (!launcherWatches()) return;
  try {
    process.send!(note);
  } catch {
    // the launcher is gone: the disconnect handler ends the command
  }
}
