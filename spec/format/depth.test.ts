/** The nesting limit names the first value (in document order) nested too deep: the one a person reads first. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cutBelow, deeperThan } from '../../engine/format/depth.js';

const Depth = suite('deeperThan');

const nest = (n: number): unknown => (n === 0 ? 'leaf' : { k: nest(n - 1) });

Depth('within the limit: undefined; past it: the pointer of the first member too deep, in document order', () => {
  assert.is(deeperThan({ a: nest(3), b: [nest(2)] }, 3), undefined);
  assert.is(deeperThan({ a: nest(5), b: nest(5) }, 3), '/a/k/k/k');
  assert.is(deeperThan([nest(1), nest(5), nest(5)], 3), '/1/k/k/k');
  assert.is(deeperThan({ 'x/y': { '~': nest(5) } }, 3), '/x~1y/~0/k/k');
});

Depth('cutBelow copies to a depth, every key an own property (a `__proto__` key included), without recursion', () => {
  const deep = JSON.parse(`{"__proto__": {"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}}, "x": 1}`);
  const cut = cutBelow(deep, 3) as Record<string, any>;
  assert.ok(Object.hasOwn(cut, '__proto__'), 'kept as a key, not made the prototype');
  assert.is(Object.getPrototypeOf(cut), Object.prototype);
  assert.equal(JSON.parse(JSON.stringify(cut)), JSON.parse('{"__proto__": {"a": [[]]}, "x": 1}'));
  assert.is(deeperThan(cut, 2), '/__proto__/a/0');
});

Depth.run();
