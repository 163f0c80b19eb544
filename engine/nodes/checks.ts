/**
 * Static checks shared by node types: template syntax and reads, and
 * whether an effective inputSchema compiles.
 */
import type { CountersignError } from '../errors.js';
import type { JsonObject, Workflow } from '../format/model.js';
import { templateAnalysis } from '../format/template.js';
import { suggest } from '../format/suggest.js';
import { effectiveSchema } from './answer-schema.js';
import { unsatisfiableRequired } from './required-fields.js';
import { schemaFinding, schemaProblem, schemaProblems, TYPES } from './schema-errors.js';
import type { Finding, VariableRead } from './node-type.js';

/** A message with its fix, as every finding states it: "what is wrong; how to fix it". */
export function withFix(message: string, fix: string | undefined): string {
  if (!fix) return message;
  return message.endsWith('?') ? `${message} ${fix[0].toUpperCase()}${fix.slice(1)}` : `${message}; ${fix}`;
}

/** A finding from a syntax error thrown while parsing a string at `pointer` (the error's data.offset locates it inside). */
export function errorFinding(e: CountersignError, pointer: string): Finding {
  const offset = (e.data as { offset?: unknown } | undefined)?.offset;
  return {
    code: e.code,
    message: withFix(e.message, e.fix),
    pointer,
    severity: 'error',
    ...(typeof offset === 'number' ? { offset } : {}),
  };
}

/** The variables a template reads, its malformed tags left out (checkTemplate reports each of them). */
export function templateReads(text: unknown, pointer: string): VariableRead[] {
  if (typeof text !== 'string') return [];
  return templateAnalysis(text).variables.map((v) => ({ path: v.path, pointer, offset: v.offset, ...(v.list ? { list: true as const } : {}), ...(v.inEach ? { inEach: true as const } : {}) }));
}

/** Syntax findings one template string may make before the rest are counted in one: 60,000 `{{}}` are not 60,000 findings. */
const MAX_TEMPLATE_FINDINGS = 20;

/** Every syntax fault of a template, each its own finding at its offset: one pass finds them all. */
export function checkTemplate(text: unknown, pointer: string): Finding[] {
  if (typeof text !== 'string') return [];
  const { errors } = templateAnalysis(text);
  const findings = errors.slice(0, MAX_TEMPLATE_FINDINGS).map((e) => errorFinding(e, pointer));
  const rest = errors.length - MAX_TEMPLATE_FINDINGS;
  if (rest > 0) findings.push({ code: 'E_TEMPLATE_SYNTAX', message: `this template has ${rest} more syntax errors (only the first ${MAX_TEMPLATE_FINDINGS} are listed); fix these and validate again`, pointer, severity: 'error' });
  return findings;
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
        if (typeof name !== 'string' || !Object.hasOwn(registry, name)) {
          const declared = Object.keys(registry);
          const near = typeof name === 'string' ? suggest(name, declared) : undefined;
          findings.push({
            code: 'E_GLOBAL_INPUT_UNDECLARED',
            message: withFix(`globalInputs names ${JSON.stringify(name)}, which is not declared in variableRegistry${near ? ` — did you mean "${near}"?` : ''}`,
              near ? `correct the name, or declare ${JSON.stringify(name)} in variableRegistry` : `declare ${JSON.stringify(name)} in variableRegistry (with its type and a description), or remove it from globalInputs${declared.length ? ` (declared: ${declared.slice(0, 8).join(', ')})` : ''}`),
            pointer: `${pointer}/globalInputs/${i}`,
            severity: 'error',
            ...(near ? { meant: near } : {}),
          });
        }
      });
    }
  }
  const type = inputSchema.type;
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.every((t) => t === 'object' || t === 'null') && type.includes('object'))) {
    findings.push({
      code: 'E_INPUT_SCHEMA',
      message: withFix(
        `an answer is an object of fields, stored under the node id; this inputSchema has type ${JSON.stringify(type)}`,
        'use "type": "object" and put the value in a property, e.g. {"type": "object", "properties": {"value": …}}',
      ),
      pointer: `${pointer}/type`,
      severity: 'error',
    });
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
  // A broken registry entry is reported at the entry itself (validate/registry.ts);
  // the node's own schema is still checked, with that entry left open ({}).
  const inlined = Array.isArray(globalInputs) ? [...new Set(globalInputs)].filter((n): n is string => typeof n === 'string' && Object.hasOwn(registry, n)) : [];
  const broken = inlined.filter((name) => schemaProblem(registry[name]) !== undefined);
  const checked = broken.length === 0 ? workflow : { ...workflow, variableRegistry: { ...registry, ...Object.fromEntries(broken.map((name) => [name, {}])) } };
  const problems = schemaProblems(effectiveSchema(inputSchema, checked as Workflow), ['globalInputs']);
  const own = props && typeof props === 'object' && !Array.isArray(props) ? inlined.filter((name) => Object.hasOwn(props, name)) : [];
  for (const problem of problems) findings.push(schemaFinding('E_INPUT_SCHEMA', pointer, 'the inputSchema does not compile', { ...problem, at: asWritten(problem.at, own, inlined, globalInputs) }));
  // Read from the schema as written, so it holds whether or not the schema compiles: every fault in one pass.
  findings.push(...unsatisfiableRequired(inputSchema, pointer, { code: 'E_INPUT_SCHEMA', alsoDefined: inlined }));
  findings.push(...conflictingGlobalTypes(inputSchema, pointer, registry, inlined));
  return findings;
}

