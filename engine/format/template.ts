/**
 * Moira templates, used in `directive` and `completionCondition`:
 * `{{var}}`, `{{a.b[0]}}`, `{{items[idx]}}`, `{{#if x}}…{{else}}…{{/if}}`,
 * `{{#unless x}}`, `{{#eq x 'v'}}`, `{{#neq x 'v'}}`, and `{{#each arr}}` with
 * `{{this}}`, `{{this.f}}` and `{{@index}}`. `\{{` is a literal `{{`.
 *
 * A template is parsed once per distinct string into a small tree (cached),
 * so rendering on every step is a walk with string concatenation. Values are
 * inserted as data and never re-scanned, so a value containing `{{x}}` is
 * rendered verbatim (no injection). `{{else}}` inside `{{#each}}` renders
 * when the value is not a non-empty array.
 */
import type { CountersignError } from '../errors.js';
import type { Segment } from './path.js';
import { same } from './equality.js';
import { stepInto, type Resolution } from './resolver.js';
import { analyseTemplate, parseTemplate, type Block, type Operand, type ParsedTemplate, type TemplateNode, type TemplateVariable, type VarNode } from './template-parse.js';

export { type TemplateVariable } from './template-parse.js';
export { parseTemplatePath } from './template-tags.js';

export type Lookup = (path: Segment[]) => Resolution;

const CACHE_LIMIT = 5_000;
const cache = new Map<string, ParsedTemplate>();

