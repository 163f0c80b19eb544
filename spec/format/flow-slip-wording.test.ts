/**
 * Slips inside [ ] and { } said where they are, with a fix that works
 * (review r108): a closer of the wrong kind in YAML, a JSON list left open
 * before the next key, a missing or doubled comma in a YAML flow mapping,
 * and an invalid escape in a double-quoted YAML string.
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

const GENERIC = /write this line in one of the forms|block collections|unexpected ,|flow map\b/;

const yamlClosers = suite('YAML: a closer of the wrong kind is said at itself, with a fix that works');

yamlClosers('"}" closing a "[" is named at the "}", with "]" to write instead', () => {
  const e = parseError('a: [1}\n', 'wk1.yaml');
  assert.is(e.at, '1:6');
  assert.match(e.message, /"\}" closes the "\[" that opens at 1:4, which needs "\]"/);
  assert.match(e.fix, /write "\]" here instead of "\}"/);
  const map = parseError('a: {b: 1]\n', 'w.yaml');
  assert.is(map.at, '1:9');
  assert.match(map.message, /"\]" closes the "\{" that opens at 1:4, which needs "\}"/);
  assert.match(map.fix, /write "\}" here instead of "\]"/);
  const nested = parseError('a: {b: [1, 2}, c: 3}\n', 'w.yaml');
  assert.is(nested.at, '1:13');
  assert.match(nested.message, /"\}" closes the "\[" that opens at 1:8, which needs "\]"/);
});

yamlClosers('after the "]" is added, the "}" left over is said as extra, never as the list still unclosed', () => {
  const e = parseError('a: [1}]\n', 'wk1fix.yaml');
  assert.is(e.at, '1:6');
  assert.match(e.message, /an extra "\}"/);
  assert.not.match(e.message, /never closed/);
  assert.match(e.fix, /remove this "\}"/);
});

yamlClosers('an inner bracket left open before the outer closer is said where it opens, with its closer', () => {
  const e = parseError('a: [1, {b: 2]\n', 'w.yaml');
  assert.is(e.at, '1:8');
  assert.match(e.message, /the mapping "\{" that opens at 1:8 is never closed: its "\}" is missing before the "\]" at 1:13/);
  assert.match(e.fix, /close it with "\}"/);
  // A bracket never closed at all keeps its wording.
  const open = parseError('a: [1, 2\nb: 3\n', 'w.yaml');
  assert.is(open.at, '1:4');
  assert.match(open.message, /never closed/);
});

const yamlCommas = suite('YAML: commas in a flow mapping said as commas');

yamlCommas('two entries with no comma between them: the comma is named, at the second entry', () => {
  const e = parseError('a: {b: 1 c: 2}\n', 'nocomma3.yaml');
  assert.is(e.at, '1:10');
  assert.match(e.message, /another entry starts here \("c"\), with no comma between it and the entry before it/);
  assert.match(e.fix, /put a comma between the two entries/);
  assert.not.match(e.message + e.fix, GENERIC);
  const quoted = parseError('a: {b: "x" c: 2}\n', 'w.yaml');
  assert.is(quoted.at, '1:12');
  assert.match(quoted.message, /with no comma between it and the item before it/);
  assert.not.match(quoted.message + quoted.fix, GENERIC);
});

yamlCommas('a doubled comma, or a comma first, in a mapping is said as an extra comma to remove', () => {
  const e = parseError('a: {b: 1,, c: 2}\n', 'dcomma.yaml');
  assert.is(e.at, '1:10');
  assert.match(e.message, /a comma with no item before it in this mapping/);
  assert.match(e.fix, /remove the extra comma/);
  assert.not.match(e.message + e.fix, GENERIC);
  const first = parseError('a: {,b: 1}\n', 'w.yaml');
  assert.match(first.message, /a comma with no item before it in this mapping/);
});

const yamlEscapes = suite('YAML: an invalid escape in a double-quoted string gets a fix about escapes');

yamlEscapes('the escape is named as written, with the valid escapes and the literal backslash', () => {
  const e = parseError('a: "x\\q"\n', 'badesc.yaml');
  assert.is(e.at, '1:6');
  assert.match(e.message, /invalid escape sequence \\q in a double-quoted string/);
  assert.match(e.fix, /write \\\\ for a literal backslash/);
  assert.match(e.fix, /\\n/);
  assert.match(e.fix, /single quotes/);
  assert.not.match(e.fix, /one of the forms a workflow uses/);
  const unicode = parseError('a: "x\\u12"\n', 'w.yaml');
  assert.is(unicode.at, '1:6');
  assert.match(unicode.message, /invalid escape sequence \\u12 in a double-quoted string: \\u takes four hex digits/);
  assert.not.match(unicode.message, /\\u12"/);
});

const jsonKeys = suite('JSON: a list left open before the next key is said where it opens');

jsonKeys('a key inside a list names the "[" never closed, not a missing comma', () => {
  const e = parseError('{\n  "a": [1, 2,\n  "b": "c"\n}\n', 'q5.json');
  assert.is(e.at, '2:8');
  assert.match(e.message, /the list "\[" that opens at 2:8 is never closed/);
  assert.match(e.message, /"b" at 3:3/);
  assert.match(e.fix, /close it with "\]"/);
  assert.not.match(e.fix, /separate array items with commas/);
  const objects = parseError('{\n  "a": [\n    {"x": 1},\n    {"y": 2}\n  ,\n  "b": 3\n}\n', 'q7.json');
  assert.is(objects.at, '2:8');
  assert.match(objects.message, /the list "\[" that opens at 2:8 is never closed/);
  const noComma = parseError('{\n  "a": [1, 2\n  "b": 3\n}\n', 'w.json');
  assert.is(noComma.at, '2:8');
  assert.match(noComma.message, /the list "\[" that opens at 2:8 is never closed/);
});

yamlClosers.run();
yamlCommas.run();
yamlEscapes.run();
jsonKeys.run();
