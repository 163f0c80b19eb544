/**
 * How messages name a value a caller gave: as written in source, never as
 * JSON would misstate it (NaN as null) or fail on it (a BigInt). Used by
 * every layer that refuses a value, so it sits with the format helpers.
 */
/** What a value is, for messages: `5`, `"x"`, NaN, 5n, null, a list, an object. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  return said(value);
}

/**
 * A value as a message names it: JSON for JSON data, and the source form
 * wherever JSON would misstate the value or throw: NaN and Infinity (JSON
 * says null, itself a wrong value of its own), 5n (JSON throws on a
 * BigInt), Symbol(x), a function and undefined (JSON says nothing), an
 * invalid Date (JSON says null) and a value holding itself (JSON throws).
 */
export function said(value: unknown): string {
  try {
    return sourceForm(value, new Set());
  } catch {
    // Only an object can throw here (a getter or toJSON that throws): the message must still be made.
    return 'an object';
  }
}

function sourceForm(value: unknown, parents: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    case 'function':
      return 'a function';
    case 'undefined':
      return 'undefined';
  }
  if (value === null) return 'null';
  const object = value as object;
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'an invalid Date' : JSON.stringify(object.toISOString());
  if (parents.has(object)) return '(itself)';
  parents.add(object);
  try {
    // What JSON would write for it (a URL, a class's own form), shown the same way.
    const toJson = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return sourceForm(toJson.call(object), parents);
    if (Array.isArray(object)) return `[${Array.from(object, (item) => sourceForm(item, parents)).join(',')}]`;
    return `{${Object.entries(object).map(([key, item]) => `${JSON.stringify(key)}:${sourceForm(item, parents)}`).join(',')}}`;
  } finally {
    parents.delete(object);
  }
}
