/**
 * The published schema, schemas/workflow.schema.json: what editors load.
 * It must compile under strict draft-07 ajv, describe every property,
 * dispatch on node type so errors land on the right node, agree with the
 * node-type registry, and accept Moira-format workflows unchanged.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_TYPES } from '../../engine/nodes/index.js';
import { validateWorkflow } from '../../engine/validate/index.js';

type Schema = Record<string, any>;
const schema = JSON.parse(readFileSync(new URL('../../schemas/workflow.schema.json', import.meta.url), 'utf8')) as Schema;

let compiled: ValidateFunction | undefined;
function strictValidator(): ValidateFunction {
  compiled ??= new Ajv({ strict: true, allErrors: true }).compile(schema);
  return compiled;
}

/** The seed-003 review loop in Moira's own format (nodes as the seed prints them). */
function seedReviewLoop(): Schema {
  return {
    metadata: { name: 'subagent review', version: '1.0.0', description: 'Seed 003 review loop' },
    variableRegistry: {
      review_file_path: { type: 'string', description: 'Where the review is saved', default: 'review.md' },
      issues_found: { type: 'string', enum: ['yes', 'no'], description: 'Did the reviewer find issues?' },
    },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'do-work' } },
      { type: 'agent-directive', id: 'do-work', directive: 'Do the work.', completionCondition: 'Done', connections: { success: 'delegate-review' } },
      {
        type: 'agent-directive',
        id: 'delegate-review',
        directive:
          "Delegate review to subagent using Task tool.\n\n1) Pass ONLY necessary information:\n   - File paths to review\n   - Success criteria\n   - Context directory\n\n2) Agent delegation rules:\n   - Role clarity: 'YOU ARE reviewer'\n   - Direct commands: 'CHECK' not 'could you check'\n   - Specify files: list exact paths\n   - Demand verification: 'VERIFY by reading files'\n\n3) Save review result to {{review_file_path}}\n\n4) Report findings honestly - if reviewer found issues, report issues_found: yes",
        completionCondition: 'Review delegated, result saved, findings reported',
        inputSchema: {
          type: 'object',
          properties: {
            review_file: { type: 'string', description: 'Path to saved review file' },
            issues_found: {
              type: 'string',
              enum: ['yes', 'no'],
              description: 'Did reviewer find any issues? (every issue is mandatory; no severity tiers)',
            },
          },
          required: ['review_file', 'issues_found'],
          globalInputs: ['issues_found'],
        },
        connections: { success: 'check-review-result' },
      },
      {
        type: 'condition',
        id: 'check-review-result',
        condition: { operator: 'eq', left: { contextPath: 'issues_found' }, right: 'no' },
        connections: { true: 'next-step', false: 'fix-issues' },
      },
      { type: 'agent-directive', id: 'fix-issues', directive: 'Fix every issue in {{delegate-review.review_file}}.', completionCondition: 'Fixed', connections: { success: 'do-work' } },
      { type: 'end', id: 'next-step', finalOutput: ['issues_found'] },
    ],
  };
}

const test = suite('schemas/workflow.schema.json');

