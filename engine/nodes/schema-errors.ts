/**
 * Turns ajv's schema-compilation errors into findings a person can act on:
 * the pointer of the offending keyword or value inside the schema, what is
 * wrong in JSON-Schema terms, a "did you mean", and how to fix it.
 */
import { suggest } from '../format/suggest.js';
import type { JsonObject, JsonValue } from '../format/model.js';
import { answerValidator } from './answer-schema.js';
import type { Finding } from './node-type.js';
import { withFix } from './checks.js';
import { findKeyword, isSubschemaPointer, subschemas } from './schema-walk.js';
import { metaFault, valueAt } from './schema-meta.js';
import { explainRootFault, rootKeywordProblem } from './schema-root.js';
import { circularRef } from './schema-cycles.js';
import { badPatternProblem, findBadPattern, FORMATS, metaProblem, ownBadPattern, unknownFormat } from './schema-patterns.js';
import { decodeFragment, findKeyWhere, findKeyWithValue, refsOf, repeatedId } from './schema-search.js';

export { TYPES } from './schema-meta.js';
const DRAFT7_KEYWORDS = [
  '$id', '$schema', '$ref', '$comment', 'title', 'description', 'default', 'readOnly', 'writeOnly', 'examples',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'additionalItems', 'items', 'maxItems', 'minItems', 'uniqueItems', 'contains', 'maxProperties', 'minProperties',
  'required', 'additionalProperties', 'definitions', 'properties', 'patternProperties', 'dependencies',
  'propertyNames', 'const', 'enum', 'type', 'format', 'contentMediaType', 'contentEncoding', 'if', 'then', 'else',
  'allOf', 'anyOf', 'oneOf', 'not',
];
export interface SchemaProblem {
  /** Pointer inside the schema ('' for the schema itself). */
  at: string;
  message: string;
  fix: string;
  /** The problem is the key itself (an unknown keyword), not its value. */
  key?: boolean;
  /** The keyword a misspelt one most likely stands for (its did-you-mean). */
  meant?: string;
}

/** Where the schema being checked is, for the fixes that send the user into it. */
export interface SchemaHome {
  /** The keys countersign itself allows there (an inputSchema's `globalInputs`), for "did you mean". */
  extraKeywords?: readonly string[];
  /** The schema as a fix names it: "this inputSchema" unless told (a registry entry's: "the registry entry variableRegistry.v"). */
  name?: string;
}

/**
 * Compiles `schema` as the validator would; a problem when it does not
 * compile. `home`: the extra keywords allowed there (as a list, an
 * inputSchema's), or where the schema is.
 */
export function schemaProblem(schema: JsonObject, home: readonly string[] | SchemaHome = []): SchemaProblem | undefined {
  const { extraKeywords = [], name = 'this inputSchema' } = Array.isArray(home) ? { extraKeywords: home as readonly string[] } : (home as SchemaHome);
  // ajv would build an asynchronous validator: it returns a promise, never a verdict, so every answer would pass.
  const asyncAt = findKeyword(schema, '$async');
  if (asyncAt !== undefined) {
    return { at: asyncAt, message: '"$async" makes an asynchronous validator, which returns a promise instead of judging the answer: every answer would pass', fix: 'remove "$async"', key: true };
  }
  // ajv reads the schema's own $id and $schema before checking anything: a non-string one would throw JavaScript's words.
  const root = rootKeywordProblem(schema);
  if (root) return root;
  // A `$ref` looping on the same value overflows the stack, compiling or on every answer (schema-cycles.ts).
  const loop = circularRef(schema);
  if (loop) return loop;
  // ajv's meta-schema skips `$defs` entries (schema-meta.ts): they are checked here first, as ajv checks `definitions` first.
  const defsFault = findKeyword(schema, '$defs') !== undefined ? metaFault(schema) : undefined;
  if (defsFault) return metaProblem(schema, defsFault.at, defsFault.message);
  try {
    answerValidator(schema, 'check');
  } catch (e) {
    const message = (e as Error).message;
    // ajv's text tells its first error only: the errors themselves say which one is the fault (schema-meta.ts).
    const fault = message.startsWith('schema is invalid:') ? metaFault(schema) : undefined;
    return fault ? metaProblem(schema, fault.at, fault.message) : explain(message, schema, extraKeywords, name);
  }
  // ajv compiles no always-valid subschema (`patternProperties: {"(": {}}`), so never tries its key as a regular expression.
  const bad = findBadPattern(schema, '');
  if (bad) return badPatternProblem(bad);
  // Definitions nothing refers to are never compiled: their keywords are checked by name, their patterns and formats as compiling would.
  return unknownInDefinitions(schema, '');
}

