import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { detectFormat, offsetToPosition, parseSource, readSource, type SourceFormat } from '../../engine/format/source.js';
import { thrown } from '../helpers/errors.js';
import { validateFile } from '../../engine/validate/index.js';

/** Runs `fn`, expecting a CountersignError, and returns it. */

function parseError(text: string, file: string, format?: SourceFormat): { message: string; at: string; fix?: string; file?: string } {
  const e = thrown(() => parseSource(text, file, format));
  assert.is(e.code, 'E_PARSE');
  return { message: e.message, at: `${e.line}:${e.col}`, fix: e.fix, file: e.file };
}

// ------------------------------------------------------------------ JSON positions

const JSON_DOC = [
  '{',
  '  "metadata": {"name": "demo", "version": "1.0.0"},',
  '  "nodes": [',
  '    {"id": "start", "type": "start"},',
  '    {',
  '      "id": "check",',
  '      "connections": {"true": "end", "a/b~c": "x"}',
  '    }',
  '  ]',
  '}',
].join('\n');

const jsonPositions = suite('source: JSON pointer positions');

jsonPositions('the root pointer is the opening brace', () => {
  assert.equal(parseSource(JSON_DOC, 'w.json').locate(''), { line: 1, col: 1 });
});

jsonPositions('a nested value and its key have distinct positions', () => {
  const doc = parseSource(JSON_DOC, 'w.json');
  assert.equal(doc.locate('/metadata/version'), { line: 2, col: 43 });
  assert.equal(doc.locate('/metadata/version', { key: true }), { line: 2, col: 32 });
});

jsonPositions('array items are addressed by index', () => {
  const doc = parseSource(JSON_DOC, 'w.json');
  assert.equal(doc.locate('/nodes/0'), { line: 4, col: 5 });
  assert.equal(doc.locate('/nodes/1'), { line: 5, col: 5 });
  assert.equal(doc.locate('/nodes/1/id'), { line: 6, col: 13 });
});

jsonPositions('an array item has no key, so {key:true} gives the item itself', () => {
  assert.equal(parseSource(JSON_DOC, 'w.json').locate('/nodes/1', { key: true }), { line: 5, col: 5 });
});

jsonPositions('a connection named "true" is found by its string key', () => {
  const doc = parseSource(JSON_DOC, 'w.json');
  assert.equal(doc.locate('/nodes/1/connections/true'), { line: 7, col: 31 });
  assert.equal(doc.locate('/nodes/1/connections/true', { key: true }), { line: 7, col: 23 });
});

jsonPositions('pointer segments are RFC 6901 unescaped (~1 is "/", ~0 is "~")', () => {
  assert.equal(parseSource(JSON_DOC, 'w.json').locate('/nodes/1/connections/a~1b~0c', { key: true }), { line: 7, col: 38 });
});

jsonPositions('a missing pointer resolves to its nearest existing ancestor', () => {
  const doc = parseSource(JSON_DOC, 'w.json');
  assert.equal(doc.locate('/nodes/1/directive'), { line: 5, col: 5 });
  assert.equal(doc.locate('/nodes/9/id'), { line: 3, col: 12 });
  assert.equal(doc.locate('/nope/deeper'), { line: 1, col: 1 });
});

jsonPositions('an index segment into an object key that looks numeric still matches the key', () => {
  const doc = parseSource('{\n  "m": {"0": 1}\n}', 'n.json');
  assert.equal(doc.locate('/m/0'), { line: 2, col: 14 });
});

jsonPositions('data is exactly what JSON.parse gives', () => {
  const doc = parseSource(JSON_DOC, 'w.json');
  assert.equal(doc.data, JSON.parse(JSON_DOC));
  assert.is(doc.format, 'json');
  assert.is(doc.file, 'w.json');
});

jsonPositions('a byte-order mark is ignored and does not shift columns', () => {
  const doc = parseSource('\uFEFF{"a": 1}', 'bom.json');
  assert.equal(doc.data, { a: 1 });
  assert.equal(doc.locate('/a'), { line: 1, col: 7 });
});

jsonPositions('CRLF line endings count as one line break', () => {
  const doc = parseSource('{\r\n  "a": {\r\n    "b": 2\r\n  }\r\n}', 'crlf.json');
  assert.equal(doc.locate('/a/b'), { line: 3, col: 10 });
});

jsonPositions('a lone CR (old Mac line endings) is a line break too, in JSON and in YAML, for findings and syntax errors alike', () => {
  const json = parseSource('{\r  "a": {\r    "b": 2\r  }\r}', 'cr.json');
  assert.equal(json.locate('/a/b'), { line: 3, col: 10 });
  const yaml = parseSource('a:\r  b: 2\r  c: [1, 2]\r', 'cr.yaml');
  assert.equal(yaml.data, { a: { b: 2, c: [1, 2] } });
  assert.equal(yaml.locate('/a/c/1'), { line: 3, col: 10 });
  const bad = thrown(() => parseSource('{\r  "a": 1,\r}', 'bad.json'));
  assert.equal([bad.code, bad.line], ['E_PARSE', 2]);
  assert.equal(offsetToPosition('x\ry\r\nz', 5), { line: 3, col: 1 });
});

jsonPositions('a root that is not an object is still returned for the validator to report', () => {
  assert.equal(parseSource('[1, 2]', 'list.json').data, [1, 2]);
  assert.equal(parseSource('"text"', 'str.json').data, 'text');
});

jsonPositions('strings holding colons, quotes and escaped backslashes do not confuse duplicate detection', () => {
  const text = '{"a": "x:y", "b": "q\\"r:s", "c": "back\\\\", "d": {"e": ":"}}';
  assert.equal(parseSource(text, 'c.json').data, JSON.parse(text));
});

// ------------------------------------------------------------------ malformed JSON