test('is a draft-07 schema with an $id that compiles under strict ajv', () => {
  assert.is(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.match(String(schema.$id), /^https:\/\/.+\/workflow\.schema\.json$/);
  assert.type(strictValidator(), 'function');
});

/**
 * Every subschema that describes data, with its path. `if` clauses are
 * skipped: they only test a discriminator (`type`, `operator`) that the
 * real property declaration next to them already describes.
 */
function* subschemas(node: unknown, path: string): Generator<[Schema, string]> {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const s = node as Schema;
  yield [s, path];
  for (const map of ['properties', 'definitions', 'patternProperties']) {
    for (const [k, v] of Object.entries((s[map] as Schema | undefined) ?? {})) yield* subschemas(v, `${path}/${map}/${k}`);
  }
  for (const single of ['items', 'additionalProperties', 'then', 'else', 'not', 'propertyNames', 'contains']) {
    if (s[single] !== undefined) yield* subschemas(s[single], `${path}/${single}`);
  }
  for (const list of ['allOf', 'anyOf', 'oneOf']) {
    for (const [i, v] of ((s[list] as unknown[] | undefined) ?? []).entries()) yield* subschemas(v, `${path}/${list}/${i}`);
  }
}

test('describes every property, so editors can show what each field means', () => {
  let properties = 0;
  for (const [s, path] of subschemas(schema, '#')) {
    for (const [name, prop] of Object.entries((s.properties as Schema | undefined) ?? {})) {
      properties++;
      assert.type((prop as Schema).description, 'string', `${path}/properties/${name} has no description`);
      assert.ok(((prop as Schema).description as string).length > 3, `${path}/properties/${name} has an empty description`);
    }
  }
  for (const [name, def] of Object.entries(schema.definitions as Schema)) {
    assert.type((def as Schema).description, 'string', `definition ${name} has no description`);
  }
  assert.ok(properties > 50, `only ${properties} properties walked`);
});

test('G20: node type is a discriminated union whose enum matches the node-type registry', () => {
  const node = schema.definitions.node as Schema;
  assert.equal([...node.properties.type.enum].sort(), Object.keys(NODE_TYPES).sort());
  const dispatched = (node.allOf as Schema[]).map((branch) => branch.if.properties.type.const as string);
  assert.equal(dispatched.sort(), Object.keys(NODE_TYPES).sort());
});

test('each node type allows exactly the connections its node type defines, and requires the required ones', () => {
  for (const branch of schema.definitions.node.allOf as Schema[]) {
    const type = branch.if.properties.type.const as string;
    // delegate-review dispatches once more, on its contract.
    const variants: Array<[string, Schema]> = branch.then.$ref
      ? [[type, { type } as Schema]]
      : [[`${type} (contract decision)`, { type, contract: 'decision' } as Schema], [`${type} (contract issues)`, { type } as Schema]];
    for (const [label, node] of variants) {
      const ref = branch.then.$ref ?? (node.contract === 'decision' ? branch.then.then.$ref : branch.then.else.$ref);
      const target = schema.definitions[String(ref).replace('#/definitions/', '')] as Schema;
      const connections = target.properties.connections as Schema;
      const nodeType = NODE_TYPES[type];
      const spec = nodeType.connectionsOf?.(node as never) ?? nodeType.connections;
      assert.equal(Object.keys(connections.properties).sort(), [...spec.required, ...spec.optional].sort(), label);
      assert.equal([...(connections.required ?? [])].sort(), [...spec.required].sort(), label);
      assert.is(connections.additionalProperties, false, label);
      assert.is(target.additionalProperties, false, label);
    }
  }
});

test('G20: errors are reported on the node that has them (per-type if/then dispatch)', () => {
  const wf = seedReviewLoop();
  delete (wf.nodes[2] as Schema).completionCondition;
  (wf.nodes[3] as Schema).colour = 'red';
  const validate = strictValidator();
  assert.is(validate(wf), false);
  const places = (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath} ${e.keyword}`);
  assert.equal(places.sort(), ['/nodes/2 required', '/nodes/3 additionalProperties']);
});

test('accepts the seed-003 review loop in Moira format unchanged', () => {
  const validate = strictValidator();
  const ok = validate(seedReviewLoop());
  assert.ok(ok, JSON.stringify(validate.errors));
  const report = validateWorkflow(seedReviewLoop());
  assert.equal(report.errors, []);
});

test('accepts the catalog fields and $schema, and rejects other top-level keys', () => {
  const validate = strictValidator();
  const wf = { ...seedReviewLoop(), $schema: 'https://countersign.dev/schemas/workflow.schema.json', id: 'x', slug: 'x', owner: 'me', visibility: 'public' };
  assert.ok(validate(wf), JSON.stringify(validate.errors));
  assert.is(validate({ ...wf, extra: 1 }), false);
});

test('inputSchema and registry entries take every keyword ajv knows, at any depth, and refuse a misspelt one (minLenght, propertis) as validate does, so an editor underlines it', () => {
  const wf = seedReviewLoop();
  (wf.nodes[2] as Schema).inputSchema.if = { properties: { issues_found: { const: 'yes' } } };
  (wf.nodes[2] as Schema).inputSchema.then = { required: ['issues_found'] };
  wf.variableRegistry.issues_found.examples = ['no'];
  assert.ok(strictValidator()(wf), JSON.stringify(strictValidator().errors));
  const typos = seedReviewLoop();
  typos.variableRegistry.issues_found.minLenght = 1;
  (typos.nodes[2] as Schema).inputSchema.propertis = {};
  (typos.nodes[2] as Schema).inputSchema.properties.review_file.maxLenght = 9;
  assert.is(strictValidator()(typos), false);
  const at = (strictValidator().errors ?? []).filter((e) => e.keyword === 'enum' && (e as { propertyName?: string }).propertyName).map((e) => `${e.instancePath}/${(e as { propertyName?: string }).propertyName}`);
  for (const key of ['/variableRegistry/issues_found/minLenght', '/nodes/2/inputSchema/propertis', '/nodes/2/inputSchema/properties/review_file/maxLenght']) assert.ok(at.includes(key), `${key} in ${at.join(', ')}`);
  // validate reports each once, with its own code and did-you-mean.
  const report = validateWorkflow(typos);
  assert.equal(report.errors.map((e) => `${e.code} ${e.pointer}`).sort(), ['E_INPUT_SCHEMA /nodes/2/inputSchema/properties/review_file/maxLenght', 'E_INPUT_SCHEMA /nodes/2/inputSchema/propertis', 'E_VARIABLE_SCHEMA /variableRegistry/issues_found/minLenght']);
});

test('the keywords the schema allows in a JSON Schema are exactly those ajv knows but $async (the engine compiles inputSchemas with it): nothing ajv refuses is let through, nothing it takes is refused', async () => {
  const { ajvModules } = await import('../../engine/format/ajv.js');
  const ajv = new Ajv({ strict: true });
  ajvModules().addFormats(ajv);
  // $async excepted: an asynchronous validator returns a promise and judges nothing (validate refuses it too).
  // ajv-formats' formatMinimum family and draft-04's id are keywords only of a fuller ajv than the one that compiles answers.
  const notTaken = new Set(['$async', 'formatMinimum', 'formatMaximum', 'formatExclusiveMinimum', 'formatExclusiveMaximum', 'id']);
  const known = Object.keys((ajv as unknown as { RULES: { keywords: object } }).RULES.keywords).filter((k) => !notTaken.has(k)).sort();
  assert.equal([...schema.definitions.schemaKeywords.then.propertyNames.enum].sort(), known);
  // A registry entry takes the same keywords: it is checked as a schemaKeywords schema.
  assert.equal(schema.definitions.variableDeclaration.allOf, [{ $ref: "#/definitions/schemaKeywords" }]);
});

test('r76: $async is refused (an asynchronous validator judges nothing), and a misspelt keyword anywhere — a single items schema, a tuple item, a dependency schema, an unreferenced definition — is one finding at it, from validate and from the published schema alike', () => {
  const cases: [string, (wf: Schema) => void, string, string][] = [
    ['$async', (wf) => ((wf.nodes[2] as Schema).inputSchema.$async = true), '/nodes/2/inputSchema/$async', 'E_INPUT_SCHEMA'],
    ['$async in a registry entry', (wf) => (wf.variableRegistry.issues_found.$async = true), '/variableRegistry/issues_found/$async', 'E_VARIABLE_SCHEMA'],
    ['items', (wf) => ((wf.nodes[2] as Schema).inputSchema.properties.list = { type: 'array', items: { type: 'string', minLenght: 1 } }), '/nodes/2/inputSchema/properties/list/items/minLenght', 'E_INPUT_SCHEMA'],
    ['tuple items', (wf) => ((wf.nodes[2] as Schema).inputSchema.properties.list = { type: 'array', items: [{ type: 'string', minLenght: 1 }] }), '/nodes/2/inputSchema/properties/list/items/0/minLenght', 'E_INPUT_SCHEMA'],
    ['dependencies', (wf) => ((wf.nodes[2] as Schema).inputSchema.dependencies = { review_file: { properties: { x: { minLenght: 1 } } } }), '/nodes/2/inputSchema/dependencies/review_file/properties/x/minLenght', 'E_INPUT_SCHEMA'],
    ['definitions', (wf) => ((wf.nodes[2] as Schema).inputSchema.definitions = { x: { type: 'string', minLenght: 1 } }), '/nodes/2/inputSchema/definitions/x/minLenght', 'E_INPUT_SCHEMA'],
  ];
  for (const [what, change, pointer, code] of cases) {
    const wf = seedReviewLoop();
    change(wf);
    const report = validateWorkflow(wf);
    assert.equal(report.errors.map((e) => `${e.code} ${e.pointer}`), [`${code} ${pointer}`], what);
    assert.is(strictValidator()(wf), false, `the published schema refuses ${what} too`);
    const keyed = (strictValidator().errors ?? []).filter((e) => (e as { propertyName?: string }).propertyName).map((e) => `${e.instancePath}/${(e as { propertyName?: string }).propertyName}`);
    assert.ok(keyed.includes(pointer.replace('/$async', '/$async')), `${what}: ${keyed.join(', ')}`);
  }
  const ok = seedReviewLoop();
  (ok.nodes[2] as Schema).inputSchema.properties.list = { type: 'array', items: { type: 'string', minLength: 1 } };
  assert.ok(validateWorkflow(ok).ok);
  assert.ok(strictValidator()(ok), JSON.stringify(strictValidator().errors));
});

test('a definition nothing refers to is checked as compiling it would: a pattern or patternProperties key that is no regular expression, an unknown format (did you mean), in definitions and $defs, each a finding at its value', () => {
  const cases: [string, Schema, string, RegExp][] = [
    ['pattern', { definitions: { u: { type: 'string', pattern: '(' } } }, '/definitions/u/pattern', /"pattern" is not a valid regular expression \(\/\(\/u: Unterminated group\)/],
    ['patternProperties key', { $defs: { u: { type: 'object', patternProperties: { '[a-': { type: 'string' } } } } }, '/$defs/u/patternProperties/[a-', /the patternProperties key "\[a-" is not a valid regular expression/],
    ['format', { definitions: { u: { type: 'string', format: 'emial' } } }, '/definitions/u/format', /unknown format "emial" — did you mean "email"\?/],
    ['nested in a definition', { definitions: { u: { type: 'object', properties: { at: { type: 'string', format: 'date-tme' } } } } }, '/definitions/u/properties/at/format', /unknown format "date-tme"/],
  ];
  for (const [what, extra, pointer, message] of cases) {
    const wf = seedReviewLoop();
    Object.assign((wf.nodes[2] as Schema).inputSchema, extra);
    const report = validateWorkflow(wf);
    assert.equal(report.errors.map((e) => `${e.code} ${e.pointer}`), [`E_INPUT_SCHEMA /nodes/2/inputSchema${pointer}`], what);
    assert.match(report.errors[0]!.message, message, what);
  }
  const both = seedReviewLoop();
  (both.nodes[2] as Schema).inputSchema.definitions = { u: { type: 'string', pattern: '(', format: 'nope' } };
  assert.equal(validateWorkflow(both).errors.map((e) => e.pointer), ['/nodes/2/inputSchema/definitions/u/pattern', '/nodes/2/inputSchema/definitions/u/format'], 'both, in one pass');
  const fine = seedReviewLoop();
  (fine.nodes[2] as Schema).inputSchema.definitions = { u: { type: 'string', pattern: '^[a-z]+$', format: 'email', patternProperties: { '^x-': {} } } };
  assert.ok(validateWorkflow(fine).ok, JSON.stringify(validateWorkflow(fine).errors));
});

test('the published schema checks a schema keyword\'s value as draft-07 does (minLength -1, multipleOf 0, a required name twice, an empty enum, a fractional maxItems, a title that is no string), as validate does', () => {
  const cases: [string, unknown][] = [['minLength', -1], ['maxLength', -2], ['multipleOf', 0], ['required', ['a', 'a']], ['enum', []], ['maxItems', 1.5], ['minProperties', -1], ['title', 5], ['uniqueItems', 'yes'], ['minimum', '3']];
  for (const [keyword, value] of cases) {
    const wf = seedReviewLoop();
    (wf.nodes[2] as Schema).inputSchema.properties.extra = { type: 'string', [keyword]: value };
    assert.is(strictValidator()(wf), false, `the published schema refuses ${keyword}: ${JSON.stringify(value)}`);
    const at = (strictValidator().errors ?? []).map((e) => e.instancePath);
    assert.ok(at.includes(`/nodes/2/inputSchema/properties/extra/${keyword}`), `${keyword}: at the keyword, not only its node: ${at.join(', ')}`);
    assert.equal(validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer}`), [`E_INPUT_SCHEMA /nodes/2/inputSchema/properties/extra/${keyword}`], `validate refuses ${keyword} too`);
  }
  const fine = seedReviewLoop();
  (fine.nodes[2] as Schema).inputSchema.properties.extra = { type: 'string', minLength: 0, maxLength: 5, title: 't', enum: ['a'], pattern: '^a$' };
  assert.ok(strictValidator()(fine), JSON.stringify(strictValidator().errors));
});

