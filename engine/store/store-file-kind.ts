/**
 * What kind of thing sits where a store's database file should be: a
 * regular file (or nothing yet) is left to SQLite, while a directory, a
 * special file or a link that leads nowhere is refused with its own message
 * and fix, since SQLite could only say "unable to open database file". Kept
 * apart from sqlite-schema.ts because it is about the file system, not the
 * tables, and the commands that only read a store (open.ts) check it too.
 */
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { CountersignError } from '../errors.js';
import { shellWord } from '../format/shell-word.js';

/**
 * A directory (or a FIFO, a socket) where countersign.db should be, or a
 * link to nothing there: SQLite can only say "unable to open database
 * file", which reads as a permission problem, and no access right would
 * help. A link to nothing is refused even where SQLite could create the
 * file it points to: that file is most likely a store moved or unmounted
 * since, and a new empty one in its place would hide every run it held.
 * Exported for the commands that only read: they say this too, never "no
 * store there yet".
 */
export function refuseNonFile(file: string): void {
  let kind: string | undefined;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) kind = stat.isDirectory() ? 'a directory' : 'a special file (a FIFO, socket or device)';
  } catch (err) {
    kind = brokenLink(file, (err as NodeJS.ErrnoException).code);
    // Otherwise nothing there yet (SQLite creates it), or nothing this process may look at: SQLite says which.
    if (kind === undefined) return;
    const end = chainEnd(file);
    throw new CountersignError('E_STORE', `cannot open the store ${file}: it is ${kind}`, {
      file,
      fix: `move ${shellWord(file)} aside (countersign creates a new countersign.db when none is there), or put back the store file ${end === undefined ? 'it points to' : `at ${end}`}, or pass another directory with --store DIR`,
    });
  }
  if (kind === undefined) return;
  throw new CountersignError('E_STORE', `cannot open the store ${file}: it is ${kind}, not the store's database file`, {
    file,
    fix: `move ${shellWord(file)} aside (countersign keeps its runs in a file of that name, and creates it when none is there), or pass another directory with --store DIR`,
  });
}

/** How `file`, which stat could not follow (`code`), is a link that leads nowhere; undefined when it is no link. */
function brokenLink(file: string, code: string | undefined): string | undefined {
  if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') return undefined;
  try {
    if (!lstatSync(file).isSymbolicLink()) return undefined;
  } catch {
    return undefined; // nothing there (or a file among its folders: the folder check says that)
  }
  if (code === 'ELOOP') return 'a link that leads back to itself (a loop of links)';
  let target: string;
  try {
    target = readlinkSync(file);
  } catch {
    return 'a link to nothing';
  }
  const end = chainEnd(file);
  // A link to a link: the missing file is where the chain ends, not the first hop (which exists).
  return end === undefined || end === resolvePath(dirname(file), target)
    ? `a link to ${target}, which does not exist`
    : `a link to ${target}, a chain of links that ends at ${end}, which does not exist`;
}

/** The missing path a chain of links from `file` ends at (each hop read relative to its link's folder), or undefined when it does not end at one (a loop, an unreadable hop). */
function chainEnd(file: string): string | undefined {
  let at = file;
  for (let hop = 0; hop < 40; hop++) {
    let target: string;
    try {
      if (!lstatSync(at).isSymbolicLink()) return undefined;
      target = readlinkSync(at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? at : undefined;
    }
    at = resolvePath(dirname(at), target);
  }
  return undefined;
}
