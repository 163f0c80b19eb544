/**
 * `expression`: assignments such as `n = n + 1` that write globals, in
 * order (a later expression sees an earlier result). A failure takes the
 * `error` route, or fails the run with E_EXPRESSION.
 */
import { CountersignError, isCountersignError } from '../errors.js';
import { parseExpression } from '../format/expression.js';
import { BUILTIN_VARIABLES, type ExpressionNode, type JsonValue, type Workflow } from '../format/model.js';
import { resolve } from '../format/resolver.js';
import type { Finding, TransientType, VariableRead } from './node-type.js';
import { errorFinding, withFix } from './checks.js';
import { suggest } from '../format/suggest.js';
import { scopeOf } from './workflow-facts.js';
import { registryMisfits } from './answer-schema.js';
import { describeErrors } from './answer-errors.js';

export const expression: TransientType<ExpressionNode> = {
  type: 'expression',
  kind: 'transient',
  connections: { required: ['default'], optional: ['error'] },

  declares(node) {
    return { local: [], globals: parsed(node).map((e) => e.target) };
  },

  reads(node, pointer) {
    const out: VariableRead[] = [];
    (node.expressions ?? []).forEach((src, i) => {
      try {
        const e = parseExpression(src);
        for (const { path, offset } of e.operands) out.push({ path, pointer: `${pointer}/expressions/${i}`, offset });
      } catch {
        // reported by check()
      }
    });
    return out;
  },

  check(node, ctx): Finding[] {
    const findings: Finding[] = [];
    (node.expressions ?? []).forEach((src, i) => {
      const pointer = `${ctx.pointer}/expressions/${i}`;
      // Not a string, or "": the schema's finding already (one fault, one finding).
      if (typeof src !== 'string' || src === '') return;
      try {
        const e = parseExpression(src);
        const writable = declaredGlobals(ctx.workflow);
        const hidden = hiddenGlobal(src, e, writable);
        if (hidden) {
          const subtraction = hidden.includes('-');
          findings.push({
            code: 'E_EXPRESSION_SYNTAX',
            message: withFix(
              subtraction
                ? `"${src}" reads "${hidden}" as a subtraction, not the declared global "${hidden}": in an expression "-" followed by a number subtracts`
                : `"${src}" reads "${hidden}" as a number, not the declared global "${hidden}"`,
              subtraction
                ? `rename the global (e.g. "${hidden.replace(/-/g, '_')}"), or write the subtraction with spaces ("${hidden.replace(/-/, ' - ')}") if that is what you mean`
                : `rename the global so it does not read as a number (e.g. "n${hidden}")`,
            ),
            pointer,
            ...(src.indexOf(hidden) >= 0 ? { offset: src.indexOf(hidden) } : {}),
            severity: 'error',
          });
        }
        if ((BUILTIN_VARIABLES as readonly string[]).includes(e.target)) {
          findings.push({
            code: 'E_EXPRESSION_TARGET',
            message: `"${src}" assigns to the built-in "${e.target}", which is read-only; assign a declared global instead`,
            pointer,
            offset: e.targetOffset,
            severity: 'error',
          });
        } else if (!writable.includes(e.target)) {
          const guess = suggest(e.target, writable);
          findings.push({
            code: 'E_EXPRESSION_TARGET',
            message: withFix(
              `"${src}" assigns to "${e.target}", which is not a declared global${guess ? ` — did you mean "${guess}"?` : ''}`,
              `declare "${e.target}" in variableRegistry (or the start node's initialData), or assign a declared global`,
            ),
            pointer,
            offset: e.targetOffset,
            severity: 'error',
          });
        }
      } catch (err) {
        if (!isCountersignError(err)) throw err;
        findings.push({ ...errorFinding(err, pointer), ...(err.col ? { offset: err.col - 1 } : {}) });
      }
    });
    return findings;
  },

  step(node, ctx, workflow) {
    const assigned: Record<string, JsonValue> = {};
    // Later expressions read earlier results: evaluate against a context
    // whose globals include what has been assigned so far.
    let current = ctx;
    const { expressions } = node;
    for (let i = 0; i < expressions.length; i++) {
      const src = expressions[i];
      try {
        const e = parseExpression(src);
        const scope = scopeOf(current, workflow);
        const result = e.evaluate((path) => resolve(path, scope));
        // JSON has no Infinity or NaN (a literal too large for a double evaluates to Infinity): every store must keep what the run saw.
        if (typeof result === 'number' && !Number.isFinite(result)) {
          throw new CountersignError('E_EXPRESSION', `expression "${src}" failed: its result ${String(result)} is not a finite number`, {
            fix: 'keep numbers within ±1.7e308 (a double), and write them as plain decimals',
          });
        }
        // A JSON value, as every store keeps it: arithmetic can give -0 (`0 * -1`), which JSON reads back as 0.
        const value = (result === 0 ? 0 : result) as JsonValue;
        // A global holds only what its declaration allows, as a start input or an answer writing it must.
        const misfit = registryMisfit(workflow, e.target, value);
        if (misfit) {
          throw new CountersignError('E_EXPRESSION', `expression "${src}" failed: it gives ${e.target} the value ${JSON.stringify(value)}, which its variableRegistry entry does not allow (${misfit.join('; ')})`, {
            fix: `compute a value that fits ${e.target}'s declaration, or change the declaration`,
          });
        }
        assigned[e.target] = value;
        // Only a later expression reads the updated context (Object.assign: spreads with a computed key are a slow path).
        if (i + 1 < expressions.length) current = Object.assign({}, current, { vars: Object.assign({}, current.vars, { [e.target]: value }) });
      } catch (thrown) {
        // JavaScript's own limits (a RangeError) are the expression's failure, as any other: never a crash of the step.
        const err = thrown instanceof RangeError ? new CountersignError('E_EXPRESSION', `expression "${src}" failed: ${thrown.message}`) : thrown;
        if (!isCountersignError(err)) throw err;
        return {
          via: 'error',
          event: { type: 'expression.evaluated', expression: src, error: err.message },
          error: { code: 'E_EXPRESSION', message: err.message, ...(err.fix ? { fix: err.fix } : {}) },
        };
      }
    }
    return { via: 'default', vars: assigned, event: { type: 'expression.evaluated', assigned } };
  },
};

