/**
 * YAML workflow files: plain data plus positions for findings. Duplicate
 * keys, and values JSON cannot express, are refused, so a YAML workflow
 * means exactly what its JSON twin would.
 */
import { isAlias, isScalar, parseDocument, visit, type Document } from 'yaml';
import { CountersignError } from '../errors.js';
import { LineIndex, locateInYaml, locateInYamlThroughAliases, pointerSegments, type Position } from './positions.js';
import type { SourceDocument } from './source.js';
import { emptyFile } from './source-errors.js';
import { firstNonJson } from './yaml-json.js';
import { contentFrom, keyWithoutColon, misalignedLine, misindentedLine, shallowKey } from './yaml-indentation.js';
import { yamlDeeperThan } from './yaml-depth.js';
import { describeUnexpectedToken, plainTokens, secondDocument, YAML_SYNTAX_FIX } from './yaml-token-errors.js';
import { unclosedFlowAt, unclosedQuoteOpening } from './yaml-unclosed.js';
import { selfAliasError } from './yaml-self-alias.js';
import { flowSlip, wrongCloser } from './yaml-flow-slips.js';

class YamlSource implements SourceDocument {
  readonly format = 'yaml' as const;
  private lines?: LineIndex;

  constructor(readonly file: string, readonly text: string, readonly data: unknown, private readonly doc: Document) {}

  locate(pointer: string, opts?: { key?: boolean; atAlias?: boolean }): Position {
    this.lines ??= new LineIndex(this.text);
    if (opts?.atAlias) return this.lines.position(locateInYaml(this.doc, pointerSegments(pointer), opts.key === true));
    const at = locateInYamlThroughAliases(this.doc, pointerSegments(pointer), opts?.key === true);
    const position = this.lines.position(at.offset);
    if (at.aliases === undefined) return position;
    const through = at.aliases.map((offset) => this.lines!.position(offset));
    return { ...position, via: through[0], ...(through.length > 1 ? { through } : {}) };
  }
}

/**
 * The text as the YAML parser is given it: YAML allows a lone CR as a line
 * break (old Mac files), the parser reads only LF and CRLF. One character
 * for one, so every offset stays the same.
 */
