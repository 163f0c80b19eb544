/**
 * A registry entry is a JSON Schema of its own: a `$ref` in it such as
 * `#/definitions/x`, or `#` (the entry itself, for a recursive shape),
 * means a place in the entry. Inlined into a bigger schema (a node's
 * effective inputSchema) those would resolve against that schema's root
 * instead: to nothing, or to something else. So the entry's own pointers
 * are moved under the place it is inlined at.
 *
 * An `$id` anchor (`"$id": "#item"`, referred to as `"$ref": "#item"`) is
 * the entry's own name for a part of it too, but a schema holds each name
 * once: two entries inlined together that both name an `#item` (or an
 * entry and the node's own schema) would not compile. So each ref to an
 * anchor of the entry becomes a pointer to the part it names, and the
 * anchor is dropped.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { subschemas } from './schema-walk.js';

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A JSON pointer as a URI fragment's text: each segment percent-encoded, as ajv decodes it. */
const asFragment = (pointer: string) => pointer.split('/').map((s) => encodeURIComponent(s)).join('/');

/** `#name`: an anchor, not a pointer (`#/…`) nor the whole schema (`#`). */
const isAnchor = (id: unknown): id is string => typeof id === 'string' && id.length > 1 && id.startsWith('#') && id[1] !== '/';

/** ajv reads `""` and `"#/"` as the schema's root, as `"#"` (it drops a trailing `#/`). */
export const asAjvReads = (ref: string): string => (ref === '' || ref === '#/' ? '#' : ref);

/**
 * A copy of `schema` in which every `$ref` that points into it from its
 * root (`#`, `#/…`, or one of its anchors) points there from `base` instead
 * (a JSON pointer, such as `/properties/v`). A part with a URI `$id` of its
 * own keeps its refs and anchors: they resolve against that `$id`, wherever
 * it is inlined.
 */
export function refsRebased(schema: JsonValue, base: string): JsonValue {
  if (!isObject(schema)) return schema;
  const text = JSON.stringify(schema);
  if (!text.includes('"$ref"') && !text.includes('"$id"')) return schema;
  const out = structuredClone(schema);
  const fragment = asFragment(base);
  // Where each anchor is (pointers inside the entry), and every part with a $ref.
  const anchors = new Map<string, string>();
  const referring: JsonObject[] = [];
  const stack: Array<[JsonValue, string]> = [[out, '']];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (!isObject(node)) continue;
    // A URI $id is a base of its own: refs and anchors under it resolve there.
    if (typeof node.$id === 'string' && !node.$id.startsWith('#')) continue;
    if (isAnchor(node.$id)) {
      // The first wins, as the entry alone would not compile with two (validation reports it).
      if (!anchors.has(node.$id)) anchors.set(node.$id, at);
      delete node.$id;
    }
    if (typeof node.$ref === 'string') referring.push(node);
    for (const entry of subschemas(node, at)) stack.push(entry);
  }
  for (const node of referring) {
    const ref = asAjvReads(node.$ref as string);
    if (ref === '#' || ref.startsWith('#/')) node.$ref = `#${fragment}${ref.slice(1)}`;
    else if (anchors.has(ref)) node.$ref = `#${fragment}${asFragment(anchors.get(ref)!)}`;
  }
  return out;
}