const badJson = suite('source: malformed JSON is E_PARSE at the exact line:col');

badJson('a missing comma between properties', () => {
  const e = parseError('{\n  "a": 1\n  "b": 2\n}', 'w.json');
  assert.is(e.message, 'expected a comma or closing brace "}", found "b"');
  assert.is(e.at, '3:3');
  assert.is(e.file, 'w.json');
  assert.ok(e.fix?.includes('comma'));
});

badJson('a missing comma between array items names the closing bracket', () => {
  const e = parseError('{"a": [1\n 2]}', 'w.json');
  assert.is(e.message, 'expected a comma or closing bracket "]", found "2"');
  assert.is(e.at, '2:2');
});

badJson('a number with a leading zero, or in hex, is said as that number at its start, never as a missing comma', () => {
  const zero = parseError('{\n  "a": -01\n}', 'w.json');
  assert.equal([zero.message, zero.at, zero.fix], ['number "-01" has a leading zero, which JSON does not allow', '2:8', 'drop the leading zero (-1), or quote it if it is an identifier like a zip code']);
  assert.is(parseError('[0, 10, 007]', 'w.json').at, '1:9');
  const hex = parseError('{"a": 0x10}', 'w.json');
  assert.equal([hex.message, hex.at], ['"0x10" is a hexadecimal, octal or binary number, which JSON does not have', '1:7']);
});

badJson('text after a complete document is extra text, not a missing value', () => {
  for (const text of ['{"a": 1} x', '"str" x', '[1]\n\nmore']) {
    const e = parseError(text, 'w.json');
    assert.match(e.message, /after the end of the JSON document$/, text);
    assert.is(e.fix, 'a JSON file holds exactly one value; remove the extra text');
  }
  // An object still open: not after the end; right after the value 1 the parser wants a comma or "}".
  assert.is(parseError('{"a": 1 x', 'w.json').message, 'expected a comma or closing brace "}", found "x"');
});

badJson('columns count UTF-16 code units, as editors do: an emoji before the fault counts 2', () => {
  assert.is(parseError('{"a": "😀" "b": 1}', 'w.json').at, '1:12');
  assert.is(parseError('{"a": "e" "b": 1}', 'w.json').at, '1:11');
});

badJson('a trailing comma in an object is reported at the comma', () => {
  const e = parseError('{\n  "a": 1,\n}', 'w.json');
  assert.is(e.message, 'trailing comma before "}"');
  assert.is(e.at, '2:9');
  assert.ok(e.fix?.includes('remove the comma'));
});

badJson('a trailing comma in an array is reported at the comma', () => {
  const e = parseError('[1, 2, ]', 'w.json');
  assert.is(e.message, 'trailing comma before "]"');
  assert.is(e.at, '1:6');
});

badJson('a line comment is not JSON', () => {
  const e = parseError('{\n  "a": 1 // note\n}', 'w.json');
  assert.is(e.message, 'comments are not allowed in JSON');
  assert.is(e.at, '2:10');
  assert.ok(e.fix?.includes('YAML'));
});

badJson('a block comment is not JSON', () => {
  const e = parseError('/* c */ {"a": 1}', 'w.json');
  assert.is(e.message, 'comments are not allowed in JSON');
  assert.is(e.at, '1:1');
});

badJson('an unterminated string is reported where the string starts', () => {
  const e = parseError('{\n  "directive": "do it\n}', 'w.json');
  assert.is(e.message, 'unterminated string');
  assert.is(e.at, '2:16');
});

badJson('a duplicate key is reported at the second key and names the first', () => {
  const e = parseError('{\n  "id": "a",\n  "id": "b"\n}', 'w.json');
  assert.is(e.message, 'duplicate key "id"');
  assert.is(e.at, '3:3');
  assert.ok(e.fix?.includes('2:3'), e.fix);
});

badJson('the earliest duplicate in document order wins, nested ones included', () => {
  const e = parseError('{"n": {"x": 1, "x": 2}, "n": 3}', 'w.json');
  assert.is(e.message, 'duplicate key "x"');
  assert.is(e.at, '1:16');
});

badJson('a duplicate "__proto__" key is caught too', () => {
  const e = parseError('{"__proto__": 1, "__proto__": 2}', 'w.json');
  assert.is(e.message, 'duplicate key "__proto__"');
  assert.is(e.at, '1:18');
});

badJson('an unquoted property name', () => {
  const e = parseError('{id: "a"}', 'w.json');
  assert.is(e.message, 'expected a double-quoted property name, found "id"');
  assert.is(e.at, '1:2');
});

badJson('a misspelled literal', () => {
  const e = parseError('{"a": tru}', 'w.json');
  assert.is(e.message, 'unexpected "tru": expected a value');
  assert.is(e.at, '1:7');
});

badJson('a missing colon', () => {
  const e = parseError('{"a" 1}', 'w.json');
  assert.is(e.message, 'expected a colon after the property name, found "1"');
  assert.is(e.at, '1:6');
});

badJson('a file cut short is said at the innermost bracket left open, naming every closer still missing', () => {
  const e = parseError('{"a": [1, 2', 'w.json');
  assert.is(e.message, 'the list "[" that opens at 1:7 is never closed: the file ends first');
  assert.is(e.at, '1:7');
  assert.match(e.fix ?? '', /close it with "\]" where its items end, then the 1 still open around it \("\}"\)/);
});

badJson('text after the document', () => {
  const e = parseError('{"a": 1}\n{"b": 2}', 'w.json');
  assert.is(e.message, 'unexpected "{" after the end of the JSON document');
  assert.is(e.at, '2:1');
});

badJson('an invalid escape is reported at the backslash', () => {
  const e = parseError('{"a": "x\\qy"}', 'w.json');
  assert.is(e.message, 'invalid escape sequence in string');
  assert.is(e.at, '1:9');
});