test('r89: every subschema position of an inputSchema or registry entry takes only a schema (an object, true or false), and list and name values are checked as draft-07 checks them, so the published schema refuses what validate refuses', () => {
  const cases: Record<string, unknown>[] = [
    { properties: { a: 5 } }, { properties: { a: null } }, { additionalProperties: 5 }, { items: 5 }, { items: [5] }, { not: 'x' },
    { definitions: { a: 5 } }, { allOf: [5] }, { contains: 5 }, { propertyNames: 5 }, { then: 5 }, { dependencies: { y: 5 } },
    { enum: ['a', 'a'] }, { items: [] }, { allOf: [] }, { anyOf: [] }, { oneOf: [] }, { dependencies: { y: [1] } }, { dependencies: { y: ['z', 'z'] } },
    { contentEncoding: 5 }, { contentMediaType: 5 }, { nullable: 'yes' },
  ];
  for (const extra of cases) {
    const keyword = Object.keys(extra)[0];
    const wf = seedReviewLoop();
    (wf.nodes[2] as Schema).inputSchema.properties.extra = { type: 'string', ...extra };
    wf.variableRegistry.reg = { type: 'string', description: 'r', ...extra };
    assert.is(strictValidator()(wf), false, `the published schema refuses ${JSON.stringify(extra)}`);
    const at = (strictValidator().errors ?? []).map((e) => e.instancePath);
    for (const pointer of [`/nodes/2/inputSchema/properties/extra/${keyword}`, `/variableRegistry/reg/${keyword}`]) {
      assert.ok(at.some((p) => p === pointer || p.startsWith(`${pointer}/`)), `${JSON.stringify(extra)}: at ${pointer}, not only its node: ${at.join(', ')}`);
    }
    const found = validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer}`);
    assert.ok(found.some((f) => f.startsWith(`E_INPUT_SCHEMA /nodes/2/inputSchema/properties/extra/${keyword}`)), `validate refuses ${JSON.stringify(extra)} too: ${found.join(', ')}`);
  }
  const fine = seedReviewLoop();
  (fine.nodes[2] as Schema).inputSchema.properties.extra = {
    type: 'array', items: [{ type: 'string' }, true], additionalItems: false, contains: { const: 'a' }, allOf: [true], anyOf: [{}], oneOf: [false, true],
    nullable: true, contentEncoding: 'base64', contentMediaType: 'text/plain', enum: [['a'], ['b']],
  };
  (fine.nodes[2] as Schema).inputSchema.dependencies = { review_file: ['issues_found'], issues_found: { required: ['review_file'] } };
  assert.ok(strictValidator()(fine), JSON.stringify(strictValidator().errors));
});

test('r94 b1: an unknown format under a subschema with its own URI $id is told at its format, with a did-you-mean (not at the root in ajv\'s words)', () => {
  const wf = seedReviewLoop();
  Object.assign((wf.nodes[2] as Schema).inputSchema, { definitions: { d: { $id: 'http://x.test/d', type: 'object', properties: { y: { type: 'string', format: 'emial' } } } } });
  (wf.nodes[2] as Schema).inputSchema.properties.x = { $ref: 'http://x.test/d' };
  const errors = validateWorkflow(wf).errors;
  assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_INPUT_SCHEMA /nodes/2/inputSchema/definitions/d/properties/y/format']);
  assert.match(errors[0]!.message, 'unknown format "emial" — did you mean "email"?');
});

test('r77: a "type" list naming a type twice, or empty, says so (never "undefined is not a JSON Schema type")', () => {
  const wf = seedReviewLoop();
  (wf.nodes[2] as Schema).inputSchema.properties.review_file.type = ['string', 'string'];
  (wf.nodes[2] as Schema).inputSchema.properties.issues_found.type = [];
  const messages = validateWorkflow(wf).errors.map((e) => e.message);
  assert.ok(messages.some((m) => m.includes('"type" names "string" twice')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"type" is an empty list')), messages.join('\n'));
  assert.ok(messages.every((m) => !m.includes('undefined')));
});

test('r82 b5: a JSON Schema "type" is checked at any depth of an inputSchema and of a registry entry, and an inputSchema\'s own type must be object, so the published schema flags what validate flags, at the same pointer', () => {
  const cases: [string, (wf: Schema) => void, string, string][] = [
    ['a misspelt type in an inputSchema property', (wf) => ((wf.nodes[2] as Schema).inputSchema.properties.review_file.type = 'strnig'), '/nodes/2/inputSchema/properties/review_file/type', 'E_INPUT_SCHEMA'],
    ['a misspelt type in an items schema', (wf) => ((wf.nodes[2] as Schema).inputSchema.properties.list = { type: 'array', items: { type: 'strng' } }), '/nodes/2/inputSchema/properties/list/items/type', 'E_INPUT_SCHEMA'],
    ['a misspelt type in a registry entry\'s properties', (wf) => (wf.variableRegistry.shape = { type: 'object', description: 'x', properties: { a: { type: 'strng' } } }), '/variableRegistry/shape/properties/a/type', 'E_VARIABLE_SCHEMA'],
    ['a registry entry\'s own type naming a type twice', (wf) => (wf.variableRegistry.shape = { type: ['string', 'string'], description: 'x' }), '/variableRegistry/shape/type', 'E_VARIABLE_SCHEMA'],
    ['a misspelt name in a registry entry\'s own type list (one fault, one finding)', (wf) => (wf.variableRegistry.shape = { type: ['strnig'], description: 'x' }), '/variableRegistry/shape/type/0', 'E_SCHEMA'],
    ['a registry entry\'s own type as an empty list', (wf) => (wf.variableRegistry.shape = { type: [], description: 'x' }), '/variableRegistry/shape/type', 'E_VARIABLE_SCHEMA'],
    ['an inputSchema whose own type is not object', (wf) => ((wf.nodes[2] as Schema).inputSchema.type = ['string', 'array']), '/nodes/2/inputSchema/type', 'E_INPUT_SCHEMA'],
    ['an inputSchema whose own type is a string type', (wf) => ((wf.nodes[2] as Schema).inputSchema.type = 'string'), '/nodes/2/inputSchema/type', 'E_INPUT_SCHEMA'],
  ];
  for (const [what, change, pointer, code] of cases) {
    const wf = seedReviewLoop();
    change(wf);
    assert.equal(validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer}`), [`${code} ${pointer}`], what);
    // Said as validate's own check words it, never as ajv's "must NOT have duplicate items".
    assert.not.ok(validateWorkflow(wf).errors.some((e) => /must NOT have/.test(e.message)), what);
    assert.is(strictValidator()(wf), false, `the published schema refuses ${what} too`);
    const at = (strictValidator().errors ?? []).filter((e) => e.keyword !== 'if').map((e) => e.instancePath);
    assert.equal([...new Set(at)], [pointer], what);
  }
  // What validate takes, the schema takes: a type list, object-or-null answers, nested lists of types.
  const ok = seedReviewLoop();
  (ok.nodes[2] as Schema).inputSchema.type = ['object', 'null'];
  (ok.nodes[2] as Schema).inputSchema.properties.list = { type: 'array', items: { type: ['string', 'null'] } };
  ok.variableRegistry.shape = { type: 'object', description: 'x', properties: { a: { type: 'integer' } } };
  assert.ok(validateWorkflow(ok).ok, JSON.stringify(validateWorkflow(ok).errors));
  assert.ok(strictValidator()(ok), JSON.stringify(strictValidator().errors));
});

