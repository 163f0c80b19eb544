/**
 * `start`: seeds the run's globals — registry defaults, then initialData
 * values, then the start input — and continues on `default`.
 */
import { CountersignError } from '../errors.js';
import type { JsonObject, JsonValue, StartNode, Workflow } from '../format/model.js';
import { answerValidator, describeErrors, startInputSchema } from './answer-schema.js';
import type { StartType } from './node-type.js';


export const start: StartType = {
  type: 'start',
  kind: 'start',
  connections: { required: ['default'], optional: [] },
  declares(node: StartNode) {
    return { local: [], globals: Object.keys(node.initialData?.variables ?? {}) };
  },
  reads() {
    return [];
  },
  check() {
    return [];
  },
  seed(node, workflow, input) {
    const vars: Record<string, JsonValue> = {};
    for (const [name, decl] of Object.entries(workflow.variableRegistry ?? {})) {
      if (decl.default !== undefined) vars[name] = decl.default;
    }
    for (const [name, v] of Object.entries(node.initialData?.variables ?? {})) {
      if (v && v.value !== undefined) vars[name] = v.value;
    }
    checkInput(node, workflow, input);
    Object.assign(vars, input);
    return vars;
  },
};

/** Start input must name declared variables and fit their registry schemas: a typo fails loudly. */
function checkInput(node: StartNode, workflow: Workflow, input: JsonObject): void {
  const declared = new Set([
    ...Object.keys(workflow.variableRegistry ?? {}),
    ...Object.keys(node.initialData?.variables ?? {}),
  ]);
  const unknown = Object.keys(input).filter((k) => !declared.has(k));
  if (unknown.length > 0) {
    throw new CountersignError('E_INPUT', `the start input names undeclared variable(s): ${unknown.join(', ')}`, {
      fix: declared.size
        ? `use only declared variables: ${[...declared].join(', ')}`
        : 'declare them in the workflow variableRegistry',
    });
  }
  // Own keys only: a required input may be named `toString`.
  const missing = (workflow.requiredInputs ?? []).filter((name) => !Object.hasOwn(input, name) || input[name] === undefined);
  if (missing.length > 0) {
    throw new CountersignError('E_INPUT', `the start input must give ${missing.map((n) => `"${n}"`).join(', ')} (the workflow's requiredInputs): there is no safe default`, {
      fix: `pass them in the start input: --input '{${missing.map((n) => `"${n}": <${typeOf(workflow.variableRegistry?.[n])}>`).join(', ')}}' (library: start(file, { input }))`,
    });
  }
  // The registry entries as the answers' validator sees them: strict, with `format` enforced.
  const validate = answerValidator(startInputSchema(workflow));
  if (!validate(input)) {
    // The first misfit's pointer as a field, and the declared type of the variable it is in.
    const first = validate.errors?.[0];
    const pointer = first ? first.instancePath || (typeof first.params?.missingProperty === 'string' ? `/${first.params.missingProperty}` : '') : '';
    const name = pointer.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
    const decl = name !== undefined ? workflow.variableRegistry?.[name] : undefined;
    throw new CountersignError('E_INPUT', `the start input does not fit the variableRegistry: ${describeErrors(validate.errors).join('; ')}`, {
      ...(pointer ? { pointer } : {}),
      fix: decl ? `give "${name}" a value of its declared type (${typeOf(decl)}), as variableRegistry.${name} describes it` : 'pass values of the declared types',
    });
  }
}

/** The declared type, as a placeholder the user replaces: a copied example value could name the wrong PR. */
function typeOf(decl: unknown): string {
  const d = decl !== null && typeof decl === 'object' ? (decl as { type?: unknown; minimum?: unknown }) : {};
  const type = Array.isArray(d.type) ? d.type.join(' or ') : typeof d.type === 'string' ? d.type : 'value';
  return typeof d.minimum === 'number' ? `${type} ≥ ${d.minimum}` : type;
}
