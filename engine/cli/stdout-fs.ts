/**
 * The fs half of the stdout guard (see stdout-guard.ts): writes to file
 * descriptor 1, and files that name stdout by path (`/dev/stdout`, a
 * logger's destination), go to stderr.
 *
 * They go through descriptor 2 itself. Opening `/dev/stderr` instead would
 * give a description with a file offset of its own: with stderr a file
 * (`2>err.txt`), a 'w' open truncates what was written before, and anything
 * written there is overwritten by stderr's next line. Node cannot duplicate
 * a descriptor, so an open of a stdout path returns a stand-in — a real
 * descriptor, on stderr opened for appending (/proc/self/fd/2; the null
 * device when stderr cannot be opened by path, a socket) — that every fs
 * write entry point recognises and turns into a write to 2, and that
 * stdout-guard.ts swaps for 2 when it is handed to a child as its stdio. Writes are never positioned
 * there: stderr's earlier output is never overwritten. Which paths name
 * stdout is in stdout-paths.ts; copies to one (copyFile, cp) in stdout-copies.ts.
 */
import fs from 'node:fs';
import { devNull } from 'node:os';
import { promisify } from 'node:util';
import { guardCopies } from './stdout-copies.js';
import { namesStdout } from './stdout-paths.js';

type AnyFn = (...args: unknown[]) => unknown;

/** Descriptors handed out for an open of a stdout path: written, they write to 2. */
const standIns = new Set<number>();

/** Whether `fd` is a stand-in for stdout handed out by an open of a stdout path. */
export const isStandIn = (fd: unknown): boolean => standIns.has(fd as number);

/** Where a stand-in is opened: stderr, appended to, so that a write past the guard (a native addon given the number) still reaches it. */
const STDERR_BY_PATH = '/proc/self/fd/2';

/** Whether open flags (as fs takes them) allow writing: only then is a stand-in put on stderr; a read-only one stays on the null device (reads see an empty file). */
function writable(flags: unknown): boolean {
  if (typeof flags === 'number') return (flags & 3) !== fs.constants.O_RDONLY;
  return typeof flags === 'string' && /[wa+]/.test(flags);
}
/** FileHandles (fs.promises.open) of a stdout path, as returned to the caller. */
const standInHandles = new WeakSet<object>();

/**
 * Installs the guard. `ours`: true while countersign itself writes to
 * stdout (a file's stream writes through fs.writeSync(1, …)).
 */
export function guardStdoutWrites(ours: () => boolean): void {
  const toStderr = (fd: unknown): boolean => (fd === 1 && !ours()) || standIns.has(fd as number);
  guardWrites(toStderr);
  guardWholeFiles();
  guardOpens();
  guardCopies();
}

/**
 * A write's arguments (after the descriptor) with no file position: at 2
 * a position would overwrite stderr's earlier output (and a pipe refuses
 * one). Covers every form fs.write/writeSync take: (buffer, offset?,
 * length?, position?), (buffer, { offset, length, position }),
 * (string, position?, encoding?), and a trailing callback.
 */
function unpositioned(args: unknown[]): unknown[] {
  const callback = typeof args[args.length - 1] === 'function' ? [args[args.length - 1]] : [];
  const rest = callback.length > 0 ? args.slice(0, -1) : args;
  const [data, second, third] = rest;
  if (typeof data === 'string') return [data, null, third, ...callback];
  if (!ArrayBuffer.isView(data)) return args;
  if (second !== null && typeof second === 'object') return [data, { ...second, position: null }, ...callback];
  return [data, second, third, null, ...callback];
}

/**
 * `wrapper`, carrying `original`'s own symbol properties: fs.write and
 * fs.writev tell util.promisify to resolve with { bytesWritten, buffer(s) },
 * and a module's promisify(fs.write) must get that still.
 */
function promisedAlike(original: AnyFn, wrapper: AnyFn): AnyFn {
  for (const key of Object.getOwnPropertySymbols(original)) {
    Object.defineProperty(wrapper, key, Object.getOwnPropertyDescriptor(original, key)!);
  }
  return wrapper;
}

