/**
 * Each variableRegistry entry is a JSON-Schema property: it must compile
 * under the same strictness as inputSchemas, wherever it is used (as a
 * global input, or to check the start input). A typo such as `minimun` is
 * reported at the entry's own key, not where a node happens to inline it.
 */
import { suggest } from '../format/suggest.js';
import { BUILTIN_VARIABLES, type JsonObject } from '../format/model.js';
import type { Finding } from '../nodes/node-type.js';
import { schemaFinding, schemaProblems } from '../nodes/schema-errors.js';
import { unsatisfiableRequired } from '../nodes/required-fields.js';
import { readableName } from './schema-check.js';

/** `reported`: the pointers the schema check already reported; a compile problem at one of them is the same fault. */
export function registryFindings(data: Record<string, unknown>, reported: ReadonlySet<string>): Finding[] {
  const registry = data.variableRegistry;
  if (registry === null || typeof registry !== 'object' || Array.isArray(registry)) return [];
  const findings: Finding[] = [];
  for (const [name, entry] of Object.entries(registry)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue; // a schema error already
    const pointer = `/variableRegistry/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    // Its $refs resolve inside the entry itself: a fix names the entry, never an inputSchema.
    const problems = schemaProblems(entry as JsonObject, { name: `the registry entry variableRegistry.${name}` });
    for (const problem of problems) {
      if (reported.has(pointer + problem.at)) continue;
      // A type list's misspelt item is one fault, already named at its item (/type/0) by the schema check.
      if (problem.at === '/type' && [...reported].some((p) => p.startsWith(`${pointer}/type/`))) continue;
      // An entry must have its own type (the format requires it): never advised to leave it out.
      const fix = problem.at === '/type' ? problem.fix.replace(/, or leave "type" out$/, '') : problem.fix;
      findings.push(schemaFinding('E_VARIABLE_SCHEMA', pointer, `registry variable "${name}" is not a valid JSON Schema property`, { ...problem, fix }));
    }
    // Read from the entry as written, as an inputSchema's is: every fault in one pass, whether or not it compiles.
    findings.push(...unsatisfiableRequired(entry as JsonObject, pointer, { code: 'E_VARIABLE_SCHEMA' }).filter((f) => !reported.has(f.pointer)));
  }
  return findings;
}

/**
 * `__proto__` cannot be a key of the plain objects that hold globals,
 * answers and machine states: assigning it changes an object's prototype
 * instead of adding an entry. It is refused as a node id and as a name.
 */
export function reservedNameFindings(data: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const flag = (pointer: string, what: string, key: boolean) =>
    findings.push({
      code: 'E_RESERVED_NAME',
      message: `${what} "__proto__" is reserved by JavaScript and cannot hold a value; rename it`,
      pointer,
      severity: 'error',
      ...(key ? { key: true } : {}),
    });
  const registry = data.variableRegistry;
  if (registry !== null && typeof registry === 'object' && Object.hasOwn(registry, '__proto__')) {
    flag('/variableRegistry/__proto__', 'the registry variable', true);
  }
  // A global named like a built-in could never be read: the built-in wins.
  const shadowing = (name: string, pointer: string, what: string) =>
    findings.push({
      code: 'E_RESERVED_NAME',
      message: `${what} "${name}" has the name of a built-in variable, which always wins when read; rename it`,
      pointer,
      severity: 'error',
      key: true,
    });
  // One rule for every name a path reads: "." splits a path, and other
  // characters end it, so a global named "a.b" or "my var" could never be read.
  const unreadable = (name: string, pointer: string, what: string) => {
    if (name === '__proto__' || VARIABLE_NAME.test(name)) return;
    findings.push({
      code: 'E_VARIABLE_NAME',
      message: `${what} "${name}" may contain only letters, digits, "_" and "-", as node ids, and not digits alone: "." separates path segments, other characters end a path, and digits alone read as a number or an index, so no template, contextPath, expression or finalOutput could read it; rename it, e.g. "${readableName(name, 'value')}"`,
      pointer,
      severity: 'error',
      key: true,
    });
  };
  if (registry !== null && typeof registry === 'object') {
    // A property named __proto__ in an entry's schema could never be held either (a default, an answer writing the global).
    for (const [name, entry] of Object.entries(registry)) {
      for (const pointer of protoProperties(entry, `/variableRegistry/${escapeKey(name)}`)) flag(pointer, 'the property', true);
    }
    for (const name of BUILTIN_VARIABLES) if (Object.hasOwn(registry, name)) shadowing(name, `/variableRegistry/${name}`, 'the registry variable');
    for (const name of Object.keys(registry)) unreadable(name, `/variableRegistry/${escapeKey(name)}`, 'the registry variable');
  }
  const nodes = Array.isArray(data.nodes) ? data.nodes : [];
  nodes.forEach((node: unknown, i: number) => {
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n.id === '__proto__') flag(`/nodes/${i}/id`, 'the node id', false);
    const vars = (n.initialData as { variables?: unknown } | undefined)?.variables;
    if (vars !== null && typeof vars === 'object' && Object.hasOwn(vars, '__proto__')) {
      flag(`/nodes/${i}/initialData/variables/__proto__`, 'the initialData variable', true);
    }
    const fields = n.type === 'record' ? n.fields : undefined;
    if (fields !== null && typeof fields === 'object' && Object.hasOwn(fields, '__proto__')) {
      flag(`/nodes/${i}/fields/__proto__`, 'the record field', true);
    }
    // An answer field named __proto__ could never be given: ajv never counts it among the declared properties.
    for (const pointer of protoProperties(n.inputSchema, `/nodes/${i}/inputSchema`)) flag(pointer, 'the answer field', true);
    if (vars !== null && typeof vars === 'object') {
      for (const name of Object.keys(vars)) unreadable(name, `/nodes/${i}/initialData/variables/${escapeKey(name)}`, 'the initialData variable');
      for (const name of BUILTIN_VARIABLES) {
        if (Object.hasOwn(vars, name)) shadowing(name, `/nodes/${i}/initialData/variables/${name}`, 'the initialData variable');
      }
    }
  });
  return findings;
}

/** The names a path can read whole: node ids' rule. */
const VARIABLE_NAME = /^(?![0-9]+$)[A-Za-z0-9_-]+$/;

const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Pointers to every `properties/__proto__` in a schema, at any depth. */
function protoProperties(schema: unknown, pointer: string, depth = 0): string[] {
  // Deeper than any real schema: the schema check reports such nesting on its own.
  if (schema === null || typeof schema !== 'object' || depth > 64) return [];
  const out: string[] = [];
  for (const [key, sub] of Object.entries(schema)) {
    const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key === 'properties' && sub !== null && typeof sub === 'object' && !Array.isArray(sub) && Object.hasOwn(sub, '__proto__')) out.push(`${at}/__proto__`);
    out.push(...protoProperties(sub, at, depth + 1));
  }
  return out;
}

/** Each requiredInputs name must be a variable the start input may give: declared in the registry or the start node's initialData. */
export function requiredInputFindings(data: Record<string, unknown>): Finding[] {
  if (!Array.isArray(data.requiredInputs)) return [];
  const declared = new Set<string>(isObject(data.variableRegistry) ? Object.keys(data.variableRegistry) : []);
  /** Start values (initialData value) by name, with the pointer of each. */
  const startValues = new Map<string, string>();
  (Array.isArray(data.nodes) ? data.nodes : []).forEach((node, n) => {
    if (isObject(node) && node.type === 'start' && isObject(node.initialData) && isObject(node.initialData.variables)) {
      for (const [name, spec] of Object.entries(node.initialData.variables)) {
        declared.add(name);
        if (isObject(spec) && 'value' in spec && !startValues.has(name)) startValues.set(name, `/nodes/${n}/initialData/variables/${escapeKey(name)}/value`);
      }
    }
  });
  const registry = isObject(data.variableRegistry) ? data.variableRegistry : {};
  return data.requiredInputs.flatMap((name, i): Finding[] => {
    if (typeof name === 'string' && isObject(registry[name]) && 'default' in (registry[name] as object)) {
      return [{
        code: 'E_REQUIRED_INPUT_DEFAULT',
        message: `"${name}" is a required input, so its default is never used; remove the default, or remove "${name}" from requiredInputs to let the default apply`,
        pointer: `/variableRegistry/${escapeKey(name)}/default`,
        severity: 'warning',
      }];
    }
    // A start value is a default too: the start input must give the variable, so it is never used.
    if (typeof name === 'string' && startValues.has(name)) {
      return [{
        code: 'E_REQUIRED_INPUT_DEFAULT',
        message: `"${name}" is a required input, so its start value is never used; remove the value, or remove "${name}" from requiredInputs to let it apply`,
        pointer: startValues.get(name)!,
        severity: 'warning',
      }];
    }
    if (typeof name !== 'string' || declared.has(name)) return [];
    const guess = suggest(name, declared);
    return [{
      code: 'E_REQUIRED_INPUT_UNDECLARED',
      message: `requiredInputs names "${name}", which is not a declared variable${guess ? ` — did you mean "${guess}"?` : ''}; declare it in variableRegistry (with its type), or remove it from requiredInputs`,
      pointer: `/requiredInputs/${i}`,
      severity: 'error',
    }];
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
