/**
 * Regular expressions and formats in a schema, as ajv compiles them: a
 * `pattern` or patternProperties key that is no regular expression (with
 * the u flag), and a `format` ajv-formats does not know (with a did-you-mean).
 */
import { suggest } from '../format/suggest.js';
import type { JsonObject, JsonValue } from '../format/model.js';
import type { SchemaProblem } from './schema-errors.js';
import { faultyValue, valueAt } from './schema-meta.js';
import { escape } from './schema-search.js';
import { subschemas } from './schema-walk.js';

// The formats ajv-formats adds (its "full" set).
export const FORMATS = [
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template',
  'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment',
  'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary',
];

export function badPatternProblem(bad: BadPattern): SchemaProblem {
  const what = bad.key ? `the patternProperties key "${bad.text}"` : '"pattern"';
  return { at: bad.at, key: bad.key, message: `${what} is not a valid regular expression (${regexError(bad.text)})`, fix: 'write a valid ECMAScript regular expression (escape backslashes in JSON)' };
}

export interface BadPattern {
  at: string;
  text: string;
  /** The regex is a patternProperties key, not a `pattern` value. */
  key: boolean;
}

/**
 * A value the meta-schema refuses, told. A patternProperties key that is no
 * regular expression is refused as the whole map ("must match format
 * regex"): told at the key, with the regular expression's own error.
 */
export function metaProblem(schema: JsonObject, at: string, must: string): SchemaProblem {
  if (at.endsWith('/patternProperties') && /format "regex"/.test(must)) {
    const holder = at.slice(0, -'/patternProperties'.length);
    const bad = ownBadPattern(valueAt(schema, holder) as JsonValue, holder);
    if (bad?.key) return badPatternProblem(bad);
  }
  return faultyValue(schema, at, must);
}

/** A `format` ajv-formats does not know, at `at`, with a did-you-mean. */
export function unknownFormat(at: string, name: string): SchemaProblem {
  const guess = suggest(name, FORMATS);
  return { at, message: `unknown format "${name}"${guess ? ` — did you mean "${guess}"?` : ''}`, fix: `use one of ${FORMATS.join(', ')}` };
}

/** Why `text` is no regular expression (as ajv compiles one: with the u flag). */
export function regexError(text: string): string {
  try {
    new RegExp(text, 'u');
    return '';
  } catch (e) {
    return (e as Error).message.replace(/^Invalid regular expression: /, '');
  }
}

export function isBadRegex(text: string): boolean {
  return regexError(text) !== '';
}

export function findBadPattern(schema: JsonValue, at: string): BadPattern | undefined {
  const own = ownBadPattern(schema, at);
  if (own) return own;
  for (const [sub, here] of subschemas(schema, at)) {
    const deeper = findBadPattern(sub, here);
    if (deeper) return deeper;
  }
  return undefined;
}

/** `schema`'s own pattern, or a patternProperties key, that is no regular expression (not its subschemas'). */
export function ownBadPattern(schema: JsonValue, at: string): BadPattern | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  if (typeof schema.pattern === 'string' && isBadRegex(schema.pattern)) return { at: `${at}/pattern`, text: schema.pattern, key: false };
  const patterns = schema.patternProperties;
  if (patterns !== null && typeof patterns === 'object' && !Array.isArray(patterns)) {
    for (const regex of Object.keys(patterns)) {
      if (isBadRegex(regex)) return { at: `${at}/patternProperties/${escape(regex)}`, text: regex, key: true };
    }
  }
  return undefined;
}
