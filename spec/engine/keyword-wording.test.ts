/**
 * Every draft-07 keyword ajv can report has one wording that tells the
 * agent what to change, said of the value at the line's pointer, and a
 * start input's E_INPUT fix built on it reads as a sentence ("it must …",
 * "leave … out", "give … the property …", "rename the key …") — never ajv's
 * "boolean schema is false", "must NOT be valid", "must match "then"
 * schema" or "valid item(s)".
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type JsonObject, type Workflow } from '../../engine/index.js';
import { answeredWith, askingWith } from '../helpers/answer-lines.js';

const Wording = suite('a line for every keyword');

async function linesFor(inputSchema: JsonObject, answer: JsonObject): Promise<string[]> {
  const answered = await answeredWith(inputSchema, answer);
  return answered.status === 'waiting' ? answered.pending.errors ?? [] : [];
}

type Refusal = { code: string; pointer?: string; message: string; fix?: string };
/** The E_INPUT refusal of `{v: input}` against a registry entry `v` of `schema`. */
async function startRefusal(schema: JsonObject, input: unknown): Promise<Refusal | undefined> {
  const wf = {
    metadata: { name: 'kw', version: '1.0.0', description: 'keyword inputs' },
    variableRegistry: { v: { description: 'v', ...schema } },
    nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e', finalOutput: ['v'] }],
  } as unknown as Workflow;
  return createEngine({ store: createMemoryStore() }).start(wf, { input: { v: input } as JsonObject }).then(() => undefined, (x: Refusal) => x);
}

const obj = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({ type: 'object', properties, ...extra });

// [keyword, property schema (as property `a`), value of `a`, the line, the start input's fix]
const TABLE: [string, JsonObject, unknown, string, string][] = [
  ['type', { type: 'integer' }, 'x', '/a: must be integer', 'correct /v/a in the start input: it must be integer'],
  ['type (several)', { type: ['string', 'null'] }, 1, '/a: must be string or null', 'it must be string or null'],
  ['enum', { enum: ['x', 'y'] }, 'z', '/a: must be one of "x", "y"', 'it must be one of "x", "y"'],
  ['const', { const: 'x' }, 'z', '/a: must be "x"', 'it must be "x"'],
  ['required', obj({ b: { type: 'string' } }, { required: ['b'] }), {}, '/a: missing required property "b"', 'give /v/a the property "b" in the start input'],
  ['additionalProperties', obj({ b: { type: 'string' } }), { c: 1 }, '/a/c: property "c" is not allowed here', 'leave "c" out of /v/a in the start input'],
  ['propertyNames enum', { type: 'object', propertyNames: { enum: ['aa', 'bb'] } }, { cc: 1 }, '/a/cc: property name "cc" must be one of "aa", "bb"', 'rename the key "cc" of /v/a in the start input: its name must be one of "aa", "bb"'],
  ['propertyNames const', { type: 'object', propertyNames: { const: 'aa' } }, { cc: 1 }, '/a/cc: property name "cc" must be "aa"', 'its name must be "aa"'],
  ['dependencies', { type: 'object', dependencies: { x: ['y'] } }, { x: 1 }, '/a: must have property "y" when property "x" is present', 'it must have property "y" when property "x" is present'],
  ['dependencies false', { type: 'object', dependencies: { x: false } }, { x: 1 }, '/a: must not have property "x"', 'it must not have property "x"'],
  ['not type', { not: { type: 'string' } }, 'x', '/a: must not be string', 'it must not be string'],
  ['not enum', { not: { enum: ['x', 'y'] } }, 'x', '/a: must not be one of "x", "y"', 'it must not be one of "x", "y"'],
  ['not const', { not: { const: 'x' } }, 'x', '/a: must not be "x"', 'it must not be "x"'],
  ['not required', { type: 'object', not: { required: ['x'] } }, { x: 1 }, '/a: must not have the property "x"', 'it must not have the property "x"'],
  ['not other', { not: { minimum: 3 } }, 5, '/a: must not fit the schema {"minimum":3}', 'it must not fit the schema {"minimum":3}'],
  ['anyOf', { anyOf: [{ type: 'string' }, { type: 'integer' }] }, true, '/a: must be string or integer (it fits none of the anyOf alternatives)', 'it must be string or integer'],
  ['oneOf', { oneOf: [{ type: 'integer' }, { minimum: 0 }] }, 5, '/a: must match exactly one schema in oneOf, but fits alternatives 1 and 2', 'it must match exactly one schema in oneOf'],
  ['allOf', { allOf: [{ type: 'integer' }, { minimum: 3 }] }, 1, '/a: must be >= 3', 'it must be >= 3'],
  ['contains (empty list)', { type: 'array', contains: obj({ id: { type: 'integer' } }, { required: ['id'] }) }, [], '/a: must contain at least 1 item that is object and has "id" (integer)', 'it must contain at least 1 item that is object and has "id" (integer)'],
  ['contains (no item fits)', { type: 'array', contains: { type: 'string' } }, [1, 2], '/a: must contain at least 1 item that is string (no item does: must be string)', 'it must contain at least 1 item that is string'],
  ['additionalItems', { type: 'array', items: [{ type: 'string' }], additionalItems: false }, ['x', 'y'], '/a: must NOT have more than 1 item', 'it must NOT have more than 1 item'],
  ['items', { type: 'array', items: { type: 'string' } }, [1], '/a/0: must be string', 'correct /v/a/0 in the start input: it must be string'],
  ['minItems', { type: 'array', minItems: 2 }, [1], '/a: must NOT have fewer than 2 items', 'it must NOT have fewer than 2 items'],
  ['maxItems', { type: 'array', maxItems: 1 }, [1, 2], '/a: must NOT have more than 1 item', 'it must NOT have more than 1 item'],
  ['uniqueItems', { type: 'array', uniqueItems: true }, [1, 1], '/a: must NOT have duplicate items (items 0 and 1 are identical; keep one)', 'it must NOT have duplicate items'],
  ['minProperties', { type: 'object', minProperties: 2 }, { x: 1 }, '/a: must NOT have fewer than 2 properties', 'it must NOT have fewer than 2 properties'],
  ['maxProperties', { type: 'object', maxProperties: 1 }, { x: 1, y: 2 }, '/a: must NOT have more than 1 property', 'it must NOT have more than 1 property'],
  ['maxProperties 0', { type: 'object', maxProperties: 0 }, { q: 1 }, '/a: must have no properties ({})', 'correct /v/a in the start input: it must have no properties ({})'],
  ['minLength', { type: 'string', minLength: 2 }, 'x', '/a: must NOT have fewer than 2 characters', 'it must NOT have fewer than 2 characters'],
  ['maxLength', { type: 'string', maxLength: 1 }, 'xy', '/a: must NOT have more than 1 character', 'it must NOT have more than 1 character'],
  ['pattern', { type: 'string', pattern: '^k_' }, 'x', '/a: must match pattern "^k_"', 'it must match pattern "^k_"'],
  ['format', { type: 'string', format: 'email' }, 'x', '/a: must match format "email"', 'it must match format "email"'],
  ['minimum', { minimum: 1 }, 0, '/a: must be >= 1', 'it must be >= 1'],
  ['maximum', { maximum: 1 }, 2, '/a: must be <= 1', 'it must be <= 1'],
  ['exclusiveMinimum', { exclusiveMinimum: 1 }, 1, '/a: must be > 1', 'it must be > 1'],
  ['exclusiveMaximum', { exclusiveMaximum: 1 }, 1, '/a: must be < 1', 'it must be < 1'],
  ['multipleOf', { multipleOf: 2 }, 3, '/a: must be multiple of 2', 'it must be multiple of 2'],
  ['false property', obj({ b: false }), { b: 1 }, '/a/b: property "b" is not allowed here', 'leave "b" out of /v/a in the start input: variableRegistry.v does not allow it'],
  ['false item', { type: 'array', items: [{}, false], additionalItems: false }, [1, 2], '/a/1: must be left out: no value is allowed here', 'correct /v/a/1 in the start input: it must be left out'],
];

