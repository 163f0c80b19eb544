import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { formatPath, parsePath, pathRoot } from '../../engine/format/path.js';
import { thrownWithCode } from '../helpers/errors.js';

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

paths.run();
malformed.run();
