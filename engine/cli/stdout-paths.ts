/**
 * Which paths name countersign's stdout, for the stdout guard
 * (stdout-fs.ts, stdout-copies.ts): the well-known spellings, and any path
 * that resolves to stdout's own file. Apart from the fs patches because
 * every one of them (writes, opens, copies) asks the same question, and
 * stdout's identity is read once, when the guard is loaded.
 */
import fs from 'node:fs';
import { devNull } from 'node:os';
import { posix } from 'node:path';

/** Paths that name countersign's stdout: opened anew by a tool module (a logger's destination), they would write past the guard. */
const STDOUT_PATHS: ReadonlySet<string> = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1', `/proc/${process.pid}/fd/1`]);

/** stdout's file identity (dev+ino), or undefined when fd 1 is closed or is the null device (nothing there to protect: /dev/null opened by a module must stay the null device). */
const stdoutIdentity = ((): { dev: number; ino: number } | undefined => {
  try {
    const out = fs.fstatSync(1);
    const nul = fs.statSync(devNull);
    return out.dev === nul.dev && out.ino === nul.ino ? undefined : { dev: out.dev, ino: out.ino };
  } catch {
    return undefined;
  }
})();

/** A path's text (string, Buffer or file: URL), or undefined for anything else. */
function pathText(path: unknown): string | undefined {
  if (typeof path === 'string') return path;
  if (Buffer.isBuffer(path)) return path.toString('utf8');
  if (path instanceof URL && path.protocol === 'file:') return decodeURIComponent(path.pathname);
  return undefined;
}

/**
 * A path, or descriptor 1 itself, naming stdout. Known by what it resolves
 * to, not its spelling: any path whose stat (links followed) is stdout's own
 * file — a link to /dev/stdout (a Docker-style `app.log`), /proc/thread-self/fd/1,
 * a relative path, stdout's redirect file by its name.
 */
export const namesStdout = (path: unknown): boolean => {
  if (path === 1) return true;
  const text = pathText(path);
  if (text === undefined) return false;
  if (STDOUT_PATHS.has(posix.normalize(text))) return true;
  if (stdoutIdentity === undefined) return false;
  try {
    const at = fs.statSync(text, { throwIfNoEntry: false });
    return at !== undefined && at.dev === stdoutIdentity.dev && at.ino === stdoutIdentity.ino;
  } catch {
    return false; // a link loop, a parent that is not a directory: not stdout
  }
};
