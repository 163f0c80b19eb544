/**
 * Evaluating Moira expressions: the closures a parsed expression is built
 * from. Arithmetic is checked as it runs, so an unset operand, a wrong type,
 * a division by zero or a non-finite result is an E_EXPRESSION error naming
 * the operand, never a silent NaN.
 */
import { CountersignError } from '../errors.js';
import type { Resolution } from './resolver.js';

export type Read = (path: string) => Resolution;

/** The longest text an expression may build: the answer limit's size (1 MiB). */
export const MAX_TEXT_CHARS = 1024 * 1024;
/** A compiled sub-expression; `label` is its source text, for messages. */
export interface Compiled {
  label: string;
  run(read: Read): unknown;
}

export function binary(op: string, left: Compiled, right: Compiled, source: string): Compiled {
  const label = `${left.label} ${op} ${right.label}`;
  const finite = (v: number): number => {
    if (!Number.isFinite(v)) throw runtimeError(source, `${label} is not a finite number`, FIX_RANGE);
    return v;
  };
  // A whole-number result past ±2^53 is no longer exact: a counter would silently stop counting. Operands
  // are numbers held exactly (answers past that are refused as they arrive), so a result within it is exact:
  // 1e20 - 1e20 is 0, while 1e20 / 1 is past it.
  const exact = (a: number, b: number, r: number): number => {
    // Said as the exact result (BigInt), never the rounded double (9007199254740991 + 2 is not 9007199254740992).
    if (Number.isInteger(a) && Number.isInteger(b) && Number.isInteger(r) && !Number.isSafeInteger(r)) throw pastExact(source, label, op === '/' ? r : exactOf(op, a, b));
    return r;
  };
  const numbers = (a: unknown, b: unknown): [number, number] => {
    if (typeof a !== 'number') throw runtimeError(source, `"${op}" needs numbers, but ${left.label} is ${kindOf(a)}`, FIX_TYPE);
    if (typeof b !== 'number') throw runtimeError(source, `"${op}" needs numbers, but ${right.label} is ${kindOf(b)}`, FIX_TYPE);
    return [a, b];
  };
  let run: (read: Read) => unknown;
  switch (op) {
    case '+':
      run = (read) => {
        const a = left.run(read);
        const b = right.run(read);
        if (typeof a === 'number' && typeof b === 'number') return exact(a, b, finite(a + b));
        if (typeof a === 'string' || typeof b === 'string') {
          const [x, y] = [asText(a), asText(b)];
          // Text doubling in a loop would outgrow any store (and, at last, JavaScript's strings): refused as the answer limit refuses.
          if (x.length + y.length > MAX_TEXT_CHARS) throw runtimeError(source, `${label} would be text ${x.length + y.length} characters long; an expression's text is limited to ${MAX_TEXT_CHARS} characters, as an answer is to 1 MiB`, 'keep large text in files and pass their paths, or route the node\'s "error" connection');
          return x + y;
        }
        throw runtimeError(source, `"+" cannot add ${left.label} (${kindOf(a)}) and ${right.label} (${kindOf(b)}); it adds numbers or joins text`, FIX_TYPE);
      };
      break;
    case '-':
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        return exact(a, b, finite(a - b));
      };
      break;
    case '*':
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        return exact(a, b, finite(a * b));
      };
      break;
    default:
      run = (read) => {
        const [a, b] = numbers(left.run(read), right.run(read));
        // Name the divisor only when it is not the literal 0 itself ("0 is 0" says nothing).
        if (b === 0) throw runtimeError(source, /^[0-9.\s()-]+$/.test(right.label) ? 'division by zero' : `division by zero: ${right.label} is 0`, 'route around this node with a condition when the divisor is 0, or route the node\'s "error" connection');
        return exact(a, b, finite(a / b));
      };
  }
  return { label, run };
}

/** Unary minus. */
export function negate(operand: Compiled, source: string): Compiled {
  return {
    label: `-${operand.label}`,
    run: (read) => {
      const v = operand.run(read);
      if (typeof v !== 'number') throw runtimeError(source, `unary "-" needs a number, but ${operand.label} is ${kindOf(v)}`, FIX_TYPE);
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) throw pastExact(source, `-${operand.label}`, -v);
      return -v;
    },
  };
}

/** Operands are read through the caller's resolver; an unresolved or unset one is an error, never a silent NaN. */
export function wrapRead(read: Read, source: string): Read {
  return (path) => {
    const res = read(path);
    if (!res.found) throw runtimeError(source, `"${path}" is not defined`);
    if (res.value === undefined || res.value === null) throw runtimeError(source, `"${path}" has no value (it is unset)`);
    return res;
  };
}

const FIX_UNSET = 'give each variable a value before this node runs — a global by a registry default, initialData or the start input; a node-id.field by that node\'s answer (make the field required in its inputSchema if this node always reads it) — or route the node\'s "error" connection';
const FIX_TYPE = 'give the operands values of the types the operator takes (declare them with a type in variableRegistry), or route the node\'s "error" connection';
const FIX_RANGE = 'keep numbers within ±1.7e308 (a double), or route the node\'s "error" connection';

/** The exact result of whole-number + - * on two exactly held operands. */
function exactOf(op: string, a: number, b: number): bigint {
  const [x, y] = [BigInt(a), BigInt(b)];
  return op === '+' ? x + y : op === '-' ? x - y : x * y;
}

function pastExact(source: string, label: string, value: number | bigint): CountersignError {
  return runtimeError(source, `${label} is ${typeof value === 'bigint' || Math.abs(value) < 1e21 ? BigInt(value) : value}, beyond the integers a number keeps exactly (±9007199254740991): the exact result is lost`, 'keep whole numbers within ±9007199254740991, or route the node\'s "error" connection');
}

function runtimeError(source: string, what: string, fix = FIX_UNSET): CountersignError {
  return new CountersignError('E_EXPRESSION', `expression "${source}" failed: ${what}`, { fix });
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