function compiled(text: string): ParsedTemplate {
  let hit = cache.get(text);
  if (!hit) {
    hit = parseTemplate(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}

/**
 * The free variables of a template, in order: value tags, block arguments,
 * the second operand of #eq/#neq when it is a path, and index refs inside
 * brackets. `this…` and `@index` inside #each are bound by the loop and left
 * out. Throws E_TEMPLATE_SYNTAX for a malformed template.
 */
export function templateVariables(text: string): TemplateVariable[] {
  return compiled(text).variables;
}

/**
 * What validation reads of a template: the variables its well-formed parts
 * read and every syntax fault (E_TEMPLATE_SYNTAX, each with its offset),
 * never only the first. A template that parses comes from the cache.
 */
export function templateAnalysis(text: string): { variables: TemplateVariable[]; errors: CountersignError[] } {
  const hit = cache.get(text);
  if (hit) return { variables: hit.variables, errors: [] };
  const analysed = analyseTemplate(text);
  if (analysed.errors.length === 0) compiled(text);
  return analysed;
}

/**
 * Renders a template. `unset` lists value tags that rendered empty because
 * they were unset, null or unresolved; a loop item is named by its place in
 * the list (`items[1].name` for `{{this.name}}`), never as `this`.
 */
export function renderTemplate(text: string, lookup: Lookup): { text: string; unset: string[] } {
  const { nodes } = compiled(text);
  const state: RenderState = { lookup, items: [], indexes: [], paths: [], unset: [] };
  return { text: renderNodes(nodes, state), unset: state.unset };
}

interface RenderState {
  lookup: Lookup;
  /** #each frames, innermost last. */
  items: unknown[];
  indexes: number[];
  /** The list each frame walks, as the journal names it. */
  paths: string[];
  unset: string[];
}

function renderNodes(nodes: readonly TemplateNode[], state: RenderState): string {
  let out = '';
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (typeof node === 'string') {
      out += node;
    } else if (node.kind === 'var') {
      const res = read(node, state);
      const value = res.found ? res.value : undefined;
      if (value === undefined || value === null) {
        const shown = shownPath(node, state);
        if (!state.unset.includes(shown)) state.unset.push(shown);
      } else {
        out += typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
    } else {
      out += renderBlock(node, state);
    }
  }
  return out;
}

function renderBlock(block: Block, state: RenderState): string {
  switch (block.kind) {
    case 'if':
      return renderNodes(isTruthy(valueOf(block.arg, state)) ? block.body : block.otherwise, state);
    case 'unless':
      return renderNodes(isTruthy(valueOf(block.arg, state)) ? block.otherwise : block.body, state);
    case 'eq':
    case 'neq': {
      // Against a quoted string, as Moira compares: the value's text (unset
      // or null is ""), so `{{#eq rounds '3'}}` holds for the number 3.
      // Against a number, boolean or path: strictly, and by content as the
      // eq condition compares (two equal lists are equal).
      const value = valueOf(block.arg, state);
      const equal = block.right.kind === 'literal' && typeof block.right.value === 'string'
        ? textOf(value) === block.right.value
        : same(value, operandValue(block.right, state));
      return renderNodes(equal === (block.kind === 'eq') ? block.body : block.otherwise, state);
    }
    case 'each': {
      const list = valueOf(block.arg, state);
      const shown = shownPath(block.arg, state);
      // Unset (or null), or set but no list: noted as rendering empty, never silently an empty list.
      const note = list === undefined || list === null ? shown : !Array.isArray(list) ? `${shown} (not a list)` : undefined;
      if (note !== undefined && !state.unset.includes(note)) state.unset.push(note);
      if (!Array.isArray(list) || list.length === 0) return renderNodes(block.otherwise, state);
      let out = '';
      const depth = state.items.length;
      state.paths[depth] = shown;
      for (let i = 0; i < list.length; i++) {
        state.items[depth] = list[i];
        state.indexes[depth] = i;
        out += renderNodes(block.body, state);
      }
      state.items.length = depth;
      state.indexes.length = depth;
      state.paths.length = depth;
      return out;
    }
  }
}

/** How the journal names a path: `this…` inside #each is the loop item's place in its list. */
function shownPath(node: VarNode, state: RenderState): string {
  const depth = state.items.length;
  if (depth === 0 || node.root !== 'this') return node.path;
  return `${state.paths[depth - 1]}[${state.indexes[depth - 1]}]${node.path.slice('this'.length)}`;
}

function operandValue(operand: Operand, state: RenderState): unknown {
  return operand.kind === 'literal' ? operand.value : valueOf(operand, state);
}

function valueOf(node: VarNode, state: RenderState): unknown {
  const res = read(node, state);
  return res.found ? res.value : undefined;
}

/**
 * Reads a path: `this…` and `@index` from the innermost #each frame,
 * everything else through the caller's lookup (the one resolver).
 */
function read(node: VarNode, state: RenderState): Resolution {
  const depth = state.items.length;
  if (depth > 0) {
    if (node.root === 'this') return walkFrom(state.items[depth - 1], node.segments, state);
    if (node.root === '@index' && node.segments.length === 1) return { found: true, value: state.indexes[depth - 1] };
    if (node.frameRefs) return state.lookup(bindRefs(node.segments, state));
    // As Moira reads a loop: a name the current item has is its field ({{title}}, {{#if done}}), before any variable of that name.
    const item = state.items[depth - 1];
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.hasOwn(item, node.root)) return walkFrom(item, ['this', ...node.segments], state);
  }
  return state.lookup(node.segments as Segment[]);
}

function walkFrom(item: unknown, segments: readonly Segment[], state: RenderState): Resolution {
  let value = item;
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i];
    let key: unknown = seg;
    if (typeof seg === 'object') {
      const ref = readSegments(seg.ref, state);
      if (!ref.found) return ref;
      key = ref.value;
    }
    value = stepInto(value, key);
  }
  return { found: true, value };
}

/** Index refs that name the loop item (`items[@index]`) are resolved here, before the lookup sees the path. */
function bindRefs(segments: readonly Segment[], state: RenderState): Segment[] {
  const out: Segment[] = [];
  for (const seg of segments) {
    if (typeof seg !== 'object') {
      out.push(seg);
      continue;
    }
    const ref = readSegments(seg.ref, state);
    const key = ref.found ? ref.value : undefined;
    out.push(typeof key === 'number' || typeof key === 'string' ? key : seg);
  }
  return out;
}

function readSegments(segments: Segment[], state: RenderState): Resolution {
  const root = segments[0];
  const depth = state.items.length;
  if (depth > 0 && root === 'this') return walkFrom(state.items[depth - 1], segments, state);
  if (depth > 0 && root === '@index' && segments.length === 1) return { found: true, value: state.indexes[depth - 1] };
  return state.lookup(segments);
}

/** Moira truthiness: undefined, null, false, 0, NaN, "", "no", "false", [] and {} are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (value === 'no' || value === 'false') return false;
  if (typeof value === 'number') return !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') {
    for (const _ in value) return true;
    return false;
  }
  return true;
}

/** A value's text as {{#eq}} compares it: unset or null is "", an object or list its JSON (never a String() its own keys could break). */
function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
