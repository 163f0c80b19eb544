import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { parseExpression } from '../../engine/format/expression.js';
import { resolve, runtimeScope } from '../../engine/format/resolver.js';

const VARS: Record<string, unknown> = {
  counter: 2,
  max: 5,
  half: 0.5,
  label: 'run',
  flag: true,
  items: [10, 20],
  obj: { k: 1 },
  zero: 0,
  big: 1e308,
  nothing: null,
  'a-b': 100,
  a: 7,
  b: 3,
  one: 1,
  'idx-name': 0,
};
const scope = runtimeScope(
  { vars: VARS, nodes: { 'fix-issues': { attempts: 4 } }, meta: { executionId: 'e', workflowId: 'w', userId: 'u' } },
  new Set(['fix-issues']),
  new Set([...Object.keys(VARS), 'unset_var']),
);
const read = (path: string) => resolve(path, scope);
const run = (source: string): unknown => parseExpression(source).evaluate(read);

function error(fn: () => unknown, code: string): CountersignError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, CountersignError);
    assert.is((e as CountersignError).code, code);
    return e as CountersignError;
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

const parsing = suite('expression: parsing');

parsing('"(" and unary "-" nest at most 64 levels: deeper is E_EXPRESSION_SYNTAX at that column, never a stack overflow', () => {
  const parens = (n: number) => `n = ${'('.repeat(n)}1${')'.repeat(n)}`;
  assert.is(parseExpression(parens(64)).target, 'n');
  for (const source of [parens(65), parens(20_000), `n = ${'-'.repeat(20_000)}1`]) {
    assert.throws(() => parseExpression(source), (e: CountersignError) => e.code === 'E_EXPRESSION_SYNTAX' && /nests deeper than 64 levels of "\(" or "-" at column 69/.test(e.message));
  }
});

parsing('target, reads and source of the canonical counter expression', () => {
  const e = parseExpression('counter = counter + 1');
  assert.is(e.source, 'counter = counter + 1');
  assert.is(e.target, 'counter');
  assert.equal(e.reads, ['counter']);
});

parsing('reads lists every distinct path in order, in any path form', () => {
  const e = parseExpression('total = fix-issues.attempts + items[0] * items.1 + obj.k + items[counter] + obj.k');
  assert.equal(e.reads, ['fix-issues.attempts', 'items[0]', 'items.1', 'obj.k', 'items[counter]']);
});

parsing('a node id with a digit after its "-" is one name when read as a node field (review-2.count) or when letters follow (step-2b); remaining-1 and a-1.5 still subtract', () => {
  assert.equal(parseExpression('t = total + review-2.count').reads, ['total', 'review-2.count']);
  assert.equal(parseExpression('t = step-2b + 1').reads, ['step-2b']);
  assert.equal(parseExpression('t = review-2.count-1').reads, ['review-2.count']);
  assert.equal(parseExpression('t = remaining-1').reads, ['remaining']);
  assert.equal(parseExpression('t = a-1.5').reads, ['a']);
  assert.equal(run('t = one-1'), 0);
  assert.equal(run('t = a-1.5'), 5.5);
});

parsing('a name may start with a digit, as ids and registry names may (2nd-review.count, 2x): read and assigned; plain numbers and decimals stay numbers', () => {
  assert.equal(parseExpression('n = 2nd-review.count + 1').reads, ['2nd-review.count']);
  assert.equal(parseExpression('n = 2x + 1').reads, ['2x']);
  assert.is(parseExpression('2x = n + 1').target, '2x');
  assert.equal(parseExpression('n = 2_a * 3').reads, ['2_a']);
  assert.equal(parseExpression('n = 12 + 3.5 - 2').reads, []);
  assert.equal(parseExpression('n = 2-x').reads, ['x'], 'a digit, then "-": subtraction, as before');
  assert.equal(parseExpression('n = a+2').reads, ['a']);
  assert.is(parseExpression('n = 2x * 10').evaluate((p) => ({ found: true, value: p === '2x' ? 4 : undefined }) as never), 40);
});

parsing('numbers may be written with an exponent, as in JSON (1e3, 2.5E-4); n-1e2 subtracts; 1e3x is a name', () => {
  assert.is(run('t = 1e3 + 1'), 1001);
  assert.is(run('t = 2.5E-4 * 2'), 0.0005);
  assert.equal(parseExpression('t = 1e3').reads, []);
  assert.equal(parseExpression('t = n-1e2').reads, ['n']);
  assert.equal(parseExpression('t = 1e3x + 1').reads, ['1e3x']);
});

