/**
 * A registry entry is a JSON Schema of its own: a `$ref` in it such as
 * `#/definitions/x`, or `#` (the entry itself, for a recursive shape),
 * means a place in the entry. Inlined into a bigger schema (a node's
 * effective inputSchema, the start input's schema) those would resolve
 * against that schema's root instead: to nothing, or to something else.
 * So the entry's own pointers are moved under the place it is inlined at.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { subschemas } from './schema-walk.js';

/**
 * A copy of `schema` in which every `$ref` that points into it from its
 * root (`#`, `#/…`) points there from `base` instead (a JSON pointer, such
 * as `/properties/v`). A part with an `$id` of its own keeps its refs: they
 * resolve against that `$id`, wherever it is inlined.
 */
export function refsRebased(schema: JsonValue, base: string): JsonValue {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  if (!JSON.stringify(schema).includes('"$ref"')) return schema;
  const out = structuredClone(schema) as JsonObject;
  const fragment = base.split('/').map((s) => encodeURIComponent(s)).join('/');
  const stack: JsonValue[] = [out];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
    // An $id that is a URI (not a "#name" anchor) is a base of its own: refs under it resolve there.
    if (typeof node.$id === 'string' && !node.$id.startsWith('#')) continue;
    const ref = node.$ref;
    if (typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'))) node.$ref = `#${fragment}${ref.slice(1)}`;
    for (const [sub] of subschemas(node, '')) stack.push(sub);
  }
  return out;
}
