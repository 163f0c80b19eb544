/**
 * Structural rules the JSON Schema cannot express: one start, at least one
 * end, unique ids, connections that name existing nodes, and the
 * connections each node type requires or defines (read from NODE_TYPES, so
 * a new node type is checked without touching this file).
 */
import { suggest } from '../format/suggest.js';
import type { Finding } from '../nodes/node-type.js';
import { MAX_NODES, validIds, type GraphModel, type NodeEntry } from './graph-model.js';
import { childPointer, isPlainObject } from './pointer.js';

export function structureFindings(model: GraphModel): Finding[] {
  return [...countFindings(model), ...idFindings(model), ...model.nodes.flatMap((n) => connectionFindings(n, model))];
}

function error(code: string, pointer: string, message: string): Finding {
  return { code, pointer, message, severity: 'error' };
}

function label(node: NodeEntry): string {
  return node.id !== undefined ? `node "${node.id}"` : `nodes[${node.index}]`;
}

function countFindings(model: GraphModel): Finding[] {
  const findings: Finding[] = [];
  if (model.nodes.length > MAX_NODES) {
    findings.push(
      error('E_TOO_MANY_NODES', '/nodes', `the workflow has ${model.nodes.length} nodes; the limit is ${MAX_NODES}: split it into smaller workflows`),
    );
  }
  const starts = model.nodes.filter((n) => n.nodeType?.kind === 'start');
  if (starts.length === 0) {
    findings.push(
      error('E_START_COUNT', '/nodes', 'the workflow has no start node; add one: {"id": "start", "type": "start", "connections": {"default": "<first step id>"}}'),
    );
  }
  for (const extra of starts.slice(1)) {
    findings.push(
      error(
        'E_START_COUNT',
        `${extra.pointer}/type`,
        `${label(extra)} is a second start node (the first is ${label(starts[0])}); a workflow has exactly one start: change this node's type or remove it`,
      ),
    );
  }
  if (!model.nodes.some((n) => n.nodeType?.kind === 'final')) {
    findings.push(error('E_NO_END', '/nodes', 'the workflow has no end node, so no run could ever complete; add one: {"id": "end", "type": "end"}'));
  }
  return findings;
}

function idFindings(model: GraphModel): Finding[] {
  const findings: Finding[] = [];
  for (const node of model.nodes) {
    if (node.id === undefined) continue;
    // The issue's id rule allows digits alone, and Moira files load unchanged;
    // but 123.field reads as a number, so such a node's answers are unreadable.
    if (typeof node.raw.id === 'string' && /^[0-9]+$/.test(node.id)) {
      findings.push({
        code: 'E_NODE_ID_DIGITS',
        pointer: `${node.pointer}/id`,
        severity: 'warning',
        message: `node id "${node.id}" is digits alone: ${node.id}.field would read as a number, so no template, condition or finalOutput can read this node's answers; rename it (e.g. "step-${node.id}") if anything needs them`,
      });
    }
    const first = model.byId.get(node.id);
    if (first && first !== node) {
      findings.push(
        error(
          'E_DUPLICATE_ID',
          `${node.pointer}/id`,
          `node id "${node.id}" is already used by nodes[${first.index}]; ids must be unique because connections and node-id.field references name nodes by id — rename one of them`,
        ),
      );
    }
  }
  return findings;
}

function connectionFindings(node: NodeEntry, model: GraphModel): Finding[] {
  const findings: Finding[] = [];
  const connectionsPointer = `${node.pointer}/connections`;
  for (const [name, target] of node.connections) {
    // An empty target is the schema's finding (minLength): one fault, one finding.
    if (target !== '' && !model.byId.has(target)) {
      const guess = suggest(target, validIds(model));
      findings.push(
        error(
          'E_DANGLING_CONNECTION',
          childPointer(connectionsPointer, name),
          `${label(node)} connection "${name}" goes to "${target}", but no node has that id${guess ? ` — did you mean "${guess}"?` : '; add the node or correct the id'}`,
        ),
      );
    }
  }
  const type = node.nodeType;
  if (!type) return findings;
  const connections = type.connectionsOf?.(node.raw as never) ?? type.connections;
  const defined = [...connections.required, ...connections.optional];
  const present = isPlainObject(node.raw.connections) ? Object.keys(node.raw.connections) : [];
  for (const name of present) {
    if (defined.includes(name)) continue;
    const guess = suggest(name, defined);
    const names = defined.length ? `its connections are ${defined.map((d) => `"${d}"`).join(', ')}` : 'it has no connections';
    findings.push({
      ...error('E_UNKNOWN_CONNECTION', childPointer(connectionsPointer, name), `${label(node)} has no connection named "${name}" (${names})${guess ? ` — did you mean "${guess}"?` : '; remove it'}`),
      ...(guess ? { meant: guess } : {}),
    });
  }
  // A deadline exists only with timeoutMs: without it the timeout route is wiring that never fires.
  if (present.includes('timeout') && defined.includes('timeout') && node.raw.timeoutMs === undefined) {
    findings.push({
      code: 'E_TIMEOUT_ROUTE_UNUSED',
      pointer: childPointer(connectionsPointer, 'timeout'),
      severity: 'warning',
      message: `${label(node)} has a "timeout" connection but no timeoutMs, so no deadline is set and the route is never taken: add "timeoutMs" (milliseconds) to the node, or remove the connection`,
    });
  }
  const missing = connections.required.filter((name) => !present.includes(name));
  // Connections that are there but no object (`connections:` left empty in YAML) are the schema's finding, at them: one fault, one finding.
  const malformed = node.raw.connections !== undefined && !isPlainObject(node.raw.connections);
  if (missing.length > 0 && !malformed) {
    const hasObject = isPlainObject(node.raw.connections);
    const list = missing.map((m) => `"${m}"`).join(' and ');
    findings.push({
      ...error('E_MISSING_CONNECTION', hasObject ? connectionsPointer : node.pointer, `${label(node)} (${node.type}) is missing the required connection ${list}; add ${missing.map((m) => `"${m}": "<node id>"`).join(', ')} to its connections`),
      missing,
    });
  }
  return findings;
}