parsing('literals are not reads', () => {
  assert.equal(parseExpression("x = 'a' + \"b\" + 1 + true").reads, []);
});

parsing('parsed expressions are cached per source', () => {
  assert.is(parseExpression('n = n + 2'), parseExpression('n = n + 2'));
});

const evaluation = suite('expression: evaluation');

evaluation('+ - * / with normal precedence and left associativity', () => {
  assert.is(run('x = counter + max * 2'), 12);
  assert.is(run('x = (counter + max) * 2'), 14);
  assert.is(run('x = max - counter - 1'), 2);
  assert.is(run('x = 12 / 2 / 3'), 2);
  assert.is(run('x = 7 - 2 * 3 + 1'), 2);
  assert.is(run('x = half * 4'), 2);
});

evaluation('unary minus binds tighter than binary operators', () => {
  assert.is(run('x = -counter * 3'), -6);
  assert.is(run('x = max - -counter'), 7);
  assert.is(run('x = --counter'), 2);
  assert.is(run('x = -(counter + 1)'), -3);
});

evaluation('number, string and boolean literals', () => {
  assert.is(run('x = 3.25'), 3.25);
  assert.is(run("x = 'single'"), 'single');
  assert.is(run('x = "double"'), 'double');
  assert.is(run("x = 'it\\'s'"), "it's");
  assert.is(run('x = true'), true);
  assert.is(run('x = false'), false);
});

evaluation('+ concatenates when either side is a string', () => {
  assert.is(run("x = label + '-' + counter"), 'run-2');
  assert.is(run("x = counter + 1 + ' runs'"), '3 runs');
  assert.is(run("x = 'flag: ' + flag"), 'flag: true');
  assert.is(run("x = 'obj ' + obj"), 'obj {"k":1}');
});

evaluation('node-local fields and indexed paths are operands', () => {
  assert.is(run('x = fix-issues.attempts + 1'), 5);
  assert.is(run('x = items[0] + items.1'), 30);
  assert.is(run('x = items[one] + items[idx-name]'), 30);
});

evaluation('a hyphen inside a name is part of the name; subtraction needs spaces', () => {
  assert.is(run('x = a-b'), 100);
  assert.is(run('x = a - b'), 4);
  assert.is(run('x = 5-3'), 2);
});

evaluation('a bare path can copy any value', () => {
  assert.equal(run('x = obj'), { k: 1 });
});

const runtimeErrors = suite('expression: evaluation errors are E_EXPRESSION naming the expression and operand');

runtimeErrors('an unresolved operand', () => {
  const e = error(() => run('n = missing + 1'), 'E_EXPRESSION');
  assert.is(e.message, 'expression "n = missing + 1" failed: "missing" is not defined');
  assert.ok(e.fix);
});

runtimeErrors('an unset or null operand', () => {
  assert.is(error(() => run('n = unset_var + 1'), 'E_EXPRESSION').message, 'expression "n = unset_var + 1" failed: "unset_var" has no value (it is unset)');
  assert.is(error(() => run("n = 'x' + nothing"), 'E_EXPRESSION').message, `expression "n = 'x' + nothing" failed: "nothing" has no value (it is unset)`);
});

runtimeErrors('a non-number in - * /', () => {
  assert.is(error(() => run('n = label - 1'), 'E_EXPRESSION').message, 'expression "n = label - 1" failed: "-" needs numbers, but "label" is the string "run"');
  assert.is(error(() => run('n = 2 * flag'), 'E_EXPRESSION').message, 'expression "n = 2 * flag" failed: "*" needs numbers, but "flag" is the boolean true');
  assert.is(error(() => run("n = counter / '2'"), 'E_EXPRESSION').message, `expression "n = counter / '2'" failed: "/" needs numbers, but '2' is the string "2"`);
});

runtimeErrors('+ on two non-strings that are not both numbers', () => {
  assert.is(error(() => run('n = flag + 1'), 'E_EXPRESSION').message, 'expression "n = flag + 1" failed: "+" cannot add "flag" (the boolean true) and 1 (a number); it adds numbers or joins text');
  assert.is(error(() => run('n = items + obj'), 'E_EXPRESSION').message, 'expression "n = items + obj" failed: "+" cannot add "items" (an array) and "obj" (an object); it adds numbers or joins text');
});

