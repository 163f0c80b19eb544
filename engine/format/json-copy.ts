/**
 * A detached copy of a JSON value and the UTF-8 size of its JSON text, as
 * `JSON.parse(JSON.stringify(v))` and `Buffer.byteLength` give them.
 * Every answer goes through this, and the round trip through text was a
 * twentieth of a step; plain data (plain objects and arrays, strings,
 * finite numbers, booleans, null) is copied and measured in one walk
 * instead. A value JSON would change (a Date, undefined, NaN, a toJSON
 * method, an array of another prototype, a class instance, deep nesting)
 * goes through JSON.stringify on its own, with the key JSON would give
 * its toJSON, so the result is always exactly what JSON would give (-0
 * included: it becomes 0), and every property is read once.
 */
import type { JsonValue } from './model.js';

/** Values nested deeper than this go through JSON.stringify (which bounds its own recursion). */
const WALK_DEPTH = 128;

/** Printable ASCII without `"` and `\`: the JSON text is the string between quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** What JSON leaves out (undefined, a function, a symbol as an object member). */
const OMITTED = Symbol('omitted');

export interface JsonCopy {
  value: JsonValue;
  /** UTF-8 bytes of the compact JSON text. */
  bytes: number;
}

/**
 * The copy and its size; undefined when `value` has no JSON text
 * (undefined, a function, a symbol). Throws what JSON.stringify throws
 * (cycles, BigInt, nesting too deep for it).
 */
export function jsonCopy(value: unknown): JsonCopy | undefined {
  const size = { bytes: 0 };
  const copy = walk('', value, 0, size);
  return copy === OMITTED ? undefined : { value: copy as JsonValue, bytes: size.bytes };
}

function walk(key: string, v: unknown, depth: number, size: { bytes: number }): unknown {
  switch (typeof v) {
    case 'string':
      size.bytes += stringBytes(v);
      return v;
    case 'number':
      if (!Number.isFinite(v)) return viaJson(key, v, size);
      size.bytes += String(v).length;
      return v === 0 ? 0 : v; // JSON has no -0: it reads back as 0
    case 'boolean':
      size.bytes += v ? 4 : 5;
      return v;
    case 'object':
      break;
    default:
      return viaJson(key, v, size);
  }
  if (v === null) {
    size.bytes += 4;
    return null;
  }
  if (depth >= WALK_DEPTH) return viaJson(key, v, size);
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v)) {
    // JSON calls a toJSON an array has (own or inherited); an array of another prototype goes the same way.
    if (proto !== Array.prototype || 'toJSON' in v) return viaJson(key, v, size);
    const a = v as unknown[];
    const n = a.length; // read once, as JSON does
    const out: unknown[] = new Array(n);
    size.bytes += n > 0 ? 1 + n : 2; // brackets and commas
    for (let i = 0; i < n; i++) {
      const c = walk(String(i), a[i], depth + 1, size);
      if (c === OMITTED) {
        size.bytes += 4; // an array holds null where JSON omits a member
        out[i] = null;
      } else out[i] = c;
    }
    return out;
  }
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in v) return viaJson(key, v, size);
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const k of Object.keys(o)) {
    const before = size.bytes;
    const c = walk(k, o[k], depth + 1, size);
    if (c === OMITTED) {
      size.bytes = before;
      continue;
    }
    size.bytes += stringBytes(k);
    kept++;
    // An own `__proto__` key (JSON.parse makes one) must stay a key, not become the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  size.bytes += kept > 0 ? 1 + kept * 2 : 2; // braces, colons and commas
  return out;
}

/**
 * One value as JSON has it, read once: stringified as the member `key` of
 * an object, so a toJSON gets the key JSON would give it.
 */
function viaJson(key: string, v: unknown, size: { bytes: number }): unknown {
  const text = JSON.stringify({ [key]: v });
  if (text === '{}') return OMITTED;
  const valueText = text.slice(JSON.stringify(key).length + 2, -1);
  size.bytes += Buffer.byteLength(valueText, 'utf8');
  return JSON.parse(valueText) as unknown;
}

function stringBytes(s: string): number {
  return PLAIN_STRING.test(s) ? s.length + 2 : Buffer.byteLength(JSON.stringify(s), 'utf8');
}
