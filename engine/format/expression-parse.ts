/**
 * Parsing Moira expressions (see expression.ts for the syntax): a tokenizer
 * and a recursive-descent parser that builds the expression from the
 * closures in expression-evaluate.ts. A malformed expression throws
 * E_EXPRESSION_SYNTAX with the column of the fault and a fix.
 */
import { CountersignError } from '../errors.js';
import { binary, negate, wrapRead, type Compiled, type Read } from './expression-evaluate.js';
import type { Expression } from './expression.js';
import { isNameChar, parsePath } from './path.js';

type TokenType = 'number' | 'string' | 'path' | 'op' | 'end';
interface Token {
  type: TokenType;
  text: string;
  value?: unknown;
  start: number;
}

const FIX = 'write an assignment such as "counter = counter + 1" or "label = \'run \' + n"; subtract variables with spaces ("a - b"): "-" between letters is part of a name (node-id.field), and so is "-2" in a node id read as review-2.count';

/** Levels of "(" and unary minus an expression may nest: far beyond any real assignment. */
export const MAX_EXPRESSION_NESTING = 64;

export class ExpressionParser {
  private readonly tokens: Token[];
  private index = 0;
  private readonly reads: string[] = [];
  private readonly readOffsets: number[] = [];
  private readonly operands: Array<{ path: string; offset: number }> = [];
  private depth = 0;

  constructor(private readonly source: string) {
    this.tokens = this.tokenize();
  }

  parse(): Expression {
    const source = this.source;
    const first = this.peek();
    if (first.type === 'end') this.fail('the expression is empty', first.start);
    if (first.type !== 'path' || first.text === 'true' || first.text === 'false') {
      this.fail(`expected a variable name to assign to but found ${describe(first)} at column ${first.start + 1}`, first.start);
    }
    if (!isBareName(first.text)) {
      this.fail(`the assignment target "${first.text}" at column ${first.start + 1} must be a bare variable name (no dots or brackets)`, first.start);
    }
    this.index++;
    const eq = this.peek();
    if (eq.type !== 'op' || eq.text !== '=') this.fail(`expected "=" after "${first.text}" but found ${describe(eq)} at column ${eq.start + 1}`, eq.start);
    this.index++;
    const body = this.additive();
    const rest = this.peek();
    if (rest.type !== 'end') this.fail(`unexpected ${describe(rest)} at column ${rest.start + 1}`, rest.start);
    const reads = this.reads;
    return Object.freeze({
      source,
      target: first.text,
      targetOffset: first.start,
      reads,
      readOffsets: this.readOffsets,
      operands: this.operands,
      evaluate: (read: Read) => body.run(wrapRead(read, source)),
    });
  }