/**
 * The effective schema wraps a node's own property for a global it writes
 * as `{allOf: [registry entry, own property]}`; a fault found in that
 * property is reported where the file has it, not inside the wrapper.
 */
function asWritten(at: string, ownGlobals: readonly string[], inlined: readonly string[] = [], globalInputs: unknown = []): string {
  for (const name of ownGlobals) {
    const wrapped = `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}/allOf/1`;
    if (at === wrapped || at.startsWith(`${wrapped}/`)) return wrapped.slice(0, -'/allOf/1'.length) + at.slice(wrapped.length);
  }
  // A fault inside an inlined registry entry (a repeated $id) is nowhere in the node: said at the globalInputs item that inlines it.
  for (const name of inlined) {
    const entry = `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}${ownGlobals.includes(name) ? '/allOf/0' : ''}`;
    const index = Array.isArray(globalInputs) ? globalInputs.indexOf(name) : -1;
    if (index >= 0 && (at === entry || at.startsWith(`${entry}/`))) return `/globalInputs/${index}`;
  }
  return at;
}

/** The JSON types a `type` keyword allows (integer is a number too); undefined when it names none or is absent. */
function typesOf(decl: unknown): Set<string> | undefined {
  if (decl === null || typeof decl !== 'object' || Array.isArray(decl)) return undefined;
  const t = (decl as { type?: unknown }).type;
  const list = typeof t === 'string' ? [t] : Array.isArray(t) ? t : undefined;
  if (!list || list.length === 0 || !list.every((x) => typeof x === 'string' && TYPES.includes(x))) return undefined;
  return new Set(list as string[]);
}

/**
 * A field an answer writes to a global must fit both the registry's
 * declaration and the node's own property for it (the two are combined
 * with allOf): when their types share no value, no answer can be accepted.
 */
function conflictingGlobalTypes(inputSchema: JsonObject, pointer: string, registry: Record<string, unknown>, globals: readonly string[]): Finding[] {
  const props = inputSchema.properties;
  if (props === null || typeof props !== 'object' || Array.isArray(props)) return [];
  const findings: Finding[] = [];
  for (const name of globals) {
    if (!Object.hasOwn(props, name)) continue;
    const own = typesOf((props as Record<string, unknown>)[name]);
    const declared = typesOf(registry[name]);
    if (!own || !declared) continue;
    const fits = [...own].some((t) => declared.has(t) || (t === 'integer' && declared.has('number')) || (t === 'number' && declared.has('integer')));
    if (fits) continue;
    findings.push({
      code: 'E_INPUT_SCHEMA',
      message: withFix(
        `property "${name}" is of type ${[...own].join(' or ')}, but the registry declares the global "${name}" it writes as ${[...declared].join(' or ')}: an answer must satisfy both, so none can be accepted`,
        `make the property's type match the registry (${[...declared].join(' or ')}), or drop the property and let the registry entry describe the field`,
      ),
      pointer: `${pointer}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}/type`,
      severity: 'error',
    });
  }
  return findings;
}
