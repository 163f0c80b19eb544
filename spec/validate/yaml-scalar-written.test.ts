/**
 * A YAML value meant as text but read as a number, a boolean or null
 * (`version: 1.0`, `completionCondition: true`, `description: ~`, `agent:`)
 * is said as written, with how to keep it text: the file shows `1.0`, not
 * "the number 1".
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFile } from '../../engine/validate/index.js';

const written = suite('validate: YAML scalars read as another type are said as written');

function report(name: string, text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'cs-scalar-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return validateFile(file);
}

written('version: 1.0, description: ~, completionCondition: true, agent: (empty) and directive: 12 each say how they were written and the fix', () => {
  const r = report('flow.yaml', [
    'metadata: {name: t, version: 1.0, description: ~}',
    'nodes:',
    '  - {id: s, type: start, connections: {default: a}}',
    '  - id: a',
    '    type: agent-directive',
    '    directive: 12 # twelve',
    '    completionCondition: true',
    '    agent:',
    '    connections: {success: e}',
    '  - {id: e, type: end}',
    '',
  ].join('\n'));
  const said = Object.fromEntries(r.errors.map((e) => [e.pointer, [e.line, e.col, e.message]]));
  assert.equal(said['/metadata/version'].slice(0, 2), [1, 30]);
  assert.match(said['/metadata/version'][2] as string, 'must be a string, not the number 1 (written 1.0, which YAML reads as a number: write quoted text of the form this field takes)');
  assert.match(said['/metadata/description'][2] as string, 'not null (written ~, which YAML reads as null: quote it, "~", to keep it as text)');
  assert.match(said['/nodes/1/directive'][2] as string, 'not the number 12 (written 12, which YAML reads as a number: quote it, "12", to keep it as text)');
  assert.match(said['/nodes/1/completionCondition'][2] as string, 'not a boolean (written true, which YAML reads as a boolean: quote it, "true", to keep it as text)');
  assert.match(said['/nodes/1/agent'][2] as string, 'not null (nothing is written after its key, which YAML reads as null: write the text)');
  assert.is(r.errors.length, 5);
});

written('JSON, where a number is written as one, keeps the plain wording', () => {
  const r = report('flow.json', JSON.stringify({ metadata: { name: 't', version: 1, description: 'd' }, nodes: [{ id: 's', type: 'start', connections: { default: 'e' } }, { id: 'e', type: 'end' }] }));
  assert.equal(r.errors.map((e) => e.pointer), ['/metadata/version']);
  assert.match(r.errors[0].message, 'metadata.version must be a string, not the number 1. ');
  assert.not.match(r.errors[0].message, 'written');
});

written('r120 b1/b2: a registry entry that is no object is told it must be an object (never "a boolean"), and a registry type that is no name nor list is told what it takes; a quoted 5 is no type name, so quoting is not advised', () => {
  const r = report('registry.yaml', [
    'metadata: {name: t, version: 1.0.0, description: d}',
    'variableRegistry:',
    '  k:',
    '  j: 5',
    '  t: true',
    '  g: {type: 5, description: x}',
    '  h: {type: [string, 5], description: x}',
    'nodes:',
    '  - {id: s, type: start, connections: {default: e}}',
    '  - {id: e, type: end}',
    '',
  ].join('\n'));
  const said = Object.fromEntries(r.errors.map((e) => [e.pointer, e.message]));
  for (const [name, value] of [['k', 'null'], ['j', 'the number 5'], ['t', 'a boolean']]) {
    assert.match(said[`/variableRegistry/${name}`], `variableRegistry.${name} must be an object, not ${value}. A global variable`);
    assert.not.match(said[`/variableRegistry/${name}`], 'must be a boolean');
  }
  assert.is(said['/variableRegistry/g/type'], 'variableRegistry.g.type must be a type name (string, number, integer, boolean, object, array, null) or a list of them, not the number 5');
  assert.match(said['/variableRegistry/h/type/1'], '(written 5, which YAML reads as a number: write quoted text of the form this field takes)');
  assert.is(r.errors.length, 5);
});

written.run();