/** Why `value` does not fit the registry entry of `name` (`pointer: message` lines); undefined when it fits or `name` has no entry. */
function registryMisfit(workflow: Workflow, name: string, value: JsonValue): string[] | undefined {
  // The entry as its own root, as a start input writing the global is checked: its own $refs resolve in it.
  const misfits = registryMisfits(workflow, name, value);
  return misfits.length > 0 ? describeErrors(misfits) : undefined;
}

/** The globals an expression may assign: registry names and start initialData names. */
function declaredGlobals(workflow: Workflow): string[] {
  const names = Object.keys(workflow.variableRegistry ?? {});
  for (const node of workflow.nodes ?? []) {
    if (node?.type === 'start') names.push(...Object.keys(node.initialData?.variables ?? {}));
  }
  return names;
}

function parsed(node: ExpressionNode) {
  const out = [];
  for (const src of node.expressions ?? []) {
    try {
      out.push(parseExpression(src));
    } catch {
      // reported by check()
    }
  }
  return out;
}

/**
 * A declared global whose name an expression reads as something else — a
 * subtraction (`retries-1` as `retries - 1`) or a number (`1e3`):
 * templates and conditions read that global, so the expression would
 * silently compute something else.
 */
function hiddenGlobal(src: string, parsed: { target: string; reads: readonly string[] }, globals: readonly string[]): string | undefined {
  const roots = new Set([parsed.target, ...parsed.reads.map((p) => /^[^.[]+/.exec(p)?.[0] ?? p)]);
  const text = src.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, ' ');
  for (const m of text.matchAll(/[A-Za-z0-9_$][A-Za-z0-9_$-]*/g)) {
    const word = m[0];
    // Only a run the tokenizer splits or reads as a number can hide a
    // global; a field (`review.count`) or an index ref (`items[idx]`) is read as written.
    const splittable = word.includes('-') || /^\d/.test(word);
    const inPath = m.index > 0 && /[.[]/.test(text[m.index - 1]);
    if (splittable && !inPath && globals.includes(word) && !roots.has(word)) return word;
  }
  return undefined;
}
