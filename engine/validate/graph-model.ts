/**
 * The node list as the structural, graph and dataflow checks see it, built
 * defensively from a document that may violate the schema: entries that
 * are not objects, ids that are not strings and connections that are not
 * string maps are simply left out instead of crashing a check.
 */
import { nodeType } from '../nodes/index.js';
import type { NodeType } from '../nodes/node-type.js';
import { NODE_ID_PATTERN } from '../format/model.js';
import { isPlainObject } from './pointer.js';

/** The documented node limit; larger workflows should be split. */
export const MAX_NODES = 1000;

export interface NodeEntry {
  index: number;
  /** `/nodes/<index>` */
  pointer: string;
  raw: Record<string, unknown>;
  /** undefined when the id is not a string. */
  id: string | undefined;
  type: string | undefined;
  /** undefined when the type is unknown. */
  nodeType: NodeType<any> | undefined;
  /** Connection name → target, string targets only, in document order. */
  connections: [name: string, target: string][];
}

export interface GraphModel {
  nodes: NodeEntry[];
  /** Each id's first node; later duplicates are reported, not indexed. */
  byId: Map<string, NodeEntry>;
}

/** The graph model of a document's `nodes`, or undefined when `nodes` is not a list. */
export function graphModel(data: unknown): GraphModel | undefined {
  if (!isPlainObject(data) || !Array.isArray(data.nodes)) return undefined;
  const nodes: NodeEntry[] = [];
  const byId = new Map<string, NodeEntry>();
  data.nodes.forEach((raw: unknown, index: number) => {
    if (!isPlainObject(raw)) return;
    // An id written as a number (YAML `id: 5`) is the schema's one finding;
    // the graph takes it as the text it was meant to be, so connections to
    // "5" are not also dangling and the node not also unreachable.
    const id = typeof raw.id === 'string' ? raw.id : typeof raw.id === 'number' && Number.isFinite(raw.id) ? String(raw.id) : undefined;
    const type = typeof raw.type === 'string' ? raw.type : undefined;
    const connections: [string, string][] = [];
    if (isPlainObject(raw.connections)) {
      for (const [name, target] of Object.entries(raw.connections)) {
        if (typeof target === 'string') connections.push([name, target]);
      }
    }
    const entry: NodeEntry = {
      index,
      pointer: `/nodes/${index}`,
      raw,
      id,
      type,
      nodeType: type === undefined ? undefined : nodeType(type),
      connections,
    };
    nodes.push(entry);
    if (id !== undefined && !byId.has(id)) byId.set(id, entry);
  });
  return { nodes, byId };
}

/** The node ids a did-you-mean may offer: never one E_NODE_ID refuses (following it could never work). */
export function validIds(model: GraphModel): string[] {
  return [...model.byId.keys()].filter((id) => NODE_ID_PATTERN.test(id));
}
