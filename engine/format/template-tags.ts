/**
 * Reading one tag of a Moira template, for the parser in template-parse.ts:
 * a block tag's helper and arguments (quoted strings, numbers, booleans,
 * variable paths), where a tag holding a quoted "}}" ends, a value tag's
 * path, and the free variables each reads. Apart from the parser's loop,
 * which tracks the open blocks and the text between tags, because each of
 * these reads one tag alone and fails with E_TEMPLATE_SYNTAX at its offset.
 */
import { CountersignError } from '../errors.js';
import { bracketContents, parsePath, type Segment } from './path.js';
import type { Block, Operand, TemplateVariable, VarNode } from './template-parse.js';

/** Parses a path inside a template, reporting errors at the template offset. */
export function parseTemplatePath(path: string, offset: number): Segment[] {
  let segments: Segment[];
  try {
    segments = parsePath(path);
  } catch (e) {
    if (!(e instanceof CountersignError)) throw e;
    const inner = (e.data as { offset?: number } | undefined)?.offset ?? 0;
    // The message quotes the path, so an offset after it must be one the path has; the template offset is said as such.
    const where = inner >= path.length
      ? ` (the path starts at offset ${offset} of the template)`
      : ` at offset ${inner} of the path (offset ${offset + inner} of the template)`;
    throw new CountersignError('E_TEMPLATE_SYNTAX', `${e.message}${where}`, {
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

type Arg = { kind: 'path'; text: string; offset: number } | { kind: 'literal'; value: string | number | boolean; offset: number };

const HELPERS = '#if, #unless, #eq, #neq and #each';
const NUMBER_LITERAL = /^-?\d+(?:\.\d+)?$/;

/** The helper a block tag names (`if` in `{{#if x}}`), as written. */
export function helperName(content: string): string {
  let end = 1;
  while (end < content.length && !isSpace(content.charCodeAt(end))) end++;
  return content.slice(1, end);
}

export function openBlock(content: string, at: number, open: number, eachDepth: number, variables: TemplateVariable[]): Block {
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
export function tagEnd(text: string, from: number): number {
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
export function tryBlock(text: string, open: number, close: number, eachDepth: number): { block: Block; variables: TemplateVariable[] } | undefined {
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

export function varNode(path: string, offset: number): VarNode {
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
export function addVariables(path: string, offset: number, eachDepth: number, variables: TemplateVariable[], list = false): void {
  const root = parseTemplatePath(path, offset)[0] as string;
  const bound = eachDepth > 0 && (root === 'this' || root === '@index');
  // Inside #each, `names[@index]` is read through the loop item: what the
  // declarations can check is the part before that index.
  const framed = eachDepth > 0 ? /\[\s*(this|@index)\b/.exec(path) : null;
  if (!bound) variables.push(Object.freeze({ path: framed ? path.slice(0, framed.index) : path, offset, ...(list && !framed ? { list: true as const } : {}), ...(eachDepth > 0 ? { inEach: true as const } : {}) }));
  for (const { inner, at } of bracketContents(path)) {
    if (!/^\d+$/.test(inner)) addVariables(inner, offset + at, eachDepth, variables);
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

export function fail(message: string, offset: number, fix: string): never {
  throw new CountersignError('E_TEMPLATE_SYNTAX', message, { fix, data: { offset } });
}
