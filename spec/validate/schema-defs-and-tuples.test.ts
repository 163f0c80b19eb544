/**
 * Every subschema of an inputSchema or a registry entry is checked against
 * JSON Schema, wherever it sits: under `$defs` as under `definitions`
 * (referenced or not), and in a positional `items` list as in a single
 * `items` schema. A fault is reported at the keyword at fault, with the
 * same words whichever place holds it, and the published schema
 * (schemas/workflow.schema.json) refuses the same file at the same pointer.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore } from '../../engine/index.js';
import { validateWorkflow } from '../../engine/validate/index.js';
import { rejection } from '../helpers/errors.js';

type Schema = Record<string, any>;
const Places = suite('JSON Schema checks: $defs and positional items');

let published: ValidateFunction | undefined;
/** Pointers the published schema refuses `wf` at (its if/then bookkeeping left out). */
function publishedAt(wf: Schema): string[] {
  published ??= new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(new URL('../../schemas/workflow.schema.json', import.meta.url), 'utf8')));
  return published(wf) ? [] : [...new Set((published.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => e.instancePath))];
}

/** A workflow with registry entry `v` and node `a` (nodes[1]) whose inputSchema is `input` (globalInputs: v). */
function workflow(v: Schema, input: Schema = { properties: {} }): Schema {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: { v: { description: 'v', ...v } },
    nodes: [
      { type: 'start', id: 's', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'd', completionCondition: 'c', inputSchema: { ...input, globalInputs: ['v'] }, connections: { success: 'e' } },
      { type: 'end', id: 'e', finalOutput: ['v'] },
    ],
  };
}

const found = (wf: Schema) => validateWorkflow(wf).errors.map((e) => ({ code: e.code, pointer: e.pointer, message: e.message }));

Places('a fault under $defs is the finding a fault under definitions is, at its own keyword, in a registry entry and in an inputSchema, referenced or not', () => {
  const cases: [Schema, string, string][] = [
    [{ type: [] }, '"type" is an empty list: it allows no value at all', 'name at least one type'],
    [{ type: 'strin' }, '"strin" is not a JSON Schema type — did you mean "string"?', 'Use one of string'],
    [{ type: ['string', 'string'] }, '"type" names "string" twice', 'name each type once'],
    [{ minLength: -1 }, '"minLength" must be >= 0', 'correct the value'],
  ];
  for (const [def, said, fix] of cases) {
    for (const map of ['definitions', '$defs']) {
      for (const referenced of [true, false]) {
        const properties = referenced ? { x: { $ref: `#/${map}/d` } } : {};
        const what = `${JSON.stringify(def)} under ${map}${referenced ? ', referenced' : ''}`;
        const inRegistry = workflow({ type: 'object', [map]: { d: def }, properties });
        const registryPointer = `/variableRegistry/v/${map}/d/${Object.keys(def)[0]}`;
        const [finding, ...more] = found(inRegistry);
        assert.equal([finding?.code, finding?.pointer, more], ['E_VARIABLE_SCHEMA', registryPointer, []], what);
        assert.match(finding.message, said, what);
        assert.match(finding.message, fix, what);
        // The published schema checks type names (not every keyword's range): there it flags the same place.
        if ('type' in def) assert.ok(publishedAt(inRegistry).includes(registryPointer), `published schema, registry: ${what}: ${publishedAt(inRegistry)}`);

        const inInput = workflow({ type: 'string' }, { [map]: { d: def }, properties: referenced ? { y: { $ref: `#/${map}/d` } } : {} });
        const inputPointer = `/nodes/1/inputSchema/${map}/d/${Object.keys(def)[0]}`;
        const [own, ...others] = found(inInput);
        assert.equal([own?.code, own?.pointer, others], ['E_INPUT_SCHEMA', inputPointer, []], what);
        assert.match(own.message, said, what);
        if ('type' in def) assert.ok(publishedAt(inInput).includes(inputPointer), `published schema, inputSchema: ${what}: ${publishedAt(inInput)}`);
      }
    }
  }
});

Places('$defs nested in a property, and in a $defs entry, are checked too', () => {
  const nested = workflow({ type: 'object', properties: { p: { type: 'object', $defs: { d: { $defs: { e: { type: 'strin' } } } } } } });
  assert.equal(found(nested).map((f) => `${f.code} ${f.pointer}`), ['E_VARIABLE_SCHEMA /variableRegistry/v/properties/p/$defs/d/$defs/e/type']);
  const ok = workflow({ type: 'object', $defs: { d: { type: ['string', 'null'], $defs: { e: { type: 'integer' } } } }, properties: { x: { $ref: '#/$defs/d' } } });
  assert.equal(found(ok), []);
  assert.equal(publishedAt(ok), []);
});

