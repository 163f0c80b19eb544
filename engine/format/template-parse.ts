/**
 * Parsing Moira templates (see template.ts for the syntax) into the tree
 * that rendering walks, and collecting their free variables on the way.
 * A malformed template throws E_TEMPLATE_SYNTAX with the offset of the
 * fault and a fix. How one tag is read (its helper, arguments, path and
 * variables) is in template-tags.ts; this file walks the text between tags
 * and keeps the open blocks.
 */
import { CountersignError } from '../errors.js';
import type { Segment } from './path.js';
import { addVariables, fail, helperName, openBlock, tagEnd, tryBlock, varNode } from './template-tags.js';

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

interface OpenBlock {
  block: Block;
  /** The helper as written (`if`, `each`, or an unknown one): what its closing tag must name. */
  name: string;
  /** The opening tag as written, for messages. */
  tag: string;
  offset: number;
  inElse: boolean;
}


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
      attempt(() => fail(`empty tag ${JSON.stringify(`{{${inner}}}`)} at offset ${open}`, open, 'write a variable name inside the braces, or \\{{ for a literal "{{"'));
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
        // It closes the block it names, if one is open (the ones inside it were left unclosed, and this finding says so).
        // A name no open block has is a misspelt closer of the innermost block: it closes that block, so the one
        // fault is not said twice (here and again as "unclosed").
        if (stack.some((b) => b.name === name)) while (stack[stack.length - 1].name !== name) closeTop();
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