function guardWrites(toStderr: (fd: unknown) => boolean): void {
  const target = fs as unknown as Record<string, AnyFn>;
  for (const name of ['writeSync', 'write']) {
    const original = target[name];
    target[name] = promisedAlike(original, (fd: unknown, ...rest: unknown[]) => (toStderr(fd) ? original(2, ...unpositioned(rest)) : original(fd, ...rest)));
  }
  for (const name of ['writevSync', 'writev']) {
    const original = target[name];
    // (buffers, position?, callback?): the position goes.
    target[name] = promisedAlike(original, (fd: unknown, buffers: unknown, ...rest: unknown[]) => (toStderr(fd)
      ? original(2, buffers, null, ...rest.filter((a) => typeof a === 'function'))
      : original(fd, buffers, ...rest)));
  }
  for (const name of ['writeFileSync', 'writeFile', 'appendFileSync', 'appendFile']) {
    const original = target[name];
    target[name] = (path: unknown, ...rest: unknown[]) => original(namesStdout(path) || toStderr(path) ? 2 : path, ...rest);
  }
  const createWriteStream = fs.createWriteStream;
  fs.createWriteStream = ((path: unknown, options?: unknown) => {
    const given = typeof options === 'string' ? { encoding: options } : (options as Record<string, unknown> | null | undefined) ?? {};
    if (!namesStdout(path) && !toStderr(given.fd)) return (createWriteStream as AnyFn)(path, options);
    const fd = given.fd;
    // A stream given a stand-in would have closed it when done.
    return stderrStream(createWriteStream, given, standIns.has(fd as number) && given.autoClose !== false ? () => closeStandIn(fd as number) : undefined);
  }) as typeof fs.createWriteStream;
}

/** A write stream on descriptor 2 (never closed, never positioned: no `start`), `options` otherwise as given; `closed` runs when it closes. */
function stderrStream(createWriteStream: typeof fs.createWriteStream, options: object, closed?: () => void): fs.WriteStream {
  const stream = (createWriteStream as AnyFn)(null, { ...options, fd: 2, autoClose: false, start: undefined }) as fs.WriteStream;
  if (closed) stream.on('close', closed);
  return stream;
}

function closeStandIn(fd: number): void {
  if (!standIns.delete(fd)) return;
  try {
    fs.closeSync(fd);
  } catch {
    // closed already
  }
}

/** fs.promises' whole-file writes to a stdout path, or to a stand-in FileHandle, write to 2. */
function guardWholeFiles(): void {
  const promises = fs.promises as unknown as Record<string, AnyFn>;
  for (const name of ['writeFile', 'appendFile'] as const) {
    const original = promises[name].bind(fs.promises);
    const viaFd = promisify(fs[name]) as AnyFn;
    promises[name] = (path: unknown, ...rest: unknown[]) => (namesStdout(path) || standInHandles.has(path as object) ? viaFd(2, ...rest) : original(path, ...rest));
  }
}

/**
 * An open of a stdout path opens a stand-in instead (see openStandIn) and
 * marks its descriptor so. Any other open's descriptor is no stand-in, whatever its number
 * was before: a stand-in closed some way not seen here is not taken for one.
 */
