/**
 * A structured condition whose operands can never satisfy its operator —
 * `contains` on a number, `gt` on a word, `eq` of an integer variable with
 * the text "0" — has a fixed result, and its route would be taken (or never
 * taken) without a word. When a literal operand, or the type the workflow
 * declares for a read one, shows that, validate warns at the operand. A
 * warning, not an error: Moira runs such files, and so does countersign.
 */
import type { Finding } from '../nodes/node-type.js';
import { toNumber } from '../nodes/condition.js';
import { declaredType } from './declared-type.js';
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** What the workflow tells about one operand: the kinds of value it can hold. */
interface Known {
  kinds: ReadonlySet<Kind>;
  literal: boolean;
  value?: unknown;
  /** The operand as a message names it: `the literal 12345` or `label (variableRegistry declares "label" as type "string")`. */
  said: string;
  pointer: string;
}

const NAMES: Record<Kind, string> = { string: 'a text', number: 'a number', boolean: 'a boolean', null: 'null', object: 'an object', array: 'a list' };

export function conditionOperandFindings(condition: unknown, pointer: string, data: Record<string, unknown>, byId: ReadonlyMap<string, NodeEntry>): Finding[] {
  if (!isPlainObject(condition) || 'jsonLogic' in condition) return [];
  const op = condition.operator;
  if ((op === 'and' || op === 'or') && Array.isArray(condition.conditions)) {
    return condition.conditions.flatMap((sub, i) => conditionOperandFindings(sub, `${pointer}/conditions/${i}`, data, byId));
  }
  if (op === 'not') return conditionOperandFindings(condition.condition, `${pointer}/condition`, data, byId);
  if (typeof op !== 'string' || !('left' in condition) || !('right' in condition)) return [];
  const left = known(condition.left, `${pointer}/left`, data, byId);
  const right = known(condition.right, `${pointer}/right`, data, byId);
  switch (op) {
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return [left, right].flatMap((side) => (side && !mayBeNumber(side) ? [warn(side, `${op}: ${side.said} ${isNot(side, 'a number')}, and ${op} compares numbers (or texts that are numbers as JSON writes them), so this test is always false: compare a number`)] : []));
    case 'contains':
      if (left && !left.kinds.has('string') && !left.kinds.has('array')) {
        return [warn(left, `contains: ${left.said} ${isNot(left, 'a text or a list')}, and contains looks only inside a text or a list, so this test is always false: compare with eq, or read a text or a list`)];
      }
      // A haystack that can only be text holds only text: a needle that can never be text is never found.
      if (left && right && !left.kinds.has('array') && !right.kinds.has('string')) {
        return [warn(right, `contains: ${right.said} ${isNot(right, 'a text')}, while ${left.said} can only be a text, which contains only text, so this test is always false: ${right.literal ? `write it as a text (${JSON.stringify(JSON.stringify(right.value))})` : 'look for a text'}`)];
      }
      return [];
    case 'eq':
    case 'neq':
      if (!left || !right || [...left.kinds].some((k) => right.kinds.has(k))) return [];
      return [warn(right.literal ? right : left, `${op}: ${left.said} ${kindsSaid(left)} and ${right.said} ${kindsSaid(right)}; ${op} compares strictly (0 is not "0"), so this test is always ${op === 'eq' ? 'false' : 'true'}: ${fixFor(right.literal ? right : left, right.literal ? left : right)}`)];
    default:
      return [];
  }
}

function known(operand: unknown, pointer: string, data: Record<string, unknown>, byId: ReadonlyMap<string, NodeEntry>): Known | undefined {
  // Read as the run reads it (a contextPath makes it a read, whatever else the object holds: that is E_UNKNOWN_KEY's finding).
  if (isPlainObject(operand) && typeof operand.contextPath === 'string') {
    const declared = declaredType(operand.contextPath, data, byId);
    if (!declared) return undefined;
    const kinds = new Set<Kind>();
    for (const t of declared.types) {
      if (t === 'integer' || t === 'number') kinds.add('number');
      else if (t in NAMES) kinds.add(t as Kind);
      else return undefined;
    }
    return { kinds, literal: false, said: `${operand.contextPath} (${declared.where} as type ${declared.types.map((t) => `"${t}"`).join(' or ')})`, pointer: `${pointer}/contextPath` };
  }
  // A contextPath that is no string is the schema's finding: the operand was meant as a read, not a literal to judge.
  if (isPlainObject(operand) && 'contextPath' in operand) return undefined;
  // A misspelt contextPath ({contextPth}) never gets here as a literal: typo recovery judges the corrected read.
  const kind: Kind = operand === null ? 'null' : Array.isArray(operand) ? 'array' : (typeof operand as Kind);
  if (!(kind in NAMES)) return undefined;
  return { kinds: new Set([kind]), literal: true, value: operand, said: `the literal ${shown(operand)}`, pointer };
}

function mayBeNumber(side: Known): boolean {
  if (side.literal) return toNumber(side.value) !== undefined;
  // A declared text may hold a number as JSON writes it ("42"), which compares.
  return side.kinds.has('number') || side.kinds.has('string');
}

function isNot(side: Known, wanted: string): string {
  return side.literal ? `is ${NAMES[[...side.kinds][0]]}, not ${wanted}` : `can never be ${wanted}`;
}

function kindsSaid(side: Known): string {
  const names = [...side.kinds].map((k) => NAMES[k]);
  return side.literal ? `is ${names[0]}` : `can only be ${names.join(' or ')}`;
}

function fixFor(literal: Known, other: Known): string {
  if (!literal.literal) return 'compare two values of one type';
  if (typeof literal.value === 'string' && other.kinds.has('number') && toNumber(literal.value) !== undefined) return `write the number ${literal.value} without quotes`;
  if (typeof literal.value === 'number' && other.kinds.has('string')) return `write it as a text (${JSON.stringify(JSON.stringify(literal.value))})`;
  return 'compare with a value of the type the other operand holds';
}

function shown(v: unknown): string {
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function warn(side: Known, message: string): Finding {
  return { code: 'E_CONDITION_OPERAND_TYPE', message, pointer: side.pointer, severity: 'warning' };
}
