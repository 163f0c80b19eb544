/**
 * Checking a tool call's arguments against the schema the server publishes
 * for that tool, before anything acts on them. A mismatch is E_INPUT with
 * one `where: what` line per problem, written so a model can fix its call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { CountersignError } from '../../errors.js';
import { TOOLS, type ToolDefinition, type ToolName } from './schemas.js';

const ajv = new Ajv({ allErrors: true, strict: true });
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
  const value = args ?? {};
  const validate = validators.get(def.name)!;
  if (validate(value)) return value;
  const problems = (validate.errors ?? []).map(describe);
  throw new CountersignError('E_INPUT', `the arguments of ${def.name} do not fit its input schema: ${problems.join('; ')}`, {
    fix: fixFor(def, value, validate.errors ?? []),
    data: { errors: problems },
  });
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'arguments' : e.instancePath.slice(1).replace(/\//g, '.');
  const params = e.params as { additionalProperty?: string; allowedValues?: unknown[]; missingProperty?: string };
  if (params.missingProperty) return `${where}: missing required argument "${params.missingProperty}"`;
  if (params.additionalProperty) return `${where}: unknown argument "${params.additionalProperty}"`;
  if (params.allowedValues) return `${where}: ${e.message} (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`;
  return `${where}: ${e.message}`;
}

function fixFor(def: ToolDefinition, value: Record<string, unknown>, errors: ErrorObject[]): string {
  // The most common slip: the answer sent as a JSON string instead of the object itself.
  if (errors.some((e) => e.instancePath === '/answer') && typeof value.answer === 'string') {
    return 'pass answer as the JSON object itself, e.g. {"answer": {"words": 5}}, not as a string holding JSON';
  }
  const props = Object.keys(def.inputSchema.properties);
  const required = def.inputSchema.required ?? [];
  const shape = props.map((p) => (required.includes(p) ? p : `${p}?`)).join(', ');
  return `call ${def.name} with {${shape}} as its input schema in tools/list describes`;
}
