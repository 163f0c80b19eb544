/** Answers are copied as JSON: the fast walk must give exactly what a JSON round trip gives. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonCopy } from '../../engine/format/json-copy.js';

const Copy = suite('answers copied as JSON');

const viaText = (v: unknown) => {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : { value: JSON.parse(text), bytes: Buffer.byteLength(text, 'utf8'), text };
};

const deep = (n: number) => {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

const CORPUS: Array<[string, unknown]> = [
  ['plain object', { score: 3, last_score: 97, note: 'fine' }],
  ['empty containers', { a: {}, b: [], c: [[]], d: [{}] }],
  ['scalars', [null, true, false, 0, -0, 1.5, -2e-7, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER]],
  ['escapes and control characters', { s: 'quote " backslash \\ tab \t newline \n nul \u0000 del \u007f' }],
  ['non-ASCII text', { s: 'café – 日本語 – 😀', 'ключ': 'значение' }],
  ['a lone surrogate', { s: 'broken \ud800 pair' }],
  ['keys needing escapes', { 'a"b': 1, 'c\\d': 2, 'e\nf': 3, '': 4 }],
  ['integer-like keys (JSON puts them first)', { b: 1, 2: 'two', a: 3, 1: 'one' }],
  ['a null-prototype object', Object.assign(Object.create(null), { x: 1, y: [1, 2] })],
  ['a Date', { at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }],
  ['undefined members', { a: undefined, b: [undefined, 1], c: () => 1 }],
  ['non-finite numbers', { a: NaN, b: [Infinity, -Infinity] }],
  ['a toJSON method', { a: { toJSON: () => ({ replaced: true }) } }],
  ['a toJSON data key', JSON.parse('{"toJSON": 1, "x": 2}')],
  ['an own __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "x": 1}')],
  ['a boxed string and a Map', { s: new String('boxed'), m: new Map([[1, 2]]) }],
  ['a sparse array', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['negative zero, bare and nested', { z: -0, list: [-0, 0, -1e-320] }],
  ['an array with its own toJSON', { a: Object.assign([1, 2], { toJSON: () => 'replaced' }) }],
  ['an array without a prototype', { a: Object.setPrototypeOf([1, 2], null) }],
  ['an array subclass', { a: new (class Items extends Array {})() }],
  ['a class instance (JSON keeps its own fields)', { p: new (class Point { x = 1; y = 2; })() }],
  ['a null-prototype object with a toJSON method', { a: Object.assign(Object.create(null), { toJSON: (k: string) => `key ${k}` }) }],
  ['toJSON gets the key JSON gives it', { when: { toJSON: (k: string) => `member ${k}` }, list: [{ toJSON: (k: string) => `index ${k}` }] }],
  ['members JSON leaves out or nulls', { u: undefined, f: () => 1, s: Symbol('s'), list: [undefined, () => 1, NaN, { toJSON: () => undefined }], keep: 1 }],
  ['an own __proto__ key next to a Date', JSON.parse('{"__proto__": {"x": 1}, "at": "2026"}')],
  ['nesting past the walk depth', deep(300)],
  ['a bare string', 'text'],
  ['a bare number', 42],
];

/** Deep equality that tells -0 from 0 (uvu's equal and JSON text do not) and checks prototypes. */
function same(got: unknown, want: unknown, at: string): void {
  if (want === null || typeof want !== 'object') {
    assert.ok(Object.is(got, want), `${at || '(root)'}: ${String(got)} is not ${String(want)}${Object.is(want, 0) ? ' (+0)' : ''}`);
    return;
  }
  assert.ok(got !== null && typeof got === 'object', `${at}: not an object`);
  assert.is(Object.getPrototypeOf(got), Object.getPrototypeOf(want), `${at}: prototype`);
  assert.equal(Object.keys(got as object), Object.keys(want), `${at}: keys`);
  for (const k of Object.keys(want)) same((got as Record<string, unknown>)[k], (want as Record<string, unknown>)[k], `${at}/${k}`);
}

for (const [name, value] of CORPUS) {
  Copy(`${name}: same value and byte count as JSON.stringify + JSON.parse`, () => {
    const got = jsonCopy(value);
    const want = viaText(value)!;
    assert.ok(got);
    assert.is(JSON.stringify(got!.value), want.text);
    same(got!.value, want.value, '');
    assert.is(got!.bytes, want.bytes);
  });
}

Copy('every property is read once, even when a value beside it goes through JSON (a Date)', () => {
  let reads = 0;
  const answer = { get n() { return ++reads; }, at: new Date(0), nested: { get m() { return ++reads; } } };
  const got = jsonCopy(answer)!;
  assert.is(reads, 2);
  assert.equal(got.value, { n: 1, at: '1970-01-01T00:00:00.000Z', nested: { m: 2 } });
  assert.is(got.bytes, Buffer.byteLength(JSON.stringify({ n: 1, at: '1970-01-01T00:00:00.000Z', nested: { m: 2 } })));
});

Copy('an array\'s length is read once, as JSON reads it: an element that grows the array does not grow the copy', () => {
  const grow = () => {
    const a: unknown[] = [];
    Object.defineProperty(a, 0, { get: () => (a.push(2), 1), enumerable: true, configurable: true });
    return { a };
  };
  const got = jsonCopy(grow())!;
  const want = JSON.stringify(grow());
  assert.is(JSON.stringify(got.value), want);
  assert.is(got.bytes, Buffer.byteLength(want));
});

Copy('the copy is detached: editing the original afterwards changes nothing copied', () => {
  const original = { list: [1, { x: 'a' }], inner: { y: 2 } };
  const got = jsonCopy(original)!;
  original.list.push(3);
  (original.list[1] as { x: string }).x = 'changed';
  original.inner.y = 99;
  assert.equal(got.value, { list: [1, { x: 'a' }], inner: { y: 2 } });
});

Copy('a value with no JSON text gives undefined; a cycle or a BigInt throws as JSON.stringify does', () => {
  assert.is(jsonCopy(undefined), undefined);
  assert.is(jsonCopy(() => 1), undefined);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.throws(() => jsonCopy(cyclic), /circular/i);
  assert.throws(() => jsonCopy({ n: 10n }), /BigInt/);
});

Copy.run();
