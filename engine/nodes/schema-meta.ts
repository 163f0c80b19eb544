/**
 * JSON Schema's own rules for a schema's values (draft-07's meta-schema),
 * with two gaps of ajv's check closed:
 * - ajv's draft-07 meta-schema checks every `definitions` entry but knows
 *   nothing of `$defs` (the later drafts' name for the same place): ajv
 *   takes the keyword and compiles a `$defs` entry unchecked, only when a
 *   `$ref` reaches it. Here `$defs` entries are checked as `definitions`
 *   entries are, so `{"type": []}` there is a fault, not a schema that
 *   allows anything.
 * - ajv reports a schema that breaks the meta-schema as text, its first
 *   error first: for a positional `items` list that is "must be object"
 *   (the single-schema form it tried first), not the fault in the item.
 *   Here the errors stay objects, so the one that reached deepest into
 *   the value is told.
 * The meta-schema is compiled on first need only (a faulty schema, or one
 * with `$defs`): a valid workflow without `$defs` never pays for it.
 * faultyValue says a refused value in workflow authors' terms.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvModules } from '../format/ajv.js';
import { suggest } from '../format/suggest.js';
import type { JsonObject } from '../format/model.js';
import type { SchemaProblem } from './schema-errors.js';
import { isSubschemaPointer } from './schema-walk.js';

/** JSON Schema's type names. */
export const TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

/** A value the meta-schema refuses: where, and ajv's words for it. */
export interface MetaFault {
  /** Pointer inside the schema. */
  at: string;
  keyword: string;
  /** ajv's message ("must be >= 0"), with a list of types read as one ("must be object or boolean"). */
  message: string;
}

let metaValidator: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!metaValidator) {
    const { Ajv, addFormats } = ajvModules();
    // As the answer compiler's `check` instance reads a schema: every error, every format.
    const ajv = new Ajv({ allErrors: true, logger: false });
    addFormats(ajv, { mode: 'full' });
    const draft7 = ajv.getSchema(DRAFT_07)?.schema as JsonObject;
    const properties = draft7.properties as JsonObject;
    // Its own $id: its "#" refs (every subschema place) then mean this copy, `$defs` included, at any depth.
    metaValidator = ajv.compile({ ...draft7, $id: 'urn:countersign:draft-07-with-defs', properties: { ...properties, $defs: properties.definitions } });
  }
  return metaValidator;
}

/**
 * The first value of `schema` that draft-07's meta-schema (with `$defs`)
 * refuses; undefined when none is, or when `schema` names another dialect
 * in `$schema` (compiling it says so).
 */
