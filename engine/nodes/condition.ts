/**
 * `condition`: routes on the run's context, `true` or `false`. The
 * structured form (eq neq gt gte lt lte contains exists and or not) compares
 * strictly — `0` is not `"0"` (seed §4.10) — and `{"jsonLogic": rule}` runs
 * json-logic-js with its variables read through the one resolver.
 */
import { CountersignError } from '../errors.js';
import type { Condition, ConditionNode, JsonValue, Operand, StructuredCondition, Workflow } from '../format/model.js';
import type { Finding, RunContext, TransientType, VariableRead } from './node-type.js';
import { lookup } from './workflow-facts.js';
import { suggest } from '../format/suggest.js';
import { same } from '../format/equality.js';
import { applyJsonLogic, checkJsonLogic, jsonLogicReads } from './json-logic.js';

const BINARY = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains']);

export const condition: TransientType<ConditionNode> = {
  type: 'condition',
  kind: 'transient',
  connections: { required: ['true', 'false'], optional: [] },
  declares() {
    return { local: [], globals: [] };
  },
  reads(node, pointer) {
    return conditionReads(node.condition, `${pointer}/condition`);
  },
  check(node, ctx): Finding[] {
    return checkCondition(node.condition, `${ctx.pointer}/condition`);
  },
  step(node, ctx, workflow) {
    let result: boolean;
    const notes: string[] = [];
    try {
      result = evaluate(node.condition, ctx, workflow, notes);
    } catch (e) {
      if (e instanceof CountersignError) throw e;
      // json-logic-js calling a method an answer's object shadows ({"indexOf": …}): the run's values, not a bug — the run fails at the condition, loudly.
      const message = `condition of node "${node.id}" cannot be evaluated on this run's values: ${(e as Error).message ?? String(e)}`;
      return {
        via: 'error',
        // Journaled with `error` where an evaluated condition has `result` (README's journal table).
        event: { type: 'condition.evaluated', error: message },
        error: { code: 'E_CONDITION', message, fix: 'check the values the condition reads (an object with a key such as "indexOf" or "toString" where a list or text was expected), or read a field the operator can take' },
      };
    }
    return { via: result ? 'true' : 'false', event: { type: 'condition.evaluated', result, ...(notes.length > 0 ? { notes } : {}) } };
  },
};

function isJsonLogic(c: Condition): c is { jsonLogic: JsonValue } {
  return c !== null && typeof c === 'object' && 'jsonLogic' in c;
}

function isPath(o: Operand): o is { contextPath: string } {
  return o !== null && typeof o === 'object' && !Array.isArray(o) && typeof (o as { contextPath?: unknown }).contextPath === 'string';
}

/** `notes`: where told, why a comparison was false for want of a number, or a contains for want of a text or list (journaled, so no route turns on it unseen). */
export function evaluate(c: Condition, ctx: RunContext, workflow: Workflow, notes?: string[]): boolean {
  if (isJsonLogic(c)) return applyJsonLogic(c.jsonLogic, ctx, workflow);
  const read = (o: Operand): unknown => {
    if (!isPath(o)) return o;
    const r = lookup(ctx, workflow, o.contextPath);
    return r.found ? r.value : undefined;
  };
  switch (c.operator) {
    case 'and':
      return c.conditions.every((sub) => evaluate(sub, ctx, workflow, notes));
    case 'or':
      return c.conditions.some((sub) => evaluate(sub, ctx, workflow, notes));
    case 'not':
      return !evaluate(c.condition, ctx, workflow, notes);
    case 'exists': {
      const v = read(c.left);
      return v !== undefined && v !== null;
    }
    case 'eq':
      return same(read(c.left), read(c.right));
    case 'neq':
      return !same(read(c.left), read(c.right));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
    {
      const [a, b] = [read(c.left), read(c.right)];
      const result = compare(c.operator, a, b);
      if (notes) {
        for (const [side, operand, value] of [['left', c.left, a], ['right', c.right, b]] as const) {
          if (toNumber(value) === undefined) notes.push(`${c.operator}: ${side} operand ${operandName(operand)}${notNumber(value)}, so the comparison is false`);
        }
      }
      return result;
    }
    case 'contains': {
      const [haystack, needle] = [read(c.left), read(c.right)];
      if (notes) {
        const why = notContainable(haystack, needle, operandName(c.left), operandName(c.right));
        if (why) notes.push(`contains: ${why}, so the comparison is false`);
      }
      return contains(haystack, needle);
    }
  }
}


/** Numeric comparison: numbers, or strings that are numbers; anything else is false. */
function compare(op: 'gt' | 'gte' | 'lt' | 'lte', a: unknown, b: unknown): boolean {
  const x = toNumber(a);
  const y = toNumber(b);
  if (x === undefined || y === undefined) return false;
  switch (op) {
    case 'gt':
      return x > y;
    case 'gte':
      return x >= y;
    case 'lt':
      return x < y;
    case 'lte':
      return x <= y;
  }
}

/** A number as JSON writes it (what gt/gte/lt/lte compare; validate judges literals by it too): no hex, no leading zeros or bare dots ("007", ".5", "1."), no surrounding spaces, no "Infinity". */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && DECIMAL.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Why `v` is no number to compare, for the journal. */
function notNumber(v: unknown): string {
  if (v === undefined || v === null) return 'is unset';
  if (typeof v === 'string') return `is the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}, not a number as JSON writes one (no leading zeros, hex, spaces or bare dots)`;
  if (typeof v === 'number') return `is ${v}, not a finite number`;
  return `is ${Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : JSON.stringify(v)}, not a number`;
}

