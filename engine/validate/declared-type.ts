/**
 * The JSON Schema `type` the workflow itself gives a plain read (`name` or
 * `node-id.field`): a registry entry, a node's inputSchema property, or the
 * registry entry of a field the node writes as a global. Answers are checked
 * against these schemas, so a declared type is what the run will hold.
 */
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

const NAME = '[A-Za-z0-9_-]+';
const PLAIN_PATH = new RegExp(`^${NAME}(?:\\.${NAME})?$`);

export interface DeclaredType {
  /** The declared type names, as written (`"integer"`, `"string"`, …). */
  types: string[];
  /** Who declares it, for a message: `variableRegistry declares "n"`. */
  where: string;
}

export function declaredType(path: string, data: Record<string, unknown>, byId: ReadonlyMap<string, NodeEntry>): DeclaredType | undefined {
  if (!PLAIN_PATH.test(path)) return undefined;
  const [root, field] = path.split('.');
  let declared: unknown;
  let where: string;
  if (field === undefined) {
    declared = isPlainObject(data.variableRegistry) ? data.variableRegistry[root] : undefined;
    where = `variableRegistry declares "${root}"`;
  } else {
    const schema = byId.get(root)?.raw.inputSchema;
    const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : undefined;
    declared = properties?.[field];
    where = `node "${root}" declares "${field}"`;
    // A field the answer writes as a global (globalInputs) has the registry entry's type.
    const globalInput = isPlainObject(schema) && Array.isArray(schema.globalInputs) && schema.globalInputs.includes(field);
    if (declared === undefined && globalInput && isPlainObject(data.variableRegistry)) {
      declared = data.variableRegistry[field];
      where = `node "${root}" writes "${field}" (a globalInput) and variableRegistry declares it`;
    }
  }
  const type = isPlainObject(declared) ? declared.type : undefined;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) && type.every((t) => typeof t === 'string') ? (type as string[]) : undefined;
  return types ? { types, where } : undefined;
}
