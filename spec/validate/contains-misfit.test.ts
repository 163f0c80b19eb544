/**
 * A list that has no item fitting its `contains` schema is one fault of the
 * list: the per-item errors ajv gives under `contains` are alternatives (any
 * one item fitting would do), as an anyOf's branches are, never findings or
 * fixes of their own at each item.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument } from '../../engine/validate/index.js';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';

const Contains = suite('contains misfits');

const head = 'metadata: { name: seeds, version: 1.0.0, description: d }';
const flow = (entry: string) => `${[head, 'variableRegistry:', entry, 'nodes:', '  - { id: start, type: start, connections: { default: done } }', '  - { id: done, type: end, finalOutput: [branches] }'].join('\n')}\n`;

Contains('a default with no item fitting `contains` is one E_VARIABLE_VALUE at the list, naming what no item is, never one at each item', () => {
  const entry = '  branches: { type: array, description: b, items: { type: string }, contains: { const: main }, default: [dev, feature] }';
  const report = validateDocument(parseSource(flow(entry), 'c.yaml'));
  const found = report.errors.filter((e) => e.code === 'E_VARIABLE_VALUE');
  assert.equal(found.map((e) => `${e.pointer} ${e.line}:${e.col}`), [`/variableRegistry/branches/default 3:${entry.indexOf('[dev') + 1}`]);
  assert.match(found[0].message, 'must contain at least 1 item that is "main" (no item does: must be "main")');
  assert.not.match(found[0].message, '/0');
});

Contains('a nested list with no item of the `contains` type is one finding at that list; an item breaking `items` is still its own', () => {
  const entry = '  branches: { type: object, description: b, properties: { list: { type: array, items: { maxLength: 3 }, contains: { type: string } } }, default: { list: [1, 2, 12345] } }';
  const report = validateDocument(parseSource(flow(entry), 'c.yaml'));
  const found = report.errors.filter((e) => e.code === 'E_VARIABLE_VALUE');
  // 12345 is no string, so maxLength says nothing of it: only the list is at fault.
  assert.equal(found.map((e) => e.pointer), ['/variableRegistry/branches/default/list']);
  assert.match(found[0].message, 'must be string');
});

Contains('a start input with no item fitting `contains` is E_INPUT at the list, and its fix corrects the list, not an item', async () => {
  const workflow: Workflow = {
    metadata: { name: 'c', version: '1.0.0', description: 'd' },
    variableRegistry: { branches: { type: 'array', description: 'b', items: { type: 'string' }, contains: { const: 'main' } } },
    nodes: [{ id: 'start', type: 'start', connections: { default: 'done' } }, { id: 'done', type: 'end', finalOutput: ['branches'] }],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const e = await engine.start(workflow, { input: { branches: ['dev', 'feature'] } }).then(() => undefined, (err: { code: string; pointer?: string; message: string; fix?: string }) => err);
  assert.ok(e, 'refused');
  assert.is(e!.code, 'E_INPUT');
  assert.is(e!.pointer, '/branches');
  assert.not.match(e!.message, '/branches/0');
  assert.match(e!.fix ?? '', 'correct /branches in the start input');
  assert.match(e!.fix ?? '', 'it must contain at least 1 item that is "main"');
  // A run that fits starts.
  assert.is((await engine.start(workflow, { input: { branches: ['dev', 'main'] } })).status, 'completed');
});

Contains.run();