runtimeErrors('unary minus on a non-number', () => {
  assert.is(error(() => run('n = -label'), 'E_EXPRESSION').message, 'expression "n = -label" failed: unary "-" needs a number, but "label" is the string "run"');
});

runtimeErrors('division by zero', () => {
  assert.is(error(() => run('n = counter / zero'), 'E_EXPRESSION').message, 'expression "n = counter / zero" failed: division by zero: "zero" is 0');
  assert.is(error(() => run('n = 1 / (counter - 2)'), 'E_EXPRESSION').message, 'expression "n = 1 / (counter - 2)" failed: division by zero: ("counter" - 2) is 0');
  assert.is(error(() => run('n = counter / 0'), 'E_EXPRESSION').message, 'expression "n = counter / 0" failed: division by zero', 'a literal 0 is not named again');
});

runtimeErrors('a non-finite result', () => {
  assert.is(error(() => run('n = big * 10'), 'E_EXPRESSION').message, 'expression "n = big * 10" failed: "big" * 10 is not a finite number');
  assert.is(error(() => run('n = big + big'), 'E_EXPRESSION').message, 'expression "n = big + big" failed: "big" + "big" is not a finite number');
});

runtimeErrors('whole-number arithmetic past ±2^53 is E_EXPRESSION, never a silently different integer (a counter that stops counting)', () => {
  const e = error(() => run('n = 9007199254740991 + 2'), 'E_EXPRESSION');
  assert.match(e.message, 'beyond the integers a number keeps exactly (±9007199254740991): the exact result is lost');
  // r115: the result is said exactly, never as the double it rounds to (9007199254740992).
  assert.match(e.message, 'failed: 9007199254740991 + 2 is 9007199254740993, beyond');
  assert.match(error(() => run('n = 9007199254740991 * 3'), 'E_EXPRESSION').message, 'is 27021597764222973, beyond');
  assert.match(error(() => run('n = -9007199254740991 - 2'), 'E_EXPRESSION').message, 'is -9007199254740993, beyond');
  error(() => run('n = 9007199254740991 * 3'), 'E_EXPRESSION');
  error(() => run('n = -9007199254740991 - 2'), 'E_EXPRESSION');
  assert.is(run('n = 9007199254740990 + 1'), 9007199254740991);
  // An operand already past 2^53 (an answer's number, a literal such as 1e16) makes a result past it too.
  error(() => run('n = 9007199254740992 + 1'), 'E_EXPRESSION');
  error(() => run('n = 1e16 + 1'), 'E_EXPRESSION');
  assert.match(error(() => run('n = 1e16 + 1'), 'E_EXPRESSION').message, '1e16 + 1 is 10000000000000001, beyond');
  assert.is(run('n = 1.5 * 1e300'), 1.5e300, 'fractions and large doubles are not whole-number arithmetic');
  // r114 c1: division and unary minus too.
  for (const source of ['n = 1e20 / 1', 'n = -1e20', 'n = -(9007199254740991 + 1)']) {
    assert.match(error(() => run(source), 'E_EXPRESSION').message, 'beyond the integers a number keeps exactly (±9007199254740991)', source);
  }
  assert.match(error(() => run('n = 1e20 / 1'), 'E_EXPRESSION').message, 'failed: 1e20 / 1 is 100000000000000000000, beyond');
  assert.match(error(() => run('n = -1e20'), 'E_EXPRESSION').message, 'failed: -1e20 is -100000000000000000000, beyond');
  // r117 b1: a result within it is exact, whatever its operands (they are held exactly): never refused, so a literal such as 1e16 validates and runs.
  assert.is(run('n = 1e16 * 0'), 0);
  assert.is(run('n = 1e20 - 1e20'), 0);
  assert.is(run('n = 1e20 / 1e10'), 1e10);
  assert.is(run('n = 7 / 2'), 3.5, 'a whole-number division may give a fraction');
  assert.is(run('n = -9007199254740991'), -9007199254740991);
  assert.is(run('n = 9007199254740991 / 3'), 3002399751580330.5);
});

