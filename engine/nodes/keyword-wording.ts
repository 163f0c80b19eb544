/**
 * What each ajv keyword's error tells the agent to change, as data: one
 * wording per draft-07 keyword (as ajv's lib/vocabularies keep theirs).
 * Each wording is said of the value at the error's pointer and, except the
 * refused-key ones (`required`, `additionalProperties`, a property whose
 * schema is `false`, which have fixes of their own), reads after "it", so a
 * start input's fix ("correct /v/a in the start input: it <wording>") is a
 * sentence. Where ajv's own message already says what would be right
 * ("must be >= 0") it is kept word for word: answers, journals and hosts
 * have long shown it. Subschemas (`not`, `contains`, `if`) are read from
 * the error's `schema`, which the validators' `verbose` option gives.
 */
import type { ErrorObject } from 'ajv';

type Params = Record<string, unknown>;
/** The line's message (without its pointer) for one error of the keyword. */
type Wording = (p: Params, e: ErrorObject) => string;

const json = (v: unknown) => JSON.stringify(v);
const plural = (n: unknown, one: string) => `${String(n)} ${one}${n === 1 ? '' : 's'}`;
const oneOfValues = (values: unknown) => (Array.isArray(values) ? values.map(json).join(', ') : json(values));

/** Subschemas longer than this, as JSON, are cut in a line (the line itself is capped at 500 characters). */
const MAX_SCHEMA_CHARS = 200;

export const KEYWORD_WORDING: Readonly<Record<string, Wording>> = {
  type: (p) => `must be ${String(p.type).split(',').join(' or ')}`,
  enum: (p) => `must be one of ${oneOfValues(p.allowedValues)}`,
  const: (p) => `must be ${json(p.allowedValue)}`,
  required: (p) => `missing required property "${String(p.missingProperty)}"`,
  additionalProperties: (p) => `property "${String(p.additionalProperty)}" is not allowed here`,
  dependencies: (p) => `must have property "${String(p.missingProperty)}" when property "${String(p.property)}" is present`,
  propertyNames: () => 'is not allowed here',
  not: (_p, e) => mustNot(e.schema),
  if: (p, e) =>
    p.failingKeyword === 'else'
      ? `must fit ${schemaText(e.schema)} (its "else" schema allows no other value)`
      : `must not fit ${schemaText(e.schema)} (its "then" schema allows no such value)`,
  anyOf: () => 'must match a schema in anyOf',
  oneOf: () => 'must match exactly one schema in oneOf',
  contains: (p, e) => `must contain at least ${plural(p.minContains ?? 1, 'item')}${e.schema === undefined ? '' : ` that ${isLike(e.schema)}`}`,
  additionalItems: (p) => `must NOT have more than ${plural(p.limit, 'item')}`,
  items: (p) => `must NOT have more than ${plural(p.limit, 'item')}`,
  minItems: (p) => `must NOT have fewer than ${plural(p.limit, 'item')}`,
  maxItems: (p) => `must NOT have more than ${plural(p.limit, 'item')}`,
  uniqueItems: (p) => `must NOT have duplicate items (items ${String(p.j)} and ${String(p.i)} are identical; keep one)`,
  minProperties: (p) => `must NOT have fewer than ${plural(p.limit, 'property').replace(/propertys$/, 'properties')}`,
  maxProperties: (p) => (p.limit === 0 ? 'must have no properties ({})' : `must NOT have more than ${plural(p.limit, 'property').replace(/propertys$/, 'properties')}`),
  minLength: (p) => `must NOT have fewer than ${plural(p.limit, 'character')}`,
  maxLength: (p) => `must NOT have more than ${plural(p.limit, 'character')}`,
  pattern: (p) => `must match pattern ${json(p.pattern)}`,
  format: (p) => `must match format ${json(p.format)}`,
  minimum: (p) => `must be >= ${String(p.limit)}`,
  maximum: (p) => `must be <= ${String(p.limit)}`,
  exclusiveMinimum: (p) => `must be > ${String(p.limit)}`,
  exclusiveMaximum: (p) => `must be < ${String(p.limit)}`,
  multipleOf: (p) => `must be multiple of ${String(p.multipleOf)}`,
  'false schema': (_p, e) => falseSchemaWording(e),
};

