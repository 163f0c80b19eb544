/**
 * Checks a document against the published schemas/workflow.schema.json and
 * turns ajv's errors into findings a person can act on: the most specific
 * pointer (the unknown key itself, the bad value), a stable code, and a
 * message that names the place in workflow terms and says what to do.
 * The schema is compiled once per process (compiling costs milliseconds,
 * validating microseconds).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvModules } from '../format/ajv.js';
import { suggest } from '../format/suggest.js';
import type { Finding } from '../nodes/node-type.js';
import { childPointer, describePointer, nodeLabel } from './pointer.js';

// Imported, not read from disk: the schema travels with the code into any bundle.
import publishedSchema from '../../schemas/workflow.schema.json' with { type: 'json' };

let validator: ValidateFunction | undefined;

/** The published schema. */
export function workflowSchema(): Record<string, unknown> {
  return publishedSchema as Record<string, unknown>;
}

function workflowValidator(): ValidateFunction {
  if (!validator) {
    // strict: the schema is ours, so a sloppy keyword in it should fail loudly here.
    // verbose: errors carry parentSchema, which lists the keys allowed where a key is unknown.
    const { Ajv, addFormats } = ajvModules();
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, ownProperties: true, logger: false });
    addFormats(ajv);
    validator = ajv.compile(workflowSchema());
  }
  return validator;
}

const NODE_TYPE_PATH = /^\/nodes\/(\d+)\/type$/;
const NODE_ID_PATH = /^\/nodes\/(\d+)\/id$/;
const NODE_PATH = /^\/nodes\/(\d+)$/;
const CONNECTIONS_PATH = /^\/nodes\/(\d+)\/connections$/;

/** Keywords that judge a value of the right type (its range, length or pattern), not the shape around it. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems', 'uniqueItems',
]);

/** Where validate checks keys itself: registry entries and names, an inputSchema, initialData's names. */
const OWN_KEY_CHECKS = /^\/(?:variableRegistry|nodes\/\d+\/(?:inputSchema|initialData\/variables))(?:\/|$)/;
/** Deeper than a registry entry's type and description, or an inputSchema's own type and globalInputs. */
const INSIDE_USER_SCHEMA = /^\/(?:variableRegistry\/[^/]+\/(?!type(?:\/|$)|description$)[^/]+|nodes\/\d+\/inputSchema\/(?!globalInputs(?:\/|$))[^/]+)/;
/**
 * The published schema's rules on keywords that need another beside them (schemaKeywordValues' dependencies):
 * "if" with "then" or "else" and they with it, "nullable": true with "type", "additionalItems" with a list of "items".
 */
const KEYWORD_PAIRING = /^#\/dependencies(?:\/(?:if|nullable|additionalItems)\/|$)/;
/** An inputSchema's globalInputs list. */
const GLOBAL_INPUTS = /^\/nodes\/\d+\/inputSchema\/globalInputs$/;
/** A registry entry's own type list. */
const REGISTRY_TYPE = /^\/variableRegistry\/[^/]+\/type$/;
const REGISTRY_ENTRY = /^\/variableRegistry\/[^/]+$/;
const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

