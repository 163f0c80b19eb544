/**
 * What the engine shares with hosts is read-only: pending items (and their
 * schemas, shared by every run of a workflow), outputs and failures are
 * deep-frozen, so a host that edits what it received gets a TypeError
 * instead of silently changing a stored run. (State objects and journal
 * events are fresh copies per call instead.)
 */

/**
 * Objects found already frozen whose whole subtree deepFreeze has since
 * made sure of: a shared schema is met again on every step and is not
 * walked again. Frozen alone is not enough to stop: an object frozen with
 * Object.freeze may hold children that are not. Objects deepFreeze freezes
 * itself (a pending item, every step) are never added: the set stays the
 * size of what is shared.
 */
const deeplyFrozen = new WeakSet<object>();

export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Object.isFrozen(value)) {
    if (deeplyFrozen.has(value)) return value;
    // Marked before its children are walked, so a cycle ends here.
    deeplyFrozen.add(value);
  } else {
    Object.freeze(value);
  }
  // Key by key, not Object.values: a pending item is frozen on every step, and the array was a tenth of the cost.
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const v = obj[key];
    if (v !== null && typeof v === 'object') deepFreeze(v);
  }
  return value;
}
