/**
 * What the engine shares with hosts is read-only: pending items (and their
 * schemas, shared by every run of a workflow), outputs and failures are
 * deep-frozen, so a host that edits what it received gets a TypeError
 * instead of silently changing a stored run. (State objects and journal
 * events are fresh copies per call instead.)
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Key by key, not Object.values: a pending item is frozen on every step, and the array was a tenth of the cost.
    const obj = value as Record<string, unknown>;
    for (const key in obj) {
      if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
      const v = obj[key];
      if (v !== null && typeof v === 'object') deepFreeze(v);
    }
  }
  return value;
}
