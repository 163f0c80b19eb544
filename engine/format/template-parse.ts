/**
 * Parsing Moira templates (see template.ts for the syntax) into the tree
 * that rendering walks, and collecting their free variables on the way.
 * A malformed template throws E_TEMPLATE_SYNTAX with the offset of the
 * fault and a fix.
 */
import { CountersignError } from '../errors.js';
import { parsePath, type Segment } from './path.js';

/** Block levels a template may nest: far beyond any real directive, well within the renderer's stack. */
export const MAX_TEMPLATE_NESTING = 64;

export interface TemplateVariable {
  path: string;
  /** Offset of the path in the template text. */
  offset: number;
  /** Read as a list: the argument of {{#each}}. */
  list?: true;
  /** Inside {{#each}}: a bare name there is read from the current item first, as Moira does. */
  inEach?: true;
}

/** A value tag or a block argument, parsed once. */
export interface VarNode {
  kind: 'var';
  path: string;
  segments: readonly Segment[];
  root: string;
  /** An index ref names the loop item (`items[@index]`), so it is bound before the lookup. */
  frameRefs: boolean;
}

export type Operand = VarNode | { kind: 'literal'; value: string | number | boolean };

export type Block =
  | { kind: 'if' | 'unless' | 'each'; arg: VarNode; body: TemplateNode[]; otherwise: TemplateNode[] }
  | { kind: 'eq' | 'neq'; arg: VarNode; right: Operand; body: TemplateNode[]; otherwise: TemplateNode[] };

/** Literal text (escapes already applied), a value tag, or a block. */
export type TemplateNode = string | VarNode | Block;

/** A parsed template: its tree and its free variables (frozen; shared through the cache). */
export interface ParsedTemplate {
  nodes: TemplateNode[];
  variables: TemplateVariable[];
}

/** Parses a path inside a template, reporting errors at the template offset. */
export function parseTemplatePath(path: string, offset: number): Segment[] {
  let segments: Segment[];
  try {
    segments = parsePath(path);
  } catch (e) {
    if (!(e instanceof CountersignError)) throw e;
    const inner = (e.data as { offset?: number } | undefined)?.offset ?? 0;
    throw new CountersignError('E_TEMPLATE_SYNTAX', `${e.message} at offset ${offset + inner}`, {
      fix: e.fix,
      data: { offset: offset + inner },
    });
  }
  if (indexWithFields(segments)) {
    throw new CountersignError('E_TEMPLATE_SYNTAX', `"${path}" reads into @index at offset ${offset}, but @index is the loop item's position, a number: it has no fields or items`, {
      fix: 'write {{@index}} for the position, or {{this.field}} for a field of the current item',
      data: { offset },
    });
  }
  return segments;
}

/** `@index.x`, `@index[0]`, or either inside brackets: a path that can never resolve. */
function indexWithFields(segments: readonly Segment[]): boolean {
  if (segments[0] === '@index' && segments.length > 1) return true;
  return segments.some((seg) => typeof seg === 'object' && indexWithFields(seg.ref));
}

interface OpenBlock {
  block: Block;
  /** The helper as written (`if`, `each`, or an unknown one): what its closing tag must name. */
  name: string;
  /** The opening tag as written, for messages. */
  tag: string;
  offset: number;
  inElse: boolean;
}

type Arg = { kind: 'path'; text: string; offset: number } | { kind: 'literal'; value: string | number | boolean; offset: number };

const HELPERS = '#if, #unless, #eq, #neq and #each';
const NUMBER_LITERAL = /^-?\d+(?:\.\d+)?$/;

/** Parses a template; throws E_TEMPLATE_SYNTAX at its first fault (rendering needs the whole tree). */
export function parseTemplate(text: string): ParsedTemplate {
  return parse(text, (e) => {
    throw e;
  });
}

/**
 * Every syntax fault of a template, and the variables its well-formed
 * parts read: validation reports each malformed tag as its own finding and
 * still checks the reads around it, in one pass. A tag that fails is
 * skipped; a block tag that fails still opens its block, so its closing
 * tag is no second finding and what the block holds is read as in a block.
 */
