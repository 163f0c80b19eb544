import { resolve } from 'node:path';
import { CountersignError } from '../../errors.js';
import { readSource } from '../../format/source.js';
import { shellWord } from '../../format/shell-word.js';
import { formatHuman, validateDocument } from '../../validate/index.js';
import { printJson, usage } from '../io.js';
import type { Command } from './command.js';

export const command: Command = {
  usage: [
    'countersign graph <file> [--format mermaid|dot] [--json]',
    '  prints the workflow graph (default mermaid); a workflow that does not validate is drawn as far as',
    '  it goes, with a warning on stderr naming its first error',
    '  --json: {file, format, graph, valid, errors} (errors: how many validate finds)',
  ].join('\n'),
  options: { format: { type: 'string' }, json: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('graph takes exactly one workflow file', 'countersign graph <file> [--format mermaid|dot] (one graph per file)');
    const format = (values.format as string | undefined) ?? 'mermaid';
    if (format !== 'mermaid' && format !== 'dot') throw usage(`--format must be mermaid or dot, got "${format}"`, 'write --format mermaid (the default) or --format dot');
    const doc = readSource(resolve(io.cwd, positionals[0]));
    const nodes = doc.data !== null && typeof doc.data === 'object' ? (doc.data as { nodes?: unknown }).nodes : undefined;
    if (!Array.isArray(nodes)) {
      throw new CountersignError('E_SCHEMA', 'the document has no "nodes" list to draw', { file: doc.file, pointer: '/nodes', fix: 'run `countersign validate` on it' });
    }
    // Draw what is there, even in a workflow that does not validate: a graph
    // is often how one finds out what is wrong with it.
    const drawable = nodes.map((n, i) => drawableNode(n, i));
    const graph = format === 'dot' ? toDot(drawable) : toMermaid(drawable);
    // Drawing is not approval: say so when the file would not run, so a
    // picture that looks fine never stands in for `validate`.
    const report = validateDocument(doc);
    if (values.json) printJson(io, { file: positionals[0], format, graph, valid: report.ok, errors: report.errors.length });
    else io.stdout.write(graph);
    if (!report.ok) {
      const first = [...report.errors].sort((a, b) => a.line - b.line || a.col - b.col)[0];
      // Its own full stop, if it has one, ends the sentence: never "…workflow.. Fix".
      const where = formatHuman([{ ...report, file: positionals[0], errors: [first], warnings: [] }]).trim().replace(/\.$/, '');
      io.stderr.write(
        `countersign: warning: ${positionals[0]} does not validate (${report.errors.length} error${report.errors.length === 1 ? '' : 's'}); ` +
          `the graph shows it as written. The first: ${where}. Fix: run \`countersign validate ${shellWord(positionals[0])}\` for every finding.\n`,
      );
    }
    return 0;
  },
};

/** A node as drawn: `id` only when it has one (a placeholder label is never a connection target). */
export interface DrawnNode {
  id?: string;
  label: string;
  type: string;
  /** As written, in order: a list, since any key (`__proto__` too) is a connection name. */
  connections: [via: string, to: string][];
}

function drawableNode(n: unknown, i: number): DrawnNode {
  const raw = n !== null && typeof n === 'object' && !Array.isArray(n) ? (n as Record<string, unknown>) : {};
  const connections: [string, string][] = [];
  if (raw.connections !== null && typeof raw.connections === 'object') {
    for (const [via, to] of Object.entries(raw.connections)) if (typeof to === 'string') connections.push([via, to]);
  }
  const id = typeof raw.id === 'string' ? raw.id : undefined;
  return { ...(id !== undefined ? { id } : {}), label: id ?? `(node ${i})`, type: typeof raw.type === 'string' ? raw.type : '(no type)', connections };
}

/**
 * How nodes are named in the drawing: node i is `n<i>` (ids may hold `-`,
 * which Mermaid and DOT treat specially), a connection goes to the first
 * node with its target id, and a target no node has is drawn as a node of
 * its own, `missing_<k>`, so it can never be taken for a real node. A node
 * whose id an earlier node already has is drawn too, marked as a duplicate.
 */
