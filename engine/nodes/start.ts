/**
 * `start`: seeds the run's globals — registry defaults, then initialData
 * values, then the start input — and continues on `default`.
 */
import { CountersignError } from '../errors.js';
import type { JsonObject, JsonValue, StartNode, Workflow } from '../format/model.js';
import type { ErrorObject } from 'ajv';
import { registryMisfits } from './answer-schema.js';
import { choiceOf, describeErrors, failedChoices, errorPointer, leadingFault, refusedKeyOf } from './answer-errors.js';
import { falseProperty } from './keyword-wording.js';
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
  // Each registry entry as the answers' validator sees it: strict, with `format` enforced.
  const misfits = Object.keys(input).flatMap((name) =>
    registryMisfits(workflow, name, input[name]).map((e) => ({ ...e, instancePath: `/${escapeKey(name)}${e.instancePath}` })),
  );
  if (misfits.length > 0) {
    // The first fault: an alternative of a failed choice (an anyOf branch, an item tried against `contains`) is that choice's.
    const choices = failedChoices(misfits);
    // (An error another line explains, such as an `if`'s beside its branch's faults, is never the first.)
    const first = leadingFault(misfits) ?? misfits[0];
    // The first fault's line says what its alternatives wanted too: they are the errors under it.
    const firstLine = describeErrors(misfits.filter((e) => e === first || choiceOf(e, choices) === first))[0];
    throw new CountersignError('E_INPUT', `the start input does not fit the variableRegistry: ${describeErrors(misfits).join('; ')}`, {
      // A key the schema refuses (an extra one, one propertyNames does not allow) is pointed at itself.
      pointer: errorPointer(first),
      fix: fixFor(first, firstLine, workflow),
    });
  }
}

/**
 * How to correct the first misfit: a value of another type than declared
 * takes the declared type; anything else (a nested field, a limit, a
 * missing or extra property) is corrected where it fails, a key whose name
 * the schema refuses is renamed. `line` is the misfit's line as the message
 * lists it (a failed choice's with what its alternatives wanted).
 */
function fixFor(e: ErrorObject, line: string, workflow: Workflow): string {
  const name = e.instancePath.split('/')[1].replace(/~1/g, '/').replace(/~0/g, '~');
  const decl = workflow.variableRegistry?.[name] as { type?: unknown } | undefined;
  const described = `variableRegistry.${name}`;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'type' && e.instancePath === `/${escapeKey(name)}` && decl?.type !== undefined) {
    return `give "${name}" a value of its declared type (${typeOf(decl)}), as ${described} describes it`;
  }
  if (e.keyword === 'required') return `give ${e.instancePath} the property "${String(params.missingProperty)}" in the start input: ${described} requires it`;
  if (e.keyword === 'additionalProperties') return `leave "${String(params.additionalProperty)}" out of ${e.instancePath} in the start input: ${described} does not declare it`;
  const refusedProperty = falseProperty(e);
  if (refusedProperty !== undefined) {
    return `leave ${JSON.stringify(refusedProperty)} out of ${e.instancePath.slice(0, e.instancePath.lastIndexOf('/'))} in the start input: ${described} does not allow it`;
  }
  const at = errorPointer(e);
  const key = refusedKeyOf(e);
  if (key !== undefined) {
    // The line says `<at>: property name "<key>" <rule>`: the rule is for the key's name.
    const rule = line.slice(`${at}: property name ${JSON.stringify(key)} `.length);
    return `rename the key ${JSON.stringify(key)} of ${e.instancePath} in the start input: its name ${rule}, as ${described} describes it`;
  }
  // The error's own line, as the message lists it, without its pointer.
  return `correct ${at} in the start input: it ${line.slice(at.length + 2)}, as ${described} describes it`;
}

const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The declared type, as a placeholder the user replaces: a copied example value could name the wrong PR. */
function typeOf(decl: unknown): string {
  const d = decl !== null && typeof decl === 'object' ? (decl as { type?: unknown; minimum?: unknown }) : {};
  const type = Array.isArray(d.type) ? d.type.join(' or ') : typeof d.type === 'string' ? d.type : 'value';
  return typeof d.minimum === 'number' ? `${type} ≥ ${d.minimum}` : type;
}