runtimeErrors('text longer than 1 MiB is E_EXPRESSION naming the length and the limit, never a JavaScript RangeError', () => {
  const doubling = (n: number) => run(`x = '${'a'.repeat(n)}' + '${'b'.repeat(n)}'`);
  assert.is((doubling(512 * 1024) as string).length, 1024 * 1024, 'exactly the limit is kept');
  const e = error(() => doubling(512 * 1024 + 1), 'E_EXPRESSION');
  assert.match(e.message, `would be text ${1024 * 1024 + 2} characters long; an expression's text is limited to 1048576 characters, as an answer is to 1 MiB`);
});

const syntax = suite('expression: syntax errors are E_EXPRESSION_SYNTAX naming the column and token');

syntax('a number literal an expression could not keep exactly is refused at its column, never silently another number: an integer past ±2^53, an exponent past the largest double', () => {
  const refused = (source: string): CountersignError => {
    try {
      parseExpression(source);
    } catch (e) {
      return e as CountersignError;
    }
    throw new Error(`${source} was accepted`);
  };
  const big = refused('n = 9007199254740993');
  assert.is(big.code, 'E_EXPRESSION_SYNTAX');
  assert.match(big.message, 'the integer 9007199254740993 is beyond the integers a JSON number keeps exactly (±9007199254740991): it would be read as 9007199254740992');
  assert.is(big.col, 5);
  assert.is(big.fix, 'write a smaller integer, or the value as a string');
  assert.match(refused('n = 2 * 1e999').message, 'the number 1e999 is beyond the numbers a JSON number holds');
  // Exactly held, however large: accepted.
  for (const fine of ['n = 9007199254740992', 'n = 1e20', 'n = 9007199254740991 + 1']) parseExpression(fine);
});

syntax('a zero-led number (007, 0010) is refused at its column, never read as a decimal', () => {
  for (const [source, number, col] of [['n = 007 + 1', '007', 5], ["s = 'v' + 0010", '0010', 11], ['n = 01', '01', 5], ['n = -00.5', '00.5', 6]] as const) {
    const e = error(() => parseExpression(source), 'E_EXPRESSION_SYNTAX');
    assert.match(e.message, `the number ${number} at column ${col} has a leading zero`, source);
    assert.is(e.col, col, source);
    assert.match(e.fix!, `'${number}'`, source);
  }
  for (const fine of ['n = 0', 'n = 0.5', 'n = 0e3', 'n = 10', 'n = 100.05']) parseExpression(fine);
});

syntax('each malformed form', () => {
  const cases: [string, string, number][] = [
    ['', 'the expression is empty', 1],
    ['n + 1', 'expected "=" after "n" but found "+" at column 3', 3],
    ['n = * 2', 'expected a value but found "*" at column 5', 5],
    ['n = 1 +', 'expected a value but found the end of the expression at column 8', 8],
    ['n = (1 + 2', 'expected ")" to close the "(" at column 5 but found the end of the expression at column 11', 11],
    ['n = 1 2', 'unexpected "2" at column 7', 7],
    ['n = 1)', 'unexpected ")" at column 6', 6],
    ["n = 'open", 'unterminated string starting at column 5', 5],
    ['n = 1 % 2', 'unexpected character "%" at column 7', 7],
    ['n = 1 😀 2', 'unexpected character "😀" at column 7', 7],
    ['n = a == b', 'unexpected "=" at column 7', 7],
    ['n = items[counter - 1]', 'malformed variable path "items[counter - 1]": expected "]" but found " " at column 18', 18],
    ['a.b = 1', 'the assignment target "a.b" at column 1 must be a bare variable name (no dots or brackets)', 1],
    ['items[0] = 1', 'the assignment target "items[0]" at column 1 must be a bare variable name (no dots or brackets)', 1],
    ['1 = n', 'expected a variable name to assign to but found "1" at column 1', 1],
    ['true = 1', 'expected a variable name to assign to but found "true" at column 1', 1],
    ['= 1', 'expected a variable name to assign to but found "=" at column 1', 1],
    ['n = items[0', 'unclosed "[" in the path starting at column 5', 5],
    ['n = items[]', 'malformed variable path "items[]": expected a variable name but found "]" at column 11', 11],
  ];
  for (const [source, what, col] of cases) {
    const e = error(() => parseExpression(source), 'E_EXPRESSION_SYNTAX');
    assert.is(e.message, `expression "${source}": ${what}`, source);
    assert.is(e.col, col, source);
    assert.ok(e.fix?.includes('a - b'), source);
  }
});

parsing.run();
evaluation.run();
runtimeErrors.run();
syntax.run();
