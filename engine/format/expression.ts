/**
 * Moira expressions: `counter = counter + 1`. One assignment to a bare
 * global name; the right side has + - * / with the usual precedence, unary
 * minus, parentheses, numbers, 'single' or "double" quoted strings,
 * true/false, and variable paths (`a`, `a.b`, `node-id.field`, `a.b[0]`).
 *
 * A `-` is a legal name character (node ids such as `fix-issues` appear in
 * paths), so a path is read greedily: `a-b` is ONE name, and subtraction
 * needs spaces: `a - b`. A number never absorbs `-`, so `5-3` subtracts.
 *
 * Parsed once per distinct source (cached) into a tree of closures; no
 * eval or Function constructor is involved.
 */
import { CountersignError } from '../errors.js';
import { isNameChar, parsePath } from './path.js';
import type { Resolution } from './resolver.js';

export interface Expression {
  source: string;
  /** The global the expression assigns to. */
  target: string;
  /** The variable paths the right side reads, as written, in order. */
  reads: string[];
  /** Computes the right side; throws E_EXPRESSION when an operand is unset or the arithmetic is invalid. */
  evaluate(read: (path: string) => Resolution): unknown;
}

type Read = (path: string) => Resolution;
/** A compiled sub-expression; `label` is its source text, for messages. */
interface Compiled {
  label: string;
  run(read: Read): unknown;
}

const CACHE_LIMIT = 5_000;
const cache = new Map<string, Expression>();

export function parseExpression(source: string): Expression {
  let hit = cache.get(source);
  if (!hit) {
    hit = new ExpressionParser(source).parse();
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(source, hit);
  }
  return hit;
}

type TokenType = 'number' | 'string' | 'path' | 'op' | 'end';
interface Token {
  type: TokenType;
  text: string;
  value?: unknown;
  start: number;
}

const FIX = 'write an assignment such as "counter = counter + 1" or "label = \'run \' + n"; subtraction needs spaces ("a - b") because "-" is allowed inside names';

class ExpressionParser {
  private readonly tokens: Token[];
  private index = 0;
  private readonly reads: string[] = [];

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
      reads,
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
      const operand = this.unary();
      const source = this.source;
      return {
        label: `-${operand.label}`,
        run: (read) => {
          const v = operand.run(read);
          if (typeof v !== 'number') throw runtimeError(source, `unary "-" needs a number, but ${operand.label} is ${kindOf(v)}`);
          return -v;
        },
      };
    }
    return this.primary();
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
        if (!this.reads.includes(path)) this.reads.push(path);
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
          const inner = this.additive();
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
      } else if (c >= 48 && c <= 57) {
        const start = i;
        while (isDigit(src.charCodeAt(i))) i++;
        if (src[i] === '.' && isDigit(src.charCodeAt(i + 1))) {
          i++;
          while (isDigit(src.charCodeAt(i))) i++;
        }
        const text = src.slice(start, i);
        tokens.push({ type: 'number', text, value: Number(text), start });
      } else if (c === 39 || c === 34) {
        const token = this.readString(i);
        tokens.push(token);
        i = token.start + token.text.length;
      } else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36) {
        const start = i;
        i = this.readPath(i);
        tokens.push({ type: 'path', text: src.slice(start, i), start });
      } else if ('+-*/()='.includes(src[i])) {
        tokens.push({ type: 'op', text: src[i], start: i });
        i++;
      } else {
        this.fail(`unexpected character "${src[i]}" at column ${i + 1}`, i);
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
    let i = start;
    while (i < src.length && isNameChar(src.charCodeAt(i))) i++;
    for (;;) {
      if (src[i] === '.' && i + 1 < src.length && isNameChar(src.charCodeAt(i + 1))) {
        i++;
        while (i < src.length && isNameChar(src.charCodeAt(i))) i++;
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

  private fail(what: string, index: number): never {
    throw new CountersignError('E_EXPRESSION_SYNTAX', `expression "${this.source}": ${what}`, { fix: FIX, col: index + 1 });
  }
}

function binary(op: string, left: Compiled, right: Compiled, source: string): Compiled {
  const label = `${left.label} ${op} ${right.label}`;
  const finite = (v: number): number => {
    if (!Number.isFinite(v)) throw runtimeError(source, `${label} is not a finite number`);
    return v;
  };
  const numbers = (a: unknown, b: unknown): [number, number] => {
    if (typeof a !== 'number') throw runtimeError(source, `"${op}" needs numbers, but ${left.label} is ${kindOf(a)}`);
    if (typeof b !== 'number') throw runtimeError(source, `"${op}" needs numbers, but ${right.label} is ${kindOf(b)}`);
    return [a, b];
  };
  let run: (read: Read) => unknown;
  switch (op) {
    case '+':
      run = (read) => {
        const a = left.run(read);
        const b = right.run(read);
        if (typeof a === 'number' && typeof b === 'number') return finite(a + b);
        if (typeof a === 'string' || typeof b === 'string') return asText(a) + asText(b);
        throw runtimeError(source, `"+" cannot add ${left.label} (${kindOf(a)}) and ${right.label} (${kindOf(b)}); it adds numbers or joins text`);
      };
      break;
    case '-':
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        return finite(a - b);
      };
      break;
    case '*':
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        return finite(a * b);
      };
      break;
    default:
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        if (b === 0) throw runtimeError(source, `division by zero: ${right.label} is 0`);
        return finite(a / b);
      };
  }
  return { label, run };
}

/** Operands are read through the caller's resolver; an unresolved or unset one is an error, never a silent NaN. */
function wrapRead(read: Read, source: string): Read {
  return (path) => {
    const res = read(path);
    if (!res.found) throw runtimeError(source, `"${path}" is not defined`);
    if (res.value === undefined || res.value === null) throw runtimeError(source, `"${path}" has no value (it is unset)`);
    return res;
  };
}

function runtimeError(source: string, what: string): CountersignError {
  return new CountersignError('E_EXPRESSION', `expression "${source}" failed: ${what}`, {
    fix: 'give the variables a value before this node runs (a registry default or initialData), or route the node\'s "error" connection',
  });
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `the boolean ${v}`;
  if (typeof v === 'object') return 'an object';
  return typeof v === 'undefined' ? 'unset' : `a ${typeof v}`;
}

function describe(t: Token): string {
  return t.type === 'end' ? 'the end of the expression' : `"${t.text}"`;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isBareName(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isNameChar(text.charCodeAt(i))) return false;
  return true;
}
