/**
 * Nesting depth, measured without recursion: the documents and answers it
 * guards may be too deep to recurse into.
 */

/** The JSON pointer of the first value nested deeper than `limit`, or undefined. */
export function deeperThan(value: unknown, limit: number): string | undefined {
  // Most values are shallow: a walk without pointers first, recursing at most limit + 1 levels.
  if (!exceeds(value, 0, limit)) return undefined;
  const stack: Array<[unknown, string, number]> = [[value, '', 0]];
  while (stack.length > 0) {
    const [v, pointer, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return pointer;
    // Pushed last to first, so they come off the stack in document order: the first deep value is the one named.
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i];
      stack.push([child, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1]);
    }
  }
  return undefined;
}

function exceeds(v: unknown, depth: number, limit: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (depth > limit) return true;
  for (const k in v) if (Object.hasOwn(v, k) && exceeds((v as Record<string, unknown>)[k], depth + 1, limit)) return true;
  return false;
}

/** A copy of `value` whose containers at `depth` are left empty; built without recursion. */
export function cutBelow(value: object, depth: number): object {
  const shell = (v: object): Record<string, unknown> => (Array.isArray(v) ? [] : {}) as Record<string, unknown>;
  const root = shell(value);
  const stack: Array<[object, Record<string, unknown>, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [source, copy, level] = stack.pop()!;
    if (level >= depth) continue;
    for (const [key, child] of Object.entries(source)) {
      const nested = child !== null && typeof child === 'object';
      const value = nested ? shell(child) : child;
      // An own data property: a plain assignment of `__proto__` would set the copy's prototype and lose the member.
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
      if (nested) stack.push([child, value as Record<string, unknown>, level + 1]);
    }
  }
  return root;
}
