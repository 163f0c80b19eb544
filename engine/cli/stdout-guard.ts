/**
 * stdout is countersign's own: exactly one JSON document under --json, MCP
 * frames under `mcp`. Code it loads and runs in-process (a workflow's tool
 * modules) may print anyway — `console.log` while debugging, a `git` it
 * starts with `stdio: 'inherit'`, a raw `fs.writeSync(1, …)` — so all of
 * that is sent to stderr, and only the stream returned here writes to
 * stdout itself.
 */
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { posix } from 'node:path';

/** Set while countersign itself writes to stdout (a file's stream writes through fs.writeSync). */
let ours = false;

export function ownStdout(): NodeJS.WritableStream {
  const stream = process.stdout;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stream.write;
  guardFd1();
  guardStdoutPaths();
  guardChildren();
  // Named imports of node:fs and node:child_process in loaded modules see the guarded functions too.
  syncBuiltinESMExports();
  const ownWrite = (...args: unknown[]): boolean => {
    ours = true;
    try {
      return write(...args);
    } finally {
      ours = false;
    }
  };
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return ownWrite;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Paths that name countersign's stdout: opened anew by a tool module (a logger's destination), they would write past the guard. */
const STDOUT_PATHS: ReadonlySet<string> = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1', `/proc/${process.pid}/fd/1`]);
/** A path (string, Buffer or file: URL, written any way: /dev/./stdout), or descriptor 1 itself, naming stdout. */
const namesStdout = (path: unknown): boolean => {
  if (path === 1) return true;
  let text: string | undefined;
  if (typeof path === 'string') text = path;
  else if (Buffer.isBuffer(path)) text = path.toString('utf8');
  else if (path instanceof URL && path.protocol === 'file:') text = decodeURIComponent(path.pathname);
  return text !== undefined && STDOUT_PATHS.has(posix.normalize(text));
};

/**
 * fs calls given a path naming stdout write to stderr instead: whole-file
 * writes to descriptor 2 (never closed), a stream on it, and an open of
 * /dev/stderr — or, where stderr cannot be opened by path (a socket), of
 * /dev/null: such output is lost, never on stdout.
 */
function guardStdoutPaths(): void {
  const target = fs as unknown as Record<string, AnyFn>;
  for (const name of ['writeFileSync', 'writeFile', 'appendFileSync', 'appendFile']) {
    const original = target[name];
    target[name] = (path: unknown, ...rest: unknown[]) => original(namesStdout(path) ? 2 : path, ...rest);
  }
  const createWriteStream = fs.createWriteStream;
  fs.createWriteStream = ((path: unknown, options?: unknown) => {
    const fd = options !== null && typeof options === 'object' ? (options as { fd?: unknown }).fd : undefined;
    if (fd === 1) return (createWriteStream as AnyFn)(path, { ...(options as object), fd: 2, autoClose: false });
    if (!namesStdout(path)) return (createWriteStream as AnyFn)(path, options);
    const given = typeof options === 'string' ? { encoding: options } : (options as object | undefined) ?? {};
    return (createWriteStream as AnyFn)('/dev/stderr', { ...given, fd: 2, autoClose: false });
  }) as typeof fs.createWriteStream;
  const stderrPath = (): string => {
    try {
      fs.closeSync(openSync('/dev/stderr', 'a'));
      return '/dev/stderr';
    } catch {
      return '/dev/null';
    }
  };
  const openSync = fs.openSync;
  const open = fs.open;
  fs.openSync = ((path: unknown, ...rest: unknown[]) => (openSync as AnyFn)(namesStdout(path) ? stderrPath() : path, ...rest)) as typeof fs.openSync;
  fs.open = ((path: unknown, ...rest: unknown[]) => (open as AnyFn)(namesStdout(path) ? stderrPath() : path, ...rest)) as typeof fs.open;
  const promises = fs.promises as unknown as Record<string, AnyFn>;
  const promiseOpen = promises.open.bind(fs.promises);
  promises.open = (path: unknown, ...rest: unknown[]) => promiseOpen(namesStdout(path) ? stderrPath() : path, ...rest);
  for (const name of ['writeFile', 'appendFile'] as const) {
    const original = promises[name].bind(fs.promises);
    const viaFd = fs[name];
    promises[name] = (path: unknown, ...rest: unknown[]) => (namesStdout(path)
      ? new Promise((done, fail) => (viaFd as AnyFn)(2, ...rest, (e: unknown) => (e ? fail(e) : done(undefined))))
      : original(path, ...rest));
  }
}

/** fs writes to file descriptor 1 by anyone but countersign go to 2. */
function guardFd1(): void {
  const writeSync = fs.writeSync;
  const write = fs.write;
  const writevSync = fs.writevSync;
  const writev = fs.writev;
  fs.writevSync = ((fd: number, ...rest: unknown[]) => (writevSync as (...a: unknown[]) => number)(fd === 1 && !ours ? 2 : fd, ...rest)) as typeof fs.writevSync;
  fs.writev = ((fd: number, ...rest: unknown[]) => (writev as (...a: unknown[]) => void)(fd === 1 && !ours ? 2 : fd, ...rest)) as typeof fs.writev;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => (writeSync as (...a: unknown[]) => number)(fd === 1 && !ours ? 2 : fd, ...rest)) as typeof fs.writeSync;
  fs.write = ((fd: number, ...rest: unknown[]) => (write as (...a: unknown[]) => void)(fd === 1 && !ours ? 2 : fd, ...rest)) as typeof fs.write;
}

/** A child told to share countersign's stdout shares its stderr instead. */
function stdioToStderr(stdio: unknown, fallback: unknown): unknown {
  const given = stdio ?? fallback;
  if (given === 'inherit') return ['inherit', 2, 'inherit'];
  if (Array.isArray(given) && (given[1] === 'inherit' || given[1] === 1 || given[1] === process.stdout)) {
    const copy = [...given];
    copy[1] = 2;
    return copy;
  }
  return stdio;
}

type AnyFn = (...args: unknown[]) => unknown;

/** Wraps a child_process function whose options sit at the first object argument after the command. */
function wrapOptions(name: 'spawn' | 'spawnSync' | 'execSync' | 'execFileSync' | 'fork', fallback?: (options: Record<string, unknown>) => unknown): void {
  const original = childProcess[name] as unknown as AnyFn;
  (childProcess as unknown as Record<string, AnyFn>)[name] = (...args: unknown[]) => {
    const at = args.findIndex((a, i) => i > 0 && a !== null && typeof a === 'object' && !Array.isArray(a));
    const options = (at >= 0 ? args[at] : {}) as Record<string, unknown>;
    const stdio = stdioToStderr(options.stdio, fallback?.(options));
    if (stdio === options.stdio) return original(...args);
    const next = [...args];
    if (at >= 0) next[at] = { ...options, stdio };
    else next.splice(Array.isArray(args[1]) ? 2 : 1, 0, { stdio });
    return original(...next);
  };
}

function guardChildren(): void {
  wrapOptions('spawn');
  wrapOptions('spawnSync');
  wrapOptions('execSync');
  wrapOptions('execFileSync');
  // fork shares stdout unless told to be silent.
  wrapOptions('fork', (options) => (options.silent ? undefined : [0, 'inherit', 'inherit', 'ipc']));
}
