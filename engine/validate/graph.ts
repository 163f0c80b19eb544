/**
 * Graph rules: nodes no path from start reaches (a warning), and cycles made
 * only of nodes that never wait (start and transient kinds). Such a cycle
 * would spin without ever handing control to an agent, so it is an error.
 * Cycles are found as strongly connected components (Tarjan, iterative so a
 * long chain cannot overflow the stack); a self-loop counts. Each
 * connection that closes a cycle is one finding, so all come in one pass.
 */
import type { Finding, WaitingType } from '../nodes/node-type.js';
import type { GraphModel, NodeEntry } from './graph-model.js';
import { childPointer } from './pointer.js';
import { suggest } from '../format/suggest.js';

interface Edge {
  name: string;
  to: NodeEntry;
}

function edgesOf(node: NodeEntry, model: GraphModel): Edge[] {
  const edges: Edge[] = [];
  for (const [name, target] of node.connections) {
    const to = model.byId.get(target);
    if (to) edges.push({ name, to });
  }
  return edges;
}

/**
 * Ids more than one node has (E_DUPLICATE_ID): which of them a connection
 * to one means is unknown, so no other finding is drawn from such an edge.
 */
function sharedIds(model: GraphModel): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const n of model.nodes) {
    if (n.id === undefined) continue;
    if (seen.has(n.id)) shared.add(n.id);
    seen.add(n.id);
  }
  return shared;
}

export function graphFindings(model: GraphModel): Finding[] {
  return [...unreachableFindings(model), ...transientCycleFindings(model)];
}

