/**
 * Parse errors say what is wrong in plain words and how to fix it, never a
 * parser's token names or a placeholder fix: YAML syntax slips (a missing
 * comma between flow items, an extra bracket, text after a closed value, a
 * "-" item where a mapping expects a key, text after a "..." marker) and a
 * JSON string left open and closed by a later quote.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { thrown } from '../helpers/errors.js';

function parseError(text: string, file: string): { message: string; at: string; fix: string } {
  const e = thrown(() => parseSource(text, file));
  assert.is(e.code, 'E_PARSE');
  return { message: e.message, at: `${e.line}:${e.col}`, fix: e.fix ?? '' };
}

const HEAD = 'metadata: {name: x, version: 1.0.0, description: d}\n';
const NODES = 'nodes: [{type: start, id: s, connections: {default: e}}, {type: end, id: e}]\n';
const PARSER_WORDS = /flow-map-start|flow-seq-end|flow-map-end|double-quoted-scalar|\bscalar\b|node end|YAML stream|correct the YAML syntax/;

function plain(e: { message: string; fix: string }): void {
  assert.not.match(e.message, PARSER_WORDS, e.message);
  assert.not.match(e.fix, PARSER_WORDS, e.fix);
}

const yamlWording = suite('parse errors: YAML syntax slips are said in plain words with a fix');

yamlWording('a "-" list item after a top-level mapping is said as an item where a key belongs, never as a value to quote', () => {
  const afterFlow = parseError(HEAD + NODES + '- stray\n', 'stray.yaml');
  assert.is(afterFlow.at, '3:1');
  assert.match(afterFlow.message, /a "-" list item where the top-level mapping expects a key/);
  assert.match(afterFlow.fix, /remove it, or indent it under a key/);
  assert.not.match(afterFlow.fix, /quote/);
  const noList = parseError('metadata:\n  name: x\n- stray\nnodes: []\n', 'w.yaml');
  assert.is(noList.at, '3:1');
  assert.match(noList.message, /where the top-level mapping expects a key/);
  assert.match(noList.fix, /remove it, or indent it under a key/);
  // With a list above it could join, that list is named too.
  const nearList = parseError(HEAD + 'nodes:\n  - a\n- stray\n', 'w.yaml');
  assert.is(nearList.at, '4:1');
  assert.match(nearList.fix, /column 3, as the item on line 3/);
});

yamlWording('text after a "..." end-of-document marker names the marker and its line, never a "---" the file lacks', () => {
  const e = parseError(HEAD + NODES + '...\nsystemReminder: hi\n', 'docend.yaml');
  assert.is(e.at, '4:1');
  assert.match(e.message, /the "\.\.\." on line 3 ends the document/);
  assert.not.match(e.fix, /---/);
  assert.match(e.fix, /remove the text after the "\.\.\." line, or remove the "\.\.\." line/);
  // A real second document still names its "---" line.
  const dashes = parseError('a: 1\n---\nb: 2\n', 'w.yaml');
  assert.match(dashes.fix, /remove the "---" line on line 2/);
});

yamlWording('two flow items with no comma between them are said as a missing comma at the second item', () => {
  const e = parseError(HEAD + 'nodes: [{type: start, id: s, connections: {default: e}}, {type: end, id: e} {type: end, id: f}]\n', 'm.yaml');
  assert.is(e.at, '2:77');
  plain(e);
  assert.match(e.message, /no comma/);
  assert.match(e.fix, /put a comma between/);
  const inMap = parseError(HEAD + 'nodes: [{a: 1} b]\n', 'w.yaml');
  plain(inMap);
  assert.match(inMap.fix, /put a comma between/);
});

yamlWording('a closing bracket with nothing open to close is said as an extra "]" or "}"', () => {
  const list = parseError(HEAD + 'nodes: [a, b]]\n', 'b.yaml');
  assert.is(list.at, '2:14');
  plain(list);
  assert.match(list.message, /an extra "\]"/);
  assert.match(list.fix, /remove this "\]"/);
  const map = parseError(HEAD + 'nodes: {a: 1}}\n', 'w.yaml');
  plain(map);
  assert.match(map.message, /an extra "\}"/);
});

yamlWording('text after a value that is already closed is said as such, with the fix to remove it or join it to the value', () => {
  const afterList = parseError(HEAD + 'nodes: [] extra\n', 't.yaml');
  assert.is(afterList.at, '2:11');
  plain(afterList);
  assert.match(afterList.message, /"extra" follows a value that is already complete \(the list closed by "\]"\)/);
  assert.match(afterList.fix, /remove it, or move it inside the brackets/);
  const afterQuote = parseError(HEAD + 'nodes: []\nsystemReminder: "a" "b"\n', 'q.yaml');
  assert.is(afterQuote.at, '3:21');
  plain(afterQuote);
  assert.match(afterQuote.message, /follows a value that is already complete \(the quoted string closed by its quote\)/);
  assert.match(afterQuote.fix, /one quoted string/);
});

yamlWording('a key that opens a quote and never closes it is said as the string never closed, where it opens, never as a key to quote', () => {
  const double = parseError('metadata:\n  name: t\n  "version: 1.0.0\n  description: d\nnodes: []\n', 'q1.yaml');
  assert.is(double.at, '3:3');
  assert.match(double.message, /this double-quoted string is never closed/);
  assert.match(double.fix, /close it with "/);
  assert.not.match(double.message, /implicit keys/i);
  assert.not.match(double.fix, /quote a value/);
  const single = parseError("metadata:\n  name: t\n  'description: d\nnodes: []\n", 'q2.yaml');
  assert.is(single.at, '3:3');
  assert.match(single.message, /this single-quoted string is never closed/);
  assert.match(single.fix, /close it with '/);
  for (const end of ['\n', '']) {
    const last = parseError(`metadata: {name: t}\nnodes: []\n"unterminated: 1${end}`, 'q3.yaml');
    assert.is(last.at, '3:1', JSON.stringify(end));
    assert.match(last.message, /this double-quoted string is never closed/);
  }
  // A quote that closes is no unclosed string: a key spanning lines keeps its own wording.
  const closed = parseError('metadata: {name: t}\n"a\n b": 1\n', 'w.yaml');
  assert.not.match(closed.message, /never closed/);
});

const jsonWording = suite('parse errors: JSON says what the parser wanted');

jsonWording('a string left open and closed by a later quote is said as a missing comma or "}", pointing at the quote left open', () => {
  const e = parseError('{\n  "metadata": {"name": "x, "version": "1.0.0", "description": "d"},\n  "nodes": []\n}\n', 'quote.json');
  assert.is(e.at, '2:29');
  assert.match(e.message, /^expected a comma or closing brace "\}", found "version"/);
  assert.not.match(e.message, /expected a value/);
  assert.match(e.message, /the string "x, " that opens at 2:24/, "the quote of \"x, \" is the 24th character of line 2");
  assert.match(e.fix, /close the string that opens at 2:24/);
  // The plain missing comma keeps its wording.
  const comma = parseError('{"a": 1 "b": 2}', 'w.json');
  assert.match(comma.message, /^expected a comma or closing brace "\}", found "b"/);
});

const JSON_HEAD = '{\n  "metadata": {"name": "t", "version": "1.0.0", "description": "d"},\n  "nodes": [\n';
const START = '    {"id": "s", "type": "start", "connections": {"default": "e"}},\n';

jsonWording('an extra "]" or "}" is said as extra, with the fix to remove it, never as a missing comma', () => {
  const bracket = parseError(JSON_HEAD + START + '    {"id": "e", "type": "end"}\n  ]]\n}\n', 'j3.json');
  assert.is(bracket.at, '6:4');
  assert.match(bracket.message, /^an extra "\]": no "\[" is open here for it to close/);
  assert.match(bracket.fix, /remove this "\]"/);
  assert.not.match(bracket.fix, /comma/);
  const brace = parseError(JSON_HEAD + START + '    {"id": "e", "type": "end"}}\n  ]\n}\n', 'k2.json');
  assert.is(brace.at, '5:31');
  assert.match(brace.message, /^an extra "\}": no "\{" is open here for it to close/);
  assert.match(brace.fix, /remove this "\}"/);
  assert.not.match(brace.fix, /comma/);
});

jsonWording('a closer of the wrong kind is said as the bracket it should be, naming the bracket it closes', () => {
  const wrong = parseError('[1, 2}', 'w.json');
  assert.is(wrong.at, '1:6');
  assert.match(wrong.message, /"\}" closes the "\[" that opens at 1:1/);
  assert.match(wrong.fix, /write "\]" here instead of "\}"/);
  assert.not.match(wrong.fix, /comma/);
});

jsonWording('an unclosed "{" or "[" is reported where it opens, with the closer to add', () => {
  const root = parseError(JSON_HEAD + START + '    {"id": "e", "type": "end"}\n  ]\n', 'j2.json');
  assert.is(root.at, '1:1');
  assert.match(root.message, /the object "\{" that opens at 1:1 is never closed/);
  assert.match(root.fix, /close it with "\}"/);
  const node = parseError(JSON_HEAD + '    {"id": "s", "type": "start", "connections": {"default": "e"},\n    {"id": "e", "type": "end"}\n  ]\n}\n', 'k4.json');
  assert.is(node.at, '4:5');
  assert.match(node.message, /the object "\{" that opens at 4:5 is never closed/);
  assert.match(node.fix, /close it with "\}"/);
  assert.not.match(node.fix, /property names must be in double quotes/);
  const list = parseError(JSON_HEAD + START + '    {"id": "e", "type": "end"}\n\n}\n', 'k5.json');
  assert.is(list.at, '3:12');
  assert.match(list.message, /the list "\[" that opens at 3:12 is never closed/);
  assert.match(list.fix, /close it with "\]"/);
  assert.not.match(list.fix, /comma/);
  // A closer missing inside a list: the list is named where it opens, not the "}" after it.
  const inner = parseError(JSON_HEAD + START + '    {"id": "e", "type": "end", "finalOutput": ["a"}\n  ]\n}\n', 'k1.json');
  assert.is(inner.at, '5:47');
  assert.match(inner.message, /the list "\[" that opens at 5:47 is never closed/);
  assert.match(inner.fix, /close it with "\]"/);
});

jsonWording('a second byte-order mark is named as a stray U+FEFF to remove, never shown as an invisible character', () => {
  const e = parseError('\ufeff\ufeff{}', 'bom2.json');
  assert.is(e.at, '1:1');
  assert.match(e.message, /byte-order mark \(U\+FEFF\)/);
  assert.not.match(e.message, /\ufeff/);
  assert.match(e.fix, /remove/);
  const inside = parseError('{"a": \ufeff1}', 'w.json');
  assert.is(inside.at, '1:7');
  assert.match(inside.message, /byte-order mark \(U\+FEFF\)/);
});

yamlWording.run();
jsonWording.run();
