/**
 * `{{#each x}}` renders nothing when x holds no list (the journal notes
 * it at run time). When the workflow itself declares x's type — a registry
 * entry, or a node's inputSchema property read as `node-id.field` — and
 * that type cannot be a list, the loop can never render: an error here,
 * not an empty directive later.
 */
import type { Finding, VariableRead } from '../nodes/node-type.js';
import { declaredType } from './declared-type.js';
import type { NodeEntry } from './graph-model.js';

export function listReadFinding(read: VariableRead, data: Record<string, unknown>, byId: ReadonlyMap<string, NodeEntry>): Finding | undefined {
  // Inside an outer {{#each}} a bare name may be the item's field (read first): its declared type proves nothing.
  if (!read.list || (read.inEach && !read.path.includes('.'))) return undefined;
  const declared = declaredType(read.path, data, byId);
  if (!declared) return undefined;
  const { types, where } = declared;
  if (types.includes('array')) return undefined;
  return {
    code: 'E_EACH_NOT_LIST',
    pointer: read.pointer,
    ...(read.offset !== undefined ? { offset: read.offset } : {}),
    severity: 'error',
    message: `{{#each ${read.path}}} loops over a value ${where} as type ${types.map((t) => `"${t}"`).join(' or ')}, which is never a list, so the loop body would never run (it renders nothing, or its {{else}} branch): loop over a variable of type "array", or read this one without #each ({{${read.path}}} or {{#if ${read.path}}})`,
  };
}
