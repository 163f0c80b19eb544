/**
 * The globals whose value a routing condition may take as fixed: the start
 * values the document gives, minus every global a node changes later.
 */
import type { GraphModel } from './graph-model.js';
import { isPlainObject } from './pointer.js';

/**
 * Registry defaults, then the start node's initialData values: the order
 * the start node seeds them in. Entries of the wrong shape are skipped. A
 * global some node writes (an expression such as `fix_rounds = fix_rounds
 * + 1`, or an answer through globalInputs) holds its start value only at
 * first, so it is left out: the routing analysis samples it instead.
 */
export function seededGlobals(data: unknown, model: GraphModel): Map<string, unknown> {
  const seeded = startValues(data, model);
  for (const name of writtenGlobals(model)) seeded.delete(name);
  return seeded;
}

/** The globals the nodes write after the start: what their types declare, and every answer's globalInputs. */
function writtenGlobals(model: GraphModel): Set<string> {
  const out = new Set<string>();
  for (const node of model.nodes) {
    // The start node's initialData is the start value itself, not a later write.
    if (node.nodeType?.kind === 'start') continue;
    try {
      for (const name of node.nodeType?.declares(node.raw as never).globals ?? []) out.add(name);
    } catch {
      // A node too malformed for its type's declares() writes nothing we can name.
    }
    const schema = node.raw.inputSchema;
    if (isPlainObject(schema) && Array.isArray(schema.globalInputs)) {
      for (const name of schema.globalInputs) if (typeof name === 'string') out.add(name);
    }
  }
  return out;
}

function startValues(data: unknown, model: GraphModel): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const registry = isPlainObject(data) ? data.variableRegistry : undefined;
  if (isPlainObject(registry)) {
    for (const [name, decl] of Object.entries(registry)) {
      if (isPlainObject(decl) && decl.default !== undefined) out.set(name, decl.default);
    }
  }
  const initial = model.nodes.find((n) => n.type === 'start')?.raw.initialData;
  const variables = isPlainObject(initial) ? initial.variables : undefined;
  if (isPlainObject(variables)) {
    for (const [name, v] of Object.entries(variables)) {
      if (isPlainObject(v) && v.value !== undefined) out.set(name, v.value);
    }
  }
  return out;
}