/** Every keyword the answer compiler takes (draft-07; not ajv-formats' formatMinimum family, nor draft-04's id), as the published schema lists them. */
const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  '$async', '$comment', '$defs', '$id', '$ref', '$schema', '$vocabulary', 'additionalItems', 'additionalProperties', 'allOf', 'anyOf',
  'const', 'contains', 'contentEncoding', 'contentMediaType', 'contentSchema', 'default', 'definitions', 'dependencies', 'deprecated',
  'description', 'else', 'enum', 'examples', 'exclusiveMaximum', 'exclusiveMinimum', 'format', 'if', 'items', 'maxItems', 'maxLength', 'maxProperties', 'maximum',
  'minItems', 'minLength', 'minProperties', 'minimum', 'multipleOf', 'not', 'nullable', 'oneOf', 'pattern', 'patternProperties',
  'properties', 'propertyNames', 'readOnly', 'required', 'then', 'title', 'type', 'uniqueItems', 'writeOnly',
]);

/** The first unknown keyword inside a `definitions`/`$defs` entry of `schema` (at any depth). */
function unknownInDefinitions(schema: JsonValue, at: string): SchemaProblem | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  for (const map of ['definitions', '$defs']) {
    const defs = (schema as JsonObject)[map];
    if (defs === null || typeof defs !== 'object' || Array.isArray(defs)) continue;
    for (const [name, def] of Object.entries(defs)) {
      const here = `${at}/${map}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const found = unknownKeyword(def, here);
      if (found) return found;
    }
  }
  for (const [sub, here] of subschemas(schema, at)) {
    const found = unknownInDefinitions(sub, here);
    if (found) return found;
  }
  return undefined;
}

function unknownKeyword(schema: JsonValue, at: string): SchemaProblem | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  for (const key of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(key)) {
      const near = suggest(key, [...KNOWN_KEYWORDS]);
      return { at: `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: `unknown JSON Schema keyword "${key}"${near ? ` — did you mean "${near}"?` : ''}`, fix: 'correct its spelling or remove it (JSON Schema draft-07 keywords)', key: true, ...(near ? { meant: near } : {}) };
    }
  }
  // What compiling would refuse here, were the definition referred to: a pattern that is no regular expression, a format ajv does not know.
  const bad = ownBadPattern(schema, at);
  if (bad) return badPatternProblem(bad);
  if (typeof schema.format === 'string' && !FORMATS.includes(schema.format)) return unknownFormat(`${at}/format`, schema.format);
  for (const [sub, here] of subschemas(schema, at)) {
    const found = unknownKeyword(sub, here);
    if (found) return found;
  }
  return undefined;
}

/**
 * Every problem of `schema`, not only the first: ajv stops at one, so the
 * part at fault is taken out of a copy and the copy compiled again, until it
 * compiles (or a problem has no place to take out, or `max` are found).
 */
export function schemaProblems(schema: JsonObject, home: readonly string[] | SchemaHome = [], max = 20): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  let current = schema;
  const seen = new Set<string>();
  for (let i = 0; i < max; i++) {
    const problem = schemaProblem(current, home);
    if (!problem) break;
    const key = `${problem.at} ${problem.message}`;
    if (seen.has(key)) break;
    seen.add(key);
    out.push(problem);
    const next = problem.at === '' ? undefined : withoutPointer(current, problem.at);
    if (!next) break;
    current = next;
  }
  return out;
}

