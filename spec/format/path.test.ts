import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { formatPath, parsePath, pathRoot } from '../../engine/format/path.js';
import { thrownWithCode } from '../helpers/errors.js';
import { validateFile } from '../../engine/validate/index.js';

const paths = suite('path: parsing variable paths');

paths('a bare name is one segment', () => {
  assert.equal(parsePath('issues_count'), ['issues_count']);
});

paths('node-id.field keeps the hyphen inside the node id', () => {
  assert.equal(parsePath('delegate-review.issues_found'), ['delegate-review', 'issues_found']);
});

paths('bracket and dot indexes are both numbers', () => {
  assert.equal(parsePath('a.b[0]'), ['a', 'b', 0]);
  assert.equal(parsePath('a.b.0'), ['a', 'b', 0]);
  assert.equal(parsePath('review.issues.12.text'), ['review', 'issues', 12, 'text']);
});

paths('an index ref is a nested path', () => {
  assert.equal(parsePath('items[idx]'), ['items', { ref: ['idx'] }]);
  assert.equal(parsePath('items[a.b].name'), ['items', { ref: ['a', 'b'] }, 'name']);
  assert.equal(parsePath('m[items[0]]'), ['m', { ref: ['items', 0] }]);
});

paths('this, this.f and @index are plain segments', () => {
  assert.equal(parsePath('this'), ['this']);
  assert.equal(parsePath('this.f'), ['this', 'f']);
  assert.equal(parsePath('@index'), ['@index']);
});

paths('$ and _ are name characters; a segment after a dot may start with a digit when it is not all digits', () => {
  assert.equal(parsePath('$x._y'), ['$x', '_y']);
  assert.equal(parsePath('a.2nd'), ['a', '2nd']);
  assert.equal(parsePath('a.01'), ['a', '01']);
});

paths('results are cached and frozen', () => {
  const a = parsePath('cache.me[0]');
  assert.is(parsePath('cache.me[0]'), a);
  assert.ok(Object.isFrozen(a));
});

paths('pathRoot is the first segment', () => {
  assert.is(pathRoot('review.summary'), 'review');
  assert.is(pathRoot('items[idx]'), 'items');
  assert.is(pathRoot('@index'), '@index');
});

paths('formatPath writes segments back in template form', () => {
  assert.is(formatPath(parsePath('a.b.0')), 'a.b[0]');
  assert.is(formatPath(parsePath('items[a.b].c')), 'items[a.b].c');
});

const malformed = suite('path: malformed paths are E_TEMPLATE_SYNTAX');

function failure(text: string): CountersignError {
  return thrownWithCode(() => parsePath(text), 'E_TEMPLATE_SYNTAX');
}

paths('a root may start with a digit when it is not all digits (node ids such as 2nd-review are read as 2nd-review.field)', () => {
  assert.equal(parsePath('2nd-review.count'), ['2nd-review', 'count']);
  assert.equal(parsePath('0abc[1]'), ['0abc', 1]);
});

malformed('each malformed form names what is wrong and where', () => {
  const cases: [string, string, number][] = [
    ['', 'the path is empty', 0],
    ['a..b', 'expected a name or an index after "." but found "."', 2],
    ['a.', 'expected a name or an index after "." but found the end of the path', 2],
    ['a[0', 'expected "]" but found the end of the path', 3],
    ['a[]', 'expected a variable name but found "]"', 2],
    ['42', 'a variable name cannot be digits alone', 0],
    ['42.x', 'a variable name cannot be digits alone', 0],
    ['a b', 'unexpected " "', 1],
    ["a['k']", `expected a variable name but found "'"`, 2],
    ['a[01]', 'index "01" has a leading zero', 2],
    ['.a', 'expected a variable name but found "."', 0],
    // r117 b3: a character outside the BMP is named whole, never half of its surrogate pair; a control character escaped.
    ['😀x', 'expected a variable name but found "😀"', 0],
    ['n.😀', 'expected a name or an index after "." but found "😀"', 2],
    ['a\tb', 'unexpected "\\t"', 1],
  ];
  for (const [text, what, offset] of cases) {
    const e = failure(text);
    assert.is(e.message, `malformed variable path "${text}": ${what}`, text);
    assert.equal(e.data, { offset }, text);
    assert.ok(e.fix, text);
  }
  // The fix names only what a name may start with: a "$" name is refused everywhere (E_VARIABLE_NAME, node ids).
  assert.is(failure('42').fix, 'start the name with a letter or "_"; digits alone are only valid as an index such as a.0 or a[0]');
});