export function schemaFindings(data: unknown): Finding[] {
  const validate = workflowValidator();
  if (validate(data)) return [];
  const findings: Finding[] = [];
  for (const error of validate.errors ?? []) {
    // An if/then pair reports the failing `then` a second time as an `if` error on the parent.
    if (error.keyword === 'if') continue;
    // Fewer than two nodes is told by the structure checks, specifically:
    // no start (E_START_COUNT), no end (E_NO_END). One fault, one finding.
    if (error.keyword === 'minItems' && error.instancePath === '/nodes') continue;
    // propertyNames' own error only says "property name must be valid": the error under it names the key and what is wrong.
    if (error.keyword === 'propertyNames') continue;
    // The key rules the schema gives editors for JSON Schema keywords and
    // variable names: validate's own checks report those faults, with
    // their own codes and did-you-mean (E_VARIABLE_SCHEMA, E_INPUT_SCHEMA, E_VARIABLE_NAME).
    if (error.schemaPath.includes('/propertyNames/') && OWN_KEY_CHECKS.test(error.instancePath)) continue;
    // An "if" without "then"/"else" (or the reverse), "nullable" without "type", "additionalItems" without a list
    // of "items", in an inputSchema or a registry entry: validate's compile of that schema says so at the key
    // itself (E_INPUT_SCHEMA, E_VARIABLE_SCHEMA).
    if (OWN_KEY_CHECKS.test(error.instancePath) && KEYWORD_PAIRING.test(error.schemaPath)) continue;
    // Inside an inputSchema or a registry entry, past the fields the workflow format itself
    // defines, the schema checks JSON Schema for editors; validate compiles it itself.
    if (INSIDE_USER_SCHEMA.test(error.instancePath)) continue;
    // A registry type list naming a type twice, or none: validate's own
    // compile of the entry says which (E_VARIABLE_SCHEMA), where ajv would
    // only say "must NOT have duplicate items".
    if ((error.keyword === 'uniqueItems' || error.keyword === 'minItems') && REGISTRY_TYPE.test(error.instancePath)) continue;
    // ajv names only the first repeat of a globalInputs name; each repeat is its own finding, at its index.
    if (error.keyword === 'uniqueItems' && GLOBAL_INPUTS.test(error.instancePath)) {
      findings.push(...repeatedGlobalInputs(error.instancePath, error.data));
      continue;
    }
    // A registry entry that is no object: the editors' JSON Schema part allows a boolean schema there, which the
    // declaration does not (it needs type and description): only the declaration's "must be an object" is said.
    if (error.keyword === 'type' && REGISTRY_ENTRY.test(error.instancePath) && (error.params as { type?: unknown }).type === 'boolean') continue;
    // A registry type that is neither a name nor a list: said as what it takes, not as the list branch's "must be an array".
    if (error.keyword === 'type' && REGISTRY_TYPE.test(error.instancePath) && typeof error.data !== 'string') {
      findings.push({ code: 'E_SCHEMA', pointer: error.instancePath, severity: 'error', message: `${describePointer(data, error.instancePath)} must be a type name (${JSON_TYPES.join(', ')}) or a list of them, not ${jsonTypeOf(error.data)}` });
      continue;
    }
    const finding = toFinding(data, error);
    findings.push(VALUE_KEYWORDS.has(error.keyword) ? { ...finding, valueOnly: true } : finding);
  }
  return findings;
}

/** One finding per name of a globalInputs list that an earlier item already lists. */
function repeatedGlobalInputs(pointer: string, list: unknown): Finding[] {
  if (!Array.isArray(list)) return [];
  const first = new Map<string, number>();
  const findings: Finding[] = [];
  list.forEach((name, i) => {
    const key = JSON.stringify(name);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, i);
      return;
    }
    findings.push({
      code: 'E_SCHEMA',
      pointer: `${pointer}/${i}`,
      message: `globalInputs lists ${key} again (it is item ${earlier} already), and an answer writes each global once; remove this repeat`,
      severity: 'error',
      valueOnly: true,
    });
  });
  return findings;
}

