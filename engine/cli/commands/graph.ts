import { resolve } from 'node:path';
import { CountersignError } from '../../errors.js';
import { readSource } from '../../format/source.js';
import type { WorkflowNode } from '../../format/model.js';
import { usage } from '../io.js';
import type { Command } from './command.js';

export const command: Command = {
  usage: 'countersign graph <file> [--format mermaid|dot]\n  prints the workflow graph (default mermaid)',
  options: { format: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('graph takes exactly one workflow file');
    const format = (values.format as string | undefined) ?? 'mermaid';
    if (format !== 'mermaid' && format !== 'dot') throw usage(`--format must be mermaid or dot, got "${format}"`);
    const doc = readSource(resolve(io.cwd, positionals[0]));
    const nodes = (doc.data as { nodes?: unknown }).nodes;
    if (!Array.isArray(nodes)) {
      throw new CountersignError('E_SCHEMA', 'the document has no "nodes" list to draw', { file: doc.file, pointer: '/nodes', fix: 'run `countersign validate` on it' });
    }
    // Draw what is there, even in a workflow that does not validate: a graph
    // is often how one finds out what is wrong with it.
    const drawable = nodes.map((n, i) => drawableNode(n, i));
    io.stdout.write(format === 'dot' ? toDot(drawable) : toMermaid(drawable));
    return 0;
  },
};

function drawableNode(n: unknown, i: number): WorkflowNode {
  const raw = n !== null && typeof n === 'object' && !Array.isArray(n) ? (n as Record<string, unknown>) : {};
  const connections: Record<string, string> = {};
  if (raw.connections !== null && typeof raw.connections === 'object') {
    for (const [via, to] of Object.entries(raw.connections)) if (typeof to === 'string') connections[via] = to;
  }
  return {
    id: typeof raw.id === 'string' ? raw.id : `(node ${i})`,
    type: typeof raw.type === 'string' ? raw.type : '(no type)',
    connections,
  } as WorkflowNode;
}

function idsOf(nodes: WorkflowNode[]): Map<string, string> {
  // Node ids may contain `-`, which Mermaid and DOT treat specially: draw by index.
  return new Map(nodes.map((n, i) => [n.id, `n${i}`]));
}

function esc(text: string): string {
  return text.replace(/"/g, '#quot;');
}

export function toMermaid(nodes: WorkflowNode[]): string {
  const ids = idsOf(nodes);
  const lines = ['flowchart TD'];
  for (const n of nodes) {
    const id = ids.get(n.id)!;
    const label = esc(`${n.id}`);
    switch (n.type) {
      case 'start':
      case 'end':
        lines.push(`  ${id}(["${label}"])`);
        break;
      case 'condition':
        lines.push(`  ${id}{"${label}"}`);
        break;
      case 'expression':
        lines.push(`  ${id}[/"${label}"/]`);
        break;
      default:
        lines.push(`  ${id}["${label}<br/><small>${esc(n.type)}</small>"]`);
    }
  }
  for (const n of nodes) {
    for (const [via, to] of Object.entries(n.connections ?? {})) {
      const target = ids.get(to) ?? `missing_${String(to).replace(/[^A-Za-z0-9_]/g, '_')}`;
      lines.push(`  ${ids.get(n.id)} -->|${esc(via)}| ${target}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function toDot(nodes: WorkflowNode[]): string {
  const ids = idsOf(nodes);
  const shape: Record<string, string> = { start: 'oval', end: 'doublecircle', condition: 'diamond', expression: 'parallelogram' };
  const q = (s: string) => JSON.stringify(s);
  const lines = ['digraph workflow {', '  rankdir=TB;'];
  for (const n of nodes) {
    lines.push(`  ${ids.get(n.id)} [label=${q(`${n.id}\n${n.type}`)}, shape=${(Object.hasOwn(shape, n.type) ? shape[n.type] : undefined) ?? 'box'}];`);
  }
  for (const n of nodes) {
    for (const [via, to] of Object.entries(n.connections ?? {})) {
      lines.push(`  ${ids.get(n.id)} -> ${ids.get(to) ?? q(String(to))} [label=${q(via)}];`);
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