badJson('a raw tab inside a string is reported at the tab', () => {
  const e = parseError('{"a": "x\ty"}', 'w.json');
  assert.is(e.message, 'control character U+0009 inside a string');
  assert.is(e.at, '1:9');
});

badJson('an empty or blank file', () => {
  for (const [text, file] of [['', 'e.json'], ['  \n ', 'e.json'], ['', 'e.yaml'], ['# only a comment\n', 'e.yaml']]) {
    const e = parseError(text, file);
    assert.is(e.message, 'the file is empty', file);
    assert.is(e.at, '1:1');
  }
});

// ------------------------------------------------------------------ YAML

const YAML_DOC = [
  'metadata:',
  '  name: demo',
  '  version: 1.0.0',
  'nodes:',
  '  - id: start',
  '    type: start',
  '  - id: check',
  '    connections:',
  '      true: end',
  '      false: fix',
  '    note:',
  '    flow: {a: [1, 2]}',
].join('\n');

const yamlPositions = suite('source: YAML pointer positions');

yamlPositions('a nested value and its key', () => {
  const doc = parseSource(YAML_DOC, 'w.yaml');
  assert.equal(doc.locate('/metadata/version'), { line: 3, col: 12 });
  assert.equal(doc.locate('/metadata/version', { key: true }), { line: 3, col: 3 });
});

yamlPositions('array items are addressed by index', () => {
  const doc = parseSource(YAML_DOC, 'w.yaml');
  assert.equal(doc.locate('/nodes/1'), { line: 7, col: 5 });
  assert.equal(doc.locate('/nodes/1/id'), { line: 7, col: 9 });
});

yamlPositions('a boolean-looking key (true:) is matched as the string "true"', () => {
  const doc = parseSource(YAML_DOC, 'w.yaml');
  assert.equal(doc.locate('/nodes/1/connections/true'), { line: 9, col: 13 });
  assert.equal(doc.locate('/nodes/1/connections/false', { key: true }), { line: 10, col: 7 });
  assert.equal((doc.data as { nodes: { connections: unknown }[] }).nodes[1].connections, { true: 'end', false: 'fix' });
});

yamlPositions('a key without a value points at the key', () => {
  assert.equal(parseSource(YAML_DOC, 'w.yaml').locate('/nodes/1/note'), { line: 11, col: 5 });
});

yamlPositions('flow collections are located too', () => {
  assert.equal(parseSource(YAML_DOC, 'w.yaml').locate('/nodes/1/flow/a/1'), { line: 12, col: 19 });
});

yamlPositions('a missing pointer resolves to its nearest existing ancestor', () => {
  const doc = parseSource(YAML_DOC, 'w.yaml');
  assert.equal(doc.locate('/nodes/0/directive'), { line: 5, col: 5 });
  assert.equal(doc.locate('/nodes/7'), { line: 5, col: 3 });
});

yamlPositions('r79 b5: a pointer to an alias is the alias; one that runs on through it is placed in the anchored text (the only place its keys are written), with the alias that reuses it as via', () => {
  const doc = parseSource('base: &b\n  x: 1\ncopy: *b\n', 'a.yaml');
  assert.equal(doc.data, { base: { x: 1 }, copy: { x: 1 } });
  assert.equal(doc.locate('/copy'), { line: 3, col: 7 });
  assert.equal(doc.locate('/copy/x'), { line: 2, col: 6, via: { line: 3, col: 7 } });
  assert.equal(doc.locate('/copy/x', { key: true }), { line: 2, col: 3, via: { line: 3, col: 7 } });
  // r81 b4: through an alias inside reused text, both aliases are named, outermost first (so two places never read alike).
  const nested = parseSource('a: &s\n  x: &p {k: 1}\n  y: *p\nb: *s\n', 'n.yaml');
  assert.equal(nested.locate('/b/y/k'), { line: 2, col: 13, via: { line: 4, col: 4 }, through: [{ line: 4, col: 4 }, { line: 3, col: 6 }] });
  assert.equal(nested.locate('/a/y/k'), { line: 2, col: 13, via: { line: 3, col: 6 } });
  assert.equal(doc.locate('/base/x'), { line: 2, col: 6 });
});

yamlPositions('YAML and JSON with the same content give deep-equal data', () => {
  const yaml = 'metadata:\n  name: x\n  version: "1.0.0"\nnodes:\n  - id: a\n    n: 1\n    f: 1.5\n    ok: true\n    none: null\n    list: []\n    connections:\n      true: b\n';
  const json = '{"metadata": {"name": "x", "version": "1.0.0"}, "nodes": [{"id": "a", "n": 1, "f": 1.5, "ok": true, "none": null, "list": [], "connections": {"true": "b"}}]}';
  assert.equal(parseSource(yaml, 'w.yaml').data, parseSource(json, 'w.json').data);
});

const badYaml = suite('source: malformed YAML is E_PARSE at the exact line:col');

badYaml('an integer past 2^53 - 1 is E_PARSE at the value, in JSON and in YAML alike, never stored rounded; a string of digits, a safe integer and a float are fine', () => {
  const json = parseError('{\n  "n": 9007199254740993\n}', 'w.json');
  assert.is(json.at, '2:8');
  assert.match(json.message, 'it would be read as 9007199254740992');
  const yaml = parseError('n: 9007199254740993\n', 'w.yaml');
  assert.is(yaml.at, '1:4');
  assert.match(yaml.message, 'it would be read as 9007199254740992');
  for (const [text, file] of [['{"n": 9007199254740991}', 'w.json'], ['{"id": "1234567890123456789"}', 'w.json'], ['{"f": 12345678901234567.5}', 'w.json'], ['n: 1e20\n', 'w.yaml']]) {
    assert.not.throws(() => parseSource(text, file), text);
  }
  // An integer the double holds exactly, however large, is kept as written.
  for (const [text, file] of [['{"n": 10000000000000000}', 'w.json'], ['n: 10000000000000000\n', 'w.yaml']]) {
    assert.is((parseSource(text, file).data as { n: number }).n, 1e16, text);
  }
});