interface Layout {
  name(i: number): string;
  target(to: string): string;
  duplicate(i: number): boolean;
  /** The missing targets, by drawn name, in order of first use. */
  missing: Map<string, string>;
}

function layoutOf(nodes: DrawnNode[]): Layout {
  const first = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (n.id !== undefined && !first.has(n.id)) first.set(n.id, i);
  });
  const missing = new Map<string, string>();
  const missingName = new Map<string, string>();
  return {
    name: (i) => `n${i}`,
    target(to) {
      const at = first.get(to);
      if (at !== undefined) return `n${at}`;
      let name = missingName.get(to);
      if (name === undefined) {
        name = `missing_${missingName.size}`;
        missingName.set(to, name);
        missing.set(name, to);
      }
      return name;
    },
    duplicate: (i) => nodes[i].id !== undefined && first.get(nodes[i].id!) !== i,
    missing,
  };
}

/**
 * Text as Mermaid reads it inside quotes: its own characters as entity
 * codes (`#` first, so the codes stay literal), line breaks as <br/>. A
 * workflow that does not validate may name anything.
 */
function esc(text: string): string {
  return text
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/\|/g, '#124;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    // A leading backtick makes Mermaid read a markdown string; & starts an HTML entity it would decode.
    .replace(/`/g, '#96;')
    .replace(/&/g, '#38;')
    .replace(/\r?\n/g, '<br/>');
}

export function toMermaid(nodes: DrawnNode[]): string {
  const layout = layoutOf(nodes);
  const lines = ['flowchart TD'];
  nodes.forEach((n, i) => {
    const id = layout.name(i);
    const label = esc(`${n.label}${layout.duplicate(i) ? ' (duplicate id)' : ''}`);
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
  });
  const edges: string[] = [];
  nodes.forEach((n, i) => {
    for (const [via, to] of n.connections) edges.push(`  ${layout.name(i)} -->|"${esc(via)}"| ${layout.target(to)}`);
  });
  for (const [name, id] of layout.missing) lines.push(`  ${name}["${esc(id)}<br/><small>(missing)</small>"]`);
  // Dashed, as in DOT: a target no node has must not look like a node.
  const styles = layout.missing.size > 0 ? ['  classDef missing stroke-dasharray: 5 5', `  class ${[...layout.missing.keys()].join(',')} missing`] : [];
  return `${[...lines, ...edges, ...styles].join('\n')}\n`;
}

/**
 * Text as a DOT quoted label draws it: `"` and `\` escaped, `&` as `&amp;`
 * (Graphviz decodes entities in labels), a line break as `\n`, a tab kept
 * as itself, and any other control character shown as its `\uXXXX` code —
 * never a JSON escape, which DOT does not read (`\t` would draw as "t").
 */
function dotString(text: string): string {
  const body = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/&/g, '&amp;')
    .replace(/\r?\n/g, '\\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\r]/g, (c) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${body}"`;
}

export function toDot(nodes: DrawnNode[]): string {
  const layout = layoutOf(nodes);
  const shape: Record<string, string> = { start: 'oval', end: 'doublecircle', condition: 'diamond', expression: 'parallelogram' };
  const q = dotString;
  const lines = ['digraph workflow {', '  rankdir=TB;'];
  nodes.forEach((n, i) => {
    const label = `${n.label}${layout.duplicate(i) ? ' (duplicate id)' : ''}\n${n.type}`;
    lines.push(`  ${layout.name(i)} [label=${q(label)}, shape=${(Object.hasOwn(shape, n.type) ? shape[n.type] : undefined) ?? 'box'}];`);
  });
  const edges: string[] = [];
  nodes.forEach((n, i) => {
    for (const [via, to] of n.connections) edges.push(`  ${layout.name(i)} -> ${layout.target(to)} [label=${q(via)}];`);
  });
  for (const [name, id] of layout.missing) lines.push(`  ${name} [label=${q(`${id}\n(missing)`)}, shape=box, style=dashed];`);
  return `${[...lines, ...edges, '}'].join('\n')}\n`;
}
