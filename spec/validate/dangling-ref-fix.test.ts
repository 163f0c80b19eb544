/**
 * A `$ref` that points at nothing is fixed where the schema holding it is:
 * in a registry entry, by a `definitions` entry of that registry entry
 * (its $refs resolve against the entry itself); in an inputSchema, inside
 * that inputSchema.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';

const Dangling = suite('a dangling $ref: the fix names the schema holding it');

function workflow(v: Record<string, unknown>, input: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: { v: { description: 'v', ...v } },
    nodes: [
      { type: 'start', id: 's', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'd', completionCondition: 'c', inputSchema: { properties: {}, ...input, globalInputs: ['v'] }, connections: { success: 'e' } },
      { type: 'end', id: 'e', finalOutput: ['v'] },
    ],
  };
}

Dangling('in a registry entry: the fix sends the user to a definitions entry inside variableRegistry.v, never to an inputSchema', () => {
  const [finding, ...more] = validateWorkflow(workflow({ type: 'object', properties: { x: { $ref: '#/definitions/nope' } } })).errors;
  assert.equal([finding.code, finding.pointer, more], ['E_VARIABLE_SCHEMA', '/variableRegistry/v/properties/x/$ref', []]);
  assert.match(finding.message, '"$ref" #/definitions/nope points at nothing');
  assert.match(finding.message, 'variableRegistry.v');
  assert.match(finding.message, '"definitions"');
  assert.not.match(finding.message, 'inputSchema');
});

Dangling('in an inputSchema: the fix still names the inputSchema', () => {
  const [finding, ...more] = validateWorkflow(workflow({ type: 'string' }, { properties: { x: { $ref: '#/definitions/nope' } } })).errors;
  assert.equal([finding.code, finding.pointer, more], ['E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/$ref', []]);
  assert.match(finding.message, 'inside this inputSchema');
});

Dangling.run();
