/**
 * A schema keyword whose value may take two forms (draft-07: `items` a
 * schema or a list of them, a `dependencies` entry a schema or a list of
 * names) is explained by the form the value has, and a compile error is
 * said at the keyword or value at fault, quoting it whole.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';

const test = suite('schema compile errors: the value at fault, in the form it has');

function inputSchemaFindings(property: Record<string, unknown>, own: Record<string, unknown> = {}) {
  const wf = {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'go', completionCondition: 'c', inputSchema: { type: 'object', properties: { x: { type: 'string', ...property } }, ...own }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  };
  return validateWorkflow(wf).errors;
}

test('a $ref holding a space is quoted whole and said at the $ref', () => {
  const [finding, ...more] = inputSchemaFindings({ $ref: '#/definitions/a b' });
  assert.equal([finding.code, finding.pointer, more.length], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/$ref', 0]);
  assert.match(finding.message, '"$ref" #/definitions/a b points at nothing');
});

test('a dependency listing a name twice is told as that list\'s fault, never as "must be a JSON Schema"', () => {
  const [finding] = inputSchemaFindings({}, { dependencies: { y: ['z', 'z'] } });
  assert.equal([finding.code, finding.pointer], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/dependencies/y']);
  assert.match(finding.message, '"z" twice');
  assert.match(finding.message, 'remove the repeated name "z"');
  assert.not.match(finding.message, 'must be a JSON Schema');
});

test('an empty items list is told as empty, with a fix that gives a schema', () => {
  const [finding] = inputSchemaFindings({ type: 'array', items: [] });
  assert.equal([finding.code, finding.pointer], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/items']);
  assert.match(finding.message, /"items" is an empty list/);
  assert.match(finding.message, 'give at least one schema, or use a single schema');
  assert.not.match(finding.message, 'must be object or boolean');
  const [allOf] = inputSchemaFindings({ allOf: [] });
  assert.equal(allOf.pointer, '/nodes/1/inputSchema/properties/x/allOf');
  assert.match(allOf.message, /"allOf" is an empty list/);
});

test('an enum value listed twice names the value', () => {
  const [finding] = inputSchemaFindings({ enum: ['a', 'a'] });
  assert.equal(finding.pointer, '/nodes/1/inputSchema/properties/x/enum');
  assert.match(finding.message, '"a" twice');
  assert.match(finding.message, 'remove the repeated value "a"');
});

test('a keyword ajv takes only as a boolean (nullable) is said at that keyword', () => {
  const [finding] = inputSchemaFindings({ nullable: 'yes' });
  assert.equal([finding.code, finding.pointer], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/nullable']);
  assert.match(finding.message, /"nullable" must be true or false, not "yes"/);
});

test.run();
