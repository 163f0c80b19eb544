/**
 * An inputSchema's own keywords, and `$schema` anywhere in a schema, have
 * their values checked by the published schema as `validate` checks them:
 * an editor underlines at the top of an inputSchema what it underlines one
 * level down (README: "at any depth").
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';

type Schema = Record<string, any>;
const test = suite('published schema: keyword values at an inputSchema\'s top level');
const schema = JSON.parse(readFileSync(new URL('../../schemas/workflow.schema.json', import.meta.url), 'utf8')) as Schema;
let compiled: ValidateFunction | undefined;
const editor = () => (compiled ??= new Ajv({ strict: true, allErrors: true }).compile(schema));

function workflow(own: Schema, registryEntry?: Schema): Schema {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: { n: { type: 'integer', description: 'n', default: 0 }, ...(registryEntry ? { v: registryEntry } : {}) },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'do {{n}}', completionCondition: 'done', inputSchema: { type: 'object', properties: { x: { type: 'string' } }, ...own }, connections: { success: 'end' } },
      { type: 'end', id: 'end', finalOutput: ['n'] },
    ],
  };
}

/** The instance paths the editor underlines (ajv's if/anyOf/oneOf wrappers left out). */
function underlined(wf: Schema): string[] {
  const validate = editor();
  if (validate(wf)) return [];
  return (validate.errors ?? []).filter((e) => !['if', 'anyOf', 'oneOf'].includes(e.keyword)).map((e) => e.instancePath);
}

const refusedAtTop: Schema = {
  allOf: [], anyOf: [], oneOf: [], items: [], required: 'x', minProperties: -1, maxLength: -1, multipleOf: 0, minimum: '1', enum: [],
  title: 5, pattern: 5, format: 5, $ref: 5, $comment: 5, examples: {}, uniqueItems: 'yes', readOnly: 'yes', contentEncoding: 5, $id: 5, $schema: 5, nullable: 'yes',
};

test('a keyword value draft-07 refuses at an inputSchema\'s own top level is underlined at that keyword, and validate refuses it too', () => {
  for (const [keyword, value] of Object.entries(refusedAtTop)) {
    const wf = workflow({ [keyword]: value });
    const at = underlined(wf);
    assert.ok(at.some((p) => p.startsWith(`/nodes/1/inputSchema/${keyword}`)), `${keyword}: ${JSON.stringify(value)} underlined at ${at.join(', ') || 'nothing'}`);
    assert.ok(validateWorkflow(wf).errors.length > 0, `${keyword}: validate accepts it`);
  }
});

test('a repeated required name and a dependencies list of non-unique or non-string names at the top level are underlined', () => {
  for (const own of [{ required: ['x', 'x'] }, { dependencies: { x: ['x', 'x'] } }, { dependencies: { x: [1] } }]) {
    const key = Object.keys(own)[0];
    const at = underlined(workflow(own));
    assert.ok(at.some((p) => p.startsWith(`/nodes/1/inputSchema/${key}`)), `${JSON.stringify(own)} underlined at ${at.join(', ') || 'nothing'}`);
  }
});

test('globalInputs and every keyword with a good value are still accepted at the top level', () => {
  const wf = workflow({ globalInputs: ['n'], required: ['x'], allOf: [{}], title: 'T', $comment: 'c', minProperties: 1, $schema: 'http://json-schema.org/draft-07/schema#' });
  assert.equal(underlined(wf), []);
});

test('a non-string $schema in a nested schema or a registry entry is underlined at the $schema, as validate refuses it', () => {
  const nested = workflow({ properties: { x: { type: 'string', $schema: 5 } } });
  assert.ok(underlined(nested).includes('/nodes/1/inputSchema/properties/x/$schema'), underlined(nested).join(', '));
  const registry = workflow({}, { type: 'string', description: 'v', default: '', $schema: 5 });
  assert.ok(underlined(registry).includes('/variableRegistry/v/$schema'), underlined(registry).join(', '));
  assert.ok(validateWorkflow(registry).errors.length > 0);
});

test('an "if" without "then" or "else", or a "then" without "if", is underlined at its schema, as validate refuses it', () => {
  for (const wf of [workflow({ properties: { x: { type: 'string', if: { minLength: 1 } } } }), workflow({ if: { required: ['x'] } }), workflow({}, { type: 'string', description: 'v', default: '', then: { minLength: 1 } })]) {
    assert.ok(underlined(wf).length > 0, JSON.stringify(wf.nodes[1].inputSchema));
    assert.ok(validateWorkflow(wf).errors.length > 0);
  }
  assert.equal(underlined(workflow({ if: { required: ['x'] }, then: { properties: { x: { minLength: 1 } } } })), []);
});

test.run();
