/**
 * Each variableRegistry entry is a JSON-Schema property: it must compile
 * under the same strictness as inputSchemas, wherever it is used (as a
 * global input, or to check the start input). A typo such as `minimun` is
 * reported at the entry's own key, not where a node happens to inline it.
 */
import type { JsonObject } from '../format/model.js';
import type { Finding } from '../nodes/node-type.js';
import { schemaFinding, schemaProblem } from '../nodes/schema-errors.js';

/** `skip`: entries the schema check already reported (their shape is wrong, not their keywords). */
export function registryFindings(data: Record<string, unknown>, skip: ReadonlySet<string>): Finding[] {
  const registry = data.variableRegistry;
  if (registry === null || typeof registry !== 'object' || Array.isArray(registry)) return [];
  const findings: Finding[] = [];
  for (const [name, entry] of Object.entries(registry)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue; // a schema error already
    const pointer = `/variableRegistry/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (skip.has(pointer)) continue;
    const problem = schemaProblem(entry as JsonObject);
    if (problem) findings.push(schemaFinding('E_VARIABLE_SCHEMA', pointer, `registry variable "${name}" is not a valid JSON Schema property`, problem));
  }
  return findings;
}
