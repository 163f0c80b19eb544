/**
 * Static checks shared by node types: template syntax and reads, and
 * whether an effective inputSchema compiles.
 */
import { isCountersignError } from '../errors.js';
import type { JsonObject, Workflow } from '../format/model.js';
import { templateVariables } from '../format/template.js';
import { answerValidator, effectiveSchema } from './answer-schema.js';
import type { Finding, VariableRead } from './node-type.js';

/** The variables a template reads; a malformed template reads nothing (checkTemplate reports it). */
export function templateReads(text: unknown, pointer: string): VariableRead[] {
  if (typeof text !== 'string') return [];
  try {
    return templateVariables(text).map((v) => ({ path: v.path, pointer, offset: v.offset }));
  } catch {
    return [];
  }
}

export function checkTemplate(text: unknown, pointer: string): Finding[] {
  if (typeof text !== 'string') return [];
  try {
    templateVariables(text);
    return [];
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    return [{ code: e.code, message: e.message, pointer, severity: 'error' }];
  }
}

export function checkInputSchema(inputSchema: JsonObject | undefined, pointer: string, workflow: Workflow): Finding[] {
  if (inputSchema === undefined || inputSchema === null || typeof inputSchema !== 'object') return [];
  const findings: Finding[] = [];
  const registry = workflow.variableRegistry ?? {};
  const globalInputs = inputSchema.globalInputs;
  if (globalInputs !== undefined) {
    if (!Array.isArray(globalInputs)) {
      findings.push({ code: 'E_SCHEMA', message: 'globalInputs must be a list of registry variable names', pointer: `${pointer}/globalInputs`, severity: 'error' });
    } else {
      globalInputs.forEach((name, i) => {
        if (typeof name !== 'string' || !(name in registry)) {
          findings.push({
            code: 'E_GLOBAL_INPUT_UNDECLARED',
            message: `globalInputs names "${String(name)}", which is not declared in variableRegistry`,
            pointer: `${pointer}/globalInputs/${i}`,
            severity: 'error',
          });
        }
      });
    }
  }
  const props = inputSchema.properties;
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    for (const key of Object.keys(props)) {
      if (key.startsWith('$')) {
        findings.push({
          code: 'E_INPUT_SCHEMA',
          message: `answer field "${key}" starts with "$", which is reserved for the protocol; rename it`,
          pointer: `${pointer}/properties/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          severity: 'error',
        });
      }
    }
  }
  if (findings.length > 0) return findings;
  try {
    answerValidator(effectiveSchema(inputSchema, workflow), 'check');
  } catch (e) {
    const message = (e as Error).message;
    findings.push({
      code: 'E_INPUT_SCHEMA',
      message: `the inputSchema does not compile: ${message}`,
      pointer: pointer + (locateSchemaError(message, inputSchema) ?? ''),
      severity: 'error',
    });
  }
  return findings;
}

/**
 * ajv names the offending place in its message, either as a meta-schema
 * path (`data/properties/x/type must be …`) or as an unknown keyword; turn
 * that into a pointer inside the inputSchema so editors underline it.
 */
function locateSchemaError(message: string, schema: JsonObject): string | undefined {
  const meta = /schema is invalid: data(\/[^\s,]*)/.exec(message);
  if (meta) return meta[1];
  const keyword = /unknown keyword: "([^"]+)"/.exec(message);
  if (keyword) return findKey(schema, keyword[1], '');
  return undefined;
}

function findKey(value: unknown, key: string, at: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const here = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (k === key) return here;
    const deeper = findKey(v, key, here);
    if (deeper) return deeper;
  }
  return undefined;
}