Wording('each keyword has a line that says what to change', async () => {
  for (const [keyword, schema, value, line] of TABLE) {
    assert.equal(await linesFor({ type: 'object', properties: { a: schema } }, { a: value } as JsonObject), [line], keyword);
  }
});

Wording('each keyword\'s start-input fix reads as a sentence built on that line', async () => {
  for (const [keyword, schema, value, line, fix] of TABLE) {
    const e = await startRefusal({ type: 'object', properties: { a: schema } }, { a: value });
    assert.is(e?.code, 'E_INPUT', keyword);
    assert.ok(e!.message.includes(line.replace(/^\/a/, '/v/a')), `${keyword}: ${e!.message}`);
    assert.ok(e!.fix?.includes(fix), `${keyword}: ${e!.fix}`);
    assert.not.match(e!.fix ?? '', /\bit (this|boolean|property)\b|NOT be valid|valid item|schema is false/, keyword);
  }
});

Wording('an if/then or if/else failure is the branch\'s fault alone, not a line about "then"', async () => {
  const schema: JsonObject = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
    if: { properties: { a: { const: 'x' } } },
    then: { required: ['b'] },
    else: { required: ['c'] },
  };
  assert.equal(await linesFor(schema, { a: 'x' }), ['(root): missing required property "b"']);
  assert.equal(await linesFor(schema, { a: 'y' }), ['(root): missing required property "c"']);
  const e = await startRefusal(schema, { a: 'x' });
  assert.is(e?.message, 'the start input does not fit the variableRegistry: /v: missing required property "b"');
  assert.match(e?.fix ?? '', 'give /v the property "b" in the start input');
});

Wording('a then: false says what the if condition refuses', async () => {
  const schema: JsonObject = { type: 'object', properties: { a: { type: 'string' } }, if: { properties: { a: { const: 'x' } } }, then: false };
  assert.equal(await linesFor(schema, { a: 'x' }), ['(root): must not fit the schema {"properties":{"a":{"const":"x"}}} (its "then" schema allows no such value)']);
});

Wording('a step without inputSchema still says it takes no answer fields, naming the fields given (r99 C note)', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const wf = askingWith({});
  delete (wf.nodes[1] as { inputSchema?: unknown }).inputSchema;
  const started = await engine.start(wf);
  const answered = await engine.submit(started.runId, { q: 1 }, { seq: started.seq });
  assert.equal(answered.status === 'waiting' ? answered.pending.errors : [], ['(root): this step takes no answer fields, and got "q"; answer {}']);
});

Wording.run();