test('r82 b5: an answer field starting with "$" is refused by the published schema too, at the field', () => {
  const wf = seedReviewLoop();
  (wf.nodes[2] as Schema).inputSchema.properties.$note = { type: 'string' };
  assert.equal(validateWorkflow(wf).errors.map((e) => `${e.code} ${e.pointer}`), ['E_INPUT_SCHEMA /nodes/2/inputSchema/properties/$note']);
  assert.is(strictValidator()(wf), false);
  const keyed = (strictValidator().errors ?? []).filter((e) => (e as { propertyName?: string }).propertyName).map((e) => `${e.instancePath}/${(e as { propertyName?: string }).propertyName}`);
  assert.ok(keyed.includes('/nodes/2/inputSchema/properties/$note'), keyed.join(', '));
});

test('variable names in variableRegistry and initialData follow validate\'s rule (no ".", not digits alone), so an editor underlines a.b', () => {
  const wf = seedReviewLoop();
  wf.variableRegistry['a.b'] = { type: 'string', description: 'x' };
  (wf.nodes[0] as Schema).initialData = { variables: { '12': { description: 'x', value: 1 } } };
  assert.is(strictValidator()(wf), false);
  const keys = (strictValidator().errors ?? []).filter((e) => e.keyword === 'pattern').map((e) => (e as { propertyName?: string }).propertyName);
  assert.equal(keys.sort(), ['12', 'a.b']);
});

test('requires metadata and at least two nodes', () => {
  const validate = strictValidator();
  assert.is(validate({ nodes: seedReviewLoop().nodes }), false);
  assert.is(validate({ metadata: seedReviewLoop().metadata, nodes: [seedReviewLoop().nodes[0]] }), false);
});

test.run();