export function analyseTemplate(text: string): { variables: TemplateVariable[]; errors: CountersignError[] } {
  const errors: CountersignError[] = [];
  const { variables } = parse(text, (e) => errors.push(e));
  return { variables, errors };
}

/** A placeholder for a block tag that did not parse: never rendered (the template has an error). */
const BROKEN_ARG: VarNode = Object.freeze({ kind: 'var', path: '', segments: [], root: '', frameRefs: false }) as VarNode;

function parse(text: string, report: (e: CountersignError) => void): ParsedTemplate {
  const variables: TemplateVariable[] = [];
  const root: TemplateNode[] = [];
  if (text.indexOf('{{') < 0) {
    if (text) root.push(text);
    return { nodes: root, variables: Object.freeze(variables) as TemplateVariable[] };
  }
  const stack: OpenBlock[] = [];
  let target = root;
  let eachDepth = 0;
  let pending = '';
  let pos = 0;
  let tooDeep = false;
  /** Runs one tag's parse; a syntax fault is reported, and parsing goes on at the next tag. */
  const attempt = (step: () => void): void => {
    try {
      step();
    } catch (e) {
      if (!(e instanceof CountersignError) || e.code !== 'E_TEMPLATE_SYNTAX') throw e;
      report(e);
    }
  };
  /** Closes the innermost open block, back into its parent's body. */
  const closeTop = (): void => {
    const top = stack.pop()!;
    if (top.name === 'each' && !top.inElse) eachDepth--;
    const parent = stack[stack.length - 1];
    target = !parent ? root : parent.inElse ? parent.block.otherwise : parent.block.body;
  };
  for (;;) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      pending += text.slice(pos);
      break;
    }
    // As Moira reads it: a backslash right before "{{" makes the braces
    // literal and is dropped; backslashes before it stay. So `\{{` is `{{`
    // and `\\{{x}}` is `\{{x}}` (a backslash, then literal braces).
    if (open > pos && text.charCodeAt(open - 1) === 92 /* \ */) {
      pending += text.slice(pos, open - 1) + '{{';
      pos = open + 2;
      continue;
    }
    pending += text.slice(pos, open);
    const plain = text.indexOf('}}', open + 2);
    if (plain < 0) {
      // Nothing after it is a tag: the rest is text.
      attempt(() => fail(`unclosed "{{" at offset ${open}`, open, 'close the tag with "}}", or write \\{{ for a literal "{{"'));
      pending += text.slice(open);
      break;
    }
    if (pending) {
      target.push(pending);
      pending = '';
    }
    // A block tag may hold "}}" inside a quoted argument: its end is read
    // past quotes first, and the plain first "}}" is the fallback (an
    // unclosed quote, or an apostrophe in the prose after the tag).
    const quoted = tagEnd(text, open + 2);
    const tried = quoted > plain ? tryBlock(text, open, quoted, eachDepth) : undefined;
    const close = tried ? quoted : plain;
    const inner = text.slice(open + 2, close);
    const content = inner.trim();
    const at = open + 2 + (inner.length - inner.trimStart().length);
    pos = close + 2;

    if (content === '') {
      attempt(() => fail(`empty tag "{{}}" at offset ${open}`, open, 'write a variable name inside the braces, or \\{{ for a literal "{{"'));
      continue;
    }
    const first = content.charCodeAt(0);
    if (first === 35 /* # */) {
      if (tried) variables.push(...tried.variables);
      let block: Block | undefined = tried?.block;
      if (!block) attempt(() => (block = openBlock(content, at, open, eachDepth, variables)));
      const name = block ? block.kind : helperName(content);
      // A block tag that failed still opens its block, with a placeholder never rendered.
      block ??= { kind: name === 'each' ? 'each' : 'if', arg: BROKEN_ARG, body: [], otherwise: [] };
      target.push(block);
      stack.push({ block, name, tag: content, offset: open, inElse: false });
      if (stack.length > MAX_TEMPLATE_NESTING && !tooDeep) {
        tooDeep = true;
        attempt(() => fail(`"{{${content}}}" at offset ${open} nests blocks deeper than ${MAX_TEMPLATE_NESTING} levels`, open, 'flatten the template: combine conditions, or move the detail into a variable'));
      }
      target = block.body;
      if (name === 'each') eachDepth++;
    } else if (first === 47 /* / */) {
      const name = content.slice(1).trim();
      const top = stack[stack.length - 1];
      if (!top) {
        attempt(() => fail(`"{{${content}}}" at offset ${open} closes no open block`, open, 'remove it, or open the block before it'));
        continue;
      }
      if (top.name !== name) {
        attempt(() => fail(`"{{${content}}}" at offset ${open} does not match "{{${top.tag}}}" opened at offset ${top.offset}`, open, `close the innermost block first with {{/${top.name}}}`));
        // It closes the block it names, if one is open (the ones inside it were left unclosed); otherwise it is ignored.
        if (!stack.some((b) => b.name === name)) continue;
        while (stack[stack.length - 1].name !== name) closeTop();
      }
      closeTop();
    } else if (content === 'else' || content.startsWith('else ')) {
      const top = stack[stack.length - 1];
      attempt(() => {
        if (content !== 'else') fail(`"{{${content}}}" at offset ${open} is not supported`, open, 'write {{else}} and nest an {{#if}} block inside it');
        if (!top) fail(`"{{else}}" at offset ${open} is outside any block`, open, 'use {{else}} only between {{#if …}} (or #unless, #eq, #neq, #each) and its closing tag');
        if (top.inElse) fail(`second "{{else}}" at offset ${open} in "{{${top.tag}}}"`, open, 'a block has at most one {{else}}');
        top.inElse = true;
        if (top.name === 'each') eachDepth--;
        target = top.block.otherwise;
      });
    } else {
      attempt(() => {
        const node = varNode(content, at);
        addVariables(content, at, eachDepth, variables);
        target.push(node);
      });
    }
  }
  if (pending) target.push(pending);
  // Each block left open is its own fault, innermost first.
  for (let i = stack.length - 1; i >= 0; i--) {
    const unclosed = stack[i];
    attempt(() => fail(`unclosed "{{${unclosed.tag}}}" at offset ${unclosed.offset}`, unclosed.offset, `close the block with {{/${unclosed.name}}}`));
  }
  return { nodes: root, variables: Object.freeze(variables) as TemplateVariable[] };
}

