/**
 * Compiling a tool's argument schema and reading ajv's errors as
 * ArgProblems. One ajv instance per dialect (draft-07, or 2020-12 when the
 * schema's `$schema` says so), created on first use.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ajvModules } from '../format/ajv.js';
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import { describeErrors, errorPointer, ROOT } from '../nodes/answer-errors.js';
import type { ArgProblem } from './tool.js';

// One instance per dialect; a schema with its own `$id` gets a private one,
// since ajv registers ids instance-wide and two tools may reuse an id.
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: JsonObject): Ajv | Ajv2020 {
  const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const fresh = (): Ajv | Ajv2020 => {
    const { Ajv, Ajv2020, addFormats } = ajvModules();
    // ownProperties: an argument named like an Object.prototype member (`constructor`) is read only from the arguments.
    // verbose: errors carry their keyword's schema, which a `not` or `contains` line words (keyword-wording.ts).
    const options = { allErrors: true, ownProperties: true, verbose: true, logger: false } as const;
    const ajv = is2020 ? new Ajv2020(options) : new Ajv(options);
    addFormats(ajv as Ajv);
    return ajv;
  };
  if (schema.$id !== undefined) return fresh();
  if (is2020) return (draft2020 ??= fresh() as Ajv2020);
  return (draft07 ??= fresh() as Ajv);
}

export function compileArgSchema(name: string, schema: JsonObject): ValidateFunction {
  try {
    // A copy: ajv caches by object, and a host may edit its object and define the tool again.
    return ajvFor(schema).compile(structuredClone(schema));
  } catch (err) {
    throw new CountersignError('E_TOOL_DEFINITION', `tool "${name}": inputSchema does not compile: ${(err as Error).message}`, {
      fix: 'correct the inputSchema (unknown keywords are errors; a 2020-12 schema must say so in $schema)',
      cause: err,
    });
  }
}


export function toProblem(e: ErrorObject): ArgProblem {
  const [line] = describeErrors([e]);
  // describeErrors says `<pointer or (root)>: <message>`; the pointer is kept apart here.
  const pointer = errorPointer(e);
  const prefix = `${pointer || ROOT}: `;
  const message = line.startsWith(prefix) ? line.slice(prefix.length) : line;
  const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: unknown }).missingProperty) : undefined;
  const unexpected = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty?: unknown }).additionalProperty) : undefined;
  return { pointer, message, keyword: e.keyword, ...(missing !== undefined ? { missing } : {}), ...(unexpected !== undefined ? { unexpected } : {}) };
}
