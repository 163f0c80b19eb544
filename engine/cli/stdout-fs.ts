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
 * descriptor, on the null device — that every fs write entry point
 * recognises and turns into a write to 2. Writes are never positioned
 * there: stderr's earlier output is never overwritten.
 */
import fs from 'node:fs';
import { devNull } from 'node:os';
import { posix } from 'node:path';
import { promisify } from 'node:util';

type AnyFn = (...args: unknown[]) => unknown;

/** Descriptors handed out for an open of a stdout path: written, they write to 2. */
const standIns = new Set<number>();
/** FileHandles (fs.promises.open) of a stdout path, as returned to the caller. */
const standInHandles = new WeakSet<object>();

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
 * Installs the guard. `ours`: true while countersign itself writes to
 * stdout (a file's stream writes through fs.writeSync(1, …)).
 */
export function guardStdoutWrites(ours: () => boolean): void {
  const toStderr = (fd: unknown): boolean => (fd === 1 && !ours()) || standIns.has(fd as number);
  guardWrites(toStderr);
  guardWholeFiles();
  guardOpens();
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
 * An open of a stdout path opens the null device instead (with the flags
 * given, so 'wx' still fails as it would) and marks the descriptor a
 * stand-in. Any other open's descriptor is no stand-in, whatever its number
 * was before: a stand-in closed some way not seen here is not taken for one.
 */
function guardOpens(): void {
  const target = fs as unknown as Record<string, AnyFn>;
  const openSync = target.openSync;
  target.openSync = (path: unknown, ...rest: unknown[]) => {
    const fd = openSync(namesStdout(path) ? devNull : path, ...rest) as number;
    if (namesStdout(path)) standIns.add(fd);
    else standIns.delete(fd);
    return fd;
  };
  const open = target.open;
  target.open = (path: unknown, ...rest: unknown[]) => {
    // No callback: fs.open's own error says so.
    if (typeof rest[rest.length - 1] !== 'function') return open(path, ...rest);
    const done = rest.pop() as AnyFn;
    return open(namesStdout(path) ? devNull : path, ...rest, (e: unknown, fd: number) => {
      if (!e && namesStdout(path)) standIns.add(fd);
      else if (!e) standIns.delete(fd);
      done(e, fd);
    });
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
    return standInHandle((await promiseOpen(devNull, ...rest)) as fs.promises.FileHandle);
  };
}

/** A FileHandle on the null device whose writes go to descriptor 2 (a FileHandle writes past fs.write, so each write method is replaced). */
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
