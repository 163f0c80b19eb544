/**
 * The `pointer: message` lines a rejected answer comes back with must let
 * the agent fix the answer in one retry: each line names the offending key
 * or the value required, and the alternatives of a failed anyOf/oneOf are
 * one fault at that value, never lines that contradict each other.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type JsonObject, type Workflow } from '../../engine/index.js';
import { answeredWith, askingWith } from '../helpers/answer-lines.js';

const Lines = suite('error lines of a rejected answer');

/** The error lines the engine returns for `answer` to a node whose inputSchema has `properties`. */
async function rejectionLines(properties: JsonObject, answer: JsonObject): Promise<string[]> {
  const answered = await answeredWith({ type: 'object', properties }, answer);
  if (answered.status !== 'waiting') return [];
  assert.is(answered.rejected?.code, 'E_ANSWER_INVALID', JSON.stringify(answered));
  return answered.pending.errors ?? [];
}

Lines('a propertyNames failure is a line at the offending key, naming it and the rule', async () => {
  const lines = await rejectionLines({ obj: { type: 'object', propertyNames: { pattern: '^k_' } } }, { obj: { k_ok: 1, bad: 2 } });
  assert.equal(lines, ['/obj/bad: property name "bad" must match pattern "^k_"']);
});

Lines('each refused key has its own line; a key is escaped in its pointer', async () => {
  const lines = await rejectionLines({ obj: { type: 'object', propertyNames: { maxLength: 3 } } }, { obj: { ok: 1, 'a/long': 2, toolong: 3 } });
  assert.equal(lines, [
    '/obj/a~1long: property name "a/long" must NOT have more than 3 characters',
    '/obj/toolong: property name "toolong" must NOT have more than 3 characters',
  ]);
});

Lines('propertyNames: false refuses every key, each at its own pointer', async () => {
  const lines = await rejectionLines({ obj: { type: 'object', propertyNames: false } }, { obj: { x: 1 } });
  assert.equal(lines, ['/obj/x: property name "x" is not allowed here']);
});

Lines('a const failure gives the value required', async () => {
  assert.equal(await rejectionLines({ c: { const: 'approved' } }, { c: 'aproved' }), ['/c: must be "approved"']);
  assert.equal(await rejectionLines({ c: { const: { a: [1] } } }, { c: { a: [2] } }), ['/c: must be {"a":[1]}']);
});

Lines('a value fitting no anyOf alternative is one line at the value, listing the alternatives', async () => {
  const lines = await rejectionLines({ any: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, { any: true });
  assert.equal(lines, ['/any: must be string or integer (it fits none of the anyOf alternatives)']);
});

Lines('a failed oneOf folds its alternatives too, and says what each wanted', async () => {
  const properties: JsonObject = {
    one: { oneOf: [{ type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] }, { type: 'string', minLength: 3 }] },
  };
  assert.equal(await rejectionLines(properties, { one: { x: 'a' } }), [
    '/one: must match exactly one schema in oneOf; it fits none of the alternatives: 1) /one/x: must be integer; 2) must be string',
  ]);
  assert.equal(await rejectionLines(properties, { one: 'ab' }), [
    '/one: must match exactly one schema in oneOf; it fits none of the alternatives: 1) must be object; 2) must NOT have fewer than 3 characters',
  ]);
});

Lines('a value fitting several oneOf alternatives is told which', async () => {
  const lines = await rejectionLines({ one: { oneOf: [{ type: 'integer' }, { minimum: 0 }] } }, { one: 5 });
  assert.equal(lines, ['/one: must match exactly one schema in oneOf, but fits alternatives 1 and 2']);
});

Lines('faults outside the choice keep their own lines', async () => {
  const lines = await rejectionLines(
    { any: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, n: { type: 'integer' } },
    { any: true, n: 'x' },
  );
  assert.equal(lines, ['/any: must be string or integer (it fits none of the anyOf alternatives)', '/n: must be integer']);
});

