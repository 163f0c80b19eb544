/**
 * `{{#each x}}` renders nothing when x holds no list (the journal notes
 * it at run time). When the workflow itself declares x's type — a registry
 * entry, or a node's inputSchema property read as `node-id.field` — and
 * that type cannot be a list, the loop can never render: an error here,
 * not an empty directive later.
 */
import type { Finding, VariableRead } from '../nodes/node-type.js';
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

const NAME = '[A-Za-z0-9_-]+';
const PLAIN_PATH = new RegExp(`^${NAME}(?:\\.${NAME})?$`);

export function listReadFinding(read: VariableRead, data: Record<string, unknown>, byId: ReadonlyMap<string, NodeEntry>): Finding | undefined {
  // Inside an outer {{#each}} a bare name may be the item's field (read first): its declared type proves nothing.
  if (!read.list || !PLAIN_PATH.test(read.path) || (read.inEach && !read.path.includes('.'))) return undefined;
  const [root, field] = read.path.split('.');
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
  if (!types || types.includes('array')) return undefined;
  return {
    code: 'E_EACH_NOT_LIST',
    pointer: read.pointer,
    ...(read.offset !== undefined ? { offset: read.offset } : {}),
    severity: 'error',
    message: `{{#each ${read.path}}} loops over a value ${where} as type ${types.map((t) => `"${t}"`).join(' or ')}, which is never a list, so the loop body would never run (it renders nothing, or its {{else}} branch): loop over a variable of type "array", or read this one without #each ({{${read.path}}} or {{#if ${read.path}}})`,
  };
}