/** The wording of one error: the table's, else ajv's own message. */
export function wordingOf(e: ErrorObject): string {
  const wording = KEYWORD_WORDING[e.keyword];
  return wording ? wording(e.params as Params, e) : e.message ?? e.keyword;
}

/**
 * The property a `false` schema refuses (`properties: {a: false}`), undefined
 * for a false schema elsewhere: refused like an extra property, and fixed
 * the same way.
 */
export function falseProperty(e: ErrorObject): string | undefined {
  if (e.keyword !== 'false schema') return undefined;
  const path = e.schemaPath.split('/');
  const at = path.length - 3;
  if (at < 0 || (path[at] !== 'properties' && path[at] !== 'patternProperties')) return undefined;
  const key = e.instancePath.slice(e.instancePath.lastIndexOf('/') + 1);
  return key.replace(/~1/g, '/').replace(/~0/g, '~');
}

function falseSchemaWording(e: ErrorObject): string {
  const property = falseProperty(e);
  if (property !== undefined) return `property ${json(property)} is not allowed here`;
  const path = e.schemaPath.split('/');
  // `dependencies: {a: false}`: the object may not have "a".
  if (path[path.length - 3] === 'dependencies') return `must not have property ${json(path[path.length - 2])}`;
  return 'must be left out: no value is allowed here';
}

/** A `not` schema as what the value must not be. */
function mustNot(schema: unknown): string {
  const s = asObject(schema);
  const keys = s ? Object.keys(s).filter((k) => k !== 'description' && k !== 'title') : [];
  if (s && keys.length === 1) {
    if (keys[0] === 'type') return `must not be ${[s.type].flat().join(' or ')}`;
    if (keys[0] === 'enum') return `must not be one of ${oneOfValues(s.enum)}`;
    if (keys[0] === 'const') return `must not be ${json(s.const)}`;
    if (keys[0] === 'required' && Array.isArray(s.required)) return `must not have ${s.required.length === 1 ? 'the property' : 'all of the properties'} ${oneOfValues(s.required)}`;
  }
  return schema === undefined ? 'must not fit the schema under "not"' : `must not fit ${schemaText(schema)}`;
}

/**
 * What a value fitting `schema` is, after "that": its type, allowed values
 * and required fields (with their types), else the schema itself.
 */
function isLike(schema: unknown): string {
  const s = asObject(schema);
  if (!s) return `fits ${schemaText(schema)}`;
  if ('const' in s) return `is ${json(s.const)}`;
  if (Array.isArray(s.enum)) return `is one of ${oneOfValues(s.enum)}`;
  const parts: string[] = [];
  if (s.type !== undefined) parts.push(`is ${[s.type].flat().join(' or ')}`);
  const properties = asObject(s.properties) ?? {};
  if (Array.isArray(s.required) && s.required.length > 0) {
    const fields = s.required.map((k) => {
      const type = asObject(properties[String(k)])?.type;
      return `${json(k)}${type === undefined ? '' : ` (${[type].flat().join(' or ')})`}`;
    });
    parts.push(`has ${fields.join(', ')}`);
  }
  const known = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', 'title']);
  const rest = Object.keys(s).some((k) => !known.has(k));
  if (parts.length === 0 || rest) return `fits ${schemaText(schema)}`;
  return parts.join(' and ');
}

function schemaText(schema: unknown): string {
  const text = json(schema) ?? String(schema);
  return `the schema ${text.length > MAX_SCHEMA_CHARS ? `${text.slice(0, MAX_SCHEMA_CHARS)}…` : text}`;
}

const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
