/**
 * Where a JSON Schema (draft-07) holds subschemas. Keys elsewhere are data
 * (`properties` names, `enum` values, `default`), never keywords, so a walk
 * that looks for keywords must go only through these places.
 */
import type { JsonValue } from '../format/model.js';

/**
 * The subschemas that describe an answer's own shape: Moira's rule closes
 * them (answer-schema.ts) and a required name no answer can give is looked
 * for in each (required-fields.ts). Maps hold a subschema per name; singles
 * hold one subschema, or a list of them (`items`).
 */
export const SHAPE_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'] as const;
/** A schema dependency applies to the same object as its parent (as allOf does): never closed on its own. */
const APPLICATOR_MAPS = ['dependencies'] as const;
export const SHAPE_SINGLES = ['items', 'additionalItems', 'additionalProperties', 'contains'] as const;
/** Applicators: they hold subschemas too, but an answer's shape is not closed through them. */
const APPLICATOR_SINGLES = ['propertyNames', 'not', 'if', 'then', 'else'] as const;
const APPLICATOR_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, JsonValue> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Each subschema directly under `schema` with its pointer (`at` prefixed);
 * with `shapeOnly`, the shape-describing places only. Values that are not
 * schemas (a `dependencies` list of names, a boolean) are yielded too: the
 * caller decides what to do with a non-object.
 */
export function* subschemas(schema: JsonValue | undefined, at: string, shapeOnly = false): Generator<[JsonValue, string]> {
  if (!isObject(schema)) return;
  for (const k of SHAPE_MAPS) {
    const map = schema[k];
    if (isObject(map)) for (const [name, sub] of Object.entries(map)) yield [sub, `${at}/${k}/${escape(name)}`];
  }
  if (!shapeOnly) {
    for (const k of APPLICATOR_MAPS) {
      const map = schema[k];
      if (isObject(map)) for (const [name, sub] of Object.entries(map)) yield [sub, `${at}/${k}/${escape(name)}`];
    }
  }
  const singles = shapeOnly ? SHAPE_SINGLES : [...SHAPE_SINGLES, ...APPLICATOR_SINGLES];
  for (const k of singles) {
    const sub = schema[k];
    if (sub === undefined) continue;
    if (Array.isArray(sub)) for (let i = 0; i < sub.length; i++) yield [sub[i], `${at}/${k}/${i}`];
    else yield [sub, `${at}/${k}`];
  }
  if (shapeOnly) return;
  for (const k of APPLICATOR_LISTS) {
    const list = schema[k];
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) yield [list[i], `${at}/${k}/${i}`];
  }
}

/** The pointer of the first place `keyword` is used as a keyword in `schema` (never a property name or data); undefined when none. */
export function findKeyword(schema: JsonValue | undefined, keyword: string, at = ''): string | undefined {
  if (!isObject(schema)) return undefined;
  if (Object.hasOwn(schema, keyword)) return `${at}/${escape(keyword)}`;
  for (const [sub, here] of subschemas(schema, at)) {
    const found = findKeyword(sub, keyword, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Whether `pointer` is a place that holds a subschema of `schema` (the
 * root, a `properties` entry, an `items` item, …), not data or a keyword's
 * value: `/properties/type` is a property named "type", `/type` a keyword.
 */
export function isSubschemaPointer(schema: JsonValue | undefined, pointer: string): boolean {
  let node = schema;
  let at = '';
  while (at !== pointer) {
    let next: [JsonValue, string] | undefined;
    for (const entry of subschemas(node, at)) {
      if (pointer === entry[1] || pointer.startsWith(`${entry[1]}/`)) {
        next = entry;
        break;
      }
    }
    if (!next) return false;
    [node, at] = next;
  }
  return true;
}