function unreachableFindings(model: GraphModel): Finding[] {
  const start = model.nodes.find((n) => n.nodeType?.kind === 'start');
  if (!start) return [];
  const shared = sharedIds(model);
  // A later node with a taken id (E_DUPLICATE_ID) or a second start
  // (E_START_COUNT) is unreachable because of that fault, and so is what
  // only it leads to: one finding says it. A connection to a shared id may
  // mean any node with it.
  const faulted = (n: NodeEntry) => n !== start && ((n.id !== undefined && model.byId.get(n.id) !== n) || n.nodeType?.kind === 'start');
  const seen = new Set<NodeEntry>([start, ...model.nodes.filter(faulted)]);
  const queue = [...seen];
  while (queue.length > 0) {
    const node = queue.pop() as NodeEntry;
    // A misspelt target ("chek") is its own finding (E_DANGLING_CONNECTION, with its did-you-mean): followed to the node it was meant for.
    const meant = [...node.connections].flatMap(([, target]) => {
      if (model.byId.has(target)) return [];
      const guess = suggest(target, model.byId.keys());
      return guess !== undefined ? [model.byId.get(guess)!] : [];
    });
    const targets = [...edgesOf(node, model).flatMap(({ to }) => (to.id !== undefined && shared.has(to.id) ? model.nodes.filter((n) => n.id === to.id) : [to])), ...meant];
    for (const to of targets) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  // A reached node whose connections are no object (the schema's finding), or that lacks a required one
  // (E_MISSING_CONNECTION): where it leads is unknown, so nothing is surely unreachable.
  if ([...seen].some((n) => n.raw.connections !== undefined && (n.raw.connections === null || typeof n.raw.connections !== 'object' || Array.isArray(n.raw.connections)))) return [];
  if ([...seen].some((n) => lacksRequired(n))) return [];
  const startLabel = start.id !== undefined ? `"${start.id}"` : 'the start node';
  return model.nodes
    .filter((n) => !seen.has(n))
    .map((n) => ({
      code: 'E_UNREACHABLE',
      pointer: n.pointer,
      severity: 'warning' as const,
      message: `${n.id !== undefined ? `node "${n.id}"` : `nodes[${n.index}]`} cannot be reached from start ${startLabel}; connect a node to it or remove it`,
    }));
}

/** Whether a node lacks a connection its type requires. */
function lacksRequired(node: NodeEntry): boolean {
  const type = node.nodeType;
  if (!type) return false;
  const required = (type.connectionsOf?.(node.raw as never) ?? type.connections).required;
  const present = node.raw.connections !== null && typeof node.raw.connections === 'object' ? Object.keys(node.raw.connections) : [];
  return required.some((name) => !present.includes(name));
}

/** Nodes a run passes through without anyone answering: start, transient ones, and tool nodes (the engine runs those itself). */
function neverWaits(node: NodeEntry): boolean {
  const type = node.nodeType;
  return type?.kind === 'start' || type?.kind === 'transient' || (type?.kind === 'waiting' && (type as WaitingType).answeredByEngine === true);
}

function transientCycleFindings(model: GraphModel): Finding[] {
  const candidates = model.nodes.filter(neverWaits);
  const successors = new Map<NodeEntry, Edge[]>();
  const shared = sharedIds(model);
  // An edge to a shared id goes to an unknown node: it closes no cycle anyone can be sure of.
  for (const node of candidates) successors.set(node, edgesOf(node, model).filter((e) => neverWaits(e.to) && !(e.to.id !== undefined && shared.has(e.to.id))));

  const findings: Finding[] = [];
  for (const component of stronglyConnected(candidates, successors)) {
    const first = component.reduce((a, b) => (b.index < a.index ? b : a));
    const members = new Set(component);
    const isCycle = component.length > 1 || (successors.get(first) ?? []).some((e) => e.to === first);
    if (!isCycle) continue;
    // Every cycle in one pass: one finding per connection that closes one
    // (a back edge of a walk through the component). Taking those
    // connections out leaves no cycle, so none is left for a second run.
    for (const { from, edge, path } of closingEdges(first, members, successors)) {
      const names = path.map((n) => n.id ?? `nodes[${n.index}]`).join(' → ');
      findings.push({
        code: 'E_TRANSIENT_CYCLE',
        pointer: childPointer(`${from.pointer}/connections`, edge.name),
        severity: 'error',
        message: `the cycle ${names} has no node that waits for an agent (agent-directive, delegate-review; tool nodes are run by the engine itself), so a run would loop forever without asking anyone: an exit from the cycle does not help, since the run may never take it; route the loop through such a node`,
      });
    }
  }
  return findings;
}

/**
 * The connections that close a cycle inside one component, found by a
 * depth-first walk from `first` (iterative: a long chain cannot overflow
 * the stack): each goes back to a node still on the walk, and the cycle it
 * closes runs from that node along the walk to it.
 */
function closingEdges(first: NodeEntry, members: Set<NodeEntry>, successors: Map<NodeEntry, Edge[]>): { from: NodeEntry; edge: Edge; path: NodeEntry[] }[] {
  const out: { from: NodeEntry; edge: Edge; path: NodeEntry[] }[] = [];
  const visited = new Set<NodeEntry>([first]);
  const walk: { node: NodeEntry; next: number }[] = [{ node: first, next: 0 }];
  const onWalk = new Map<NodeEntry, number>([[first, 0]]);
  while (walk.length > 0) {
    const frame = walk[walk.length - 1];
    const edges = (successors.get(frame.node) ?? []).filter((e) => members.has(e.to));
    if (frame.next >= edges.length) {
      walk.pop();
      onWalk.delete(frame.node);
      continue;
    }
    const edge = edges[frame.next++];
    const at = onWalk.get(edge.to);
    if (at !== undefined) {
      out.push({ from: frame.node, edge, path: [...walk.slice(at).map((f) => f.node), edge.to] });
    } else if (!visited.has(edge.to)) {
      visited.add(edge.to);
      onWalk.set(edge.to, walk.length);
      walk.push({ node: edge.to, next: 0 });
    }
  }
  return out;
}

/** Tarjan's algorithm without recursion. */
function stronglyConnected(nodes: NodeEntry[], successors: Map<NodeEntry, Edge[]>): NodeEntry[][] {
  const index = new Map<NodeEntry, number>();
  const low = new Map<NodeEntry, number>();
  const onStack = new Set<NodeEntry>();
  const stack: NodeEntry[] = [];
  const components: NodeEntry[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: NodeEntry; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = successors.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++].to;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent) as number, low.get(frame.node) as number));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: NodeEntry[] = [];
        let member: NodeEntry;
        do {
          member = stack.pop() as NodeEntry;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}
