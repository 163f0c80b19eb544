/**
 * What the engine hands to hosts is read-only: states, pending items,
 * outputs and journal events are deep-frozen, so a host that edits what it
 * received gets a TypeError instead of silently changing a stored run, the
 * journal, or a schema shared with other runs.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