malformed('a negative or fractional index is E_TEMPLATE_SYNTAX at the index, saying indices are 0-based and non-negative, never read as a variable named "-1"', () => {
  const cases: [string, string, number][] = [
    ['items[-1]', 'index "-1" is negative', 6],
    ['a.b[-12].c', 'index "-12" is negative', 4],
    ['items.-1', 'index "-1" is negative', 6],
    ['items[+1]', 'index "+1" is not a plain number', 6],
    ['items[1.5]', 'index "1.5" is not a whole number', 6],
  ];
  for (const [text, what, offset] of cases) {
    const e = failure(text);
    assert.is(e.message, `malformed variable path "${text}": ${what}`, text);
    assert.equal(e.data, { offset }, text);
    assert.match(e.fix ?? '', /0-based/, text);
    assert.match(e.fix ?? '', /\[0\] is the first item/, text);
    assert.not.match(e.fix ?? '', /declare/i, text);
  }
  // A name that merely holds a "-" (node ids such as review-2) is still a name.
  assert.equal(parsePath('items[review-2.n]'), ['items', { ref: ['review-2', 'n'] }]);
});

malformed('an index past 9007199254740991 is said as too large, with a fix naming the largest index, never one about leading zeros it does not have', () => {
  for (const [text, word] of [['items[9007199254740993]', '9007199254740993'], ['items[99999999999999999999]', '99999999999999999999']]) {
    const e = failure(text);
    assert.is(e.message, `malformed variable path "${text}": index "${word}" is too large (the largest is 9007199254740991)`, text);
    assert.equal(e.data, { offset: 6 }, text);
    assert.not.match(e.fix ?? '', /leading zero/, text);
    assert.match(e.fix ?? '', /9007199254740991/, text);
  }
  // Every index a number holds exactly is read as one, 16 digits included.
  assert.equal(parsePath('items[9007199254740991]'), ['items', 9007199254740991]);
  assert.equal(parsePath('items[1000000000000000]'), ['items', 1000000000000000]);
  assert.match(failure('a[01]').fix ?? '', /leading zero/);
});

malformed('validate reports {{items[-1]}} as E_TEMPLATE_SYNTAX at the index, even when a variable named "-1" is declared, never E_UNDECLARED_VARIABLE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-neg-index-'));
  const body = (registry: string) => `metadata: {name: neg, version: 1.0.0, description: x}\nvariableRegistry:\n${registry}  items: {type: array, description: l, default: [a, b, c]}\nnodes:\n  - {type: start, id: start, connections: {default: a}}\n  - {type: agent-directive, id: a, directive: "last={{items[-1]}}", completionCondition: done, connections: {success: e}}\n  - {type: end, id: e}\n`;
  for (const registry of ['', '  "-1": {type: integer, description: m, default: 2}\n']) {
    const file = join(dir, `neg${registry.length}.yaml`);
    writeFileSync(file, body(registry));
    const errors = validateFile(file).errors;
    assert.equal(errors.map((e) => e.code), ['E_TEMPLATE_SYNTAX'], JSON.stringify(errors));
    const [e] = errors;
    assert.match(e.message, 'index "-1" is negative');
    assert.match(e.message, /0-based/, 'the fix travels with the finding');
    assert.not.match(e.message, /declare/i);
    const lines = body(registry).split('\n');
    const line = lines.findIndex((l) => l.includes('items[-1]'));
    assert.equal([e.line, e.col], [line + 1, lines[line].indexOf('-1]') + 1], 'at the "-1" inside the directive');
  }
});

paths.run();
malformed.run();
