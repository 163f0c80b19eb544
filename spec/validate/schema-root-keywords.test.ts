/**
 * A compile error ajv raises about a schema's root keywords (`$id`,
 * `$schema`), a `$ref` it cannot resolve, an `if` with nothing to apply,
 * or a patternProperties key that is no regular expression is said at the
 * key or value at fault, in workflow authors' words, with a fix — never as
 * ajv's or JavaScript's raw text at the whole schema.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';

const test = suite('schema compile errors: at the root keyword, ref or key at fault');

function workflow(inputSchema: Record<string, unknown>, registryEntry?: Record<string, unknown>) {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: { n: { type: 'integer', description: 'n', default: 0 }, ...(registryEntry ? { v: registryEntry } : {}) },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'do {{n}}', completionCondition: 'done', inputSchema, connections: { success: 'end' } },
      { type: 'end', id: 'end', finalOutput: ['n'] },
    ],
  };
}
const top = (own: Record<string, unknown>) => validateWorkflow(workflow({ type: 'object', properties: { x: { type: 'string' } }, ...own })).errors;
const nested = (x: Record<string, unknown>) => validateWorkflow(workflow({ type: 'object', properties: { x } })).errors;
const registry = (entry: Record<string, unknown>) => validateWorkflow(workflow({ type: 'object', properties: { x: { type: 'string' } } }, { type: 'string', description: 'v', default: '', ...entry })).errors;

test('a non-string $id at an inputSchema\'s or registry entry\'s top is said at the $id, never as a JavaScript TypeError', () => {
  for (const [errors, code, pointer] of [
    [top({ $id: 5 }), 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/$id'],
    [top({ $id: [] }), 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/$id'],
    [registry({ $id: 5 }), 'E_VARIABLE_SCHEMA', '/variableRegistry/v/$id'],
    [registry({ $id: {} }), 'E_VARIABLE_SCHEMA', '/variableRegistry/v/$id'],
  ] as const) {
    const [finding, ...more] = errors;
    assert.equal([finding?.code, finding?.pointer, more.length], [code, pointer, 0], JSON.stringify(errors));
    assert.match(finding.message, '"$id" must be a string');
    assert.not.match(finding.message, 'is not a function');
  }
});

test('a non-string or other-dialect $schema at the top is said at the $schema, naming draft-07 as the dialect accepted', () => {
  for (const [errors, code, pointer] of [
    [top({ $schema: 5 }), 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/$schema'],
    [top({ $schema: 'https://json-schema.org/draft/2019-09/schema' }), 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/$schema'],
    [registry({ $schema: 'https://json-schema.org/draft/2019-09/schema' }), 'E_VARIABLE_SCHEMA', '/variableRegistry/v/$schema'],
    [registry({ $schema: 5 }), 'E_VARIABLE_SCHEMA', '/variableRegistry/v/$schema'],
  ] as const) {
    const [finding, ...more] = errors;
    assert.equal([finding?.code, finding?.pointer, more.length], [code, pointer, 0], JSON.stringify(errors));
    assert.match(finding.message, 'http://json-schema.org/draft-07/schema#');
    assert.not.match(finding.message, 'no schema with key or ref');
  }
  assert.equal(top({ $schema: 'http://json-schema.org/draft-07/schema#' }), []);
});

test('a $ref holding " from id " is quoted whole and said at the $ref', () => {
  const [finding, ...more] = nested({ $ref: '#/definitions/a from id b' });
  assert.equal([finding?.code, finding?.pointer, more.length], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/$ref', 0]);
  assert.match(finding.message, '"$ref" #/definitions/a from id b points at nothing');
});

test('"if" without "then" or "else" is said at the if, with a fix that adds them or removes it', () => {
  for (const [errors, code, pointer] of [
    [nested({ type: 'string', if: { minLength: 1 } }), 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/if'],
    [registry({ if: { minLength: 1 } }), 'E_VARIABLE_SCHEMA', '/variableRegistry/v/if'],
  ] as const) {
    const [finding, ...more] = errors;
    assert.equal([finding?.code, finding?.pointer, more.length], [code, pointer, 0], JSON.stringify(errors));
    assert.match(finding.message, /"then"/);
    assert.match(finding.message, /remove "if"/);
    assert.not.match(finding.message, 'strict mode');
  }
  const [then] = nested({ type: 'string', then: { minLength: 1 } });
  assert.equal(then?.pointer, '/nodes/1/inputSchema/properties/x/then');
  assert.not.match(then.message, 'strict mode');
});

test('a patternProperties key that is no regular expression is refused whatever its schema and neighbours', () => {
  for (const x of [{ type: 'object', patternProperties: { '(': {} } }, { type: 'object', patternProperties: { '(': true } }, { type: 'object', patternProperties: { '(': { type: 'string' } } }]) {
    const [finding, ...more] = nested(x);
    assert.equal([finding?.code, finding?.pointer, more.length], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/patternProperties/(', 0], JSON.stringify(x));
    assert.match(finding.message, 'the patternProperties key "(" is not a valid regular expression');
  }
});

test.run();