badYaml('bad indentation', () => {
  const e = parseError('metadata:\n  name: x\n version: 1\n', 'w.yaml');
  assert.match(e.message, /this key is at column 2, between the keys of the mapping above it \(column 3\) and those of the mapping around that one \(column 1\)/);
  assert.is(e.at, '3:2', 'at the key out of line, not its indentation');
  assert.match(e.fix!, /column 3, as the key on line 2, or to column 1, as the key on line 1/);
  const afterComment = parseError('nodes:\n  - id: a\n    type: start\n\n    # c\n     connections: x\n', 'w.yaml');
  assert.is(afterComment.at, '6:6', 'never at the blank or comment line before it');
});

badYaml('a key or "-" item out of line with its siblings names the column it belongs at', () => {
  const item = parseError('metadata: {name: t, version: 1.0.0, description: d}\nnodes:\n  - type: start\n    id: s\n    connections: {default: e}\n   - type: end\n    id: e\n', 'w.yaml');
  assert.is(item.at, '6:4');
  assert.match(item.fix!, /indent its "-" to column 3, as the item on line 3/);
  const key = parseError('metadata:\n    name: t\n    version: 1.0.0\n  description: d\nnodes: []\n', 'w.yaml');
  assert.is(key.at, '4:3');
  assert.match(key.message, /column 3/);
  assert.match(key.fix!, /indent it to column 5, as the key on line 3/);
});

badYaml('a top-level key out of line with the top-level keys names column 1, even when the key above has no block children or only list items', () => {
  const afterFlow = parseError('metadata: {name: y, version: 1.0.0, description: d}\n nodes:\n  - type: start\n    id: start\n    connections: {default: done}\n  - type: end\n    id: done\n', 'w.yaml');
  assert.is(afterFlow.at, '2:2');
  assert.match(afterFlow.message, /this key is at column 2, out of line with the other keys of its mapping \(column 1\)/);
  assert.match(afterFlow.fix!, /^indent it to column 1, as the key on line 1/);
  const afterList = parseError('metadata:\n  name: y\n  version: 1.0.0\n  description: d\nnodes:\n  - type: start\n    id: start\n    connections: {default: done}\n  - type: end\n    id: done\n    finalOutput: []\n variableRegistry: {}\n', 'w.yaml');
  assert.is(afterList.at, '12:2');
  assert.match(afterList.message, /column 2/);
  assert.match(afterList.fix!, /column 1, as the key on line 5/);
});

badYaml('a key indented between two mappings names both columns it may belong at, the enclosing one included', () => {
  const e = parseError('metadata:\n  name: y\n  version: 1.0.0\n  description: d\n nodes:\n  - type: start\n    id: start\n    connections: {default: done}\n  - type: end\n    id: done\n', 'w.yaml');
  assert.is(e.at, '5:2');
  assert.match(e.message, /column 2/);
  assert.match(e.fix!, /column 3, as the key on line 4/);
  assert.match(e.fix!, /column 1, as the key on line 1/);
  assert.match(e.fix!, /whichever mapping it belongs to/);
});

badYaml('a key indented deeper than the key above it is said at that line with the column it belongs at, never as a value to quote', () => {
  const e = parseError('nodes:\n  - id: start\n    type: start\n     connections: {default: e}\n  - id: e\n    type: end\n', 'w.yaml');
  assert.is(e.at, '4:6');
  assert.match(e.message, /indented deeper \(column 6\) than the key on line 3 \(column 5\)/);
  assert.match(e.fix!, /^indent it to column 5/);
  assert.ok(!e.fix!.includes('quote'), e.fix);
  const crlf = parseError('a:\r\n  b: 1\r\n   c: 2\r\n', 'w.yaml');
  assert.equal([crlf.at, /column 3/.test(crlf.fix!)], ['3:4', true]);
});

badYaml('a list item indented past the items of its list is said at its "-" with the column of its siblings', () => {
  const e = parseError('nodes:\n- id: start\n  type: start\n  - id: e\n    type: end\n', 'w.yaml');
  assert.is(e.at, '4:3');
  assert.match(e.message, /this list item is indented unlike the lines before it/);
  assert.match(e.fix!, /column 1, as the item on line 2/);
});

badYaml('a list item indented short of its siblings names their column first, and the outer list as the other guess', () => {
  const e = parseError('nodes:\n  - type: end\n    finalOutput:\n      - a\n     - b\n', 'w.yaml');
  assert.is(e.at, '5:6');
  assert.match(e.fix!, /column 7, as the item on line 4, or column 3, as the item on line 2, whichever list it belongs to/);
});

badYaml('a key of a list item\'s mapping indented less than its siblings is said at the key with their column, never as a missing "-"', () => {
  const e = parseError('nodes:\n  - type: start\n    id: start\n   connections: {default: end}\n', 'w.yaml');
  assert.is(e.at, '4:4');
  assert.match(e.message, /this key is indented less \(column 4\) than the key on line 3 \(column 5\)/);
  assert.match(e.fix!, /^indent it to column 5/);
  assert.ok(!/add the missing character/.test(e.fix!), e.fix);
});