function guardOpens(): void {
  const target = fs as unknown as Record<string, AnyFn>;
  const openSync = target.openSync;
  const closeSync = target.closeSync;
  /** The null device opened with the flags given (so 'wx' still fails as it would), then swapped for stderr appended to when that opens. */
  const openStandIn = (flags: unknown, mode: unknown): number => {
    const nul = openSync(devNull, flags ?? 'r', mode) as number;
    if (!writable(flags)) return nul;
    try {
      const fd = openSync(STDERR_BY_PATH, 'a') as number;
      closeSync(nul);
      return fd;
    } catch {
      return nul; // stderr a socket (ENXIO), or /proc not mounted
    }
  };
  target.openSync = (path: unknown, ...rest: unknown[]) => {
    if (!namesStdout(path)) {
      const fd = openSync(path, ...rest) as number;
      standIns.delete(fd);
      return fd;
    }
    const fd = openStandIn(rest[0], rest[1]);
    standIns.add(fd);
    return fd;
  };
  const open = target.open;
  target.open = (path: unknown, ...rest: unknown[]) => {
    // No callback: fs.open's own error says so.
    if (typeof rest[rest.length - 1] !== 'function') return open(path, ...rest);
    const done = rest.pop() as AnyFn;
    if (!namesStdout(path)) {
      return open(path, ...rest, (e: unknown, fd: number) => {
        if (!e) standIns.delete(fd);
        done(e, fd);
      });
    }
    // Opened synchronously (a local device or /proc: it does not block), answered asynchronously as fs.open does.
    let fd: number | undefined;
    let failure: unknown = null;
    try {
      fd = openStandIn(typeof rest[0] === 'function' ? undefined : rest[0], typeof rest[1] === 'function' ? undefined : rest[1]);
      standIns.add(fd);
    } catch (e) {
      failure = e;
    }
    process.nextTick(done, failure, fd);
    return undefined;
  };
  for (const name of ['closeSync', 'close']) {
    const original = target[name];
    target[name] = (fd: unknown, ...rest: unknown[]) => {
      standIns.delete(fd as number);
      return original(fd, ...rest);
    };
  }
  const promises = fs.promises as unknown as Record<string, AnyFn>;
  const promiseOpen = promises.open.bind(fs.promises);
  promises.open = async (path: unknown, ...rest: unknown[]) => {
    if (!namesStdout(path)) {
      const handle = (await promiseOpen(path, ...rest)) as fs.promises.FileHandle;
      standIns.delete(handle.fd);
      return handle;
    }
    const nul = (await promiseOpen(devNull, ...rest)) as fs.promises.FileHandle;
    if (!writable(rest[0])) return standInHandle(nul);
    try {
      const handle = (await promiseOpen(STDERR_BY_PATH, 'a')) as fs.promises.FileHandle;
      await nul.close();
      return standInHandle(handle);
    } catch {
      return standInHandle(nul); // stderr a socket, or /proc not mounted
    }
  };
}

/** A stand-in FileHandle whose writes go to descriptor 2 (a FileHandle writes past fs.write, so each write method is replaced). */
function standInHandle(handle: fs.promises.FileHandle): fs.promises.FileHandle {
  const fd = handle.fd;
  standIns.add(fd);
  // Resolved as FileHandle's own are: { bytesWritten, buffer } and { bytesWritten, buffers }.
  const written = (method: AnyFn, key: 'buffer' | 'buffers', args: unknown[]) => new Promise((done, fail) => {
    method(fd, ...args, (e: unknown, bytesWritten: number, data: unknown) => (e ? fail(e) : done({ bytesWritten, [key]: data })));
  });
  const writeFile = promisify(fs.writeFile) as AnyFn;
  const close = async () => {
    standIns.delete(fd);
    await handle.close();
  };
  const own: Record<string, AnyFn> = {
    write: (...args) => written(fs.write as AnyFn, 'buffer', args),
    writev: (buffers) => written(fs.writev as AnyFn, 'buffers', [buffers]),
    writeFile: (data, options) => writeFile(fd, data, options),
    appendFile: (data, options) => writeFile(fd, data, options),
    createWriteStream: (options) => {
      const given = (options ?? {}) as { autoClose?: unknown };
      return stderrStream(fs.createWriteStream, given, given.autoClose === false ? undefined : () => void close().catch(() => undefined));
    },
    close,
  };
  const proxy = new Proxy(handle, {
    get(target, prop) {
      if (typeof prop === 'string' && Object.hasOwn(own, prop)) return own[prop];
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as AnyFn).bind(target) : value;
    },
  });
  standInHandles.add(proxy);
  return proxy;
}
