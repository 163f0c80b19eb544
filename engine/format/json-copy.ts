/**
 * A detached copy of a JSON value and the UTF-8 size of its JSON text, as
 * `JSON.parse(JSON.stringify(v))` and `Buffer.byteLength` give them.
 * Every answer goes through this, and the round trip through text was a
 * twentieth of a step; plain data (plain objects and arrays, strings,
 * finite numbers, booleans, null) is copied and measured in one walk
 * instead. Anything else (a Date, undefined, NaN, a toJSON method, an
 * array of another prototype, a `__proto__` key, deep nesting) takes the
 * text round trip, so the result is always exactly what JSON would give
 * (-0 included: it becomes 0).
 */
import type { JsonValue } from './model.js';

/** Values nested deeper than this take the text round trip (which bounds its own recursion). */
const WALK_DEPTH = 128;

/** Printable ASCII without `"` and `\`: the JSON text is the string between quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

class NotPlain {}
const NOT_PLAIN = new NotPlain();

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
  const copy = walk(value, 0, size);
  if (copy !== NOT_PLAIN) return { value: copy as JsonValue, bytes: size.bytes };
  const text = JSON.stringify(value);
  if (text === undefined) return undefined;
  return { value: JSON.parse(text) as JsonValue, bytes: Buffer.byteLength(text, 'utf8') };
}

function walk(v: unknown, depth: number, size: { bytes: number }): unknown {
  switch (typeof v) {
    case 'string':
      size.bytes += stringBytes(v);
      return v;
    case 'number':
      if (!Number.isFinite(v)) return NOT_PLAIN;
      size.bytes += String(v).length;
      return v === 0 ? 0 : v; // JSON has no -0: it reads back as 0
    case 'boolean':
      size.bytes += v ? 4 : 5;
      return v;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (v === null) {
    size.bytes += 4;
    return null;
  }
  if (depth >= WALK_DEPTH) return NOT_PLAIN;
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v)) {
    // JSON calls a toJSON an array has (own or inherited); an array of another prototype is not plain data.
    if (proto !== Array.prototype || 'toJSON' in v) return NOT_PLAIN;
    const a = v as unknown[];
    const out: unknown[] = new Array(a.length);
    size.bytes += a.length > 0 ? 1 + a.length : 2; // brackets and commas
    for (let i = 0; i < a.length; i++) {
      const c = walk(a[i], depth + 1, size);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const o = v as Record<string, unknown>;
  if (proto !== null && 'toJSON' in o) return NOT_PLAIN;
  const keys = Object.keys(o);
  const out: Record<string, unknown> = {};
  size.bytes += keys.length > 0 ? 1 + keys.length * 2 : 2; // braces, colons and commas
  for (const k of keys) {
    if (k === '__proto__') return NOT_PLAIN;
    const c = walk(o[k], depth + 1, size);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    size.bytes += stringBytes(k);
    out[k] = c;
  }
  return out;
}

function stringBytes(s: string): number {
  return PLAIN_STRING.test(s) ? s.length + 2 : Buffer.byteLength(JSON.stringify(s), 'utf8');
}