badYaml('a key after a flow mapping written over several lines is sent to a block mapping it can join, never into the flow mapping', () => {
  const e = parseError('metadata:\n  name: t\n  tags: {a: 1,\n    b: 2}\n   author: me\nnodes: []\n', 'w.yaml');
  assert.is(e.at, '5:4');
  assert.match(e.message, /out of line with the other keys of its mapping \(column 3\)/);
  assert.match(e.fix!, /^indent it to column 3, as the key on line 3/);
  assert.ok(!/column 5/.test(e.fix!), e.fix);
  // The fix it names parses.
  assert.not.throws(() => parseSource('metadata:\n  name: t\n  tags: {a: 1,\n    b: 2}\n  author: me\nnodes: []\n', 'w.yaml'));
});

badYaml('a key after a list of plain values is sent to the column of the keys of the mapping it continues, never to the list item\'s text', () => {
  const e = parseError('nodes:\n  - type: end\n    id: done\n    finalOutput:\n      - n\n   extra: 1\n', 'w.yaml');
  assert.is(e.at, '6:4');
  assert.match(e.message, /column 4/);
  assert.match(e.fix!, /^indent it to column 5, as the key on line 4/);
  assert.not.throws(() => parseSource('nodes:\n  - type: end\n    id: done\n    finalOutput:\n      - n\n    extra: 1\n', 'w.yaml'));
});

badYaml('a plain value holding ": " is still said as a value to quote, where it is', () => {
  const e = parseError('nodes:\n  - id: a\n    directive: Note: this\n', 'w.yaml');
  assert.is(e.at, '3:16');
  assert.match(e.fix!, /quote a value that contains ": "/);
});

badYaml('a duplicate key names the key, plain or quoted', () => {
  let e = parseError('nodes: []\nmetadata: {}\nnodes: []\n', 'w.yaml');
  assert.is(e.message, 'duplicate key "nodes"');
  assert.is(e.at, '3:1');
  e = parseError('a:\n  "id": 1\n  "id": 2\n', 'w.yaml');
  assert.is(e.message, 'duplicate key "id"');
  assert.is(e.at, '3:3');
});

badYaml('tabs as indentation', () => {
  const e = parseError('a:\n\tb: 1\n', 'w.yaml');
  assert.is(e.message, 'tabs are not allowed as indentation');
  assert.is(e.at, '2:1');
});

badYaml('an unterminated quoted string is reported where it opens, not at the end of the file the parser swallowed', () => {
  const e = parseError('a: "open\n', 'w.yaml');
  assert.is(e.message, 'this double-quoted string is never closed: it runs on to where the parser gave up');
  assert.is(e.at, '1:4');
  const deep = parseError("a: 1\nb:\n  c: 'x\n  d: 2\ne: 3\n", 'w.yaml');
  assert.equal([deep.message, deep.at], ['this single-quoted string is never closed: it runs on to where the parser gave up', '3:6']);
  assert.is(parseError('a: [1, "x, 2]\n', 'w.yaml').at, '1:8', 'inside a flow list too');
});

badYaml('r105 b1: a closed quoted value followed by another with no comma (["a"b], {k: [n, \'m\'x]}) is the missing comma at the second value, never an unclosed string', () => {
  const list = parseError('a: ["a"b]\n', 'w.yaml');
  assert.equal([list.message, list.at], ['missing , or : between flow sequence items: another value starts here, with no comma before it', '1:8']);
  assert.match(list.fix ?? '', 'put a comma between the two values');
  const single = parseError("a: {k: [n, 'm'x]}\n", 'w.yaml');
  assert.not.match(single.message, 'never closed');
  assert.is(single.at, '1:15');
});

badYaml('r109 b1: an alias inside the value its own anchor names (a: &x [*x]) is E_PARSE at the alias saying the value would contain itself, never an over-deep document', () => {
  const e = parseError('a: &x [*x]\n', 'w.yaml');
  assert.is(e.message, 'the alias *x is inside the value its anchor &x names, so that value would contain itself without end');
  assert.is(e.at, '1:8');
  assert.match(e.fix ?? '', 'write the value out here instead of *x');
  assert.is(parseError('m: &m {k: {deeper: *m}}\n', 'w.yaml').at, '1:20');
});

badYaml('an unknown tag (!int for !!int, a custom !thing) is E_PARSE at the tag, never a value silently turned into a string', () => {
  const typo = parseError('a: 1\nb: !int 3\n', 'w.yaml');
  assert.equal([typo.message, typo.at], ['unknown YAML tag !int: the value would be read as a string', '2:4']);
  assert.match(typo.fix ?? '', '!!int');
  assert.is(parseError('x:\n  - !custom 3\n', 'w.yaml').at, '2:5');
  assert.equal(parseSource('a: !!int 3\nb: !!str 3\n', 'w.yaml').data, { a: 3, b: '3' }, 'standard tags are fine');
});

badYaml('more than one document', () => {
  const e = parseError('a: 1\n---\nb: 2\n', 'w.yaml');
  assert.is(e.message, 'the file holds more than one YAML document');
  assert.is(e.at, '2:1');
});

badYaml('an alias to an anchor that does not exist', () => {
  const e = parseError('a: 1\nb: *missing\n', 'w.yaml');
  assert.is(e.message, 'unresolved alias: missing');
  assert.is(e.at, '2:4');
});

// ------------------------------------------------------------------ formats and files

const files = suite('source: formats and files');

files('detectFormat uses the extension, then sniffs the first character', () => {
  assert.is(detectFormat('a.json', 'x: 1'), 'json');
  assert.is(detectFormat('a.YAML', '{}'), 'yaml');
  assert.is(detectFormat('a.yml', '{}'), 'yaml');
  assert.is(detectFormat('a.txt', '  \n {"a": 1}'), 'json');
  assert.is(detectFormat('-', '[1]'), 'json');
  assert.is(detectFormat('a', 'a: 1'), 'yaml');
});

files('an explicit format overrides the extension', () => {
  assert.equal(parseSource('a: 1', 'w.json', 'yaml').data, { a: 1 });
});