Lines('a start input that breaks these rules is E_INPUT at the offending key or value, with a fix naming what is right', async () => {
  const wf = {
    metadata: { name: 'inputs', version: '1.0.0', description: 'start input lines' },
    variableRegistry: {
      obj: { type: 'object', description: 'o', propertyNames: { pattern: '^k_' } },
      c: { type: 'string', description: 'c', const: 'approved' },
      // The declared type lets `true` through to the anyOf.
      any: { type: ['string', 'integer', 'boolean'], description: 'a', anyOf: [{ type: 'string' }, { type: 'integer' }] },
    },
    nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e', finalOutput: ['obj'] }],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  type Refusal = { code: string; pointer?: string; message: string; fix?: string };
  const refusal = (input: JsonObject) => engine.start(wf, { input }).then(() => undefined, (x: Refusal) => x);
  for (const [input, pointer, line, fix] of [
    [{ obj: { k_ok: 1, bad: 2 } }, '/obj/bad', '/obj/bad: property name "bad" must match pattern "^k_"', 'rename the key "bad" of /obj in the start input: its name must match pattern "^k_", as variableRegistry.obj describes it'],
    [{ c: 'aproved' }, '/c', '/c: must be "approved"', 'correct /c in the start input: it must be "approved", as variableRegistry.c describes it'],
    [{ any: true }, '/any', '/any: must be string or integer (it fits none of the anyOf alternatives)', 'correct /any in the start input: it must be string or integer (it fits none of the anyOf alternatives), as variableRegistry.any describes it'],
  ] as const) {
    const e = await refusal(input as JsonObject);
    assert.equal([e?.code, e?.pointer, e?.fix], ['E_INPUT', pointer, fix], JSON.stringify(e));
    assert.is(e!.message, `the start input does not fit the variableRegistry: ${line}`);
  }
});

type Refusal = { code: string; pointer?: string; message: string; fix?: string };
/** The E_INPUT refusal of the start input `{v: value}` against a registry entry `v` of `schema`. */
async function inputRefusal(schema: JsonObject, value: unknown): Promise<Refusal | undefined> {
  const wf = {
    metadata: { name: 'inputs', version: '1.0.0', description: 'start input lines' },
    variableRegistry: { v: { description: 'v', ...schema } },
    nodes: [{ type: 'start', id: 's', connections: { default: 'e' } }, { type: 'end', id: 'e', finalOutput: ['v'] }],
  } as unknown as Workflow;
  return createEngine({ store: createMemoryStore() }).start(wf, { input: { v: value } as JsonObject }).then(() => undefined, (x: Refusal) => x);
}

Lines('maxProperties: 0 on a nested field asks for an empty object there, never says the step takes no fields', async () => {
  const a = { type: 'object', maxProperties: 0 };
  assert.equal(await rejectionLines({ a }, { a: { q: 1 } }), ['/a: must have no properties ({})']);
  const e = await inputRefusal({ type: 'object', properties: { a } }, { a: { q: 1 } });
  assert.is(e?.message, 'the start input does not fit the variableRegistry: /v/a: must have no properties ({})');
  assert.is(e?.fix, 'correct /v/a in the start input: it must have no properties ({}), as variableRegistry.v describes it');
});

Lines('a not failure says what the value must not be', async () => {
  assert.equal(await rejectionLines({ a: { not: { type: 'string' } } }, { a: 'x' }), ['/a: must not be string']);
  assert.equal(await rejectionLines({ a: { not: { enum: ['x', 'y'] } } }, { a: 'x' }), ['/a: must not be one of "x", "y"']);
  const e = await inputRefusal({ type: 'object', properties: { a: { not: { type: 'string' } } } }, { a: 'x' });
  assert.is(e?.fix, 'correct /v/a in the start input: it must not be string, as variableRegistry.v describes it');
});

Lines('a property whose schema is false is refused like an extra key, and the start input is told to leave it out', async () => {
  assert.equal(await rejectionLines({ a: false }, { a: 1 }), ['/a: property "a" is not allowed here']);
  const e = await inputRefusal({ type: 'object', properties: { a: false } }, { a: 1 });
  assert.equal([e?.code, e?.pointer], ['E_INPUT', '/v/a']);
  assert.is(e?.message, 'the start input does not fit the variableRegistry: /v/a: property "a" is not allowed here');
  assert.is(e?.fix, 'leave "a" out of /v in the start input: variableRegistry.v does not allow it');
});

Lines('a propertyNames enum or const names the allowed names', async () => {
  assert.equal(await rejectionLines({ m: { type: 'object', propertyNames: { enum: ['aa', 'bb'] } } }, { m: { cc: 1 } }), ['/m/cc: property name "cc" must be one of "aa", "bb"']);
  assert.equal(await rejectionLines({ m: { type: 'object', propertyNames: { const: 'aa' } } }, { m: { cc: 1 } }), ['/m/cc: property name "cc" must be "aa"']);
  const e = await inputRefusal({ type: 'object', propertyNames: { enum: ['aa', 'bb'] } }, { cc: 1 });
  assert.is(e?.fix, 'rename the key "cc" of /v in the start input: its name must be one of "aa", "bb", as variableRegistry.v describes it');
});

Lines('an if/then/else failure is only the failed branch\'s own fault', async () => {
  const schema = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
    if: { properties: { a: { const: 'x' } } },
    then: { required: ['b'] },
    else: { required: ['c'] },
  };
  const engine = createEngine({ store: createMemoryStore() });
  const wf = askingWith({});
  (wf.nodes[1] as { inputSchema?: unknown }).inputSchema = schema;
  for (const [answer, line] of [[{ a: 'x' }, '(root): missing required property "b"'], [{ a: 'y' }, '(root): missing required property "c"']] as const) {
    const started = await engine.start(wf);
    const answered = await engine.submit(started.runId, answer, { seq: started.seq });
    assert.equal(answered.status === 'waiting' ? answered.pending.errors : [], [line]);
  }
  const e = await inputRefusal(schema, { a: 'x' });
  assert.is(e?.message, 'the start input does not fit the variableRegistry: /v: missing required property "b"');
  assert.is(e?.fix, 'give /v the property "b" in the start input: variableRegistry.v requires it');
});

Lines('a contains failure on an empty list describes the item the list needs', async () => {
  const k = { type: 'array', contains: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } };
  assert.equal(await rejectionLines({ k }, { k: [] }), ['/k: must contain at least 1 item that is object and has "id" (integer)']);
  const e = await inputRefusal({ type: 'object', properties: { k } }, { k: [] });
  assert.is(e?.fix, 'correct /v/k in the start input: it must contain at least 1 item that is object and has "id" (integer), as variableRegistry.v describes it');
});

Lines.run();
