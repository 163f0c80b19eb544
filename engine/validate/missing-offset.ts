/**
 * Where an undeclared name is written inside the path that reads it, so its
 * E_UNDECLARED_VARIABLE sits on the name itself — the `idx` of
 * `{{items[idx]}}` — and the template's separate read of that `idx` is the
 * same place (one finding), not a second one.
 */
import { bracketContents } from '../format/path.js';

/**
 * Where, inside `path`, the name the resolver found missing is written: 0
 * when the path starts with it (its root, or `node-id.field`), else just
 * inside the first bracket, at any depth, whose index ref starts with it
 * (the resolver reads refs left to right, so the first is the one it
 * missed). 0 when it is not written as such.
 */
export function offsetOfMissing(path: string, missing: string): number {
  if (startsWithName(path, missing)) return 0;
  for (const { inner, at } of bracketContents(path)) {
    if (startsWithName(inner, missing)) return at;
    const deeper = inner.includes('[') ? offsetOfMissing(inner, missing) : 0;
    if (deeper > 0) return at + deeper;
  }
  return 0;
}

/** `path` begins with the path `name`, ending there or at a `.` or `[`. */
function startsWithName(path: string, name: string): boolean {
  return path.startsWith(name) && (path.length === name.length || path[name.length] === '.' || path[name.length] === '[');
}
