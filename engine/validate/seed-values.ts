/**
 * The values a run starts with must fit their variables, as a start input
 * must: a registry `default`, or a start node's `initialData` value for a
 * registry variable, is checked against that variable's schema (the
 * closed form a start input and an answer writing the global are checked
 * against). Otherwise `default: "abc"` on an integer would enter every run
 * that a start input of "abc" could not.
 */
import type { JsonObject, JsonValue, Workflow } from '../format/model.js';
import { describeErrors, registryMisfits } from '../nodes/answer-schema.js';
import type { Finding } from '../nodes/node-type.js';
import { schemaProblem } from '../nodes/schema-errors.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** `skip`: registry entries the schema check already reported. */
export function seedValueFindings(data: Record<string, unknown>, skip: ReadonlySet<string>): Finding[] {
  const registry = isObject(data.variableRegistry) ? data.variableRegistry : {};
  const findings: Finding[] = [];
  const check = (name: string, value: unknown, pointer: string, what: string) => {
    const entry = registry[name];
    if (!Object.hasOwn(registry, name) || !isObject(entry) || skip.has(`/variableRegistry/${escape(name)}`) || schemaProblem(entry as JsonObject)) return;
    const problems = mismatch(name, entry as JsonObject, value as JsonValue);
    if (problems.length === 0) return;
    findings.push({
      code: 'E_VARIABLE_VALUE',
      pointer,
      severity: 'error',
      message: `${what} does not fit the schema of variable "${name}" (${problems.join('; ')}); a start input with the same value would be refused, so correct the value or the variable's schema`,
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

/** The `pointer: message` lines of `value` against the variable's schema as a start input sees it (the entry its own root, so its own $refs resolve). */
function mismatch(name: string, entry: JsonObject, value: JsonValue): string[] {
  let misfits;
  try {
    misfits = registryMisfits({ variableRegistry: { [name]: entry } } as unknown as Workflow, name, value, 'check');
  } catch {
    return []; // a schema that does not compile is E_VARIABLE_SCHEMA's to report
  }
  return describeErrors(misfits);
}