/** The helper a block tag names (`if` in `{{#if x}}`), as written. */
function helperName(content: string): string {
  let end = 1;
  while (end < content.length && !isSpace(content.charCodeAt(end))) end++;
  return content.slice(1, end);
}

function openBlock(content: string, at: number, open: number, eachDepth: number, variables: TemplateVariable[]): Block {
  const name = helperName(content);
  const args = blockArgs(content, name.length + 1, at);
  const tag = `{{${content}}}`;
  const variable = (arg: Arg | undefined, role: string): VarNode => {
    if (!arg) fail(`"${tag}" at offset ${open} needs ${role}`, at, `write it as {{#${name} variable${name === 'eq' || name === 'neq' ? " 'value'" : ''}}}`);
    if (arg.kind !== 'path') fail(`"${tag}" at offset ${arg.offset} needs ${role}, not a literal`, arg.offset, `name a variable, e.g. {{#${name} status …}}`);
    // The variable {{#each}} loops over is read as a list: the validator checks its declared type.
    addVariables(arg.text, arg.offset, eachDepth, variables, name === 'each');
    return varNode(arg.text, arg.offset);
  };
  const tooMany = (expected: number): void => {
    const extra = args[expected];
    if (extra) fail(`"${tag}" has an unexpected argument at offset ${extra.offset}`, extra.offset, `{{#${name}}} takes ${expected === 1 ? 'one variable' : 'a variable and a value'}`);
  };
  switch (name) {
    case 'if':
    case 'unless':
    case 'each': {
      const arg = variable(args[0], 'a variable');
      tooMany(1);
      return { kind: name, arg, body: [], otherwise: [] };
    }
    case 'eq':
    case 'neq': {
      const arg = variable(args[0], 'a variable');
      const second = args[1];
      if (!second) fail(`"${tag}" at offset ${open} needs a value to compare with`, at, `write it as {{#${name} ${arg.path} 'value'}}`);
      tooMany(2);
      const right: Operand = second.kind === 'literal' ? second : variable(second, 'a value');
      return { kind: name, arg, right, body: [], otherwise: [] };
    }
    default:
      return fail(`unknown block helper "#${name}" at offset ${open}`, at, `the block helpers are ${HELPERS}`);
  }
}

