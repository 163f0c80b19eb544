/**
 * The copy half of the stdout guard (see stdout-fs.ts): fs's copyFile and
 * cp, callback, sync and promise forms, to a path that names stdout. A copy
 * is its own concern because libuv opens the destination itself, past every
 * write and open patched in stdout-fs.ts, so each copy entry point is
 * replaced by one that writes the source's bytes to descriptor 2.
 */
import fs from 'node:fs';
import { namesStdout } from './stdout-paths.js';

type AnyFn = (...args: unknown[]) => unknown;

/**
 * A copy to a stdout path (copyFile, cp) writes the source's bytes to 2.
 * Left to libuv, a copy opens stdout anew, truncating a redirect file, and
 * to a pipe fails with EINVAL and then unlinks the destination — as root,
 * /dev/stdout itself. The source is read whole, as the copy would.
 */
export function guardCopies(): void {
  const target = fs as unknown as Record<string, AnyFn>;
  const copyToStderr = (source: unknown) => {
    fs.writeFileSync(2, fs.readFileSync(source as fs.PathLike));
  };
  for (const name of ['copyFileSync', 'cpSync']) {
    const original = target[name];
    target[name] = (source: unknown, dest: unknown, ...rest: unknown[]) => (namesStdout(dest) ? copyToStderr(source) : original(source, dest, ...rest));
  }
  for (const name of ['copyFile', 'cp']) {
    const original = target[name];
    target[name] = (source: unknown, dest: unknown, ...rest: unknown[]) => {
      if (!namesStdout(dest)) return original(source, dest, ...rest);
      const done = rest.filter((a) => typeof a === 'function').pop() as AnyFn | undefined;
      let failure: unknown = null;
      try {
        copyToStderr(source);
      } catch (e) {
        failure = e;
      }
      if (done) process.nextTick(done, failure);
      return undefined;
    };
  }
  const promises = fs.promises as unknown as Record<string, AnyFn>;
  for (const name of ['copyFile', 'cp']) {
    const original = promises[name].bind(fs.promises);
    promises[name] = async (source: unknown, dest: unknown, ...rest: unknown[]) => (namesStdout(dest) ? copyToStderr(source) : original(source, dest, ...rest));
  }
}
