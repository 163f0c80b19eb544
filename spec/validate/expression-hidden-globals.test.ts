/**
 * An expression reads some names differently from templates: `retries-1`
 * subtracts, `1e3` is a number. A declared global named so is refused in an
 * expression; a field or an index ref that shares a global's name is read
 * as written, and never refused.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/index.js';

const global = (type: string) => ({ type, description: 'x', default: type === 'array' ? [1] : 0 });

function flow(expression: string, registry: Record<string, unknown>) {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'an expression reading globals' },
    variableRegistry: { n: global('integer'), count: global('integer'), ...registry },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'review' } },
      { type: 'agent-directive', id: 'review', directive: 'd', completionCondition: 'c', inputSchema: { type: 'object', properties: {}, globalInputs: ['count'] }, connections: { success: 'x' } },
      { type: 'expression', id: 'x', expressions: [expression], connections: { default: 'e' } },
      { type: 'end', id: 'e' },
    ],
  };
}

const Hidden = suite('expressions and globals an expression would read otherwise');

Hidden('a node field or an index ref named like a global is read as written: n = review.count + 1 and n = items[idx] validate', () => {
  for (const [expression, registry] of [['n = review.count + 1', {}], ['n = items[idx]', { items: global('array'), idx: global('integer') }]] as const) {
    const r = validateWorkflow(flow(expression, registry) as never);
    assert.equal(r.errors.map((e) => e.code), [], expression);
  }
});

Hidden('a global named like a subtraction or a number is refused in an expression (E_EXPRESSION_SYNTAX), naming how it would be read', () => {
  const sub = validateWorkflow(flow('n = retries-1', { retries: global('integer'), 'retries-1': global('integer') }) as never);
  assert.equal(sub.errors.map((e) => [e.code, e.pointer]), [['E_EXPRESSION_SYNTAX', '/nodes/2/expressions/0']]);
  assert.match(sub.errors[0].message, 'reads "retries-1" as a subtraction');
  const num = validateWorkflow(flow('n = 1e3', { '1e3': global('integer') }) as never);
  assert.match(num.errors.map((e) => e.message).join('\n'), 'reads "1e3" as a number');
});

Hidden.run();
