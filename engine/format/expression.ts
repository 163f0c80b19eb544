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
import { ExpressionParser } from './expression-parse.js';
import type { Resolution } from './resolver.js';

export interface Expression {
  source: string;
  /** The global the expression assigns to. */
  target: string;
  /** Where the target starts in the source (for findings located at the name). */
  targetOffset: number;
  /** The variable paths the right side reads, as written, in order. */
  reads: string[];
  /** Where each of `reads` first appears in the source. */
  readOffsets: number[];
  /** Every variable operand where it is written, in order: a path read twice is here twice (validate reports each place). */
  operands: ReadonlyArray<{ path: string; offset: number }>;
  /** Computes the right side; throws E_EXPRESSION when an operand is unset or the arithmetic is invalid. */
  evaluate(read: (path: string) => Resolution): unknown;
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