export function yamlParserText(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

export function parseYaml(text: string, file: string): SourceDocument {
  // YAML 1.1 gives plain words other meanings (y and n are booleans, << merges): the one meaning is YAML 1.2's.
  // Every %YAML line counts: the parser honours the last one, and YAML allows only one per document.
  const directives = [...directiveLines(yamlParserText(text)).matchAll(/^%YAML[ \t]+(\S+)/gm)];
  const otherVersion = directives.find((d) => d[1] !== '1.2');
  if (otherVersion) throw versionRefused(otherVersion[1], new LineIndex(text).position(otherVersion.index!), file);
  // %TAG remaps tag handles (!! to another namespace): no workflow needs one, and every tag after it would mean something else.
  const tagDirective = /^%TAG\b/m.exec(directiveLines(yamlParserText(text)));
  if (tagDirective) {
    const at = new LineIndex(text).position(tagDirective.index);
    throw new CountersignError('E_PARSE', 'a %TAG directive: it remaps tag handles (!! to another namespace), which no workflow needs', { file, line: at.line, col: at.col, fix: 'remove the %TAG line (a workflow needs no tags: 3 is a number, "3" a string)' });
  }
  if (directives.length > 1) {
    const at = new LineIndex(text).position(directives[1].index!);
    throw new CountersignError('E_PARSE', 'a second %YAML directive: YAML allows one per document', { file, line: at.line, col: at.col, fix: 'keep one %YAML 1.2 line (or none)' });
  }
  let doc: Document;
  try {
    doc = parseDocument(yamlParserText(text), { uniqueKeys: true, prettyErrors: false, version: '1.2', customTags: (tags) => [...tags, explicitFloat] });
  } catch (e) {
    // The parser's own stack ran out: said where the document passes the nesting limit, as for JSON.
    if (/call stack/i.test((e as Error).message)) throw tooDeep(text, file);
    throw e;
  }
  const error = doc.errors[0];
  if (error && /call stack/i.test(error.message)) throw tooDeep(text, file);
  if (error) {
    // A directive line inside the document (after ---, or after content): the parser says only that a value cannot start with %.
    const misplaced = misplacedDirective(doc, text, error.pos[0]);
    if (misplaced) throw misplaced(file);
    // A quoted key left open is first reported as a key spanning lines: the string never closed is said instead.
    const opened = unclosedQuoteOpening(doc, error.pos[0]);
    // An unclosed { or [ is reported where the parser gave up (the next line, or past the end): said where it opens.
    const flow = opened === undefined && /end with a [}\]]/.test(error.message) ? unclosedFlowAt(doc, error.pos[0]) : undefined;
    const indented = opened === undefined && flow === undefined && (error.code === 'BLOCK_AS_IMPLICIT_KEY' || error.code === 'MULTILINE_IMPLICIT_KEY')
      ? (error.code === 'MULTILINE_IMPLICIT_KEY' ? keyWithoutColon(yamlParserText(text), error.pos[0]) : undefined) ?? misindentedLine(yamlParserText(text), error.pos[0], error.message)
      : undefined;
    const shallow = indented === undefined && error.code === 'MISSING_CHAR' && /without - indicator/.test(error.message)
      ? shallowKey(yamlParserText(text), error.pos[0])
      : undefined;
    const misaligned = error.code === 'BAD_INDENT' && /same column/.test(error.message) ? contentFrom(yamlParserText(text), error.pos[0]) : undefined;
    const aligned = misaligned === undefined ? undefined : misalignedLine(yamlParserText(text), misaligned);
    // A closer of the wrong kind (`[1}`) is where the parser gave up: said at it, with the repair that parses.
    const closer = flow === undefined ? undefined : wrongCloser(text, flow, error.pos[0], (t) => parsesCleanly(t));
    const slip = closer ?? (opened === undefined && flow === undefined ? flowSlip(yamlParserText(text), error.code, error.pos) : undefined);
    const said = slip ?? indented ?? shallow ?? aligned;
    const at = new LineIndex(text).position(slip?.offset ?? opened ?? flow ?? said?.offset ?? misaligned ?? error.pos[0]);
    const { message, fix } = said !== undefined
      ? said
      : opened !== undefined
      ? { message: `this ${text[opened] === '"' ? 'double' : 'single'}-quoted string is never closed: it runs on to where the parser gave up`, fix: `close it with ${text[opened]} at the end of the value (or remove the opening quote)` }
      : flow !== undefined
        ? { message: `this flow ${text[flow] === '{' ? 'mapping' : 'list'} is never closed`, fix: `close it with ${text[flow] === '{' ? '}' : ']'} where it ends (on the same line, or on a later line indented past the key it belongs to)` }
        : describeYamlError(doc, text, error.code, error.message, error.pos);
    throw new CountersignError('E_PARSE', message, { file, line: at.line, col: at.col, fix });
  }
  // A tag the parser does not know (`!int` for `!!int`, a custom `!thing`)
  // would silently turn the value into a string: refused at the tag.
  const misfit = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED' || w.code === 'BAD_COLLECTION_TYPE');
  // A scalar or mapping tag on a list (!!binary [a], !!set [a]), or a scalar or list tag on a mapping:
  // the parser ignores the tag and keeps the collection as it is (a plain list or mapping), so said so at the tag.
  if (misfit?.code === 'BAD_COLLECTION_TYPE') {
    const tagAt = /!\S*/.exec(text.slice(misfit.pos[0], Math.max(misfit.pos[1], misfit.pos[0] + 1)));
    const offset = misfit.pos[0] + (tagAt?.index ?? 0);
    const at = new LineIndex(text).position(offset);
    const kind = / for seq collection/.test(misfit.message) ? 'a list' : 'a mapping';
    throw new CountersignError('E_PARSE', `the tag ${tagAt?.[0] ?? ''} does not fit ${kind}: the tag would be ignored and the value kept as ${kind}`, {
      file, line: at.line, col: at.col,
      fix: 'remove the tag (a workflow needs none: 3 is a number, "3" a string)',
    });
  }
  const unknownTag = misfit;
  if (unknownTag) {
    const at = new LineIndex(text).position(unknownTag.pos[0]);
    const tag = (/^!\S*/.exec(text.slice(unknownTag.pos[0], unknownTag.pos[1]).trim()) ?? [''])[0];
    // A standard tag whose value does not fit it (!!int 1.5) is not an unknown tag.
    const standard = /^!!(?:str|int|float|bool|null|seq|map)$/.test(tag);
    // On a list or a mapping the tag is ignored, and the collection kept as it is: said so, not "read as a string".
    const kind = taggedCollection(yamlParserText(text), unknownTag.pos[0] + tag.length);
    const what = kind ? `the tag ${tag} does not fit ${kind}: the tag would be ignored and the value kept as ${kind}` : standard ? `the value does not fit its tag ${tag}: it would be read as a string` : `unknown YAML tag ${tag}: the value would be read as a string`;
    throw new CountersignError('E_PARSE', what, {
      file, line: at.line, col: at.col,
      fix: standard ? TAG_MISFIT_FIX : 'remove the tag (a workflow needs none: 3 is a number, "3" a string), or write a standard one such as !!int or !!str',
    });
  }
  if (doc.contents === null) throw emptyFile(file);
  const cycle = selfAliasError(doc, text, file);
  if (cycle) throw cycle;
  const nonJson = firstNonJson(doc, yamlParserText(text));
  if (nonJson) {
    const at = new LineIndex(text).position(nonJson.offset);
    throw new CountersignError('E_PARSE', nonJson.message, { file, line: at.line, col: at.col, fix: nonJson.fix });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const message = (e as Error).message;
    if (/call stack/i.test(message)) throw tooDeep(text, file);
    // Alias bombs: more expansions than the limit, said at the alias that passes it.
    if (/resource exhaustion|alias count/i.test(message)) {
      const at = new LineIndex(text).position(nthAlias(doc, MAX_ALIASES) ?? 0);
      throw new CountersignError('E_PARSE', `the file uses *aliases more than ${MAX_ALIASES} times (counting the aliases inside what each one repeats): a limit that keeps an alias bomb from growing without bound`, {
        file, line: at.line, col: at.col,
        fix: 'write some of the repeated values out, or put them in one registry variable read by name',
      });
    }
    // An alias whose anchor is missing.
    const at = new LineIndex(text).position(firstUnresolvedAlias(doc) ?? 0);
    throw new CountersignError('E_PARSE', lowerFirst(message.replace(/\s*\(the anchor must be set before the alias\)/, '')), {
      file, line: at.line, col: at.col,
      fix: 'define the &anchor before the *alias that uses it',
    });
  }
  return new YamlSource(file, text, data, doc);
}

