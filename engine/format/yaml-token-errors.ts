/**
 * The yaml parser's UNEXPECTED_TOKEN errors name its lexer's tokens
 * ("unexpected flow-map-start at node end", "unexpected flow-seq-end token
 * in YAML stream"), which tell a user neither what is wrong nor what to
 * change. Said here in plain words, with the fix the usual cause needs: a
 * missing comma between flow items, a bracket with nothing open to close,
 * text after a value that is already complete; and a second document
 * said by the marker that starts it.
 */
import { innermostFlow } from './yaml-flow-slips.js';
export interface TokenProblem {
  message: string;
  fix: string;
}

/** What a token type is, in a user's words. */
const TOKEN_WORDS: Record<string, string> = {
  'flow-map-start': '"{"',
  'flow-map-end': '"}"',
  'flow-seq-start': '"["',
  'flow-seq-end': '"]"',
  scalar: 'plain text',
  'double-quoted-scalar': 'a double-quoted string',
  'single-quoted-scalar': 'a single-quoted string',
  'block-scalar-header': 'a "|" or ">" block-text marker',
  'block-scalar': 'block text',
  anchor: 'an &anchor',
  tag: 'a !tag',
  alias: 'an *alias',
  comma: '","',
  'map-value-ind': '":"',
  'explicit-key-ind': '"?"',
  'seq-item-ind': '"-"',
  'doc-start': '"---"',
  'doc-end': '"..."',
  comment: 'a # comment',
  directive: 'a % directive',
};

/** Fallback fix for a syntax error no rule below recognises: the forms a workflow file is written in. */
export const YAML_SYNTAX_FIX = 'write this line in one of the forms a workflow uses (key: value, "- item", [a, b], {k: v}); quote text that holds ": " or " #", or starts with one of [ ] { } , & * ! | > % @ `';

/** Token names in a parser message replaced by what they are (`flow-map-start` by `"{"`). */
export function plainTokens(raw: string): string {
  return raw.replace(/\b(?:flow-(?:map|seq)-(?:start|end)|double-quoted-scalar|single-quoted-scalar|block-scalar-header|block-scalar|map-value-ind|explicit-key-ind|seq-item-ind|doc-start|doc-end)\b/g, (name) => TOKEN_WORDS[name] ?? name);
}

/** An UNEXPECTED_TOKEN error at `pos` said for a person; undefined when the message is none of the known shapes. */
export function describeUnexpectedToken(text: string, raw: string, pos: [number, number]): TokenProblem | undefined {
  const stray = /^Unexpected (flow-(?:seq|map)-end) token in YAML stream/.exec(raw);
  if (stray) {
    const close = stray[1] === 'flow-seq-end' ? ']' : '}';
    const open = close === ']' ? '[' : '{';
    return {
      message: `an extra "${close}": no "${open}" is open here for it to close`,
      fix: `remove this "${close}", or add the "${open}" it was meant to close`,
    };
  }
  const afterEnd = /^Unexpected ([\w-]+) at node end/.exec(raw);
  if (afterEnd) return textAfterValue(text, pos, afterEnd[1]);
  // Plain text right after a quoted value in { } (`{b: "x" c: 2}`): the next entry, its comma missing.
  const afterQuoted = /^Unexpected (scalar) token$/.exec(raw);
  if (afterQuoted && /["']\s*$/.test(text.slice(0, pos[0])) && insideFlow(text, pos[0])) return textAfterValue(text, pos, afterQuoted[1]);
  // The parser says "flow map" for a comma in { } and "flow sequence" for one in [ ].
  const flowName = /^Unexpected (,|empty item) in (flow (?:sequence|map(?:ping)?|collection))/.exec(raw);
  if (flowName) {
    const within = flowName[2] === 'flow sequence' ? 'list' : flowName[2].startsWith('flow map') ? 'mapping' : 'collection';
    return flowName[1] === ','
      ? { message: `a comma with no item before it in this ${within}`, fix: 'remove the extra comma (items are separated by one comma each)' }
      : { message: `an empty item in this ${within}: two commas with nothing between them`, fix: 'remove one of the two commas, or write the item between them (null for an empty value)' };
  }
  return undefined;
}

/**
 * A value already complete (a closed list, mapping or quoted string, or a
 * flow item), and more follows it. Inside [ ] or { } that is the next item
 * with its comma missing; outside, text that belongs nowhere.
 */
function textAfterValue(text: string, pos: [number, number], type: string): TokenProblem {
  const token = text.slice(pos[0], Math.max(pos[1], pos[0] + 1)).split('\n')[0];
  const shown = /^["']/.test(token) ? token : JSON.stringify(token.length > 30 ? `${token.slice(0, 27)}...` : token);
  if (insideFlow(text, pos[0])) {
    return {
      message: `another item starts here (${shown}), with no comma between it and the item before it`,
      fix: 'put a comma between the two items, or quote them together as one string if they are one value',
    };
  }
  const before = text.slice(0, pos[0]).trimEnd().slice(-1);
  const what = before === ']' ? 'the list closed by "]"'
    : before === '}' ? 'the mapping closed by "}"'
    : before === '"' || before === "'" ? 'the quoted string closed by its quote'
    : 'the value before it';
  const fix = before === ']' ? 'remove it, or move it inside the brackets as another item ([a, b])'
    : before === '}' ? 'remove it, or move it inside the braces as another key ({a: 1, b: 2})'
    : before === '"' || before === "'" ? `write the value as one quoted string (everything between one pair of ${before} quotes), or remove the extra text`
    : 'remove the extra text, or quote the whole value as one string';
  const kind = TOKEN_WORDS[type] ?? 'text';
  return { message: `${shown} follows a value that is already complete (${what}): ${kind} cannot continue it`, fix };
}

/** Whether `offset` lies inside an open [ ] or { } (quoted text and comments skipped). */
const insideFlow = (text: string, offset: number): boolean => innermostFlow(text, offset) !== undefined;

/**
 * A second document starting at `start`: said by the marker that ended the
 * first, which is what the user must remove: a "..." line (the first
 * document ends there, and the text after it would be another), or the
 * "---" line that opens the second one.
 */
export function secondDocument(text: string, start: number): TokenProblem {
  const lines = text.slice(0, start).split('\n');
  const markers = lines.map((l, i) => ({ l, line: i + 1 })).filter(({ l }) => /^(?:\.\.\.|---)(?:[ \t]|\r?$)/.test(l));
  const last = markers[markers.length - 1];
  const here = /^---(?=[ \t\r\n]|$)/.test(text.slice(start)) ? { l: '---', line: lines.length } : undefined;
  const marker = here ?? last;
  const endedBefore = here !== undefined && last?.l.startsWith('...') ? ` (and the "..." line on line ${last.line})` : '';
  if (marker?.l.startsWith('...')) {
    return {
      message: `the file holds more than one YAML document: the "..." on line ${marker.line} ends the document, so the text after it would be another one`,
      fix: 'keep one workflow per file: remove the text after the "..." line, or remove the "..." line if that text belongs to the workflow',
    };
  }
  const which = marker ? ` on line ${marker.line}` : '';
  return { message: 'the file holds more than one YAML document', fix: `keep one workflow per file: remove the "---" line${which} and the document after it, or merge its keys into the workflow${endedBefore ? ` by removing that "---" line${endedBefore}` : ''}` };
}
