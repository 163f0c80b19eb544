/**
 * The values a run starts with must fit their variables, as a start input
 * must: a registry `default`, or a start node's `initialData` value for a
 * registry variable, is checked against that variable's schema (the
 * closed form a start input and an answer writing the global are checked
 * against). Otherwise `default: "abc"` on an integer would enter every run
 * that a start input of "abc" could not. Each part that does not fit is
 * its own finding at that part (the key not allowed, the member of the
 * wrong type), as a start input's E_INPUT points at it.
 */
import type { JsonObject, JsonValue, Workflow } from '../format/model.js';
import type { ErrorObject } from 'ajv';
import { registryMisfits } from '../nodes/answer-schema.js';
import { choiceOf, describeErrors, failedChoices, errorPointer } from '../nodes/answer-errors.js';
import type { Finding } from '../nodes/node-type.js';
import { schemaProblem } from '../nodes/schema-errors.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Findings one value may make before the rest are counted in one finding at
 * the value: a default with 60,000 stray keys is not 60,000 findings.
 */
const MAX_VALUE_PLACES = 20;

/** `skip`: registry entries the schema check already reported. */
export function seedValueFindings(data: Record<string, unknown>, skip: ReadonlySet<string>): Finding[] {
  const registry = isObject(data.variableRegistry) ? data.variableRegistry : {};
  const findings: Finding[] = [];
  const check = (name: string, value: unknown, pointer: string, what: string) => {
    const entry = registry[name];
    if (!Object.hasOwn(registry, name) || !isObject(entry) || skip.has(`/variableRegistry/${escape(name)}`) || schemaProblem(entry as JsonObject)) return;
    const places = misfitPlaces(mismatch(name, entry as JsonObject, value as JsonValue));
    const advice = 'a start input with the same value would be refused, so correct the value or the variable\'s schema';
    // Each place at its own pointer (the key not allowed, the member of the wrong type), as a start input's E_INPUT is.
    for (const place of places.slice(0, MAX_VALUE_PLACES)) {
      findings.push({
        code: 'E_VARIABLE_VALUE',
        pointer: `${pointer}${place.pointer}`,
        ...(place.key ? { key: true } : {}),
        severity: 'error',
        message: `${what} does not fit the schema of variable "${name}" (${describeErrors(place.errors).join('; ')}); ${advice}`,
      });
    }
    const rest = places.slice(MAX_VALUE_PLACES);
    if (rest.length === 0) return;
    const shown = rest.slice(0, 3).flatMap((p) => describeErrors(p.errors).slice(0, 1));
    findings.push({
      code: 'E_VARIABLE_VALUE',
      pointer,
      severity: 'error',
      message: `${what} has ${rest.length} more places that do not fit the schema of variable "${name}" (${shown.join('; ')}${rest.length > shown.length ? '; …' : ''}); ${advice}`,
    });
  };
  for (const [name, entry] of Object.entries(registry)) {
    if (isObject(entry) && Object.hasOwn(entry, 'default')) check(name, entry.default, `/variableRegistry/${escape(name)}/default`, 'this default');
  }
  const nodes = Array.isArray(data.nodes) ? data.nodes : [];
  nodes.forEach((node: unknown, i: number) => {
    if (!isObject(node) || node.type !== 'start' || !isObject(node.initialData) || !isObject(node.initialData.variables)) return;
    for (const [name, v] of Object.entries(node.initialData.variables)) {
      if (isObject(v) && Object.hasOwn(v, 'value')) check(name, v.value, `/nodes/${i}/initialData/variables/${escape(name)}/value`, 'this initialData value');
    }
  });
  return findings;
}

/** ajv's errors against `value` for the variable's schema as a start input sees it (the entry its own root, so its own $refs resolve). */
function mismatch(name: string, entry: JsonObject, value: JsonValue): ErrorObject[] {
  try {
    return registryMisfits({ variableRegistry: { [name]: entry } } as unknown as Workflow, name, value, 'check');
  } catch {
    return []; // a schema that does not compile is E_VARIABLE_SCHEMA's to report
  }
}

/** One place in a value that does not fit: its pointer relative to the value, and what is wrong there. */
interface Place {
  pointer: string;
  /** About a key (one not allowed, a name the schema's propertyNames refuses): located at the key. */
  key: boolean;
  errors: ErrorObject[];
}

/**
 * ajv's errors grouped by the place they are about, in the order ajv met
 * them. What a choice's alternatives say (an anyOf/oneOf's branches, the
 * items tried against `contains`) is one fault, of the value the choice
 * describes: a value that fits no alternative is at that value, never at
 * some member or item one alternative would have wanted otherwise. An
 * `if`'s error only repeats its `then`/`else`'s (kept), and propertyNames'
 * only says "property name must be valid" where the error under it says why.
 */
function misfitPlaces(errors: ErrorObject[]): Place[] {
  const choices = failedChoices(errors);
  const places = new Map<string, Place>();
  for (const e of errors) {
    if (e.keyword === 'if' || e.keyword === 'propertyNames') continue;
    const choice = choiceOf(e, choices);
    const keyName = (e as ErrorObject & { propertyName?: string }).propertyName;
    // errorPointer and describeErrors place a refused key's error at the key and name it.
    const pointer = choice ? choice.instancePath : errorPointer(e);
    const key = !choice && (keyName !== undefined || e.keyword === 'additionalProperties');
    const place = places.get(pointer);
    if (place) {
      place.errors.push(e);
      place.key &&= key;
    } else places.set(pointer, { pointer, key, errors: [e] });
  }
  return [...places.values()];
}
