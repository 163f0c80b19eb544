/** Agent processes in tests: an agent writes its pid to a file, and a test checks it is gone afterwards. */
import { existsSync, readFileSync } from 'node:fs';

/** The pid an agent wrote to `file`, once it has; throws when it never does. */
export async function pidFrom(file: string, ms = 20_000, why: () => string = () => ''): Promise<number> {
  for (const end = Date.now() + ms; !existsSync(file) || readFileSync(file, 'utf8').trim() === ''; ) {
    if (Date.now() > end) throw new Error(`the agent never started${why() ? `: ${why()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Number(readFileSync(file, 'utf8'));
}

/** Whether `pid` still runs; if it does it is killed, so a failing test leaves no stray process. */
export function aliveThenReaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  process.kill(pid, 'SIGKILL');
  return true;
}