Places('a workflow whose registry $defs allows nothing is refused by start, not run with that entry accepting anything', async () => {
  const wf = workflow({ type: 'object', $defs: { d: { type: [] } }, properties: { x: { $ref: '#/$defs/d' } } });
  const engine = createEngine({ store: createMemoryStore() });
  const refused = await rejection(engine.start(wf as never, { input: { v: { x: [1, { a: null }] } } }));
  assert.is(refused.code, 'E_WORKFLOW_INVALID');
  assert.match(refused.message, '"type" is an empty list');
  assert.equal((refused.data as { errors: { pointer: string }[] }).errors.map((e) => e.pointer), ['/variableRegistry/v/$defs/d/type']);
});

Places('a bad type inside a positional items list is reported at the item\'s own type, as in a single items schema, never as "items must be object"', () => {
  const input = found(workflow({ type: 'string' }, { properties: { x: { type: 'array', items: [{ type: 'strin' }] } } }));
  assert.equal(input.map((f) => `${f.code} ${f.pointer}`), ['E_INPUT_SCHEMA /nodes/1/inputSchema/properties/x/items/0/type']);
  assert.match(input[0].message, '"strin" is not a JSON Schema type — did you mean "string"?');
  assert.not.match(input[0].message, 'must be object');

  const registry = found(workflow({ type: 'array', items: [{ type: 'string' }, { type: [] }] }));
  assert.equal(registry.map((f) => `${f.code} ${f.pointer}`), ['E_VARIABLE_SCHEMA /variableRegistry/v/items/1/type']);
  assert.match(registry[0].message, '"type" is an empty list');

  // A misspelt name inside an item's type list: at that type, naming the name.
  const listed = found(workflow({ type: 'string' }, { properties: { x: { type: 'array', items: [{ type: ['null', 'strin'] }] } } }));
  assert.equal(listed.map((f) => f.pointer), ['/nodes/1/inputSchema/properties/x/items/0/type']);
  assert.match(listed[0].message, '"strin" is not a JSON Schema type');

  // Each faulty item is its own finding.
  const two = found(workflow({ type: 'string' }, { properties: { x: { type: 'array', items: [{ type: 'strin' }, { minLength: -1 }] } } }));
  assert.equal(two.map((f) => f.pointer).sort(), ['/nodes/1/inputSchema/properties/x/items/0/type', '/nodes/1/inputSchema/properties/x/items/1/minLength']);

  for (const wf of [workflow({ type: 'string' }, { properties: { x: { type: 'array', items: [{ type: 'strin' }] } } }), workflow({ type: 'array', items: [{ type: 'string' }, { type: [] }] })]) {
    const at = found(wf)[0].pointer;
    assert.ok(publishedAt(wf).includes(at), `${at}: ${publishedAt(wf)}`);
  }
});

Places('an items value that is neither a schema nor a list of them says what it must be', () => {
  const [finding, ...more] = found(workflow({ type: 'string' }, { properties: { x: { type: 'array', items: 5 } } }));
  assert.equal([finding.pointer, more], ['/nodes/1/inputSchema/properties/x/items', []]);
  assert.match(finding.message, '"items" must be');
});

Places('each faulty item of a list is its own finding, at its own index; a value that is no schema where a schema belongs says so, also for a property named "type"', () => {
  const at = (input: Schema) => found(workflow({ type: 'string' }, input)).map((f) => `${f.pointer.replace('/nodes/1/inputSchema', '')} ${f.message.replace('the inputSchema does not compile: ', '')}`);
  assert.equal(at({ properties: { x: { type: 'array', items: [5, { type: 'string' }, 6] } } }), [
    '/properties/x/items/0 item 0 of "items" must be a JSON Schema (an object, or true or false), not 5; write it as a schema object, e.g. {"type": "string"}',
    '/properties/x/items/2 item 2 of "items" must be a JSON Schema (an object, or true or false), not 6; write it as a schema object, e.g. {"type": "string"}',
  ]);
  assert.equal(at({ properties: { type: 'string', name: 'string' } }).map((line) => line.split(';')[0]), [
    '/properties/type "type" must be a JSON Schema (an object, or true or false), not "string"',
    '/properties/name "name" must be a JSON Schema (an object, or true or false), not "string"',
  ]);
  assert.equal(at({ properties: { a: { type: 'object', required: ['b', 5, 6] } } }).map((line) => line.split(';')[0]), [
    '/properties/a/required/1 item 1 of "required" must be string',
    '/properties/a/required/2 item 2 of "required" must be string',
  ]);
});

Places.run();