function toFinding(data: unknown, e: ErrorObject): Finding {
  // A key the object's propertyNames refuses (an empty role name): said of that key, and located at it.
  const keyName = (e as ErrorObject & { propertyName?: string }).propertyName;
  if (keyName !== undefined && e.keyword !== 'propertyNames') {
    // A closed set of key names (a condition's): an unknown key, with its did-you-mean.
    if (e.keyword === 'enum') {
      const allowed = ((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map(String);
      const guess = suggest(keyName, allowed);
      return {
        code: 'E_UNKNOWN_KEY',
        pointer: childPointer(e.instancePath, keyName),
        key: true,
        message: `unknown key "${keyName}" in ${describePointer(data, e.instancePath)}: remove it or check its spelling${guess ? ` — did you mean "${guess}"?` : `; allowed keys: ${allowed.join(', ')}`}`,
        severity: 'error',
        ...(guess ? { meant: guess } : {}),
      };
    }
    const described = (e.parentSchema as { description?: string } | undefined)?.description;
    return {
      code: 'E_SCHEMA',
      pointer: childPointer(e.instancePath, keyName),
      key: true,
      message: `${describePointer(data, e.instancePath)} has the key ${JSON.stringify(keyName)}, which ${e.message ?? 'is not allowed'}${described ? `. ${described}` : ''}`,
      severity: 'error',
    };
  }
  const at = e.instancePath;
  const subject = describePointer(data, at);
  const params = e.params as Record<string, unknown>;
  const error = (code: string, pointer: string, message: string): Finding => ({ code, pointer, message, severity: 'error' });

  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const pointer = childPointer(at, key);
      const allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const guess = suggest(key, allowed);
      const connections = CONNECTIONS_PATH.exec(at);
      if (connections) {
        const node = nodeLabel(data, Number(connections[1]));
        const names = allowed.length ? `its connections are ${quoteList(allowed)}` : 'it has no connections';
        return {
          ...error('E_UNKNOWN_CONNECTION', pointer, `${node} has no connection named "${key}" (${names})${guess ? ` — did you mean "${guess}"?` : '; remove it'}`),
          ...(guess ? { meant: guess } : {}),
        };
      }
      const hint = guess ? ` — did you mean "${guess}"?` : allowed.length ? `; allowed keys: ${allowed.join(', ')}` : '';
      return { ...error('E_UNKNOWN_KEY', pointer, `unknown key "${key}" in ${subject}: remove it or check its spelling${hint}`), ...(guess ? { meant: guess } : {}) };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => String(v));
      const nodeType = NODE_TYPE_PATH.exec(at);
      if (nodeType) {
        const written = String(e.data);
        const guess = suggest(written, allowed);
        return {
          ...error('E_UNKNOWN_NODE_TYPE', at, `${nodeLabel(data, Number(nodeType[1]))} has unknown type "${written}"; known types: ${allowed.join(', ')}${guess ? ` — did you mean "${guess}"?` : ''}`),
          ...(guess ? { meant: guess } : {}),
        };
      }
      const guess = typeof e.data === 'string' ? suggest(e.data, allowed) : undefined;
      return error(
        'E_SCHEMA',
        at,
        `${subject} is ${JSON.stringify(e.data)}; allowed values: ${allowed.join(', ')}${guess ? ` — did you mean "${guess}"?` : ''}`,
      );
    }
    case 'pattern': {
      const nodeId = NODE_ID_PATH.exec(at);
      if (nodeId) {
        const id = String(e.data);
        // Said of the first character that is not allowed: a dot, a space, a non-ASCII letter each for its own reason.
        const bad = [...id].find((ch) => !/[A-Za-z0-9_-]/.test(ch));
        const why = bad === undefined
          ? 'it is empty'
          : bad === '.'
            ? '"." separates path segments in node-id.field references, so this node\'s answers could never be read'
            : `it holds ${JSON.stringify(bad)}${/\s/.test(bad) ? ' (white space)' : /\p{L}/u.test(bad) ? ' (a letter outside A-Z)' : ''}, which templates and contextPaths cannot name`;
        return error(
          'E_NODE_ID',
          at,
          `node id "${id}" may contain only the letters A-Z and a-z, digits, "_" and "-": ${why}; rename it, e.g. "${readableName(id, 'step')}"`,
        );
      }
      // "\S": a label or name that must say something; white space alone is blank, said so rather than as a regular expression.
      if (params.pattern === '\\S') return error('E_SCHEMA', at, `${subject} ${JSON.stringify(e.data)} is blank (white space only): give it a value that says something${describe(e)}`);
      return error('E_SCHEMA', at, `${subject} ${JSON.stringify(e.data)} does not match the pattern ${String(params.pattern)}${describe(e)}`);
    }
    case 'required': {
      const missing = String(params.missingProperty);
      const node = NODE_PATH.exec(at);
      if (node && missing === 'connections') {
        return error('E_MISSING_CONNECTION', at, `${subject} has no "connections"; add the connections its type requires`);
      }
      const connections = CONNECTIONS_PATH.exec(at);
      if (connections) {
        return {
          ...error('E_MISSING_CONNECTION', at, `${nodeLabel(data, Number(connections[1]))} is missing the required connection "${missing}"; add "${missing}": "<node id>"`),
          missing: [missing],
        };
      }
      const hint = fieldHint(e, missing);
      return { ...error('E_SCHEMA', at, `${subject} is missing required field "${missing}"; add it${hint}`), missingField: true, missing: [missing], required: { at: e.schemaPath, subject, hint } };
    }
    case 'maxItems':
      if (at === '/nodes') {
        return error(
          'E_TOO_MANY_NODES',
          at,
          `the workflow has ${(e.data as unknown[]).length} nodes; the limit is ${String(params.limit)}: split it into smaller workflows`,
        );
      }
      return error('E_SCHEMA', at, `${subject} ${e.message ?? 'has too many items'}`);
    case 'type': {
      const said = jsonTypeOf(e.data);
      const found = error('E_SCHEMA', at, `${subject} must be ${article(String(params.type))}, not ${said}${describe(e)}`);
      // A number, boolean or null where text was wanted: in YAML most likely text written unquoted (version: 1.0), said as written where the file is known.
      const types = Array.isArray(params.type) ? params.type.map(String) : [String(params.type)];
      if (types.includes('string') && (typeof e.data === 'number' || typeof e.data === 'boolean' || e.data === null)) {
        found.scalarSaid = said;
        const pattern = (e.parentSchema as { pattern?: unknown } | undefined)?.pattern;
        if (typeof pattern === 'string') found.scalarPattern = pattern;
        const allowed = (e.parentSchema as { enum?: unknown } | undefined)?.enum;
        if (Array.isArray(allowed)) found.scalarAllowed = allowed.filter((a): a is string => typeof a === 'string');
      }
      return found;
    }
    case 'minLength':
      if (e.data === '') return error('E_SCHEMA', at, `${subject} is empty: give it a value${describe(e)}`);
      return error('E_SCHEMA', at, `${subject} ${e.message ?? 'is too short'}${got(e.data)}${describe(e)}`);
    default:
      return error('E_SCHEMA', at, `${subject} ${e.message ?? `fails "${e.keyword}"`}${got(e.data)}${describe(e)}`);
  }
}

/** The description of the offending property, which says what is expected. */
function describe(e: ErrorObject): string {
  const description = (e.parentSchema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' ? `. ${description}` : '';
}

function fieldHint(e: ErrorObject, field: string): string {
  const properties = (e.parentSchema as { properties?: Record<string, { description?: unknown }> } | undefined)?.properties;
  const description = properties?.[field]?.description;
  return typeof description === 'string' ? `. ${field}: ${description}` : '';
}

function got(value: unknown): string {
  return value === null || typeof value !== 'object' ? ` (it is ${JSON.stringify(value)})` : '';
}

function quoteList(names: string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && Number.isInteger(value)) return `the number ${value}`;
  // "must be an integer, not a number" would say nothing: a fraction is named as one.
  if (typeof value === 'number' && Number.isFinite(value)) return `the fraction ${value}`;
  return article(typeof value);
}

/** A name like `name` that paths can read: other characters become "_" (digits alone get a word before them). */
export function readableName(name: string, fallback: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_');
  if (cleaned === '' || cleaned === '_') return fallback;
  return /^[0-9]+$/.test(cleaned) ? `${fallback}-${cleaned}` : cleaned;
}
