/**
 * Required fields no answer can give. Moira's rule closes every object
 * schema that lists `properties` (additionalProperties: false unless it
 * says otherwise), so a `required` name that is neither a property nor
 * matched by a `patternProperties` pattern can never be satisfied: left
 * out, the answer misses it; given, it is not allowed. Without this check
 * a typo in `required` validates and then burns every retry of the node.
 *
 * The walk follows closeObjects (answer-schema.ts): the subschemas that
 * describe the answer's own shape, not the applicators it leaves open.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import { suggest } from '../format/suggest.js';
import type { Finding } from './node-type.js';
import { subschemas } from './schema-walk.js';


const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Findings for each unsatisfiable `required` entry under `schema`, located
 * at `pointer`. `alsoDefined` names fields the engine adds to this object
 * (an inputSchema's globalInputs, inlined from the registry), which also
 * close it when it would otherwise be open.
 */
export function unsatisfiableRequired(
  schema: JsonValue | undefined,
  pointer: string,
  opts: { code: 'E_INPUT_SCHEMA' | 'E_VARIABLE_SCHEMA'; alsoDefined?: readonly string[] },
): Finding[] {
  const findings: Finding[] = [];
  walk(schema, pointer, opts.alsoDefined ?? [], opts.code, findings);
  return findings;
}

function walk(schema: JsonValue | undefined, pointer: string, alsoDefined: readonly string[], code: Finding['code'], findings: Finding[]): void {
  if (!isObject(schema)) return;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const closed = schema.additionalProperties === false || (schema.additionalProperties === undefined && (properties !== undefined || alsoDefined.length > 0));
  if (closed) {
    const object: ClosedObject = {
      defined: [...Object.keys(properties ?? {}), ...alsoDefined],
      patterns: isObject(schema.patternProperties) ? Object.keys(schema.patternProperties).map(compile) : [],
      explicit: schema.additionalProperties === false,
    };
    check(schema.required, pointer, object, code, findings);
    // An allOf branch applies to this same object, closed by this schema: its
    // required names must be fields this object holds (its own properties do
    // not open it). Nested allOf applies to it too.
    const branches = (s: JsonObject, at: string): void => {
      if (!Array.isArray(s.allOf)) return;
      s.allOf.forEach((branch, i) => {
        if (!isObject(branch)) return;
        check(branch.required, `${at}/allOf/${i}`, object, code, findings);
        branches(branch, `${at}/allOf/${i}`);
      });
    };
    branches(schema, pointer);
  }
  // The same subschemas closeObjects (answer-schema.ts) closes: a required name no answer can give is found in each.
  for (const [sub, at] of subschemas(schema, pointer, true)) walk(sub, at, [], code, findings);
}

interface ClosedObject {
  defined: string[];
  patterns: (RegExp | undefined)[];
  /** additionalProperties: false written out, not Moira's rule. */
  explicit: boolean;
}

function check(required: JsonValue | undefined, pointer: string, object: ClosedObject, code: Finding['code'], findings: Finding[]): void {
  if (!Array.isArray(required)) return;
  const { defined, patterns } = object;
  required.forEach((name, i) => {
    if (typeof name !== 'string' || defined.includes(name) || patterns.some((p) => p?.test(name))) return;
    const near = suggest(name, defined);
    findings.push({
      code,
      // Worded as every finding is, "what is wrong; how to fix it" (checks.ts withFix; not imported: checks.ts imports this file).
      message:
        `required names "${name}", which is not among this object's properties (${defined.length ? defined.map((d) => `"${d}"`).join(', ') : 'none'})` +
        `${patterns.length > 0 ? ' and matches none of its patternProperties' : ''}; ` +
        `the object allows no other fields (additionalProperties is false${object.explicit ? '' : ', Moira\'s rule for an object with properties'}), so no answer can satisfy it; ` +
        (near ? `did you mean "${near}"? Correct the name` : `declare "${name}" under properties, or remove it from required`),
      pointer: `${pointer}/required/${i}`,
      severity: 'error',
    });
  });
}

/** A patternProperties key as ajv reads it (unicode regexp); one that does not compile is reported by the compile check. */
function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
