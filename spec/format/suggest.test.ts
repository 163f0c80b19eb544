import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { damerauLevenshtein, suggest } from '../../engine/format/suggest.js';

const test = suite('suggest: did you mean');

test('a one-letter typo finds the declared name', () => {
  assert.is(suggest('issue_count', ['review_file', 'issues_count']), 'issues_count');
});

test('an adjacent transposition counts as one edit', () => {
  assert.is(damerauLevenshtein('form', 'from'), 1);
  assert.is(suggest('reveiw', ['review']), 'review');
});

test('a case-insensitive match wins over a closer-looking spelling', () => {
  assert.is(suggest('Counter', ['counte', 'counter']), 'counter');
});

test('the limit is max(1, floor(len/3)) edits', () => {
  assert.is(suggest('ab', ['xy']), undefined);
  assert.is(suggest('ab', ['ax']), 'ax');
  assert.is(suggest('abcdef', ['abxyef']), 'abxyef');
  assert.is(suggest('abcdef', ['xbxyef']), undefined);
});

test('r95 B: dropped letters count against the longer name, so a shortened typo is still found ("sumry" → "summary")', () => {
  assert.is(suggest('sumry', ['summary', 'issues']), 'summary');
  assert.is(suggest('cnt', ['count']), undefined, 'two edits in a five-letter name are too many');
});

test('nothing close gives undefined', () => {
  assert.is(suggest('totally', ['review', 'count']), undefined);
  assert.is(suggest('x', []), undefined);
});

test('the closest of several candidates wins', () => {
  assert.is(suggest('counter_max', ['counter_mix', 'counter_max2', 'counter_ma']), 'counter_mix');
  assert.is(suggest('summary', ['sumary', 'summary_x']), 'sumary');
});

test('a dotted name compared with field names suggests the whole corrected path', () => {
  assert.is(suggest('review.sumary', ['summary', 'issues']), 'review.summary');
  assert.is(suggest('fix-issues.Changed', ['changed']), 'fix-issues.changed');
});

test('a dotted name compared with dotted candidates compares whole paths', () => {
  assert.is(suggest('review.sumary', ['review.summary', 'other.summary']), 'review.summary');
});

test('a one-letter name is too short to be taken for a typo of another ("a" is not "n"); two letters may be ("nn" → "n")', () => {
  assert.is(suggest('a', ['n', 'm']), undefined);
  assert.is(suggest('x', ['n']), undefined);
  assert.is(suggest('nn', ['n']), 'n');
  assert.is(suggest('N', ['n']), 'n', 'a case-insensitive match still wins');
});

test.run();
