// Whether the process's current directory still exists. A shell left
// inside a directory that was removed starts commands there: Node's
// process.cwd() then throws, and so does everything that resolves a path
// from it (esbuild and tsx among them, so the launcher could not even
// build). Shared by the launcher and main(), so both refuse in one wording.
// CommonJS, as the launcher's other helpers are.
'use strict';
const { existsSync, lstatSync, readlinkSync, statSync } = require('node:fs');

/**
 * undefined while the current directory exists; else the refusal, as
 * { code, message, fix }, naming the removed directory (see removedPath).
 * When a new directory has been made at that path since, the fix is to
 * enter it: the shell is still in the removed one, whose path looks fine.
 * A file made there is said as such, with the plain fix: `cd` into it fails.
 */
function missingCurrentDirectory(env) {
  try {
    process.cwd();
    return undefined;
  } catch (e) {
    const gone = e && e.code === 'ENOENT';
    const path = gone ? removedPath(env) : undefined;
    const which = path ? `the current directory (${path})` : 'the current directory';
    const now = path === undefined ? undefined : standingThere(path);
    const again = now === 'a directory';
    const why = !gone
      ? `cannot be read (${e && e.message})`
      : again
        ? 'no longer exists: it was removed after the shell entered it, and a new directory has been made at that path since'
        : `no longer exists: it was removed after the shell entered it${now === undefined ? '' : `, and ${now} stands at that path now`}`;
    const from = '(relative paths, the store found from the current directory and the default workspace all start there)';
    return {
      code: 'E_USAGE',
      message: `${which} ${why}`,
      fix: again
        ? `enter the new directory at that path, \`${env.PWD === path ? 'cd "$PWD"' : `cd ${quoted(path)}`}\`, and run the command again ${from}`
        : `cd to an existing directory and run the command again ${from}`,
    };
  }
}

/**
 * The path of the removed directory the process is in. Linux keeps it:
 * /proc/self/cwd reads "<path> (deleted)", whatever became of the path
 * since and with no PWD at all. Elsewhere, the shell's PWD: the directory
 * it entered, and so the removed one (unless the shell was left otherwise).
 * The shell's spelling is kept when it names the same removed place through
 * a link (PWD gone too, /proc giving the resolved path).
 */
function removedPath(env) {
  const pwd = typeof env.PWD === 'string' && env.PWD.startsWith('/') ? env.PWD : undefined;
  let own;
  try {
    const link = readlinkSync('/proc/self/cwd');
    own = link.endsWith(' (deleted)') ? link.slice(0, -' (deleted)'.length) : undefined;
  } catch {
    own = undefined; // no /proc (macOS, a container without it)
  }
  if (pwd !== undefined && (own === undefined || pwd === own || !existsSync(pwd))) return pwd;
  return own;
}

/**
 * What is at `path` now: 'a directory' (a link to one too: the shell can
 * enter it), else a file or other entry said as such (no `cd` into it
 * works), or undefined when nothing is (nor can be: a parent path no
 * longer a directory, or a link loop).
 */
function standingThere(path) {
  let entry;
  try {
    entry = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    // throwIfNoEntry covers ENOENT only: a parent now a file (ENOTDIR) or a
    // link loop on the way (ELOOP) leaves nothing at the path either.
    return undefined;
  }
  if (entry === undefined) return undefined;
  if (isDirectory(path)) return 'a directory';
  if (entry.isSymbolicLink()) return existsSync(path) ? 'a link to a file' : 'a link to nothing';
  return entry.isFile() ? 'a file' : 'something that is not a directory';
}

/** Whether `path`, its links followed, is a directory (a link loop is not). */
function isDirectory(path) {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** `path` as one shell word. */
function quoted(path) {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

module.exports = { missingCurrentDirectory };