/** Whether `text` reads as YAML with no error: how a repair of a bracket slip is tried. */
function parsesCleanly(text: string): boolean {
  return parseDocument(yamlParserText(text), { uniqueKeys: true, prettyErrors: false, version: '1.2' }).errors.length === 0;
}

/** The directive lines at the top of the file (before the first line of content), where %YAML may stand. */
function directiveLines(text: string): string {
  return /^(?:[ \t]*(?:[%#][^\n]*)?\r?\n)*/.exec(text)?.[0] ?? '';
}

/**
 * A %YAML or %TAG line inside the document rather than above its ---
 * line: YAML reads directives only before the document starts, so the
 * parser sees a value starting with % (and often a key spanning lines).
 * Said as a directive out of place, at it, when it is the first fault.
 */
function misplacedDirective(doc: Document, text: string, first: number): ((file: string) => CountersignError) | undefined {
  const bad = doc.errors.find((e) => e.code === 'BAD_SCALAR_START' && /directive indicator/.test(e.message) && e.pos[0] <= first);
  if (!bad) return undefined;
  const offset = bad.pos[0];
  const lineStart = yamlParserText(text).lastIndexOf('\n', offset - 1) + 1;
  if (offset !== lineStart || text[offset] !== '%') return undefined;
  const name = (/^%[^\s]*/.exec(text.slice(offset)) ?? ['%'])[0];
  const dashes = /^---(?:[ \t]|\r?$)/m.test(yamlParserText(text).slice(0, offset));
  const fix = name === '%TAG'
    ? 'remove the %TAG line (it remaps tag handles, which no workflow needs: 3 is a number, "3" a string)'
    : name !== '%YAML' ? `remove the ${name} line (a workflow needs no directive)`
    : `${dashes ? `move the ${name} line above the --- line` : `move the ${name} line to the top of the file, followed by a line holding ---`} (or remove it: workflows are read as YAML 1.2)`;
  return (file) => {
    const at = new LineIndex(text).position(offset);
    return new CountersignError('E_PARSE', `a ${name} directive inside the document: a directive is read only before the --- line that starts the document`, { file, line: at.line, col: at.col, fix });
  };
}

/** 'a list' or 'a mapping' when a collection follows a tag ending at `from` (flow or block); undefined for a scalar. */
function taggedCollection(text: string, from: number): string | undefined {
  const [first, ...after] = text.slice(from).split('\n');
  // An anchor between the tag and the value (`!!str &x [a]`) names the value; what follows it is the value.
  const inline = first.replace(/(^|\s)#.*$/, '').trim().replace(/^&\S*\s*/, '');
  if (inline !== '') return inline.startsWith('[') ? 'a list' : inline.startsWith('{') ? 'a mapping' : undefined;
  const next = after.find((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  if (next === undefined) return undefined;
  return /^\s*-(\s|$)/.test(next) ? 'a list' : 'a mapping';
}

const TAG_MISFIT_FIX = 'write a value the tag takes, or remove the tag (a workflow needs none: 3 is a number, "3" a string)';

/** YAML 1.1 (or 1.0) gives plain words other meanings; any other version is one this reader does not know. */
function versionRefused(version: string, at: Position, file: string): CountersignError {
  const older = /^1\.[01]$/.test(version);
  const message = older
    ? `the file asks for YAML ${version} (%YAML ${version}), which reads plain words differently (y/n as booleans, << as a merge); workflows are read as YAML 1.2, the same as their JSON twin`
    : `the file asks for YAML ${version} (%YAML ${version}), a version countersign does not read; workflows are read as YAML 1.2, the same as their JSON twin`;
  return new CountersignError('E_PARSE', message, {
    file, line: at.line, col: at.col,
    fix: older ? 'remove the %YAML line (or write %YAML 1.2), and check that no key or value relied on YAML 1.1 meanings' : 'remove the %YAML line (or write %YAML 1.2)',
  });
}

/**
 * `!!float 1` is the number 1 in YAML 1.2 (its float pattern takes a whole
 * number); the parser's own float tags want a point or an exponent and
 * would turn the value into a string. Used for explicit tags only.
 */
const explicitFloat = {
  tag: 'tag:yaml.org,2002:float',
  resolve(source: string, onError: (message: string) => void): number | string {
    if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(source)) return Number(source);
    if (/^[-+]?\.(?:inf|Inf|INF)$/.test(source)) return source.startsWith('-') ? -Infinity : Infinity;
    if (/^\.(?:nan|NaN|NAN)$/.test(source)) return NaN;
    onError('the value does not fit its tag !!float');
    return source;
  },
};

/** The workflow nesting limit (validate/depth.ts MAX_NESTING), said here when the parser's own stack runs out first. */
const MAX_DEPTH = 128;

/** How many alias expansions one file may make (yaml's own default is 100: too few for a 1000-node workflow reusing a value). */
export const MAX_ALIASES = 10_000;

/** Where the n-th alias of the document is. */
function nthAlias(doc: Document, n: number): number | undefined {
  let seen = 0;
  let found: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      found = node.range?.[0];
      if (++seen > n) return visit.BREAK;
      return undefined;
    },
  });
  return found;
}

/**
 * The nesting limit (E_SCHEMA at level 129, as for JSON, with the same
 * pointer) for a document too deep for the YAML parser itself. Block
 * nesting that deep overflows even the syntax-tree parser, so the tree is
 * built from the text up to a few levels past the limit, found by a scan.
 */
function tooDeep(text: string, file: string): CountersignError {
  const parserText = yamlParserText(text);
  const past = levelOffset(parserText, MAX_DEPTH + 4);
  let place: { pointer: string; offset: number } | undefined;
  try {
    place = yamlDeeperThan(past === undefined ? parserText : parserText.slice(0, past), MAX_DEPTH);
  } catch {
    place = undefined;
  }
  place ??= { pointer: '', offset: levelOffset(parserText, MAX_DEPTH + 2) ?? 0 };
  const at = new LineIndex(text).position(place.offset);
  return new CountersignError('E_SCHEMA', `the document nests deeper than ${MAX_DEPTH} levels here`, {
    file, pointer: place.pointer, line: at.line, col: at.col,
    fix: 'flatten it (combine conditions in one "and"/"or" list instead of nesting them)',
  });
}

/** The offset where the document first reaches `level` levels of nesting (flow brackets and block indentation). */
function levelOffset(text: string, level: number): number | undefined {
  const indents: number[] = [];
  let flow = 0;
  let lineStart = true;
  let column = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') { lineStart = true; column = 0; continue; }
    if (lineStart && (c === ' ')) { column++; continue; }
    if (lineStart) {
      lineStart = false;
      if (c === '#') { i = nextLine(text, i); lineStart = true; column = 0; continue; }
      if (flow === 0) {
        while (indents.length > 0 && indents[indents.length - 1] >= column) indents.pop();
        // A line that opens a flow collection is that level itself, not a block level too.
        if (c !== '[' && c !== '{') {
          indents.push(column);
          if (indents.length >= level) return i;
        }
      }
    }
    if (c === '"' || c === "'") { i = quoteEnd(text, i); continue; }
    if (c === '#' && /\s/.test(text[i - 1] ?? ' ')) { i = nextLine(text, i) - 1; continue; }
    if (c === '[' || c === '{') {
      flow++;
      if (indents.length + flow >= level) return i;
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
    else if (c === '-' && flow === 0 && text[i + 1] === ' ') {
      // "- " opens a nested level on the same line.
      indents.push(column + (i - lineStartOf(text, i)) + 1);
      if (indents.length >= level) return i;
    }
  }
  return undefined;
}

const nextLine = (text: string, i: number): number => { const n = text.indexOf('\n', i); return n < 0 ? text.length : n; };
const lineStartOf = (text: string, i: number): number => text.lastIndexOf('\n', i - 1) + 1;
function quoteEnd(text: string, i: number): number {
  const q = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (q === '"' && text[j] === '\\') { j++; continue; }
    if (text[j] === q) { if (q === "'" && text[j + 1] === "'") { j++; continue; } return j; }
  }
  return text.length;
}

function firstUnresolvedAlias(doc: Document): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(doc) === undefined) {
        found = node.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function describeYamlError(doc: Document, text: string, code: string, raw: string, pos: [number, number]): { message: string; fix: string } {
  switch (code) {
    case 'DUPLICATE_KEY': {
      const key = keyAt(doc, pos[0]) ?? text.slice(pos[0], pos[1]);
      return { message: `duplicate key "${key}"`, fix: `remove or rename one of the two "${key}" keys` };
    }
    case 'TAG_RESOLVE_FAILED':
      // A handle no %TAG declares (!e!int): no value can fit it.
      if (/could not resolve tag/i.test(raw)) return { message: `the tag ${/tag: (\S+)/i.exec(raw)?.[1] ?? ''} uses a handle no %TAG declares, so nothing can fit it`, fix: 'remove the tag (a workflow needs none: 3 is a number, "3" a string), or write a standard one such as !!int or !!str' };
      return { message: lowerFirst(raw), fix: TAG_MISFIT_FIX };
    case 'TAB_AS_INDENT':
      return { message: 'tabs are not allowed as indentation', fix: 'indent with spaces' };
    case 'BAD_INDENT':
      return { message: lowerFirst(raw), fix: 'indent all keys of one mapping (and all items of one list) to the same column, with spaces' };
    case 'MULTIPLE_DOCS':
      return secondDocument(yamlParserText(text), pos[0]);
    case 'MISSING_CHAR':
      if (/directives-end/.test(raw)) return { message: 'a %YAML directive must be followed by a line holding ---, before the document', fix: 'add a line with --- after the %YAML line (or remove the %YAML line)' };
      if (/implicit map keys need to be followed by map values/i.test(raw)) return { message: 'a key without its ":" (a mapping key is written key: value)', fix: 'add ": " after the key, or quote the line if it is text' };
      // Two values side by side in [ ] or { } ("a"b): the first one is whole, the separator is what is missing.
      if (/between flow (sequence|map) items/i.test(raw)) return { message: `${lowerFirst(raw)}: another value starts here, with no comma before it`, fix: 'put a comma between the two values, or quote them together as one string' };
      return { message: lowerFirst(raw), fix: 'add the missing character the message names' };
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return { message: lowerFirst(raw), fix: 'quote a value that contains ": ", or put the nested mapping on its own indented lines' };
    case 'UNEXPECTED_TOKEN':
      return describeUnexpectedToken(text, raw, pos) ?? { message: lowerFirst(plainTokens(raw)), fix: YAML_SYNTAX_FIX };
    default:
      return { message: lowerFirst(plainTokens(raw)), fix: YAML_SYNTAX_FIX };
  }
}

/** The value of the scalar map key starting at `offset` (the error range covers only its first character). */
function keyAt(doc: Document, offset: number): string | undefined {
  let found: string | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        found = String(pair.key.value);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function lowerFirst(message: string): string {
  const trimmed = message.replace(/\.\s*$/, '');
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}
