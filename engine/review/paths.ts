/**
 * Review paths (artifacts, context, report) must stay inside the run's
 * workspace: they are templated and may come from agent-written variables,
 * and the engine moves the report aside and hashes the artifacts, so a path
 * outside would let a workflow touch or read files it has no business with.
 *
 * The check is lexical first, then through symlinks: a link inside the
 * workspace that points outside is as much an escape as `../`. Nothing is
 * created here; paths that do not exist yet are judged by their deepest
 * existing ancestor.
 */
import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CountersignError } from '../errors.js';

/** More link hops than this is treated as a loop (Linux gives up at 40 too). */
const MAX_LINK_HOPS = 40;

class SymlinkLoop extends Error {}

/**
 * A line break or another control character: C0, DEL, C1 (U+0085 NEL among
 * them) and the Unicode line and paragraph separators. A path holding one
 * is put into the reviewer's prompt, where it would let agent-written text
 * pose as instructions (seed 003, G31). The validator uses it for literal paths.
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * The absolute, normalised form of `path` (relative paths resolve against
 * `workspace`), after checking that it lies inside the workspace, also once
 * symlinks are followed. `what` names the path in messages, e.g. "artifact 2".
 */
export function resolveInWorkspace(workspace: string, path: string, what: string): string {
  if (path.trim() === '') {
    throw new CountersignError('E_PATH_EMPTY', `${what} is an empty path: its template probably used a variable that is not set`, {
      fix: `make sure every variable in the ${what} template is written before this node runs, or give a literal path`,
    });
  }
  if (CONTROL_CHARACTER.test(path)) {
    throw new CountersignError('E_PATH_INVALID', `${what} ${JSON.stringify(path)} holds a line break or another control character`, {
      fix: 'write review paths as plain file names; if a variable supplies the path, make the producing node\'s schema restrict it (e.g. "pattern": "^[^\\n]+$")',
    });
  }
  const root = resolve(workspace);
  const target = resolve(root, path);
  const outside = (detail: string): CountersignError =>
    new CountersignError(
      'E_PATH_OUTSIDE_WORKSPACE',
      `${what} "${path}" ${detail}, which is outside the workspace ${root}`,
      { fix: `use a path inside the workspace (relative paths resolve against ${root}), or start the run with a --workspace that contains it` },
    );

  if (!isInside(root, target)) throw outside(`resolves to ${target}`);

  let realRoot: string;
  let realTarget: string;
  try {
    realRoot = realDeepest(root, 0);
    realTarget = realDeepest(target, 0);
  } catch (e) {
    if (e instanceof SymlinkLoop) throw outside(`resolves to ${target} through a symlink loop, so it cannot be shown to lie inside it`);
    throw e;
  }
  if (!isInside(realRoot, realTarget)) throw outside(`resolves to ${target}, a symlink to ${realTarget}`);
  return target;
}

/** `child` is `root` itself or below it. A name such as `..foo` is below. */
function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * `path` with every existing symlink resolved: realpath of the deepest
 * existing ancestor, with the missing tail appended. A dangling link is
 * followed by hand, because writing through it would create its target.
 */
function realDeepest(path: string, hops: number): string {
  if (hops > MAX_LINK_HOPS) throw new SymlinkLoop();
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...tail);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') throw e;
      const link = linkText(current);
      if (link !== undefined) return join(realDeepest(resolve(dirname(current), link), hops + 1), ...tail);
      const parent = dirname(current);
      if (parent === current) return join(current, ...tail);
      tail.unshift(basename(current));
      current = parent;
    }
  }
}

function linkText(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