/** Why `contains` could not look at all (no text or list to look in, or a needle a text can never hold), for the journal. */
function notContainable(haystack: unknown, needle: unknown, left: string, right: string): string | undefined {
  if (typeof haystack === 'string') return typeof needle === 'string' ? undefined : `right operand ${right}${kindOf(needle)}, not a text, and left operand ${left}is a text, which contains only text`;
  if (Array.isArray(haystack)) return undefined;
  return `left operand ${left}${kindOf(haystack)}, not a text or a list to look in`;
}

/** How a note names an operand read from the context (`label `), or nothing for a literal. */
function operandName(o: Operand): string {
  return isPath(o) ? `${o.contextPath} ` : '';
}

function kindOf(v: unknown): string {
  if (v === undefined || v === null) return 'is unset';
  if (Array.isArray(v)) return 'is a list';
  if (typeof v === 'object') return 'is an object';
  return `is the ${typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'text'} ${JSON.stringify(v)}`;
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === 'string') return typeof needle === 'string' && haystack.includes(needle);
  if (Array.isArray(haystack)) return haystack.some((item) => same(item, needle));
  return false;
}

/**
 * An operand object is a literal unless it is `{contextPath}`; a one-key
 * object whose key is a near miss (`contextpath`, `contextPth`) is a typo
 * that would silently compare against a literal forever.
 */
function operandTypo(operand: unknown, pointer: string): Finding[] {
  if (operand === null || typeof operand !== 'object' || Array.isArray(operand)) return [];
  const keys = Object.keys(operand);
  if (keys.length !== 1 || keys[0] === 'contextPath' || suggest(keys[0], ['contextPath']) === undefined) return [];
  return [{
    code: 'E_CONDITION',
    message: `operand key "${keys[0]}" — did you mean "contextPath"? As written the operand is a literal object and never equals a context value`,
    pointer: `${pointer}/${keys[0].replace(/~/g, '~0').replace(/\//g, '~1')}`,
    severity: 'error',
    key: true,
    meant: 'contextPath',
  }];
}

function conditionReads(c: unknown, pointer: string): VariableRead[] {
  if (c === null || typeof c !== 'object') return [];
  const cond = c as Record<string, unknown>;
  if ('jsonLogic' in cond) return jsonLogicReads(cond.jsonLogic, `${pointer}/jsonLogic`);
  const out: VariableRead[] = [];
  for (const side of ['left', 'right'] as const) {
    const o = cond[side] as Operand;
    if (o !== undefined && isPath(o)) out.push({ path: o.contextPath, pointer: `${pointer}/${side}/contextPath` });
  }
  if (Array.isArray(cond.conditions)) {
    cond.conditions.forEach((sub, i) => out.push(...conditionReads(sub, `${pointer}/conditions/${i}`)));
  }
  if (cond.condition !== undefined) out.push(...conditionReads(cond.condition, `${pointer}/condition`));
  return out;
}

/** Shape rules the JSON Schema cannot say precisely (and that matter when evaluating). */
function checkCondition(c: unknown, pointer: string): Finding[] {
  const bad = (message: string, at = pointer): Finding[] => [{ code: 'E_CONDITION', message, pointer: at, severity: 'error' }];
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return bad('a condition must be an object');
  const cond = c as Record<string, unknown>;
  if ('jsonLogic' in cond) return checkJsonLogic(cond.jsonLogic, `${pointer}/jsonLogic`);
  // A misspelt "operator" key (its own finding) still names the operator: the operands are checked as it says.
  const misspelt = cond.operator === undefined ? Object.keys(cond).find((k) => suggest(k, ['operator']) === 'operator') : undefined;
  const op = misspelt !== undefined ? cond[misspelt] : cond.operator;
  if (typeof op !== 'string') return bad('a condition needs an "operator" (or a "jsonLogic" rule)', pointer);
  if (op === 'and' || op === 'or') {
    // A missing, empty or non-list "conditions" is the schema's finding, at the list itself (minItems, required, type).
    if (!Array.isArray(cond.conditions) || cond.conditions.length === 0) return [];
    return cond.conditions.flatMap((sub, i) => checkCondition(sub, `${pointer}/conditions/${i}`));
  }
  if (op === 'not') {
    if (cond.condition === undefined) return bad('"not" needs a "condition"', `${pointer}/operator`);
    return checkCondition(cond.condition, `${pointer}/condition`);
  }
  if (op === 'exists') {
    return 'left' in cond ? operandTypo(cond.left, `${pointer}/left`) : bad('"exists" needs a "left" operand', `${pointer}/operator`);
  }
  if (BINARY.has(op)) {
    const missing = ['left', 'right'].filter((k) => !(k in cond));
    if (missing.length) return bad(`"${op}" needs ${missing.map((m) => `"${m}"`).join(' and ')}`, `${pointer}/operator`);
    return [...operandTypo(cond.left, `${pointer}/left`), ...operandTypo(cond.right, `${pointer}/right`)];
  }
  return bad(`unknown operator "${op}"; use eq, neq, gt, gte, lt, lte, contains, exists, and, or or not`, `${pointer}/operator`);
}

export type { StructuredCondition };