files('readSource loads a file by path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-source-'));
  const path = join(dir, 'w.yaml');
  writeFileSync(path, 'a: [1, 2]\n');
  const doc = readSource(path);
  assert.is(doc.file, path);
  assert.is(doc.format, 'yaml');
  assert.equal(doc.data, { a: [1, 2] });
});

files('a file that is not UTF-8 is E_PARSE at its first byte at fault (Latin-1), or at 1:1 naming UTF-16 by its byte-order mark: never text with U+FFFD in it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-source-'));
  const latin1 = join(dir, 'w.yaml');
  writeFileSync(latin1, Buffer.from('metadata: {name: w}\ndirective: "Caf\xe9"\n', 'latin1'));
  const e = thrown(() => readSource(latin1));
  assert.equal([e.code, e.file, e.line, e.col], ['E_PARSE', latin1, 2, 16]);
  assert.match(e.message, 'the file is not UTF-8 text: the byte 0xE9 at line 2, column 16 starts no UTF-8 character');
  assert.match(e.fix ?? '', 'save the file as UTF-8');
  for (const [bom, name] of [[[0xff, 0xfe], 'UTF-16LE'], [[0xfe, 0xff], 'UTF-16BE']] as const) {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, Buffer.concat([Buffer.from(bom), Buffer.from(name === 'UTF-16LE' ? '{"a": 1}' : '', 'utf16le')]));
    const u = thrown(() => readSource(file));
    assert.equal([u.code, u.line, u.col], ['E_PARSE', 1, 1]);
    assert.match(u.message, `the file is ${name} text (it starts with the byte-order mark`);
  }
  // UTF-32 by its mark, UTF-16 without one by its NUL bytes: named as what they are.
  const utf32 = join(dir, 'utf32.json');
  writeFileSync(utf32, Buffer.from([0xff, 0xfe, 0, 0, 0x7b, 0, 0, 0, 0x7d, 0, 0, 0]));
  assert.match(thrown(() => readSource(utf32)).message, 'the file is UTF-32LE text (it starts with the byte-order mark FF FE 00 00)');
  const bare16 = join(dir, 'bare16.yaml');
  writeFileSync(bare16, Buffer.from('a: 1\n', 'utf16le'));
  const bare = thrown(() => readSource(bare16));
  assert.equal([bare.code, bare.line, bare.col], ['E_PARSE', 1, 1]);
  assert.match(bare.message, 'the file is UTF-16LE text (a NUL byte follows each character, and it has no byte-order mark)');
  // UTF-8 with and without its byte-order mark reads as ever.
  writeFileSync(latin1, '\uFEFFdirective: "Café"\n');
  assert.equal(readSource(latin1).data, { directive: 'Café' });
});

files('r77 YAML: a %YAML 1.1 directive is refused at it (y/n and << would mean other things); a standard tag whose value does not fit is said so, not "unknown"; 100+ aliases of one value are fine; a document nested past the parser\'s own stack is E_SCHEMA at level 129, as JSON', () => {
  const v11 = thrown(() => parseSource('%YAML 1.1\n---\na: 1\n', 'w.yaml'));
  assert.equal([v11.code, v11.line, v11.col], ['E_PARSE', 1, 1]);
  assert.match(v11.message, 'the file asks for YAML 1.1');
  assert.equal(parseSource('%YAML 1.2\n---\ny: 1\n', 'w.yaml').data, { y: 1 });
  const tag = thrown(() => parseSource('a: !!int 1.5\n', 'w.yaml'));
  assert.match(tag.message, 'the value does not fit its tag !!int');
  assert.match(thrown(() => parseSource('a: !int 1\n', 'w.yaml')).message, 'unknown YAML tag !int');
  const aliases = ['v: &v "x"', ...Array.from({ length: 150 }, (_, i) => `k${i}: *v`)].join('\n');
  assert.is((parseSource(aliases, 'w.yaml').data as Record<string, string>).k149, 'x');
  const deep = `x: ${'['.repeat(1000)}${']'.repeat(1000)}\n`;
  const e = thrown(() => parseSource(deep, 'w.yaml'));
  assert.equal([e.code, e.line, e.col], ['E_SCHEMA', 1, 4 + 128]);
});

files('r78 b8-b10: !!float takes a whole number as YAML 1.2 does; !!merge is E_PARSE at it with YAML advice; %YAML 1.3 is said to be a version not read, not YAML 1.1', () => {
  assert.equal(parseSource('a: !!float 1\nb: !!float -3\nc: !!float 2.5e1\n', 'w.yaml').data, { a: 1, b: -3, c: 25 });
  const word = thrown(() => parseSource('a: !!float abc\n', 'w.yaml'));
  assert.equal([word.code, word.line, word.col, word.message], ['E_PARSE', 1, 4, 'the value does not fit its tag !!float']);
  assert.match(word.fix ?? '', 'remove the tag');
  for (const text of ['a: !!merge x\n', 'b: &b {x: 1}\na:\n  !!merge <<: *b\n']) {
    const merge = thrown(() => parseSource(text, 'w.yaml'));
    assert.is(merge.code, 'E_PARSE', text);
    assert.match(merge.message, "is tagged !!merge, YAML 1.1's merge marker");
    assert.match(merge.fix ?? '', 'remove the !!merge tag');
  }
  const v13 = thrown(() => parseSource('%YAML 1.3\n---\na: 1\n', 'w.yaml'));
  assert.equal([v13.code, v13.line, v13.col], ['E_PARSE', 1, 1]);
  assert.is(v13.message, 'the file asks for YAML 1.3 (%YAML 1.3), a version countersign does not read; workflows are read as YAML 1.2, the same as their JSON twin');
  assert.not.match(v13.fix ?? '', '1.1');
});