/** A copy of `schema` without the member at `pointer`; undefined when there is none. */
function withoutPointer(schema: JsonObject, pointer: string): JsonObject | undefined {
  const copy = structuredClone(schema);
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = segments.pop();
  if (last === undefined) return undefined;
  let parent: unknown = copy;
  for (const seg of segments) {
    if (parent === null || typeof parent !== 'object') return undefined;
    parent = (parent as Record<string, unknown>)[seg];
  }
  // An item of a list is replaced, not taken out: the list keeps its length (an `items` list is not newly
  // empty) and the items after it the pointers they are reported at. A schema becomes the empty schema;
  // a name (`required`, a dependency's list) one no schema uses, as lists of names take only strings.
  if (Array.isArray(parent) && /^\d+$/.test(last) && Number(last) < parent.length) {
    parent[Number(last)] = isSubschemaPointer(schema, pointer) ? {} : `\u0000taken out ${last}`;
  } else if (parent !== null && typeof parent === 'object' && Object.hasOwn(parent, last)) delete (parent as Record<string, unknown>)[last];
  else return undefined;
  return copy;
}

/** A finding for a schema problem, the fix joined to the message as everywhere else. */
export function schemaFinding(code: string, pointer: string, what: string, problem: SchemaProblem): Finding {
  return { code, pointer: pointer + problem.at, message: withFix(`${what}: ${problem.message}`, problem.fix), severity: 'error', ...(problem.key ? { key: true } : {}), ...(problem.meant ? { meant: problem.meant } : {}) };
}

