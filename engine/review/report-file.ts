/**
 * Reading a report file without ever blocking. The report path can come
 * from an agent-written variable, and whatever sits there is read while an
 * answer is judged: reading a FIFO that nobody writes to would hang the
 * engine (and the store transaction around it). So the file is opened
 * without blocking and only a regular file is read.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';

/** Thrown for a path that exists but is no regular file; `code` as fs errors have it. */
export class NotRegularFile extends Error {
  readonly code: 'EISDIR' | 'ENOTREG';
  /** e.g. "a FIFO" */
  readonly kind: string;
  constructor(path: string, stats: Stats) {
    const kind = describeKind(stats);
    super(`${path} is ${kind}, not a regular file`);
    this.code = stats.isDirectory() ? 'EISDIR' : 'ENOTREG';
    this.kind = kind;
  }
}

/** The text of the regular file at `path`; fs errors (ENOENT, …) pass through. */
export function readRegularFile(path: string): string {
  // O_NONBLOCK lets open() return at once on a FIFO with no writer; Windows has no such flag (nor FIFOs).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFile(path, stats);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'a special file';
}