files('r80 b1-b2: a %TAG directive is refused at it; a tag whose handle no %TAG declares says so (no value could fit it); a %YAML line without --- and a key without ":" name what is missing', () => {
  const tag = thrown(() => parseSource('%TAG !! tag:example.com,2000:\n---\na: !!int 3\n', 'w.yaml'));
  assert.equal([tag.code, tag.line, tag.col], ['E_PARSE', 1, 1]);
  assert.match(tag.message, 'a %TAG directive');
  assert.match(tag.fix ?? '', 'remove the %TAG line');
  const handle = thrown(() => parseSource('a: !e!int "3"\n', 'w.yaml'));
  assert.equal([handle.code, handle.line, handle.col, handle.message], ['E_PARSE', 1, 4, 'the tag !e!int uses a handle no %TAG declares, so nothing can fit it']);
  assert.not.match(handle.fix ?? '', 'write a value the tag takes');
  const noDashes = thrown(() => parseSource('%YAML 1.2\na: 1\n', 'w.yaml'));
  assert.equal([noDashes.line, noDashes.fix], [2, 'add a line with --- after the %YAML line (or remove the %YAML line)']);
  const noColon = thrown(() => parseSource('nodes:\n  - type: x\n    id s\n', 'w.yaml'));
  assert.equal([noColon.line, noColon.col, noColon.message], [3, 5, 'a key without its ":" (a mapping key is written key: value)']);
  assert.match(noColon.fix ?? '', 'add ": " after the key');
  // r81 b5: a standard tag on the wrong kind of collection is ignored by the parser, the collection kept: said so.
  for (const [text, said] of [['a: !!str [1]\n', 'the tag !!str does not fit a list'], ['a: !!seq {a: 1}\n', 'the tag !!seq does not fit a mapping'], ['a: !!map\n  - 1\n', 'the tag !!map does not fit a list']] as const) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', 1, 4]);
    assert.match(e.message, said);
    assert.not.match(e.message, 'read as a string');
  }
  // r81 b2: also when more keys follow it (the parser reads the lines as one key spanning them), and at the top level.
  for (const [text, line, col] of [['nodes:\n  - type: x\n    completionCondition done\n    id: s\n', 3, 5], ['metadata: {a: 1}\nnodes\n  - type: x\n', 2, 1]] as const) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.line, e.col, e.message], [line, col, 'a key without its ":" (a mapping key is written key: value)'], JSON.stringify(text));
  }
});

files('r82 b1: a key without its ":" whose value holds a ":" inside a word (a URL, a time) is still a key without its ":", not a value to quote', () => {
  for (const text of ['nodes:\n  - type: x\n    directive see http://x.com\n    id: s\n', 'nodes:\n  - type: x\n    directive at 10:30\n    id: s\n']) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.code, e.line, e.col, e.message], ['E_PARSE', 3, 5, 'a key without its ":" (a mapping key is written key: value)'], JSON.stringify(text));
    assert.match(e.fix ?? '', 'add ": " after the key');
  }
});

files('r82 b2: a %YAML or %TAG directive after --- (or after content) says a directive goes above the --- line, at it, whatever the line endings', () => {
  for (const [text, line, name] of [
    ['---\n%YAML 1.2\na: 1\n', 2, '%YAML'], ['# c\n---\n%YAML 1.2\na: 1\n', 3, '%YAML'], ['---\r\n%YAML 1.2\r\na: 1\r\n', 2, '%YAML'],
    ['---\r%YAML 1.2\ra: 1\r', 2, '%YAML'], ['---\n%TAG !e! tag:x,2000:\na: 1\n', 2, '%TAG'], ['a: 1\n%YAML 1.2\n', 2, '%YAML'],
  ] as const) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', line, 1], JSON.stringify(text));
    assert.is(e.message, `a ${name} directive inside the document: a directive is read only before the --- line that starts the document`, JSON.stringify(text));
    assert.not.match(e.fix ?? '', 'add ": "');
  }
  assert.match(thrown(() => parseSource('---\n%YAML 1.2\na: 1\n', 'w.yaml')).fix ?? '', 'move the %YAML line above the --- line');
  assert.match(thrown(() => parseSource('---\n%TAG !e! tag:x,2000:\na: 1\n', 'w.yaml')).fix ?? '', 'remove the %TAG line');
  assert.equal(parseSource('a: |\n  %YAML 1.2\n', 'w.yaml').data, { a: '%YAML 1.2\n' });
});

files('r82 b3-b4: a tag that does not fit a list or mapping says the tag is ignored and the value kept, at the tag, also with an anchor after the tag and for scalar-only tags (!!binary, !!timestamp) and !!set on a list', () => {
  for (const [text, said] of [
    ['a: !!str &x [a]\n', 'the tag !!str does not fit a list'], ['a: !!str &x\n  - a\n', 'the tag !!str does not fit a list'],
    ['a: !!binary [a]\n', 'the tag !!binary does not fit a list'], ['a: !!timestamp [a]\n', 'the tag !!timestamp does not fit a list'],
    ['a: !!binary\n  - a\n', 'the tag !!binary does not fit a list'], ['a: !!set [a]\n', 'the tag !!set does not fit a list'],
    ['a: !!binary {b: 1}\n', 'the tag !!binary does not fit a mapping'],
  ] as const) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', 1, 4], JSON.stringify(text));
    assert.match(e.message, said);
    assert.match(e.message, 'the tag would be ignored and the value kept as');
    assert.not.match(e.message, 'read as a string');
    assert.not.match(e.message, 'read as a Map');
  }
  // Collections that really become a Map or Set are still refused as such.
  assert.match(thrown(() => parseSource('a: !!omap [a: 1]\n', 'w.yaml')).message, 'it would be read as a Map');
  assert.match(thrown(() => parseSource('a: !!set {a: null}\n', 'w.yaml')).message, 'it would be read as a Set');
  // !!pairs is read as a plain list of one-key mappings, as the same list without the tag: said so, never as a Map.
  for (const text of ['a: !!pairs [a: 1]\n', 'a: !!pairs\n  - a: 1\n  - a: 2\n']) {
    const pairs = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([pairs.code, pairs.line, pairs.col], ['E_PARSE', 1, 4], text);
    assert.not.match(pairs.message, 'Map', text);
    assert.match(pairs.message, 'the YAML list tagged !!pairs would be read as a plain list of one-key mappings', text);
    assert.match(pairs.message, 'the tag would be lost', text);
    assert.match(pairs.fix ?? '', 'remove the tag', text);
  }
  assert.equal(parseSource('a: [a: 1]\n', 'w.yaml').data, { a: [{ a: 1 }] }, 'the list without the tag, as the message says');
});