  private additive(): Compiled {
    let left = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t.type !== 'op' || (t.text !== '+' && t.text !== '-')) return left;
      this.index++;
      left = binary(t.text, left, this.multiplicative(), this.source);
    }
  }

  private multiplicative(): Compiled {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.type !== 'op' || (t.text !== '*' && t.text !== '/')) return left;
      this.index++;
      left = binary(t.text, left, this.unary(), this.source);
    }
  }

  private unary(): Compiled {
    const t = this.peek();
    if (t.type === 'op' && t.text === '-') {
      this.index++;
      this.deeper(t);
      const operand = this.unary();
      this.depth--;
      return negate(operand, this.source);
    }
    return this.primary();
  }

  /** One more level of "(" or unary minus: refused past the limit, before the parser or the evaluator could run out of stack. */
  private deeper(t: Token): void {
    if (++this.depth > MAX_EXPRESSION_NESTING) {
      this.fail(`the expression nests deeper than ${MAX_EXPRESSION_NESTING} levels of "(" or "-" at column ${t.start + 1}`, t.start);
    }
  }

  private primary(): Compiled {
    const t = this.peek();
    this.index++;
    switch (t.type) {
      case 'number':
      case 'string': {
        const value = t.value;
        return { label: t.text, run: () => value };
      }
      case 'path': {
        if (t.text === 'true' || t.text === 'false') {
          const value = t.text === 'true';
          return { label: t.text, run: () => value };
        }
        const path = t.text;
        this.operands.push({ path, offset: t.start });
        if (!this.reads.includes(path)) {
          this.reads.push(path);
          this.readOffsets.push(t.start);
        }
        return {
          label: `"${path}"`,
          run: (read) => {
            const res = read(path);
            return res.found ? res.value : undefined;
          },
        };
      }
      case 'op':
        if (t.text === '(') {
          this.deeper(t);
          const inner = this.additive();
          this.depth--;
          const close = this.peek();
          if (close.type !== 'op' || close.text !== ')') {
            this.fail(`expected ")" to close the "(" at column ${t.start + 1} but found ${describe(close)} at column ${close.start + 1}`, close.start);
          }
          this.index++;
          return { label: `(${inner.label})`, run: inner.run };
        }
        break;
      default:
        break;
    }
    return this.fail(`expected a value but found ${describe(t)} at column ${t.start + 1}`, t.start);
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private tokenize(): Token[] {
    const src = this.source;
    const tokens: Token[] = [];
    let i = 0;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) {
        i++;
      } else if (c >= 48 && c <= 57 && !digitLedName(src, i)) {
        const start = i;
        while (isDigit(src.charCodeAt(i))) i++;
        if (src[i] === '.' && isDigit(src.charCodeAt(i + 1))) {
          i++;
          while (isDigit(src.charCodeAt(i))) i++;
        }
        // An exponent, as JSON writes numbers: 1e3, 2.5E-4.
        const exponent = exponentLength(src, i);
        if (exponent > 0) i += exponent;
        const text = src.slice(start, i);
        // JSON writes no leading zeros (the condition section reads "007" as text, not a number): never silently a decimal.
        if (/^0[0-9]/.test(text)) {
          this.fail(`the number ${text} at column ${start + 1} has a leading zero, which a JSON number does not allow`, start, `write ${text.replace(/^0+(?=[0-9])/, '')} for the number, or '${text}' as a string`);
        }
        const value = Number(text);
        // Never silently another number: as a JSON or YAML value would be refused.
        if (!Number.isFinite(value)) this.fail(`the number ${text} is beyond the numbers a JSON number holds (it would be read as Infinity)`, start, 'write a smaller number');
        if (/^[0-9]+$/.test(text) && !Number.isSafeInteger(value) && BigInt(text) !== BigInt(value)) {
          this.fail(`the integer ${text} is beyond the integers a JSON number keeps exactly (±9007199254740991): it would be read as ${value}`, start, 'write a smaller integer, or the value as a string');
        }
        tokens.push({ type: 'number', text, value, start });
      } else if (c === 39 || c === 34) {
        const token = this.readString(i);
        tokens.push(token);
        i = token.start + token.text.length;
      } else if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36) {
        const start = i;
        i = this.readPath(i);
        tokens.push({ type: 'path', text: src.slice(start, i), start });
      } else if ('+-*/()='.includes(src[i])) {
        tokens.push({ type: 'op', text: src[i], start: i });
        i++;
      } else {
        // The whole character (an emoji is two UTF-16 units), control characters escaped: never half of one.
        this.fail(`unexpected character ${JSON.stringify(String.fromCodePoint(src.codePointAt(i)!))} at column ${i + 1}`, i);
      }
    }
    tokens.push({ type: 'end', text: '', start: src.length });
    return tokens;
  }

  private readString(start: number): Token {
    const src = this.source;
    const quote = src[start];
    let value = '';
    let i = start + 1;
    while (i < src.length && src[i] !== quote) {
      if (src[i] === '\\' && i + 1 < src.length) {
        i++;
        const e = src[i];
        value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
      } else {
        value += src[i];
      }
      i++;
    }
    if (i >= src.length) this.fail(`unterminated string starting at column ${start + 1}`, start);
    return { type: 'string', text: src.slice(start, i + 1), value, start };
  }

  /** A path: a name, then `.name`, `.0` or `[…]` segments; checked by the one path parser. */
  private readPath(start: number): number {
    const src = this.source;
    let i = this.scanName(start);
    for (;;) {
      if (src[i] === '.' && i + 1 < src.length && isNameChar(src.charCodeAt(i + 1))) {
        i = this.scanName(i + 1);
      } else if (src[i] === '[') {
        let depth = 0;
        for (; i < src.length; i++) {
          if (src[i] === '[') depth++;
          else if (src[i] === ']' && --depth === 0) break;
        }
        if (i >= src.length) this.fail(`unclosed "[" in the path starting at column ${start + 1}`, start);
        i++;
      } else {
        break;
      }
    }
    try {
      parsePath(src.slice(start, i));
    } catch (e) {
      if (!(e instanceof CountersignError)) throw e;
      const inner = (e.data as { offset?: number } | undefined)?.offset ?? 0;
      this.fail(`${e.message} at column ${start + inner + 1}`, start + inner);
    }
    return i;
  }

  /**
   * A name runs over name characters, but a `-` followed by a number ends
   * it: `remaining-1` is subtraction, as in Moira, while `run-tests.failures`
   * (a node id) stays one name. So does a node id with a digit after its
   * `-` when it is read as a node's field (`review-2.count`) or goes on
   * with letters (`step-2b`): no number looks like either. Variables are
   * subtracted with spaces.
   */
  private scanName(i: number): number {
    const src = this.source;
    while (i < src.length && isNameChar(src.charCodeAt(i))) {
      if (src[i] === '-') {
        if (i + 1 >= src.length || !isNameChar(src.charCodeAt(i + 1))) break;
        if (isDigit(src.charCodeAt(i + 1)) && !nameGoesOn(src, i + 1)) break;
      }
      i++;
    }
    return i;
  }

  private fail(what: string, index: number, fix = FIX): never {
    throw new CountersignError('E_EXPRESSION_SYNTAX', `expression "${this.source}": ${what}`, { fix, col: index + 1 });
  }
}