function explain(message: string, schema: JsonObject, extraKeywords: readonly string[], home: string): SchemaProblem {
  const keyword = /unknown keyword: "([^"]+)"/.exec(message);
  if (keyword) {
    const guess = suggest(keyword[1], [...DRAFT7_KEYWORDS, ...extraKeywords]);
    return {
      at: findKeyword(schema, keyword[1]) ?? '',
      key: true,
      message: `unknown JSON Schema keyword "${keyword[1]}"${guess ? ` — did you mean "${guess}"?` : ''}`,
      fix: `correct its spelling or remove it (JSON Schema draft-07 keywords${extraKeywords.length ? `, plus ${extraKeywords.join(', ')}` : ''})`,
      ...(guess ? { meant: guess } : {}),
    };
  }
  const format = /unknown format "([^"]+)" ignored in schema at path "([^"]*)"/.exec(message);
  if (format) {
    // ajv's path is a URI fragment (percent-decoded, it is the JSON pointer: "my%20field" is "my field"),
    // or, under a subschema with a URI $id of its own, that URI: then the format is found by its name.
    const at = format[2].startsWith('#') ? `${decodeFragment(format[2].slice(1))}/format` : findKeyWithValue(schema, 'format', format[1], '') ?? '';
    return unknownFormat(at, format[1]);
  }
  if (/Invalid regular expression/.test(message)) {
    const bad = findBadPattern(schema, '');
    const what = bad?.key ? `the patternProperties key "${bad.text}"` : '"pattern"';
    return {
      at: bad?.at ?? '',
      key: bad?.key,
      message: `${what} is not a valid regular expression (${message.replace(/^.*?Invalid regular expression: /, '')})`,
      fix: 'write a valid ECMAScript regular expression (escape backslashes in JSON)',
    };
  }
  // ajv's words: "can't resolve reference <ref> from id <id>". A ref may hold spaces, even " from id ": the ref
  // is the schema's own $ref whose text the message starts with (the longest, should one begin another).
  const ref = /can't resolve reference (.+) from id /.exec(message) ?? /can't resolve reference (\S+)/.exec(message);
  if (ref) {
    const text = refsOf(schema).filter((r) => message.startsWith(`can't resolve reference ${r} from id `)).sort((a, b) => b.length - a.length)[0] ?? ref[1];
    return {
      at: findKeyWithValue(schema, '$ref', text, '') ?? '',
      message: `"$ref" ${text} points at nothing in this schema`,
      fix: `point $ref at a definition inside ${home} (e.g. "#/definitions/name" with a matching "definitions" entry there), or write the schema inline`,
    };
  }
  // A URI $id (or an anchor) given twice: ajv cannot tell which schema a ref to it means. Said at its second use.
  const twice = /reference "([^"]+)" resolves to more than one schema/.exec(message) ?? /schema with key or id "([^"]+)" already exists/.exec(message);
  if (twice) {
    return {
      at: repeatedId(schema, twice[1]) ?? '',
      message: `"$id" "${twice[1]}" is given to more than one schema (those of the registry entries globalInputs inlines count too)`,
      fix: 'give each schema its own "$id", or refer to a definition by its pointer ("#/definitions/name") instead',
    };
  }
  // ajv's type list needs a type to add null to.
  if (/"nullable" cannot be used without "type"/.test(message)) {
    const at = findKeyWhere(schema, 'nullable', (v, s) => v !== undefined && s.type === undefined, '') ?? '';
    const given = valueAt(schema, at);
    return given === true || at === ''
      ? { at, message: '"nullable": true needs a "type" beside it: it adds null to the types given there', fix: 'add "type" beside "nullable" (e.g. "type": "string"), or remove "nullable" (write "type": ["string", "null"] instead)' }
      : { at, message: `"nullable": ${JSON.stringify(given)} needs a "type" beside it (ajv takes "nullable" only with "type")`, fix: 'remove "nullable" (without "type" every type is allowed anyway), or add the "type" it is about' };
  }
  // "type" allows null and "nullable": false says it may not.
  if (/type: null contradicts nullable: false/.test(message)) {
    return {
      at: findKeyWhere(schema, 'nullable', (v, s) => v === false && (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))), '') ?? '',
      message: '"nullable": false contradicts a "type" that allows null',
      fix: 'remove "nullable": false, or take "null" out of "type"',
    };
  }
  // Strict mode: additionalItems checks the items past a positional list; with one schema for every item there are none.
  if (/"additionalItems" is ignored when "items" is not an array of schemas/.test(message)) {
    return {
      at: findKeyWhere(schema, 'additionalItems', (_, s) => !Array.isArray(s.items), '') ?? '',
      key: true,
      message: '"additionalItems" checks only the items past a list of "items" (one schema per position), and here "items" is no such list: it would check nothing',
      fix: 'make "items" a list of schemas, one per position, for "additionalItems" to check the items after them; or remove "additionalItems" (with one "items" schema, it already applies to every item)',
    };
  }
  // A schema ajv could not walk without recursing forever: a loop of $refs circularRef did not resolve (through a URI it does not know).
  if (/Maximum call stack size exceeded/.test(message)) {
    return {
      at: findKeyword(schema, '$ref') ?? '',
      message: 'the "$ref"s of this schema lead back to where they start while still checking the same value: checking an answer would recurse forever',
      fix: 'point "$ref" at another schema, or recurse only through "properties", "items" or another keyword that checks a part of the value',
    };
  }
  // A keyword ajv takes only in some JSON types (`nullable`: a boolean), given another: said at that keyword.
  const keywordType = /^"?([^"\s]+)"? value must be \[([^\]]*)\]/.exec(message);
  if (keywordType) {
    const types = keywordType[2].split(',').map((t) => t.replace(/"/g, '').trim());
    const at = findKeyWhere(schema, keywordType[1], (v) => !types.includes(Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v), '');
    const value = at === undefined ? undefined : valueAt(schema, at);
    const must = types.join(' or ') === 'boolean' ? 'true or false' : types.join(' or ');
    return { at: at ?? '', message: `"${keywordType[1]}" must be ${must}${at === undefined ? '' : `, not ${JSON.stringify(value)}`}`, fix: `give "${keywordType[1]}" ${must === 'true or false' ? 'true or false' : `a value of type ${must}`}, or leave it out` };
  }
  const meta = /schema is invalid: data(\/[^\s,]*) (must[^,]*)/.exec(message);
  if (meta) return metaProblem(schema, meta[1], meta[2]);
  const root = explainRootFault(message, schema);
  if (root) return root;
  return { at: '', message, fix: 'correct the schema so that it is valid JSON Schema draft-07' };
}
