/**
 * A name listed twice in an inputSchema's globalInputs is one fault: one
 * finding at the repeat, naming it and saying to remove it — never a
 * made-up `$ref` error about the registry entry inlined twice, at a
 * pointer the file does not have.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';

const Repeated = suite('a repeated globalInputs name');

function workflow(globalInputs: string[], required: string[] = []): Record<string, any> {
  return {
    metadata: { name: 'dup', version: '1.0.0', description: 'repeated global input' },
    variableRegistry: {
      pt: { type: 'object', description: 'p', definitions: { c: { type: 'integer', minimum: 0 } }, properties: { x: { $ref: '#/definitions/c' } }, default: { x: 1 } },
      n: { type: 'integer', description: 'n', default: 0 },
    },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      {
        type: 'agent-directive', id: 'a', directive: 'go', completionCondition: 'ok',
        inputSchema: { type: 'object', properties: { flag: { type: 'boolean' } }, globalInputs, ...(required.length ? { required } : {}) },
        connections: { success: 'done' },
      },
      { type: 'end', id: 'done', finalOutput: ['pt', 'n'] },
    ],
  };
}

const lines = (report: ReturnType<typeof validateWorkflow>) => report.errors.map((e) => `${e.code} ${e.pointer} ${e.message}`);

Repeated('an entry with its own $ref listed twice: one finding at the repeat, naming it, with the fix; no $ref error', () => {
  const report = validateWorkflow(workflow(['pt', 'pt', 'n']));
  const errors = lines(report);
  assert.is(report.errors.length, 1, errors.join('\n'));
  const [only] = report.errors;
  assert.is(only.pointer, '/nodes/1/inputSchema/globalInputs/1');
  assert.match(only.message, /"pt"/);
  assert.match(only.message, /remove/);
  assert.not.match(only.message, /\$ref/);
});

Repeated('an entry without $ref listed twice is reported too, and never listed twice among the properties', () => {
  const report = validateWorkflow(workflow(['n', 'n'], ['pt']));
  const errors = lines(report);
  const repeat = report.errors.filter((e) => e.pointer === '/nodes/1/inputSchema/globalInputs/1');
  assert.is(repeat.length, 1, errors.join('\n'));
  assert.match(repeat[0].message, /"n"/);
  assert.ok(errors.every((e) => !e.includes('"n", "n"')), errors.join('\n'));
});

Repeated('every repeat is its own finding, at its own index', () => {
  const report = validateWorkflow(workflow(['n', 'pt', 'n', 'pt', 'n']));
  assert.equal(report.errors.map((e) => e.pointer).sort(), ['/nodes/1/inputSchema/globalInputs/2', '/nodes/1/inputSchema/globalInputs/3', '/nodes/1/inputSchema/globalInputs/4'], lines(report).join('\n'));
});

Repeated.run();
