/**
 * JSON Logic conditions (`{"jsonLogic": rule}`), run by json-logic-js.
 * json-logic reads variables by dot paths from one data object, which
 * cannot express our collision rule (bare `name` is the global, `name.field`
 * the node's answer). So every top-level `var` is rewritten once to an
 * indexed slot and filled through the one resolver; `var`s inside
 * map/filter/reduce/all/some/none bodies keep their item scope.
 */
import jsonLogic from 'json-logic-js';
import type { JsonValue, Workflow } from '../format/model.js';
import type { Finding, RunContext, VariableRead } from './node-type.js';
import { lookup } from './workflow-facts.js';
import { suggest } from '../format/suggest.js';

/** The operations a rule may use (README lists them): json-logic-js's own, less those that read data outside the resolver (missing, missing_some) or print (log). */
export const JSON_LOGIC_OPERATIONS: readonly string[] = Object.freeze([
  '==', '===', '!=', '!==', '>', '>=', '<', '<=', '!!', '!', '%', 'in', 'cat', 'substr',
  '+', '*', '-', '/', 'min', 'max', 'merge', 'var', 'if', '?:', 'and', 'or',
  'map', 'filter', 'reduce', 'all', 'none', 'some',
]);
const OPERATIONS: ReadonlySet<string> = new Set(JSON_LOGIC_OPERATIONS);
/** Operations whose second (and for reduce, only the second) argument runs in item scope. */
const ITERATING = new Set(['map', 'filter', 'reduce', 'all', 'none', 'some']);
/** Deep rules overflow json-logic's recursion; real conditions are shallow. */
export const MAX_JSON_LOGIC_DEPTH = 64;
const SLOT = '__countersign';

interface Prepared {
  rule: JsonValue;
  paths: string[];
}

const prepared = new WeakMap<object, Prepared>();

/**
 * The operation `written` is taken for when a rule is checked: itself when
 * known, else the known one it is a typo of — so what a misspelt operation
 * holds is checked as meant (one pass finds every fault), never skipped.
 */
function meant(written: string): string | undefined {
  if (OPERATIONS.has(written)) return written;
  return written === 'missing' || written === 'missing_some' ? undefined : suggest(written, JSON_LOGIC_OPERATIONS);
}

function prepare(rule: JsonValue): Prepared {
  if (rule !== null && typeof rule === 'object') {
    const hit = prepared.get(rule);
    if (hit) return hit;
  }
  const paths: string[] = [];
  const rewrite = (node: JsonValue, itemScope: boolean): JsonValue => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, itemScope));
    if (node === null || typeof node !== 'object') return node;
    const [op] = Object.keys(node);
    const args = node[op];
    if (op === 'var' && !itemScope) {
      const [path, ...rest] = Array.isArray(args) ? args : [args];
      if (typeof path === 'string' && path !== '') {
        paths.push(path);
        // A default may itself read a variable ({"var": ["x", {"var": "y"}]}): through the resolver too.
        return { var: [`${SLOT}.${paths.length - 1}`, ...rest.map((r) => rewrite(r as JsonValue, itemScope))] };
      }
      return node;
    }
    if (ITERATING.has(op) && Array.isArray(args)) {
      return { [op]: args.map((a, i) => rewrite(a, itemScope || i === 1)) };
    }
    return { [op]: rewrite(args, itemScope) };
  };
  const result = { rule: rewrite(rule, false), paths };
  if (rule !== null && typeof rule === 'object') prepared.set(rule, result);
  return result;
}

export function applyJsonLogic(rule: JsonValue, ctx: RunContext, workflow: Workflow): boolean {
  const { rule: rewritten, paths } = prepare(rule);
  const values = paths.map((p) => {
    const r = lookup(ctx, workflow, p);
    return r.found ? r.value : undefined;
  });
  return jsonLogic.truthy(jsonLogic.apply(rewritten as never, { [SLOT]: values }));
}

