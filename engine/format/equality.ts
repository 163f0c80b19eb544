/**
 * The one equality of the workflow language: strict, and by content for
 * arrays and objects (two equal lists are equal, wherever they came from).
 * The `eq`/`neq` condition operators and the `{{#eq}}`/`{{#neq}}` template
 * blocks both use it, so the same two values compare the same everywhere.
 */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as object, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