/**
 * Where the tag opened just before `from` ends: its first "}}", except
 * inside a quoted block argument (`{{#eq s '}}'}}` compares with "}}").
 */
function tagEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text[i] !== '#') return -1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '}' && text[i + 1] === '}') return i;
    if (c === "'" || c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) if (text[j] === '\\') j++;
      if (j >= text.length) return -1;
      i = j;
    }
  }
  return -1;
}

/** The block tag from `open` to `close` if it parses as one, with the variables it reads; undefined if it does not. */
function tryBlock(text: string, open: number, close: number, eachDepth: number): { block: Block; variables: TemplateVariable[] } | undefined {
  const inner = text.slice(open + 2, close);
  const content = inner.trim();
  const at = open + 2 + (inner.length - inner.trimStart().length);
  const variables: TemplateVariable[] = [];
  try {
    return { block: openBlock(content, at, open, eachDepth, variables), variables };
  } catch {
    return undefined;
  }
}

/** Splits block arguments: 'quoted' / "quoted" strings, numbers, true/false, or variable paths. */
function blockArgs(content: string, from: number, at: number): Arg[] {
  const args: Arg[] = [];
  let i = from;
  const n = content.length;
  while (i < n) {
    while (i < n && isSpace(content.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    const quote = content[i];
    if (quote === "'" || quote === '"') {
      let value = '';
      for (i++; i < n && content[i] !== quote; i++) {
        if (content[i] === '\\' && i + 1 < n) i++;
        value += content[i];
      }
      if (i >= n) fail(`unterminated string in "{{${content}}}" at offset ${at + start}`, at + start, `close the string with ${quote}`);
      i++;
      args.push({ kind: 'literal', value, offset: at + start });
      continue;
    }
    while (i < n && !isSpace(content.charCodeAt(i))) i++;
    const word = content.slice(start, i);
    if (NUMBER_LITERAL.test(word)) args.push({ kind: 'literal', value: Number(word), offset: at + start });
    else if (word === 'true' || word === 'false') args.push({ kind: 'literal', value: word === 'true', offset: at + start });
    else args.push({ kind: 'path', text: word, offset: at + start });
  }
  return args;
}

function varNode(path: string, offset: number): VarNode {
  const segments = parseTemplatePath(path, offset);
  return { kind: 'var', path, segments, root: segments[0] as string, frameRefs: hasFrameRef(segments) };
}

function hasFrameRef(segments: readonly Segment[]): boolean {
  for (const seg of segments) {
    if (typeof seg !== 'object') continue;
    const root = seg.ref[0];
    if (root === 'this' || root === '@index' || hasFrameRef(seg.ref)) return true;
  }
  return false;
}

/** Records a path and the index refs inside its brackets, skipping names the enclosing #each binds. */
function addVariables(path: string, offset: number, eachDepth: number, variables: TemplateVariable[], list = false): void {
  const root = parseTemplatePath(path, offset)[0] as string;
  const bound = eachDepth > 0 && (root === 'this' || root === '@index');
  // Inside #each, `names[@index]` is read through the loop item: what the
  // declarations can check is the part before that index.
  const framed = eachDepth > 0 ? /\[\s*(this|@index)\b/.exec(path) : null;
  if (!bound) variables.push(Object.freeze({ path: framed ? path.slice(0, framed.index) : path, offset, ...(list && !framed ? { list: true as const } : {}), ...(eachDepth > 0 ? { inEach: true as const } : {}) }));
  for (let i = 0; i < path.length; i++) {
    if (path[i] !== '[') continue;
    let depth = 1;
    let j = i + 1;
    for (; j < path.length && depth > 0; j++) {
      if (path[j] === '[') depth++;
      else if (path[j] === ']') depth--;
    }
    const inner = path.slice(i + 1, j - 1);
    if (!/^\d+$/.test(inner)) addVariables(inner, offset + i + 1, eachDepth, variables);
    i = j - 1;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function fail(message: string, offset: number, fix: string): never {
  throw new CountersignError('E_TEMPLATE_SYNTAX', message, { fix, data: { offset } });
}
