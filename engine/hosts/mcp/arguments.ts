/**
 * Checking a tool call's arguments against the schema the server publishes
 * for that tool, before anything acts on them. A mismatch is E_INPUT with
 * one `where: what` line per problem, written so a model can fix its call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { CountersignError } from '../../errors.js';
import { TOOLS, type ToolDefinition, type ToolName } from './schemas.js';

// ownProperties: only the call's own arguments count, never Object.prototype members.
const ajv = new Ajv({ allErrors: true, strict: true, ownProperties: true });
// Compiled once per tool: ajv caches by schema object identity, and these objects never change.
const validators = new Map<ToolName, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));

export function toolNamed(name: string): ToolDefinition {
  const def = TOOLS.find((t) => t.name === name);
  if (!def) {
    throw new CountersignError('E_USAGE', `there is no tool "${name}"`, {
      fix: `call one of: ${TOOLS.map((t) => t.name).join(', ')}`,
    });
  }
  return def;
}

/** The arguments, checked; throws E_INPUT naming every problem. Missing arguments count as `{}`. */
export function checkArguments(def: ToolDefinition, args: Record<string, unknown> | undefined): Record<string, unknown> {
  const value: Record<string, unknown> = args ?? {};
  // Read before validating: ajv's type guard narrows `value` to never once it fails.
  const identity = value.as;
  const validate = validators.get(def.name)!;
  if (validate(value)) return value;
  const errors = validate.errors ?? [];
  // A blank identity alone is the engine's E_IDENTITY_REQUIRED, whichever tool it is given to, with the engine's fix.
  if (errors.length > 0 && errors.every(isBlankIdentity)) {
    const who = def.name === 'start' ? 'starting' : 'answering';
    throw new CountersignError('E_IDENTITY_REQUIRED', `the ${who} identity ${JSON.stringify(identity)} is blank`, {
      fix: def.name === 'start'
        ? 'pass a non-empty identity with the "as" argument set to <identity>, or leave it out'
        : 'pass a non-empty identity with the "as" argument set to <identity> (in a review loop every answer must name one; elsewhere you may leave it out)',
    });
  }
  const problems = errors.map(describe);
  throw new CountersignError('E_INPUT', `the arguments of ${def.name} do not fit its input schema: ${problems.join('; ')}`, {
    fix: fixFor(def, value, errors),
    data: { errors: problems },
  });
}

/** The `as` argument failed only its not-blank pattern (schemas.ts NOT_BLANK). */
function isBlankIdentity(e: ErrorObject): boolean {
  return e.instancePath === '/as' && e.keyword === 'pattern';
}

function describe(e: ErrorObject): string {
  if (isBlankIdentity(e)) return 'as: the identity is blank; give a non-empty identity or leave "as" out';
  const where = e.instancePath === '' ? 'arguments' : e.instancePath.slice(1).replace(/\//g, '.');
  const params = e.params as { additionalProperty?: string; allowedValues?: unknown[]; missingProperty?: string };
  if (params.missingProperty) return `${where}: missing required argument "${params.missingProperty}"`;
  if (params.additionalProperty) return `${where}: unknown argument "${params.additionalProperty}"`;
  if (params.allowedValues) return `${where}: ${e.message} (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`;
  return `${where}: ${e.message}`;
}

function fixFor(def: ToolDefinition, value: Record<string, unknown>, errors: ErrorObject[]): string {
  const props = Object.keys(def.inputSchema.properties);
  const required = def.inputSchema.required ?? [];
  const shape = props.map((p) => (required.includes(p) ? p : `${p}?`)).join(', ');
  const general = `call ${def.name} with {${shape}} as its input schema in tools/list describes`;
  const answerFix = answerFixFor(value.answer);
  if (answerFix === undefined || !errors.some((e) => e.instancePath === '/answer')) return general;
  // Other arguments wrong too: the answer's own fix, then the general one for the rest.
  return errors.every((e) => e.instancePath === '/answer') ? answerFix : `${answerFix}; and ${general}`;
}

/** The fix for the two answer slips worth naming: JSON in a string, and null. */
function answerFixFor(answer: unknown): string | undefined {
  // The most common slip: the answer sent as a JSON string instead of the object itself.
  if (typeof answer === 'string') return 'pass answer as the JSON object itself, e.g. {"answer": {"words": 5}}, not as a string holding JSON';
  // The CLI takes `--response null` for an item that asks for no fields; this tool takes that empty answer as {}.
  if (answer === null) {
    return 'pass answer as a JSON object, never null: {} when the pending item asks for no fields (its answer schema has "maxProperties": 0), otherwise the object its answer schema describes';
  }
  return undefined;
}