files('r79 b1: every %YAML line at the top counts: a %YAML 1.1 after a %YAML 1.2 is refused at it (the parser would honour the last), and a second %YAML line is E_PARSE at it; %YAML inside a value is text', () => {
  const later = thrown(() => parseSource('%YAML 1.2\n%YAML 1.1\n---\na: no\n', 'w.yaml'));
  assert.equal([later.code, later.line, later.col], ['E_PARSE', 2, 1]);
  assert.match(later.message, 'the file asks for YAML 1.1');
  const twice = thrown(() => parseSource('# c\n%YAML 1.2\n\n%YAML 1.2\n---\na: no\n', 'w.yaml'));
  assert.equal([twice.code, twice.line, twice.col, twice.message], ['E_PARSE', 4, 1, 'a second %YAML directive: YAML allows one per document']);
  assert.equal(parseSource('a: |\n  %YAML 1.1\n', 'w.yaml').data, { a: '%YAML 1.1\n' });
  // r81 b1: lone-CR line endings (old Mac files) are line endings here too.
  for (const [text, line] of [['%YAML 1.1\r---\ra: y\r', 1], ['%YAML 1.2\r%YAML 1.2\r---\ra: 1\r', 2], ['%TAG !e! tag:yaml.org,2002:\r---\ra: !e!int 3\r', 1]] as const) {
    const e = thrown(() => parseSource(text, 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', line, 1], JSON.stringify(text));
  }
});

files('r78 b1: a YAML file nested past the parser\'s own stack (flow or block) is E_SCHEMA with the JSON twin\'s pointer and message, at where level 129 starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-deep-'));
  const json = join(dir, 'w.json');
  writeFileSync(json, `{"variableRegistry": {"n": {"default": ${'['.repeat(3000)}1${']'.repeat(3000)}}}}`);
  const twin = validateFile(json).errors[0];
  assert.is(twin.pointer, `/variableRegistry/n/default${'/0'.repeat(126)}`);
  const flow = join(dir, 'flow.yaml');
  writeFileSync(flow, `variableRegistry:\n  n:\n    default: ${'['.repeat(3000)}1${']'.repeat(3000)}\n`);
  const block = join(dir, 'block.yaml');
  writeFileSync(block, `variableRegistry:\n  n:\n    default:\n${Array.from({ length: 6000 }, (_, i) => `${'  '.repeat(i + 3)}-`).join('\n')} 1\n`);
  for (const [file, line, col] of [[flow, 3, 14 + 126], [block, 4 + 126, 7 + 2 * 126]] as const) {
    const [finding] = validateFile(file).errors;
    assert.equal([finding.code, finding.pointer, finding.message, finding.line, finding.col], ['E_SCHEMA', twin.pointer, twin.message, line, col], file);
  }
});

files('a missing file is E_FILE_NOT_FOUND naming the file, with a fix', () => {
  const path = join(tmpdir(), 'cs-no-such-dir', 'missing.json');
  const e = thrown(() => readSource(path));
  assert.is(e.code, 'E_FILE_NOT_FOUND');
  assert.is(e.message, `file not found: ${path}`);
  assert.is(e.file, path);
  assert.ok(e.fix);
});

files('a directory is E_FILE_NOT_FOUND saying it is a directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-source-'));
  mkdirSync(join(dir, 'w.json'));
  const e = thrown(() => readSource(join(dir, 'w.json')));
  assert.is(e.code, 'E_FILE_NOT_FOUND');
  assert.ok(e.message.includes('is a directory'), e.message);
});

files('offsetToPosition is 1-based and clamps out-of-range offsets', () => {
  const text = 'ab\ncd\n';
  assert.equal(offsetToPosition(text, 0), { line: 1, col: 1 });
  assert.equal(offsetToPosition(text, 2), { line: 1, col: 3 });
  assert.equal(offsetToPosition(text, 3), { line: 2, col: 1 });
  assert.equal(offsetToPosition(text, 99), { line: 3, col: 1 });
  assert.equal(offsetToPosition(text, -5), { line: 1, col: 1 });
});

files('a 300-node JSON workflow parses and locates its last node', () => {
  const nodes = Array.from({ length: 300 }, (_, i) => ({ id: `n${i}`, type: 'agent-directive', directive: `step ${i}: {{x}}`, inputSchema: { type: 'object', properties: { out: { type: 'string' } } }, connections: { success: `n${i + 1}` } }));
  const text = JSON.stringify({ metadata: { name: 'big', version: '1.0.0', description: 'd' }, nodes }, null, 2);
  const doc = parseSource(text, 'big.json');
  assert.is((doc.data as { nodes: unknown[] }).nodes.length, 300);
  assert.equal(doc.locate('/nodes/299/connections/success'), offsetToPosition(text, text.lastIndexOf('"n300"')));
});

jsonPositions.run();
badJson.run();
yamlPositions.run();
badYaml.run();
files.run();
