/**
 * A condition whose operand, by its literal value or the type the workflow
 * declares for it, can never satisfy the operator has a fixed result: validate
 * warns at the operand (E_CONDITION_OPERAND_TYPE), so no route is fixed unseen.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFile, validateWorkflow } from '../../engine/validate/index.js';

const operands = suite('validate: condition operands that can never satisfy their operator');

const registry = {
  label: { type: 'string', description: 'a text', default: 'x' },
  count: { type: 'integer', description: 'a count', default: 0 },
  maybe: { type: ['string', 'null'], description: 'a text or null', default: null },
  tags: { type: 'array', description: 'a list', items: { type: 'string' }, default: [] },
  settings: { type: 'object', description: 'an object', default: {} },
};

function flow(condition: unknown): Record<string, unknown> {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'test' },
    variableRegistry: registry,
    nodes: [
      { id: 'start', type: 'start', initialData: { variables: { anything: { description: 'no declared type', value: 1 } } }, connections: { default: 'ask' } },
      { id: 'ask', type: 'agent-directive', directive: 'Go.', completionCondition: 'Done', inputSchema: { type: 'object', properties: { n: { type: 'number' }, word: { type: 'string' } } }, connections: { success: 'check' } },
      { id: 'check', type: 'condition', condition, connections: { true: 'yes', false: 'no' } },
      { id: 'yes', type: 'end' },
      { id: 'no', type: 'end' },
    ],
  };
}

const warned = (condition: unknown) => {
  const report = validateWorkflow(flow(condition));
  assert.equal(report.errors, [], 'a warning, not an error: Moira runs such files');
  return report.warnings.filter((w) => w.code === 'E_CONDITION_OPERAND_TYPE').map((w) => [w.pointer, w.message]);
};

const path = (p: string) => ({ contextPath: p });

operands('contains on a literal number, a declared integer or object is a warning at that operand; on a text or a list it is not', () => {
  const [[pointer, message]] = warned({ operator: 'contains', left: 12345, right: '23' });
  assert.is(pointer, '/nodes/2/condition/left');
  assert.match(message, 'contains: the literal 12345 is a number, not a text or a list');
  assert.match(message, 'so this test is always false');
  assert.equal(warned({ operator: 'contains', left: path('count'), right: '1' }).map(([p]) => p), ['/nodes/2/condition/left/contextPath']);
  assert.match(warned({ operator: 'contains', left: path('settings'), right: 'a' })[0][1], 'settings (variableRegistry declares "settings" as type "object") can never be a text or a list');
  assert.match(warned({ operator: 'contains', left: path('ask.n'), right: '1' })[0][1], 'node "ask" declares "n" as type "number"');
  assert.equal(warned({ operator: 'contains', left: path('label'), right: 'x' }), []);
  assert.equal(warned({ operator: 'contains', left: path('tags'), right: 1 }), [], 'a list may hold a number');
  assert.equal(warned({ operator: 'contains', left: path('anything'), right: 1 }), [], 'no declared type: nothing is known');
  // r112 b1: an operand with a contextPath is a read, as the run takes it, whatever else it holds (E_UNKNOWN_KEY's finding alone).
  for (const [left, code] of [[{ contextPath: 'count', note: 'n' }, 'E_UNKNOWN_KEY'], [{ contextPath: 5 }, 'E_SCHEMA']] as const) {
    const extra = validateWorkflow(flow({ operator: 'gt', left, right: 2 }));
    assert.equal([...extra.errors, ...extra.warnings].map((f) => f.code), [code], JSON.stringify(left));
  }
  const alongside = validateWorkflow(flow({ operator: 'gt', left: { contextPath: 'settings', note: 'n' }, right: 2 }));
  assert.equal([...alongside.errors, ...alongside.warnings].map((f) => [f.code, f.pointer]), [['E_UNKNOWN_KEY', '/nodes/2/condition/left/note'], ['E_CONDITION_OPERAND_TYPE', '/nodes/2/condition/left/contextPath']], 'the read is still judged by its declared type');
  const misspelt = validateWorkflow(flow({ operator: 'contains', left: { contextPth: 'label' }, right: '1' }));
  assert.equal([...misspelt.errors, ...misspelt.warnings].map((f) => f.code), ['E_CONDITION'], 'a misspelt contextPath is its own finding, not a literal object to judge');
});

operands('contains of a number in a value that can only be text is a warning at the needle, with the text to write instead', () => {
  const [[pointer, message]] = warned({ operator: 'contains', left: path('label'), right: 1 });
  assert.is(pointer, '/nodes/2/condition/right');
  assert.match(message, 'the literal 1 is a number, not a text, while label (variableRegistry declares "label" as type "string") can only be a text');
  assert.match(message, 'write it as a text ("1")');
  assert.equal(warned({ operator: 'contains', left: path('maybe'), right: path('count') }).map(([p]) => p), ['/nodes/2/condition/right/contextPath']);
  assert.equal(warned({ operator: 'contains', left: 'abc', right: path('ask.word') }), []);
});

operands('gt/gte/lt/lte on a literal that is no number, or a value declared boolean, object or list, is a warning; a declared text may hold a number and is not', () => {
  const found = warned({ operator: 'and', conditions: [
    { operator: 'gt', left: path('count'), right: 'many' },
    { operator: 'lte', left: path('settings'), right: 3 },
    { operator: 'lt', left: '007', right: 3 },
  ] });
  assert.equal(found.map(([p]) => p), ['/nodes/2/condition/conditions/0/right', '/nodes/2/condition/conditions/1/left/contextPath', '/nodes/2/condition/conditions/2/left']);
  assert.match(found[0][1], 'gt: the literal "many" is a text, not a number');
  assert.equal(warned({ operator: 'not', condition: { operator: 'gte', left: path('label'), right: '-1.5e3' } }), []);
});

operands('G39: eq of a declared integer with the text "0" is always false (strict, 0 is not "0"): a warning that says to write the number; neq says always true', () => {
  const [[pointer, message]] = warned({ operator: 'eq', left: path('count'), right: '0' });
  assert.is(pointer, '/nodes/2/condition/right');
  assert.match(message, 'eq: count (variableRegistry declares "count" as type "integer") can only be a number and the literal "0" is a text');
  assert.match(message, 'so this test is always false: write the number 0 without quotes');
  assert.match(warned({ operator: 'neq', left: 5, right: path('label') })[0][1], 'this test is always true: write it as a text ("5")');
  assert.equal(warned({ operator: 'eq', left: path('count'), right: 0 }), []);
  assert.equal(warned({ operator: 'eq', left: path('maybe'), right: null }), [], 'a declared null may equal null');
  assert.equal(warned({ operator: 'eq', left: path('anything'), right: '0' }), []);
  assert.equal(warned({ jsonLogic: { '==': [{ var: 'count' }, '0'] } }), [], 'JSON Logic coerces as JavaScript does');
});

operands('a condition node with a fault of its own (a connection of the wrong type) still has its operands judged, once', () => {
  const wf = flow({ operator: 'contains', left: path('count'), right: '1' });
  (wf.nodes as Array<Record<string, unknown>>)[2].connections = { true: 'yes', false: 7 };
  const report = validateWorkflow(wf);
  assert.ok(report.errors.length > 0);
  assert.equal(report.warnings.filter((w) => w.code === 'E_CONDITION_OPERAND_TYPE').map((w) => w.pointer), ['/nodes/2/condition/left/contextPath']);
});

operands('r120 b3: a jsonLogic rule that is a plain value (YAML\'s empty `jsonLogic:` is null, true, 5, a list) is E_CONDITION at the rule, never a condition that always routes one way', () => {
  for (const rule of [null, true, 5, 'x', [1]]) {
    const report = validateWorkflow(flow({ jsonLogic: rule }));
    assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_CONDITION', '/nodes/2/condition/jsonLogic']], JSON.stringify(rule));
    assert.match(report.errors[0].message, 'tests nothing, so the condition would always route the same way');
  }
  assert.match(validateWorkflow(flow({ jsonLogic: null })).errors[0].message, 'the jsonLogic rule is empty (null)');
  assert.equal(validateWorkflow(flow({ jsonLogic: { '==': [{ var: 'count' }, 0] } })).errors, []);
});

operands('the warning is located at the operand in a YAML file (line:col), and validate still says the file is usable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-operands-'));
  const file = join(dir, 'flow.yaml');
  writeFileSync(file, [
    'metadata: {name: t, version: 1.0.0, description: d}',
    'variableRegistry:',
    '  label: {type: string, description: c, default: "build 1 passed"}',
    'nodes:',
    '  - {id: s, type: start, connections: {default: c}}',
    '  - id: c',
    '    type: condition',
    '    condition: {operator: contains, left: {contextPath: label}, right: 1}',
    '    connections: {true: T, false: F}',
    '  - {id: T, type: end}',
    '  - {id: F, type: end}',
    '',
  ].join('\n'));
  const report = validateFile(file);
  assert.ok(report.ok);
  assert.equal(report.warnings.map((w) => [w.code, w.pointer, w.line, w.col]), [['E_CONDITION_OPERAND_TYPE', '/nodes/1/condition/right', 8, 72]]);
});

operands.run();