export function metaFault(schema: JsonObject): MetaFault | undefined {
  if (schema.$schema !== undefined && !(typeof schema.$schema === 'string' && /^http:\/\/json-schema\.org\/draft-07\/schema#?$/.test(schema.$schema))) return undefined;
  const validate = validator();
  if (validate(schema)) return undefined;
  const chosen = mostSpecific(validate.errors ?? []);
  if (!chosen) return undefined;
  const types = (chosen.params as { type?: unknown }).type;
  // ajv writes a list of types as "must be object,boolean".
  const names = Array.isArray(types) ? types.map(String) : typeof types === 'string' ? types.split(',') : undefined;
  const message = chosen.keyword === 'type' && names ? `must be ${names.join(' or ')}` : chosen.message ?? `fails "${chosen.keyword}"`;
  return { at: chosen.instancePath, keyword: chosen.keyword, message };
}

/**
 * The error to tell: ajv's first, unless errors under the same value go
 * deeper into it. Where a keyword takes one of two forms (`items`: a schema
 * or a list of them; `type`: a name or a list), ajv's first error is the
 * form the value does not have ("must be object" for a list); the deepest
 * error is the fault inside the form it has (the list's item at fault).
 */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  const first = errors[0];
  if (!first) return undefined;
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  let chosen = first;
  for (const e of errors) {
    if (e.instancePath.startsWith(`${first.instancePath}/`) && depth(e) > depth(chosen)) chosen = e;
  }
  // A value with two allowed shapes (anyOf: a schema, or a list): ajv tells the shape it lacks ("must be
  // object,boolean") first, then the fault of the shape it has (a name twice, an empty list). That one is told.
  if (chosen.keyword === 'type' && errors.some((e) => e.keyword === 'anyOf' && e.instancePath === chosen.instancePath)) {
    chosen = errors.find((e) => e.instancePath === chosen.instancePath && e.keyword !== 'type' && e.keyword !== 'anyOf') ?? chosen;
  }
  return chosen;
}

/** A value JSON Schema refuses (`must`: what it must be, in ajv's words), at `pointer`. */
export function faultyValue(schema: JsonObject, pointer: string, must: string): SchemaProblem {
  // The `type` keyword, not a property named "type" (`/properties/type`).
  const isType = (p: string) => p.endsWith('/type') && isSubschemaPointer(schema, p.slice(0, -'/type'.length));
  // A name in a type list is told as the list's fault: the message names the name.
  const inTypeList = /^(.*\/type)\/\d+$/.exec(pointer);
  const at = inTypeList && isType(inTypeList[1]) ? inTypeList[1] : pointer;
  if (isType(at)) {
    const value = valueAt(schema, at);
    const list = Array.isArray(value) ? value : [value];
    const bad = list.find((t) => typeof t !== 'string' || !TYPES.includes(t));
    // Every name is a type: the list itself is at fault (empty, or a name twice).
    if (bad === undefined && Array.isArray(value)) {
      const twice = value.find((t, i) => value.indexOf(t) !== i);
      return value.length === 0
        ? { at, message: '"type" is an empty list: it allows no value at all', fix: `name at least one type (${TYPES.join(', ')}), or leave "type" out` }
        : { at, message: `"type" names ${JSON.stringify(twice)} twice`, fix: 'name each type once' };
    }
    const guess = typeof bad === 'string' ? suggest(bad, TYPES) : undefined;
    return {
      at,
      message: `${JSON.stringify(bad)} is not a JSON Schema type${guess ? ` — did you mean "${guess}"?` : ''}`,
      fix: `use one of ${TYPES.join(', ')}, or a list of them`,
    };
  }
  const segments = at.split('/');
  const last = segments.pop() ?? '';
  // An item of a list (`required`, a dependency's names) is named with its list.
  const what = /^\d+$/.test(last) ? `item ${last} of "${unescape(segments.pop() ?? '')}"` : `"${unescape(last)}"`;
  const listFault = faultyList(valueAt(schema, at), unescape(last), what, must);
  if (listFault) return { at, ...listFault };
  // A place that holds a schema, given something else (`"properties": {"name": "string"}`).
  if (/^must be object/.test(must) && at !== '' && isSubschemaPointer(schema, at)) {
    return { at, message: `${what} must be a JSON Schema (an object, or true or false), not ${JSON.stringify(valueAt(schema, at))}`, fix: 'write it as a schema object, e.g. {"type": "string"}' };
  }
  return { at, message: `${what} ${must}`, fix: 'correct the value to what JSON Schema draft-07 allows for this keyword' };
}

/**
 * A list draft-07 refuses for what it holds, not its shape: empty where a
 * keyword needs at least one schema or value, or naming an item twice
 * (`enum`, `required`, a dependency's names). Undefined for other faults.
 */
function faultyList(value: unknown, keyword: string, what: string, must: string): { message: string; fix: string } | undefined {
  if (!Array.isArray(value)) return undefined;
  const twice = /duplicate items \(items ## (\d+) and (\d+) are identical\)/.exec(must);
  if (twice) {
    const repeated = JSON.stringify(value[Number(twice[1])]);
    return keyword === 'enum'
      ? { message: `"enum" lists ${repeated} twice`, fix: `remove the repeated value ${repeated}` }
      : { message: `${what} names ${repeated} twice`, fix: `remove the repeated name ${repeated}` };
  }
  if (value.length === 0 && /fewer than 1 items/.test(must)) {
    if (keyword === 'items') return { message: '"items" is an empty list: draft-07 needs at least one schema in a list of item schemas', fix: 'give at least one schema, or use a single schema (e.g. {"type": "string"}) for every item' };
    if (keyword === 'enum') return { message: '"enum" is an empty list: it allows no value at all', fix: 'list at least one value, or leave "enum" out' };
    return { message: `${what} is an empty list: draft-07 needs at least one schema in it`, fix: `give at least one schema, or leave ${what} out` };
  }
  return undefined;
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value at a JSON pointer inside `root`; undefined when the path leaves it. */
export function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const seg of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}