function describe(t: Token): string {
  return t.type === 'end' ? 'the end of the expression' : `"${t.text}"`;
}

/**
 * After `-` and a digit at `from`: whether the run of name characters there
 * is part of a name, not a number: it holds a letter or `_` (`2b`), or a
 * `.field` follows it (`2.count`; `.5` would be a decimal, so the field must
 * start with a letter or `_`).
 */
function nameGoesOn(src: string, from: number): boolean {
  // `n-1e2` subtracts a number in exponent form, as `n-100` does.
  if (!digitLedName(src, from)) {
    let d = from;
    while (isDigit(src.charCodeAt(d))) d++;
    if (exponentLength(src, d) > 0) return false;
  }
  let k = from;
  let word = false;
  while (k < src.length && isNameChar(src.charCodeAt(k)) && src[k] !== '-') {
    if (!isDigit(src.charCodeAt(k))) word = true;
    k++;
  }
  if (word) return true;
  return src[k] === '.' && k + 1 < src.length && /[A-Za-z_$]/.test(src[k + 1]);
}

/**
 * A name may start with a digit (`2nd-review`, `2x`), as ids and registry
 * names may: digits followed by a letter or `_` before any `-` or `.` are a
 * name, never a number (this grammar has no `2e5` or `0x1f` literals).
 */
function digitLedName(src: string, from: number): boolean {
  let k = from;
  while (k < src.length && isDigit(src.charCodeAt(k))) k++;
  // 1e3 is a number (JSON's exponent form); 1e3x would be neither, and is read as a name.
  const exponent = exponentLength(src, k);
  if (exponent > 0 && !(k + exponent < src.length && isNameChar(src.charCodeAt(k + exponent)) && src[k + exponent] !== '-')) return false;
  return k < src.length && isNameChar(src.charCodeAt(k)) && src[k] !== '-';
}

/** The length of an exponent (`e3`, `E-4`, `e+10`) at `at`, or 0. */
function exponentLength(src: string, at: number): number {
  if (src[at] !== 'e' && src[at] !== 'E') return 0;
  let k = at + 1;
  if (src[k] === '+' || src[k] === '-') k++;
  if (!isDigit(src.charCodeAt(k))) return 0;
  while (isDigit(src.charCodeAt(k))) k++;
  return k - at;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isBareName(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isNameChar(text.charCodeAt(i))) return false;
  return true;
}
