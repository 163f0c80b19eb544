/**
 * E_VARIABLE_VALUE is located at the part of a registry default or a start
 * node's initialData value that does not fit the variable's schema — the
 * key that is not allowed, the member of the wrong type — with its own
 * line:col, as a start input with the same value is: one finding per part,
 * so every misfit is found in one pass.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument, type ValidationReport } from '../../engine/validate/index.js';

const Seeds = suite('E_VARIABLE_VALUE locations');

function validateYaml(lines: string[]): ValidationReport {
  return validateDocument(parseSource(`${lines.join('\n')}\n`, 'seeds.yaml'));
}

/** `pointer line:col` of each E_VARIABLE_VALUE. */
const places = (r: ValidationReport) => r.errors.filter((e) => e.code === 'E_VARIABLE_VALUE').map((e) => `${e.pointer} ${e.line}:${e.col}`);

/** The 1-based column of `needle` (its n-th occurrence) on a line. */
const col = (line: string, needle: string, n = 0) => {
  let at = line.indexOf(needle);
  for (let k = n; k > 0; k--) at = line.indexOf(needle, at + 1);
  return at + 1;
};

const head = 'metadata: { name: seeds, version: 1.0.0, description: d }';

Seeds('a key a default may not hold is reported at that key, a member of the wrong type at that member (registry default and initialData value alike)', () => {
  const entry = '  o: { type: object, description: o, properties: { a: { type: integer } }, default: { a: 1, extra: 2 } }';
  const seed = '        o: { description: d, value: { a: "s" } }';
  const report = validateYaml([head, 'variableRegistry:', entry, 'nodes:', '  - id: start', '    type: start', '    initialData:', '      variables:', seed, '    connections: { default: done }', '  - { id: done, type: end, finalOutput: [o] }']);
  assert.equal(places(report), [
    `/variableRegistry/o/default/extra 3:${col(entry, 'extra')}`,
    `/nodes/0/initialData/variables/o/value/a 9:${col(seed, '"s"')}`,
  ]);
  const [extra, a] = report.errors;
  assert.match(extra.message, 'this default does not fit the schema of variable "o"');
  assert.match(extra.message, 'property "extra" is not allowed here');
  assert.match(a.message, 'this initialData value does not fit the schema of variable "o"');
  assert.match(a.message, 'must be integer');
});

Seeds('every part of one value that does not fit is its own finding, each at its place; the problems of one place are one finding', () => {
  const entry = '  p: { type: object, description: p, properties: { n: { type: integer, minimum: 0 }, tags: { type: array, items: { type: string } } }, default: { n: -1.5, tags: [a, 3, b, true], stray: x } }';
  const report = validateYaml([head, 'variableRegistry:', entry, 'nodes:', '  - { id: start, type: start, connections: { default: done } }', '  - { id: done, type: end, finalOutput: [p] }']);
  assert.equal(places(report).sort(), [
    `/variableRegistry/p/default/n 3:${col(entry, '-1.5')}`,
    `/variableRegistry/p/default/stray 3:${col(entry, 'stray')}`,
    `/variableRegistry/p/default/tags/1 3:${col(entry, '3, b')}`,
    `/variableRegistry/p/default/tags/3 3:${col(entry, 'true]')}`,
  ].sort());
  const n = report.errors.find((e) => e.pointer.endsWith('/n'))!;
  // A number both fractional and negative breaks two rules at one place: one finding naming both.
  assert.match(n.message, 'must be integer');
  assert.match(n.message, 'must be >= 0');
});

Seeds('a value that fits none of an anyOf\'s alternatives is one finding at that value; a misfit of the whole value stays at the value', () => {
  const entry = '  v: { type: object, description: v, properties: { id: { anyOf: [{ type: string }, { type: integer }] } }, default: { id: true } }';
  const plain = '  e: { type: string, description: e, enum: [x, y], default: z }';
  const report = validateYaml([head, 'variableRegistry:', entry, plain, 'nodes:', '  - { id: start, type: start, connections: { default: done } }', '  - { id: done, type: end, finalOutput: [v, e] }']);
  assert.equal(places(report), [`/variableRegistry/v/default/id 3:${col(entry, 'true')}`, `/variableRegistry/e/default 4:${col(plain, 'z }')}`]);
  // One line at the value, what the alternatives wanted folded into it: never "must be string" and "must be integer" apart.
  assert.match(report.errors[0].message, '(/id: must be string or integer (it fits none of the anyOf alternatives))');
});

Seeds('a default with very many stray keys gives a bounded number of findings, the rest counted in one finding at the value', () => {
  const keys = Array.from({ length: 60 }, (_, i) => `k${i}: ${i}`).join(', ');
  const report = validateYaml([head, 'variableRegistry:', `  o: { type: object, description: o, properties: { a: { type: integer } }, default: { ${keys} } }`, 'nodes:', '  - { id: start, type: start, connections: { default: done } }', '  - { id: done, type: end, finalOutput: [o] }']);
  const found = report.errors.filter((e) => e.code === 'E_VARIABLE_VALUE');
  assert.ok(found.length > 1 && found.length <= 21, `${found.length} findings`);
  const rest = found.find((e) => e.pointer === '/variableRegistry/o/default');
  assert.ok(rest, 'one finding at the value counts the rest');
  assert.match(rest!.message, `${60 - (found.length - 1)} more places`);
});

Seeds('a default key its propertyNames refuses is one finding at that key, naming the key and the rule', () => {
  const entry = '  o: { type: object, description: o, propertyNames: { pattern: "^k_" }, default: { k_ok: 1, bad: 2 } }';
  const report = validateYaml([head, 'variableRegistry:', entry, 'nodes:', '  - { id: start, type: start, connections: { default: done } }', '  - { id: done, type: end, finalOutput: [o] }']);
  const found = report.errors.filter((e) => e.code === 'E_VARIABLE_VALUE');
  assert.equal(found.map((e) => e.pointer), ['/variableRegistry/o/default/bad']);
  assert.match(found[0].message, '(/bad: property name "bad" must match pattern "^k_")');
});

Seeds.run();
