/**
 * Schema faults ajv tells as raw text about the whole schema (a `$ref` that
 * loops on the same value, `nullable` without `type`, `additionalItems`
 * without a list of `items`, a repeated `$id`, a nested `$schema` of another
 * dialect) are said at the key at fault, with a fix; every fault of the
 * schema is reported; and the published schema refuses what it can express
 * of them, so an editor underlines what validate refuses.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow } from '../../engine/validate/index.js';
import { answerValidator } from '../../engine/nodes/answer-schema.js';

const test = suite('schema compile faults: located, explained, all reported, and underlined by the published schema');
const published = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(new URL('../../schemas/workflow.schema.json', import.meta.url), 'utf8')));

function workflow(inputSchema: Record<string, unknown>, registry?: Record<string, unknown>) {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: registry ?? { n: { type: 'integer', description: 'n', default: 0 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'do', completionCondition: 'done', inputSchema, connections: { success: 'end' } },
      { type: 'end', id: 'end' },
    ],
  };
}
const errorsOf = (wf: unknown) => validateWorkflow(wf as never).errors;
const editorErrors = (wf: unknown) => (published(wf) ? [] : (published.errors ?? []).map((e) => e.instancePath));

test('a $ref that loops on the same value is refused at that $ref (never a stack overflow), and recursion through properties/items stays valid', () => {
  for (const [schema, registry, code, pointer] of [
    [{ type: 'object', properties: { x: { $ref: '#/properties/x' } } }, undefined, 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/$ref'],
    [{ type: 'object', properties: { x: { allOf: [{ $ref: '#/properties/x' }] } } }, undefined, 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/properties/x/allOf/0/$ref'],
    [{ type: 'object', definitions: { a: { $ref: '#/definitions/a' } }, properties: { x: { $ref: '#/definitions/a' } } }, undefined, 'E_INPUT_SCHEMA', '/nodes/1/inputSchema/definitions/a/$ref'],
    [{ type: 'object', properties: {}, globalInputs: ['n'] }, { n: { description: 'd', type: 'integer', $ref: '#' } }, 'E_VARIABLE_SCHEMA', '/variableRegistry/n/$ref'],
  ] as const) {
    const errors = errorsOf(workflow(schema as never, registry as never));
    assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), [`${code} ${pointer}`], JSON.stringify(errors));
    assert.match(errors[0].message, 'recurse forever');
    assert.not.match(errors[0].message, 'Maximum call stack');
  }
  const tree = { type: 'object', definitions: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/definitions/node' } } } } }, properties: { root: { $ref: '#/definitions/node' } } };
  assert.equal(errorsOf(workflow(tree)), []);
  assert.equal(errorsOf(workflow({ type: 'object', properties: {}, globalInputs: ['t'] }, { t: { description: 'd', type: 'object', properties: { next: { $ref: '#' } } } })), []);
});

test('"nullable" without "type" is said at "nullable" with a fix, and the editor underlines it', () => {
  const wf = workflow({ type: 'object', properties: { x: { nullable: true } } });
  const errors = errorsOf(wf);
  assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_INPUT_SCHEMA /nodes/1/inputSchema/properties/x/nullable']);
  assert.match(errors[0].message, /add "type"/);
  assert.ok(editorErrors(wf).some((p) => p.startsWith('/nodes/1/inputSchema/properties/x')), 'the published schema refuses it');
});

test('r99 b2 b3: "nullable": false without "type", and beside a type that allows null, is said at "nullable" as written, and the editor underlines both; nullable beside a type without null is fine', () => {
  for (const [x, said] of [
    [{ nullable: false }, '"nullable": false needs a "type" beside it'],
    [{ type: 'null', nullable: false }, '"nullable": false contradicts a "type" that allows null'],
    [{ type: ['string', 'null'], nullable: false }, '"nullable": false contradicts a "type" that allows null'],
  ] as const) {
    const wf = workflow({ type: 'object', properties: { x } });
    const errors = errorsOf(wf);
    assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_INPUT_SCHEMA /nodes/1/inputSchema/properties/x/nullable'], JSON.stringify(x));
    assert.match(errors[0].message, said);
    assert.not.match(errors[0].message, '"nullable": true');
    assert.ok(editorErrors(wf).some((p) => p.startsWith('/nodes/1/inputSchema/properties/x')), `the published schema refuses ${JSON.stringify(x)}`);
  }
  for (const x of [{ type: 'string', nullable: false }, { type: 'string', nullable: true }]) {
    const wf = workflow({ type: 'object', properties: { x } });
    assert.equal(errorsOf(wf), []);
    assert.equal(editorErrors(wf), []);
  }
});

test('r99 b1: the editor refuses the names validate refuses — an initialData variable named like a built-in or __proto__, an answer field or a nested property named __proto__ (inputSchema and registry entry alike)', () => {
  const wf = workflow({ type: 'object', properties: { __proto__: { type: 'string' }, o: { type: 'object', properties: { __proto__: { type: 'string' } } } } } as never);
  (wf.nodes[0] as Record<string, unknown>).initialData = { variables: JSON.parse('{"userId": {"description": "d", "value": 1}, "__proto__": {"description": "d", "value": 2}}') };
  const inputSchema = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}, "o": {"type": "object", "properties": {"__proto__": {"type": "string"}}}}}');
  (wf.nodes[1] as Record<string, unknown>).inputSchema = inputSchema;
  const registry = JSON.parse('{"r": {"type": "object", "description": "r", "default": {}, "properties": {"__proto__": {"type": "string"}}}}');
  (wf as Record<string, unknown>).variableRegistry = registry;
  const refused = errorsOf(wf).filter((e) => e.code === 'E_RESERVED_NAME').map((e) => e.pointer).sort();
  assert.equal(refused, ['/nodes/0/initialData/variables/__proto__', '/nodes/0/initialData/variables/userId', '/nodes/1/inputSchema/properties/__proto__', '/nodes/1/inputSchema/properties/o/properties/__proto__', '/variableRegistry/r/properties/__proto__']);
  const underlined = editorErrors(wf);
  for (const at of ['/nodes/0/initialData/variables', '/nodes/1/inputSchema/properties', '/nodes/1/inputSchema/properties/o/properties', '/variableRegistry/r/properties']) {
    assert.ok(underlined.includes(at), `the published schema refuses the name under ${at}: ${underlined.join(', ')}`);
  }
});

test('"additionalItems" without a list of "items" is said at "additionalItems" with a fix, in an inputSchema and a registry entry, and the editor underlines it', () => {
  const node = workflow({ type: 'object', properties: { x: { type: 'array', additionalItems: false } } });
  const entry = workflow({ type: 'object', properties: {}, globalInputs: ['n'] }, { n: { description: 'd', type: 'array', additionalItems: { type: 'string' } } });
  for (const [wf, finding] of [[node, 'E_INPUT_SCHEMA /nodes/1/inputSchema/properties/x/additionalItems'], [entry, 'E_VARIABLE_SCHEMA /variableRegistry/n/additionalItems']] as const) {
    const errors = errorsOf(wf);
    assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), [finding], JSON.stringify(errors));
    assert.match(errors[0].message, /"items" a list/);
    assert.not.match(errors[0].message, 'strict mode');
    assert.ok(editorErrors(wf).some((p) => finding.endsWith(p) || p.endsWith('additionalItems') || p.endsWith('/n') || p.endsWith('/x')), `the published schema refuses it: ${editorErrors(wf)}`);
  }
});

test('every fault of an inputSchema is reported, those ajv tells about the whole schema included', () => {
  const errors = errorsOf(workflow({ type: 'object', properties: { x: { type: 'string', minLenght: 1 }, y: { type: 'array', additionalItems: false }, z: { nullable: true } } }));
  assert.equal(errors.map((e) => e.pointer).sort(), ['/nodes/1/inputSchema/properties/x/minLenght', '/nodes/1/inputSchema/properties/y/additionalItems', '/nodes/1/inputSchema/properties/z/nullable']);
});

test('a repeated "$id" is said at its second use, an anchor and a URI alike, in countersign\'s words', () => {
  for (const schema of [
    { type: 'object', properties: { x: { type: 'string', $id: '#a' }, y: { type: 'string', $id: '#a' } } },
    { $id: 'http://a/b', type: 'object', properties: { x: { type: 'string' }, y: { type: 'string', $id: 'http://a/b' } } },
  ]) {
    const errors = errorsOf(workflow(schema));
    assert.equal(errors.map((e) => e.pointer), ['/nodes/1/inputSchema/properties/y/$id'], JSON.stringify(errors));
    assert.match(errors[0].message, 'is given to more than one schema');
    assert.not.match(errors[0].message, 'already exists');
  }
});

test('a nested "$schema" naming another dialect is refused at that key, by validate and the editor; a nested draft-07 one is fine', () => {
  for (const dialect of ['http://json-schema.org/draft-04/schema#', 'http://example.com/nope']) {
    const wf = workflow({ type: 'object', properties: { x: { type: 'string', $schema: dialect } } });
    const errors = errorsOf(wf);
    assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_INPUT_SCHEMA /nodes/1/inputSchema/properties/x/$schema'], JSON.stringify(errors));
    assert.match(errors[0].message, dialect);
    assert.ok(editorErrors(wf).includes('/nodes/1/inputSchema/properties/x/$schema'), `the published schema refuses it: ${editorErrors(wf)}`);
  }
  const fine = workflow({ type: 'object', properties: { x: { type: 'string', $schema: 'http://json-schema.org/draft-07/schema#' } } });
  assert.equal(errorsOf(fine), []);
  assert.equal(editorErrors(fine), []);
});

test('a "description" that is not a string is underlined by the editor, as validate refuses it', () => {
  for (const schema of [
    { type: 'object', properties: { x: { description: 5 } } },
    { type: 'object', description: 5, properties: { x: { type: 'string' } } },
    { type: 'object', definitions: { d: { description: 5 } }, properties: { x: { type: 'string' } } },
  ]) {
    const wf = workflow(schema);
    assert.ok(errorsOf(wf).length > 0, 'validate refuses it');
    assert.ok(editorErrors(wf).some((p) => p.endsWith('/description')), `the published schema refuses it: ${editorErrors(wf)}`);
  }
});

test('a registry variable named after a built-in is underlined by the editor, as validate refuses it', () => {
  for (const name of ['executionId', 'workflowId', 'userId']) {
    const wf = workflow({ type: 'object', properties: {} }, { n: { type: 'integer', description: 'n', default: 0 }, [name]: { type: 'string', description: 'd', default: 'x' } });
    assert.ok(errorsOf(wf).some((e) => e.code === 'E_RESERVED_NAME'), 'validate refuses it');
    assert.ok(editorErrors(wf).some((p) => p.startsWith('/variableRegistry')), `the published schema refuses it: ${editorErrors(wf)}`);
  }
});

test('a $ref loop through a relative URI $ref is refused too; should such a schema reach a run, an answer is rejected with the reason, never a stack overflow', () => {
  const schema = { $id: 'http://a.test/root', type: 'object', properties: { x: { $id: 'http://a.test/x', allOf: [{ $ref: 'x' }] } } };
  const errors = errorsOf(workflow(schema));
  assert.equal(errors.map((e) => e.pointer), ['/nodes/1/inputSchema/properties/x/allOf/0/$ref'], JSON.stringify(errors));
  const check = answerValidator(schema);
  assert.is(check({ x: 1 }), false);
  assert.match(String(check.errors?.[0]?.message), 'recurses forever');
});

test.run();