/** Top-level `var` paths, each with the pointer of its path string. */
export function jsonLogicReads(rule: unknown, pointer: string): VariableRead[] {
  const out: VariableRead[] = [];
  const walk = (node: unknown, at: string, itemScope: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, itemScope));
    if (node === null || typeof node !== 'object') return;
    const keys = Object.keys(node);
    if (keys.length !== 1) return;
    const written = keys[0];
    const op = meant(written) ?? written;
    const args = (node as Record<string, unknown>)[written];
    const argAt = `${at}/${escape(written)}`;
    if (op === 'var') {
      if (itemScope) return;
      if (typeof args === 'string' && args !== '') out.push({ path: args, pointer: argAt });
      else if (Array.isArray(args)) {
        if (typeof args[0] === 'string' && args[0] !== '') out.push({ path: args[0], pointer: `${argAt}/0` });
        // The default, which may read variables of its own.
        args.slice(1).forEach((d, i) => walk(d, `${argAt}/${i + 1}`, itemScope));
      }
      return;
    }
    if (ITERATING.has(op) && Array.isArray(args)) {
      return args.forEach((a, i) => walk(a, `${argAt}/${i}`, itemScope || i === 1));
    }
    walk(args, argAt, itemScope);
  };
  walk(rule, pointer, false);
  return out;
}

/** Rule shape: one known operation per object, literal var paths, bounded depth. */
export function checkJsonLogic(rule: unknown, pointer: string): Finding[] {
  const out: Finding[] = [];
  const bad = (message: string, at: string) => out.push({ code: 'E_CONDITION', message, pointer: at, severity: 'error' });
  // A rule that is a plain value (YAML's empty `jsonLogic:` is null) is no test: its route would be fixed without a word.
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
    bad(`the jsonLogic rule is ${rule === null ? 'empty (null)' : Array.isArray(rule) ? 'a list' : `the plain value ${JSON.stringify(rule)}`}, which tests nothing, so the condition would always route the same way: write an operation such as {"==": [{"var": "x"}, 1]}, or connect the node before straight to the next one`, pointer);
    return out;
  }
  const walk = (node: unknown, at: string, depth: number, itemScope: boolean): void => {
    if (depth > MAX_JSON_LOGIC_DEPTH) {
      bad(`the jsonLogic rule nests deeper than ${MAX_JSON_LOGIC_DEPTH} levels`, at);
      return;
    }
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, depth + 1, itemScope));
    if (node === null || typeof node !== 'object') return;
    const keys = Object.keys(node);
    if (keys.length !== 1) {
      // json-logic would silently treat it as a literal object.
      bad(`a jsonLogic operation is an object with exactly one key; this one has ${keys.length} (${keys.join(', ')})`, at);
      return;
    }
    const written = keys[0];
    const args = (node as Record<string, unknown>)[written];
    const argAt = `${at}/${escape(written)}`;
    const guess = meant(written);
    if (guess !== written) {
      out.push({
        code: 'E_CONDITION',
        message: guess
          ? `unknown jsonLogic operation "${written}" — did you mean "${guess}"? The operations are ${[...OPERATIONS].join(' ')}`
          : `unknown jsonLogic operation "${written}"; ${written === 'missing' || written === 'missing_some' ? 'use the "exists" operator or {"!!": {"var": …}}' : `use one of ${[...OPERATIONS].join(' ')}`}`,
        pointer: argAt,
        severity: 'error',
        key: true,
      });
      // What it holds is still checked: as the operation meant, or else as plain arguments.
      if (guess === undefined) {
        walk(args, argAt, depth + 1, itemScope);
        return;
      }
    }
    const op = guess!;
    if (op === 'var') {
      const path = Array.isArray(args) ? args[0] : args;
      // At the path itself; an empty list has no element 0, so the finding is at the list (a pointer the document has).
      const pathAt = Array.isArray(args) && args.length > 0 ? `${argAt}/0` : argAt;
      const got = Array.isArray(args) && args.length === 0 ? 'an empty list []' : JSON.stringify(path) ?? 'nothing';
      if (itemScope) {
        // In an iterating body "" is the item itself and a number indexes it.
        if (typeof path !== 'string' && typeof path !== 'number') bad(`a "var" path must be a literal string; got ${got}`, pathAt);
      } else if (typeof path !== 'string' || path === '') {
        // Outside an iterating body a var names a run variable; "" or a number would read json-logic's whole data object.
        bad(`a "var" outside map/filter/reduce/all/none/some names a variable, so its path must be a non-empty string such as "issues_count" or "review.count"; got ${got}`, pathAt);
      }
      if (Array.isArray(args)) args.slice(1).forEach((d, i) => walk(d, `${argAt}/${i + 1}`, depth + 1, itemScope));
      return;
    }
    if (ITERATING.has(op) && Array.isArray(args)) {
      args.forEach((a, i) => walk(a, `${argAt}/${i}`, depth + 1, itemScope || i === 1));
      return;
    }
    walk(args, argAt, depth + 1, itemScope);
  };
  walk(rule, pointer, 0, false);
  return out;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
