/**
 * Compile faults ajv raises before or beside its meta-schema check, told at
 * the key at fault rather than as ajv's (or JavaScript's) raw text about the
 * whole schema:
 * - a schema's own `$id` or `$schema` that is not a string (ajv reads them
 *   first: a non-string `$id` throws "id.replace is not a function");
 * - a `$schema` naming a dialect ajv has no meta-schema for, or naming any
 *   other dialect than draft-07 in a subschema (which ajv ignores);
 * - strict mode's "if" without "then"/"else" (and "then"/"else" without
 *   "if"): a condition that applies nothing.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import type { SchemaProblem } from './schema-errors.js';
import { subschemas } from './schema-walk.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DIALECT_FIX = `set "$schema" to "${DRAFT_07}", or leave it out (schemas here are JSON Schema draft-07)`;

/** The schema's own `$id` or `$schema` when it is not a string (nested ones are the meta-schema's to check). */
export function rootKeywordProblem(schema: JsonObject): SchemaProblem | undefined {
  if (schema.$id !== undefined && typeof schema.$id !== 'string') {
    return { at: '/$id', message: `"$id" must be a string (a URI naming the schema), not ${JSON.stringify(schema.$id)}`, fix: 'write "$id" as a URI string, e.g. "http://example.com/answer", or leave it out' };
  }
  if (schema.$schema !== undefined && typeof schema.$schema !== 'string') {
    return { at: '/$schema', message: `"$schema" must be a string naming the dialect (${DRAFT_07}), not ${JSON.stringify(schema.$schema)}`, fix: DIALECT_FIX };
  }
  // ajv reads only the root's `$schema`: a nested one naming another dialect would be ignored without a word, its subschema compiled as draft-07.
  for (const [sub, here] of subschemas(schema, '')) {
    const at = findKey(sub, '$schema', (s) => typeof s.$schema === 'string' && !isDraft07(s.$schema), here);
    if (at !== undefined) {
      const named = valueOf(schema, at);
      return { at, message: `"$schema" names ${JSON.stringify(named)}, a dialect that is not compiled here: only JSON Schema draft-07 (${DRAFT_07}) is, and a nested "$schema" does not change how its part is read`, fix: DIALECT_FIX };
    }
  }
  return undefined;
}

const isDraft07 = (uri: string) => uri.replace(/#$/, '') === DRAFT_07.replace(/#$/, '');

/** The `$schema` text at `at`, a pointer findKey returned. */
function valueOf(schema: JsonValue, at: string): JsonValue {
  let cur: JsonValue = schema;
  for (const seg of at.split('/').slice(1)) cur = (cur as JsonObject)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return cur;
}

/** ajv's words for a fault this module tells, told; undefined for any other message. */
export function explainRootFault(message: string, schema: JsonObject): SchemaProblem | undefined {
  const dialect = /no schema with key or ref "([^"]*)"/.exec(message);
  if (dialect) {
    const at = findKey(schema, '$schema', (s) => s.$schema === dialect[1], '');
    if (at === undefined) return undefined;
    return { at, message: `"$schema" names ${JSON.stringify(dialect[1])}, a dialect that is not compiled here: only JSON Schema draft-07 (${DRAFT_07}) is`, fix: DIALECT_FIX };
  }
  if (/strict mode: "if" without "then" and "else" is ignored/.test(message)) {
    const at = findKey(schema, 'if', (s) => s.then === undefined && s.else === undefined, '');
    return {
      at: at ?? '',
      key: true,
      message: '"if" without "then" or "else" checks nothing: its condition applies no schema whether it holds or not',
      fix: 'add "then" (and/or "else") beside "if" with the schema to apply, or remove "if"',
    };
  }
  const orphan = /strict mode: "(then|else)" without "if" is ignored/.exec(message);
  if (orphan) {
    const keyword = orphan[1];
    const at = findKey(schema, keyword, (s) => s.if === undefined, '');
    const when = keyword === 'then' ? 'holds' : 'fails';
    return { at: at ?? '', key: true, message: `"${keyword}" without "if" checks nothing: it applies only when an "if" beside it ${when}`, fix: `add "if" beside "${keyword}" with the condition, or remove "${keyword}" (use "allOf" to apply a schema always)` };
  }
  return undefined;
}

/** The first `key` in a schema object that passes `test` (looked for where keywords are, never in data). */
function findKey(schema: JsonValue, key: string, test: (s: JsonObject) => boolean, at: string): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  if (Object.hasOwn(schema, key) && test(schema)) return `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  for (const [sub, here] of subschemas(schema, at)) {
    const deeper = findKey(sub, key, test, here);
    if (deeper) return deeper;
  }
  return undefined;
}
