/**
 * Looking through a schema where keywords are (never in data or property
 * names): a keyword with a given value, every `$ref`, a repeated `$id`.
 * Pointers are built with JSON Pointer escapes.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { subschemas } from './schema-walk.js';

/** The pointer of the second `$id` naming `id` (ajv's text: a URI, with or without "#", or an anchor it may prefix with its base). */
export function repeatedId(schema: JsonValue, id: string): string | undefined {
  const bare = (text: string) => text.replace(/#$/, '');
  const names = (v: JsonValue) => typeof v === 'string' && (bare(v) === bare(id) || (v.startsWith('#') && id.endsWith(v)));
  let seen = 0;
  const walk = (node: JsonValue, at: string): string | undefined => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    if (names(node.$id) && ++seen === 2) return `${at}/$id`;
    for (const [sub, here] of subschemas(node, at)) {
      const found = walk(sub, here);
      if (found) return found;
    }
    return undefined;
  };
  return walk(schema, '');
}

/** Every `$ref` text of `schema`, looked for where keywords are. */
export function refsOf(schema: JsonValue): string[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const own = typeof schema.$ref === 'string' ? [schema.$ref] : [];
  return [...own, ...[...subschemas(schema, '')].flatMap(([sub]) => refsOf(sub))];
}

export function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

export function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The first `key` whose value is `wanted`, looked for where keywords are (never in data or property names). */
export function findKeyWithValue(schema: JsonValue, key: string, wanted: string, at: string): string | undefined {
  return findKeyWhere(schema, key, (value) => value === wanted, at);
}

/** The first `key` whose value passes `test`, looked for where keywords are. */
export function findKeyWhere(schema: JsonValue, key: string, test: (value: JsonValue, holder: JsonObject) => boolean, at: string): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  if (Object.hasOwn(schema, key) && test(schema[key], schema)) return `${at}/${escape(key)}`;
  for (const [sub, here] of subschemas(schema, at)) {
    const deeper = findKeyWhere(sub, key, test, here);
    if (deeper) return deeper;
  }
  return undefined;
}
