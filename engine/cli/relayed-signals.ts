/**
 * The command's side of the launcher's relay (stdout-relay.cjs). Signals
 * reach this process as themselves, passed on by the launcher or straight
 * from the terminal, so nothing is done about them here. Only the launcher
 * going away without passing anything on (killed outright, SIGKILL) is
 * noticed, by its IPC channel closing: taken as the terminal closing
 * (SIGHUP), so the command stops as it would, never running on unseen.
 */
export function acceptRelayedSignals(): void {
  if (typeof process.send !== 'function' || !process.channel) return;
  process.on('disconnect', () => process.kill(process.pid, 'SIGHUP'));
  // The channel must not keep the command alive once it is done.
  process.channel.unref();
}
