/**
 * The validator's checks through its public API, on workflow objects built
 * in the test: structure, graph, dataflow, robustness against documents
 * that break the schema, and the file-level entry point.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFile, validateWorkflow, type ValidationReport } from '../../engine/validate/index.js';

type Node = Record<string, unknown>;

function workflow(nodes: Node[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { metadata: { name: 't', version: '1.0.0', description: 'test' }, ...extra, nodes };
}

const ask = (id: string, success: string, more: Node = {}): Node => ({
  id,
  type: 'agent-directive',
  directive: `Do ${id}.`,
  completionCondition: 'Done',
  ...more,
  connections: { success, ...((more.connections as object | undefined) ?? {}) },
});

/** G19 structure: [do-work] → [delegate-review] → [check-result] → pass → [next]; fail → [fix-issues] → [do-work]. */
function seedStructure(): Node[] {
  return [
    { id: 'start', type: 'start', connections: { default: 'do-work' } },
    ask('do-work', 'delegate-review'),
    ask('delegate-review', 'check-result', {
      inputSchema: { type: 'object', properties: { issues_count: { type: 'number', minimum: 0 } }, required: ['issues_count'] },
    }),
    {
      id: 'check-result',
      type: 'condition',
      condition: { operator: 'eq', left: { contextPath: 'delegate-review.issues_count' }, right: 0 },
      connections: { true: 'next', false: 'fix-issues' },
    },
    ask('fix-issues', 'do-work'),
    { id: 'next', type: 'end' },
  ];
}

const codes = (r: ValidationReport) => r.errors.map((e) => `${e.code} ${e.pointer}`);
const warningCodes = (r: ValidationReport) => r.warnings.map((e) => `${e.code} ${e.pointer}`);

const graph = suite('structure and graph');

graph('G19: the seed review structure is complete: every node is reachable and nothing is reported', () => {
  const report = validateWorkflow(workflow(seedStructure()));
  assert.equal(report.errors, []);
  assert.equal(report.warnings, []);
  assert.ok(report.ok);
});

graph('G19: a node no path from start reaches is a warning, not an error', () => {
  const nodes = seedStructure();
  (nodes[3].connections as Record<string, string>).false = 'next';
  const report = validateWorkflow(workflow(nodes));
  assert.ok(report.ok);
  assert.equal(warningCodes(report), ['E_UNREACHABLE /nodes/4']);
});

graph('G27: a connection to a node that does not exist is an error at that connection, with did-you-mean', () => {
  const nodes = seedStructure();
  (nodes[2].connections as Record<string, string>).success = 'check-reslt';
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_DANGLING_CONNECTION /nodes/2/connections/success']);
  assert.match(report.errors[0].message, /did you mean "check-result"\?/);
});

graph('G27: an empty connection target is one finding (the schema\'s), never also a dangling connection at the same place', () => {
  const nodes = seedStructure();
  (nodes[2].connections as Record<string, string>).success = '';
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_SCHEMA /nodes/2/connections/success']);
  assert.match(report.errors[0].message, /connections\.success is empty: give it a value/);
});

graph('an agent-directive\'s agent role, directive or completionCondition that is empty or blank is E_SCHEMA at it, said in plain words (as a tool node\'s agent and a review\'s reviewer are), never a role nobody can be', () => {
  for (const [agent, said] of [['', 'node "do-work" agent is empty: give it a value'], ['  ', 'node "do-work" agent "  " is blank (white space only)']] as const) {
    const nodes = seedStructure();
    nodes[1].agent = agent;
    const report = validateWorkflow(workflow(nodes));
    assert.equal(codes(report), ['E_SCHEMA /nodes/1/agent'], JSON.stringify(agent));
    assert.match(report.errors[0].message, said);
    assert.not.match(report.errors[0].message, 'fewer than');
  }
  // r115 b1: a directive or completionCondition that says nothing hands the agent nothing to do, or no way to know it is done.
  for (const field of ['directive', 'completionCondition']) {
    for (const value of ['', ' \n ']) {
      const nodes = seedStructure();
      nodes[1][field] = value;
      const report = validateWorkflow(workflow(nodes));
      assert.equal(codes(report), [`E_SCHEMA /nodes/1/${field}`], `${field} ${JSON.stringify(value)}`);
      assert.match(report.errors[0].message, value === '' ? `node "do-work" ${field} is empty` : `node "do-work" ${field} " \\n " is blank (white space only)`);
    }
  }
  const named = seedStructure();
  named[1].agent = 'implementer';
  assert.equal(codes(validateWorkflow(workflow(named))), []);
});

graph('r117 b2: every field a node misses is said in one pass ({}: id and type together, at the node), and a misspelt one is still its unknown key', () => {
  const bare = seedStructure();
  bare.push({});
  const report = validateWorkflow(workflow(bare));
  assert.equal(codes(report), [`E_SCHEMA /nodes/${bare.length - 1}`]);
  assert.match(report.errors[0].message, 'is missing required fields "id" and "type"; add them. id: ');
  assert.match(report.errors[0].message, '. type: The node type');
  const ask = seedStructure();
  ask[1] = { id: 'do-work', type: 'agent-directive', connections: { success: 'delegate-review' } };
  const asked = validateWorkflow(workflow(ask));
  assert.equal(codes(asked), ['E_SCHEMA /nodes/1']);
  assert.match(asked.errors[0].message, 'node "do-work" is missing required fields "directive" and "completionCondition"; add them');
  const misspelt = seedStructure();
  misspelt.push({ idd: 'x' });
  const typo = validateWorkflow(workflow(misspelt));
  assert.ok(typo.errors.some((e) => e.code === 'E_UNKNOWN_KEY' && e.message.includes('did you mean "id"?')));
  assert.ok(typo.errors.some((e) => e.code === 'E_SCHEMA' && e.message.includes('is missing required field "type"')));
  assert.not.ok(typo.errors.some((e) => e.message.includes('required fields')), 'the misspelt id is its unknown key, not a missing field');
});

graph('a fraction in an integer field is said as the fraction, never "must be an integer, not a number"', () => {
  const nodes = seedStructure();
  Object.assign(nodes[2], { timeoutMs: 1500.5, maxRetries: 2.5 });
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_SCHEMA /nodes/2/maxRetries', 'E_SCHEMA /nodes/2/timeoutMs']);
  assert.match(report.errors.map((e) => e.message).join('\n'), /maxRetries must be an integer, not the fraction 2\.5/);
  assert.match(report.errors.map((e) => e.message).join('\n'), /timeoutMs must be an integer, not the fraction 1500\.5/);
});

graph('a loop through a waiting node is fine; the same loop without one is a transient cycle', () => {
  assert.ok(validateWorkflow(workflow(seedStructure())).ok);
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'a' } },
    { id: 'a', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'executionId' } }, connections: { true: 'b', false: 'end' } },
    { id: 'b', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'userId' } }, connections: { true: 'a', false: 'end' } },
    { id: 'end', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_TRANSIENT_CYCLE /nodes/2/connections/true'], 'at the connection that closes the cycle');
  assert.match(report.errors[0].message, /a → b → a/);
});

graph('every transient cycle is found in one pass, each at the connection that closes it, though the cycles share nodes (a → a and a → b → a)', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'a' } },
    { id: 'a', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'executionId' } }, connections: { true: 'a', false: 'b' } },
    { id: 'b', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'userId' } }, connections: { true: 'a', false: 'c' } },
    { id: 'c', type: 'expression', expressions: ['n = 1'], connections: { default: 'b', error: 'end' } },
    { id: 'end', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { n: { type: 'number', description: 'n', default: 0 } } }));
  assert.equal(codes(report), ['E_TRANSIENT_CYCLE /nodes/1/connections/true', 'E_TRANSIENT_CYCLE /nodes/2/connections/true', 'E_TRANSIENT_CYCLE /nodes/3/connections/default']);
  assert.equal(report.errors.map((e) => /the cycle (.*?) has/.exec(e.message)?.[1]), ['a → a', 'a → b → a', 'b → c → b']);
});

graph('one typo is one finding: a misspelt required connection is not also missing, a node typed "End" or "Start" does not also leave the workflow without an end or a start', () => {
  const nodes: Node[] = [
    { id: 'begin', type: 'Start', connections: { default: 'ask' } },
    { ...ask('ask', 'done'), connections: { sucess: 'done' } },
    { id: 'done', type: 'End' },
  ];
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report).sort(), ['E_UNKNOWN_CONNECTION /nodes/1/connections/sucess', 'E_UNKNOWN_NODE_TYPE /nodes/0/type', 'E_UNKNOWN_NODE_TYPE /nodes/2/type']);
  assert.match(report.errors.find((e) => e.code === 'E_UNKNOWN_CONNECTION')!.message, 'did you mean "success"?');
  // A typo that stands for nothing missing leaves the missing connection said.
  const other = validateWorkflow(workflow([{ id: 'start', type: 'start', connections: { default: 'ask' } }, { ...ask('ask', 'end'), connections: { sucess: 'end', done: 'end' } }, { id: 'end', type: 'end' }]));
  assert.equal(codes(other).sort(), ['E_UNKNOWN_CONNECTION /nodes/1/connections/done', 'E_UNKNOWN_CONNECTION /nodes/1/connections/sucess']);
  const missing = validateWorkflow(workflow([{ id: 'start', type: 'start', connections: { default: 'ask' } }, { ...ask('ask', 'end'), connections: { errr: 'end' } }, { id: 'end', type: 'end' }]));
  assert.equal(codes(missing).sort(), ['E_MISSING_CONNECTION /nodes/1/connections', 'E_UNKNOWN_CONNECTION /nodes/1/connections/errr'], 'errr means error: success is still missing');
});

graph('one fault is one finding: a misspelt required field is its unknown key alone (with did-you-mean); connections left empty are the schema\'s finding at them (nothing unreachable beyond); an empty finalOutput entry is the schema\'s alone; an empty workflow id is refused at /id', () => {
  const base = (): Node[] => [
    { id: 'start', type: 'start', connections: { default: 'ask' } },
    ask('ask', 'check'),
    { id: 'check', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'userId' } }, connections: { true: 'done', false: 'done' } },
    { id: 'done', type: 'end' },
  ];
  const directve = base();
  directve[1] = { ...directve[1], directve: directve[1].directive };
  delete directve[1].directive;
  assert.equal(codes(validateWorkflow(workflow(directve))), ['E_UNKNOWN_KEY /nodes/1/directve']);
  const conditon = base();
  conditon[2] = { ...conditon[2], conditon: conditon[2].condition };
  delete conditon[2].condition;
  assert.equal(codes(validateWorkflow(workflow(conditon))), ['E_UNKNOWN_KEY /nodes/2/conditon']);
  const empty = base();
  empty[1] = { ...empty[1], connections: null };
  assert.equal(codes(validateWorkflow(workflow(empty))), ['E_SCHEMA /nodes/1/connections']);
  const output = base();
  output[3] = { id: 'done', type: 'end', finalOutput: [''] };
  assert.equal(codes(validateWorkflow(workflow(output))), ['E_SCHEMA /nodes/3/finalOutput/0']);
  assert.equal(codes(validateWorkflow(workflow(base(), { id: '' }))), ['E_SCHEMA /id']);
});

graph('a misspelt condition key (opertor, jsonlogic) is one finding at that key, with its did-you-mean, never "add an operator"; an unknown key beside an operator is one finding', () => {
  const withCondition = (condition: unknown): Node[] => [
    { id: 'start', type: 'start', connections: { default: 'check' } },
    { id: 'check', type: 'condition', condition, connections: { true: 'done', false: 'done' } },
    { id: 'done', type: 'end' },
  ];
  const opertor = validateWorkflow(workflow(withCondition({ opertor: 'exists', left: { contextPath: 'userId' } })));
  assert.equal(codes(opertor), ['E_UNKNOWN_KEY /nodes/1/condition/opertor']);
  assert.match(opertor.errors[0].message, 'did you mean "operator"?');
  const jsonlogic = validateWorkflow(workflow(withCondition({ jsonlogic: { '==': [1, 1] } })));
  assert.equal(codes(jsonlogic), ['E_UNKNOWN_KEY /nodes/1/condition/jsonlogic']);
  assert.match(jsonlogic.errors[0].message, 'did you mean "jsonLogic"?');
  const extra = validateWorkflow(workflow(withCondition({ operator: 'exists', left: { contextPath: 'userId' }, extra: 1 })));
  assert.equal(codes(extra), ['E_UNKNOWN_KEY /nodes/1/condition/extra']);
});

graph('did-you-mean reaches the loop\'s own names ({{thsi}}, {{@idnex}} inside {{#each}}) and, for a bare name only a node declares (seed 003\'s issues_found), the node-id.field that reads it', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', initialData: { variables: { people: { value: ['a'], description: 'names' } } }, connections: { default: 'review' } },
    { ...ask('review', 'check'), directive: '{{#each people}}{{@idnex}}={{thsi}};{{/each}}', inputSchema: { type: 'object', properties: { issues_found: { type: 'string' } } } },
    { id: 'check', type: 'condition', condition: { operator: 'eq', left: { contextPath: 'issues_found' }, right: 'no' }, connections: { true: 'done', false: 'done' } },
    { id: 'done', type: 'end' },
  ];
  const messages = validateWorkflow(workflow(nodes)).errors.map((e) => e.message);
  assert.ok(messages.some((m) => m.includes('"{{@idnex}}" is no variable') && m.includes('did you mean "@index"?')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"{{thsi}}" is not declared — did you mean "this" (the current item, inside {{#each}})?')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('contextPath "issues_found" is not declared — did you mean "review.issues_found"?')), messages.join('\n'));
});

graph('r76: inside {{#each}} a bare name no variable has is a warning (E_EACH_ITEM_FIELD: read from the item, as Moira does); a near miss of a declared name is still an error with its did-you-mean', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', initialData: { variables: { tasks: { value: [{ title: 'a' }], description: 'tasks' }, topic: { value: 'x', description: 't' } } }, connections: { default: 'ask' } },
    { ...ask('ask', 'done'), directive: '{{#each tasks}}{{title}} {{#if done}}x{{/if}} {{topik}}{{/each}}' },
    { id: 'done', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes));
  assert.equal(report.warnings.filter((w) => w.code === 'E_EACH_ITEM_FIELD').map((w) => w.message.split(' ')[0]), ['"{{title}}"', '"{{done}}"']);
  assert.equal(codes(report), ['E_UNDECLARED_VARIABLE /nodes/1/directive']);
  assert.match(report.errors[0].message, 'did you mean "topic"?');
});

graph('r78: a misspelt "connections" key is one finding (its unknown key), and an inner {{#each n}} over an outer item\'s field is no dead loop whatever a variable "n" is declared as', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', initialData: { variables: { items: { value: [{ n: ['x'] }], description: 'items' } } }, connections: { default: 'ask' } },
    { ...ask('ask', 'done'), directive: '{{#each items}}[{{#each n}}{{this}}{{/each}}]{{/each}}' },
    { id: 'done', type: 'end' },
  ];
  const inner = validateWorkflow(workflow(nodes, { variableRegistry: { n: { type: 'integer', description: 'a number', default: 0 } } }));
  assert.equal(codes(inner), []);
  const typo = nodes.map((n) => ({ ...n }));
  typo[1] = { ...typo[1], conections: typo[1].connections };
  delete typo[1].connections;
  assert.equal(codes(validateWorkflow(workflow(typo))), ['E_UNKNOWN_KEY /nodes/1/conections']);
});

graph('a cycle back into the start node counts as transient (start never waits)', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'again' } },
    { id: 'again', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'userId' } }, connections: { true: 'start', false: 'end' } },
    { id: 'end', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_TRANSIENT_CYCLE /nodes/1/connections/true']);
  assert.match(report.errors[0].message, /start → again → start/);
});

graph('exactly one start: none is reported at /nodes, a second at its type', () => {
  const none = validateWorkflow(workflow([ask('a', 'end'), { id: 'end', type: 'end' }]));
  assert.ok(codes(none).includes('E_START_COUNT /nodes'));
  const two = validateWorkflow(
    workflow([{ id: 's1', type: 'start', connections: { default: 'end' } }, { id: 's2', type: 'start', connections: { default: 'end' } }, { id: 'end', type: 'end' }]),
  );
  assert.equal(codes(two), ['E_START_COUNT /nodes/1/type']);
});

graph('a missing or unknown connection is reported once, although schema and structure both see it', () => {
  const nodes = seedStructure();
  delete nodes[3].connections;
  (nodes[1].connections as Record<string, string>).sucess = 'delegate-review';
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_UNKNOWN_CONNECTION /nodes/1/connections/sucess', 'E_MISSING_CONNECTION /nodes/3']);
  assert.match(report.errors[1].message, /"true" and "false"/);
  // Where a node missing a required connection leads is unknown: nothing is called unreachable for it (one fault, one finding).
  assert.equal(warningCodes(report), []);
});

graph('r76: a misspelt connection target (with its did-you-mean) is followed to the node meant, so that node and what follows are not also unreachable', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'ask' } },
    ask('ask', 'chek'),
    { id: 'check', type: 'condition', condition: { operator: 'exists', left: { contextPath: 'userId' } }, connections: { true: 'done', false: 'done' } },
    { id: 'done', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_DANGLING_CONNECTION /nodes/1/connections/success']);
  assert.equal(warningCodes(report), []);
});

graph('a "timeout" connection on a node without timeoutMs is the warning E_TIMEOUT_ROUTE_UNUSED at that connection\'s key (it could never fire); with timeoutMs it is fine', async () => {
  const nodes = (more: Node): Node[] => [
    { id: 'start', type: 'start', connections: { default: 'ask' } },
    ask('ask', 'end', { ...more, connections: { timeout: 'late' } }),
    { id: 'end', type: 'end' },
    { id: 'late', type: 'end' },
  ];
  const without = validateWorkflow(workflow(nodes({})));
  assert.ok(without.ok, 'a warning, not an error');
  assert.equal(warningCodes(without), ['E_TIMEOUT_ROUTE_UNUSED /nodes/1/connections/timeout']);
  assert.match(without.warnings[0].message, 'add "timeoutMs"');
  assert.equal(warningCodes(validateWorkflow(workflow(nodes({ timeoutMs: 1000 })))), []);
  // In a file, at the key itself.
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const file = join(tmpdir(), `countersign-timeout-route-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(workflow(nodes({})), null, 2));
  const found = validateFile(file).warnings[0];
  const line = JSON.stringify(workflow(nodes({})), null, 2).split('\n').findIndex((l) => l.includes('"timeout": "late"')) + 1;
  assert.equal([found.line, found.col], [line, 9]);
});

graph('more than 1000 nodes is E_TOO_MANY_NODES, reported once', () => {
  const nodes: Node[] = [{ id: 'start', type: 'start', connections: { default: 'n0' } }];
  for (let i = 0; i < 1000; i++) nodes.push(ask(`n${i}`, i === 999 ? 'end' : `n${i + 1}`));
  nodes.push({ id: 'end', type: 'end' });
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_TOO_MANY_NODES /nodes']);
});

graph.run();

const dataflow = suite('dataflow');

dataflow('node-id.field resolves for fields in properties and in globalInputs (Moira flows rely on both)', () => {
  const nodes = seedStructure();
  (nodes[2].inputSchema as Record<string, unknown>).globalInputs = ['verdict'];
  nodes[4].directive = 'Fix {{delegate-review.issues_count}} issues; verdict {{delegate-review.verdict}} / {{verdict}}.';
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { verdict: { type: 'string', description: 'v' } } }));
  assert.equal(report.errors, []);
});

dataflow('a node id may equal a registry name: bare reads the global, dotted reads the node', () => {
  const nodes = seedStructure();
  nodes[4].directive = 'Global {{delegate-review}} and field {{delegate-review.issues_count}}.';
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { 'delegate-review': { type: 'string', description: 'a global', default: '' } } }));
  assert.equal(report.errors, []);
  nodes[4].directive = 'Field {{delegate-review.nope}}.';
  assert.equal(codes(validateWorkflow(workflow(nodes))), ['E_UNDECLARED_VARIABLE /nodes/4/directive']);
});

dataflow('builtins and initialData names resolve without a registry', () => {
  const nodes = seedStructure();
  nodes[0].initialData = { variables: { goal: { description: 'the goal', value: 'ship it' } } };
  nodes[1].directive = '{{goal}} for {{userId}} in {{executionId}} of {{workflowId}}';
  assert.equal(validateWorkflow(workflow(nodes)).errors, []);
});

dataflow('undeclared variables in expressions, jsonLogic, index refs and systemReminder are reported where they are read', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'calc' } },
    { id: 'calc', type: 'expression', expressions: ['n = m + 1'], connections: { default: 'gate' } },
    { id: 'gate', type: 'condition', condition: { jsonLogic: { '>': [{ var: 'nn' }, 1] } }, connections: { true: 'ask', false: 'end' } },
    ask('ask', 'end', { directive: 'Item {{items[idx]}}' }),
    { id: 'end', type: 'end' },
  ];
  const registry = { n: { type: 'number', description: 'n', default: 0 }, items: { type: 'array', description: 'i', default: [] } };
  const report = validateWorkflow(workflow(nodes, { variableRegistry: registry, systemReminder: 'Be brief, {{usrId}}.' }));
  assert.equal(codes(report).sort(), [
    'E_UNDECLARED_VARIABLE /nodes/1/expressions/0',
    'E_UNDECLARED_VARIABLE /nodes/2/condition/jsonLogic/>/0/var',
    'E_UNDECLARED_VARIABLE /nodes/3/directive',
    'E_UNDECLARED_VARIABLE /systemReminder',
  ]);
  const byPointer = Object.fromEntries(report.errors.map((e) => [e.pointer, e.message]));
  assert.match(byPointer['/nodes/3/directive'], /"idx"/);
  assert.match(byPointer['/nodes/2/condition/jsonLogic/>/0/var'], /did you mean "n"\?/);
  assert.match(byPointer['/systemReminder'], /did you mean "userId"\?/);
});

dataflow('finalOutput names that resolve to nothing are warnings; registry variables nothing writes are warnings', () => {
  const nodes: Node[] = [{ id: 'start', type: 'start', connections: { default: 'end' } }, { id: 'end', type: 'end', finalOutput: ['result', 'missing'] }];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { result: { type: 'string', description: 'r' } } }));
  assert.ok(report.ok);
  assert.equal(warningCodes(report), ['E_FINAL_OUTPUT_UNRESOLVED /nodes/1/finalOutput/1', 'E_VARIABLE_NEVER_WRITTEN /variableRegistry/result']);
});

dataflow('an initialData entry with no value declares its variable but writes nothing: a registry variable written only so is still E_VARIABLE_NEVER_WRITTEN; one with a value is written', () => {
  const seeded = (entry: Record<string, unknown>) => validateWorkflow(workflow([
    { id: 'start', type: 'start', initialData: { variables: { x: entry } }, connections: { default: 'end' } },
    { id: 'end', type: 'end', finalOutput: ['x'] },
  ] as Node[], { variableRegistry: { x: { type: 'string', description: 'x' } } }));
  assert.equal(warningCodes(seeded({ description: 'no value' })), ['E_VARIABLE_NEVER_WRITTEN /variableRegistry/x']);
  assert.equal(warningCodes(seeded({ value: 'v' })), []);
});

dataflow('{{#each}} over a variable declared with a type that is never a list (a registry object, a node field of type string) is E_EACH_NOT_LIST at the loop; an array or a ["array", "null"] one is fine, and {{#if}} over an object is fine', () => {
  const flow = (directive: string) => validateWorkflow(workflow([
    { id: 'start', type: 'start', connections: { default: 'plan' } },
    ask('plan', 'do', { inputSchema: { type: 'object', properties: { title: { type: 'string' }, steps: { type: 'array', items: { type: 'string' } } } } }),
    ask('do', 'end', { directive }),
    { id: 'end', type: 'end' },
  ] as Node[], { variableRegistry: {
    o: { type: 'object', description: 'an object' },
    list: { type: 'array', description: 'a list', items: { type: 'string' } },
    maybe: { type: ['array', 'null'], description: 'a list or null', items: { type: 'string' } },
  } }));
  const refused = flow('{{#each o}}{{this}}{{/each}} and {{#each plan.title}}{{this}}{{/each}}');
  assert.equal(refused.errors.map((e) => [e.code, e.pointer]), [['E_EACH_NOT_LIST', '/nodes/2/directive'], ['E_EACH_NOT_LIST', '/nodes/2/directive']]);
  assert.match(refused.errors[0].message, 'variableRegistry declares "o" as type "object"');
  assert.match(refused.errors[1].message, 'node "plan" declares "title" as type "string"');
  // Said truly whether or not the loop has an {{else}}: its body never runs, and the else branch (if any) always renders.
  assert.match(refused.errors[0].message, 'the loop body would never run (it renders nothing, or its {{else}} branch)');
  assert.not.match(refused.errors[0].message, 'would render nothing');
  assert.equal(flow('{{#each list}}{{this}}{{/each}}{{#each maybe}}{{this}}{{/each}}{{#each plan.steps}}{{this}}{{/each}}{{#if o}}{{o}}{{/if}}').errors, []);
  // A field written as a global has the registry's type; a node missing another field is still checked.
  const viaGlobal = validateWorkflow(workflow([
    { id: 'start', type: 'start', connections: { default: 'plan' } },
    ask('plan', 'do', { inputSchema: { type: 'object', properties: {}, globalInputs: ['o'] } }),
    { id: 'do', type: 'agent-directive', directive: '{{#each plan.o}}{{this}}{{/each}}', connections: { success: 'end' } },
    { id: 'end', type: 'end' },
  ] as Node[], { variableRegistry: { o: { type: 'object', description: 'an object' } } }));
  assert.equal(viaGlobal.errors.map((e) => e.code).sort(), ['E_EACH_NOT_LIST', 'E_SCHEMA']);
  assert.match(viaGlobal.errors.find((e) => e.code === 'E_EACH_NOT_LIST')!.message, 'writes "o" (a globalInput) and variableRegistry declares it as type "object"');
});

dataflow('r98 b1: {{#each}} over a registry object in systemReminder is E_EACH_NOT_LIST at /systemReminder, as in a directive', () => {
  const report = validateWorkflow(workflow([
    { id: 'start', type: 'start', connections: { default: 'do' } },
    ask('do', 'end', {}),
    { id: 'end', type: 'end' },
  ] as Node[], { systemReminder: 'SR {{#each o}}{{this}}{{/each}}', variableRegistry: { o: { type: 'object', description: 'an object' } } }));
  assert.equal(report.errors.map((e) => [e.code, e.pointer]), [['E_EACH_NOT_LIST', '/systemReminder']]);
  assert.match(report.errors[0].message, 'variableRegistry declares "o" as type "object"');
});

dataflow('every fault of a registry entry comes in one pass: an unknown format and a required name no answer can give; a missing description and a default of the wrong type', () => {
  const nodes: Node[] = [{ id: 'start', type: 'start', connections: { default: 'end' } }, { id: 'end', type: 'end', finalOutput: ['o', 'n'] }];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: {
    o: { type: 'object', description: 'o', properties: { a: { type: 'string', format: 'emial' } }, required: ['b'], default: { a: 'x@y.z' } },
    n: { type: 'integer', default: 'abc' },
  } }));
  assert.equal(report.errors.map((e) => `${e.code} ${e.pointer}`).sort(), [
    'E_SCHEMA /variableRegistry/n',
    'E_VARIABLE_SCHEMA /variableRegistry/o/properties/a/format',
    'E_VARIABLE_SCHEMA /variableRegistry/o/required/0',
    'E_VARIABLE_VALUE /variableRegistry/n/default',
  ]);
});

dataflow('a counter whose only write reads it first (n = n + 1, no default, no start value) is E_VARIABLE_NEVER_WRITTEN: it would fail at its first increment; a plain first write in the same node, or a default, gives it a value', () => {
  const counter = (expressions: string[], decl: Record<string, unknown> = {}) => validateWorkflow(workflow([
    { id: 'start', type: 'start', connections: { default: 'calc' } },
    { id: 'calc', type: 'expression', expressions, connections: { default: 'end' } },
    { id: 'end', type: 'end', finalOutput: ['n'] },
  ] as Node[], { variableRegistry: { n: { type: 'number', description: 'n', ...decl } } }));
  assert.equal(warningCodes(counter(['n = n + 1'])), ['E_VARIABLE_NEVER_WRITTEN /variableRegistry/n']);
  assert.match(counter(['n = n + 1']).warnings[0].message, 'reads it first');
  assert.equal(warningCodes(counter(['n = 0', 'n = n + 1'])), []);
  assert.equal(warningCodes(counter(['n = n + 1'], { default: 0 })), []);
});

dataflow('a template or expression nested past its limit is a finding at its pointer (E_TEMPLATE_SYNTAX, E_EXPRESSION_SYNTAX), never a crash of validate', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'calc' } },
    { id: 'calc', type: 'expression', expressions: [`n = ${'('.repeat(3000)}1${')'.repeat(3000)}`], connections: { default: 'ask' } },
    ask('ask', 'end', { directive: `${'{{#if n}}'.repeat(5000)}x${'{{/if}}'.repeat(5000)}` }),
    { id: 'end', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { n: { type: 'number', description: 'n', default: 0 } } }));
  assert.equal(codes(report), ['E_EXPRESSION_SYNTAX /nodes/1/expressions/0', 'E_TEMPLATE_SYNTAX /nodes/2/directive']);
});

dataflow('an expression\'s undeclared target declares nothing: reads of that name are reported too, so the first fix is not followed by new findings', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'calc' } },
    { id: 'calc', type: 'expression', expressions: ['totl = n + 1'], connections: { default: 'ask' } },
    ask('ask', 'end', { directive: 'Total: {{totl}}' }),
    { id: 'end', type: 'end' },
  ];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { n: { type: 'number', description: 'n', default: 0 }, total: { type: 'number', description: 't' } } }));
  assert.equal(codes(report).sort(), ['E_EXPRESSION_TARGET /nodes/1/expressions/0', 'E_UNDECLARED_VARIABLE /nodes/2/directive']);
});

dataflow('a misspelled finalOutput path is answered with the whole corrected path (never a fragment that would itself be unresolved)', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'review' } },
    { id: 'review', type: 'agent-directive', directive: 'd', completionCondition: 'c', inputSchema: { type: 'object', properties: { count: { type: 'integer' } } }, connections: { success: 'end' } },
    { id: 'end', type: 'end', finalOutput: ['reveiw.count', 'review.cont', 'a.zz'] },
  ];
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { n: { type: 'integer', description: 'n', default: 0 } } }));
  const messages = report.warnings.filter((w) => w.code === 'E_FINAL_OUTPUT_UNRESOLVED').map((w) => / — did you mean "([^"]+)"\?/.exec(w.message)?.[1] ?? null);
  assert.equal(messages, ['review.count', 'review.count', null], 'the corrected name keeps the rest of the path; "a" is too short to be a typo of "n"');
});

dataflow('a variable written by globalInputs, an expression or initialData, or with a default, is not "never written"', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', initialData: { variables: { a: { description: 'a', value: 1 } } }, connections: { default: 'w' } },
    ask('w', 'x', { inputSchema: { type: 'object', properties: {}, globalInputs: ['b'] } }),
    { id: 'x', type: 'expression', expressions: ['c = 1'], connections: { default: 'end' } },
    { id: 'end', type: 'end', finalOutput: ['a', 'b', 'c', 'd'] },
  ];
  const registry = Object.fromEntries(['a', 'b', 'c'].map((n) => [n, { type: 'number', description: n }]));
  const report = validateWorkflow(workflow(nodes, { variableRegistry: { ...registry, d: { type: 'number', description: 'd', default: 0 } } }));
  assert.equal(report.errors, []);
  assert.equal(report.warnings, []);
});

dataflow('a jsonLogic "var" with an empty path list is E_CONDITION at that list (a pointer the document has, at its line:col), naming the empty list', () => {
  const text = '{"metadata": {"name": "t", "version": "1.0.0", "description": "d"}, "nodes": [\n{"id": "start", "type": "start", "connections": {"default": "c"}},\n{"id": "c", "type": "condition", "condition": {"jsonLogic": {"!!": {"var": []}}}, "connections": {"true": "done", "false": "done"}},\n{"id": "done", "type": "end"}]}\n';
  const dir = mkdtempSync(join(tmpdir(), 'countersign-jv-'));
  const file = join(dir, 'jv.json');
  writeFileSync(file, text);
  const report = validateFile(file);
  const found = report.errors.filter((e) => e.code === 'E_CONDITION');
  assert.equal(found.map((e) => `${e.pointer} ${e.line}:${e.col}`), [`/nodes/1/condition/jsonLogic/!!/var 3:${text.split('\n')[2].indexOf('[]') + 1}`]);
  assert.match(found[0].message, 'empty list');
});

dataflow.run();

const robust = suite('documents that break the schema never crash the validator');

const garbage: [string, unknown][] = [
  ['null', null],
  ['a number', 42],
  ['a string', 'nodes'],
  ['an array', []],
  ['an empty object', {}],
  ['nodes that is not a list', { metadata: {}, nodes: 5 }],
  ['nodes that are not objects', { nodes: [null, 1, 'a', [], { id: 3, type: 'start', connections: 'x' }] }],
  [
    'fields of the wrong type everywhere',
    workflow(
      [
        { id: 'start', type: 'start', initialData: 5, connections: { default: 7 } },
        { id: 'a', type: 'agent-directive', directive: 1, completionCondition: [], inputSchema: 'x', maxRetries: 'many', connections: null },
        { id: 'c', type: 'condition', condition: null, connections: { true: 'a', false: ['a'] } },
        { id: 'c2', type: 'condition', condition: { operator: 'and', conditions: 'x' }, connections: { true: 'e', false: 'e' } },
        { id: 'x', type: 'expression', expressions: 'n = 1', connections: {} },
        { id: 'e', type: 'end', finalOutput: 'all' },
        { type: 'agent-directive' },
      ],
      { variableRegistry: ['not', 'a', 'map'], systemReminder: 3 },
    ),
  ],
  ['a registry entry that is not an object', workflow(seedStructure(), { variableRegistry: { x: 'string' } })],
];

for (const [name, data] of garbage) {
  robust(`${name} gives errors, not an exception`, () => {
    const report = validateWorkflow(data);
    assert.is(report.ok, false);
    assert.ok(report.errors.length > 0);
    for (const e of report.errors) {
      assert.match(e.code, /^E_[A-Z_]+$/);
      assert.type(e.message, 'string');
      assert.type(e.pointer, 'string');
    }
  });
}

robust('a node the schema rejects is not also run through its type checks (one finding per problem)', () => {
  const nodes = seedStructure();
  nodes[3].condition = { operator: 'eq', left: { contextPath: 'delegate-review.issues_count' } };
  const report = validateWorkflow(workflow(nodes));
  assert.equal(codes(report), ['E_SCHEMA /nodes/3/condition']);
  assert.match(report.errors[0].message, /missing required field "right"/);
});

robust('a condition missing an operand still has its other operand\'s path checked, and an end node with a schema fault still has its finalOutput checked (an entry that is no path is E_FINAL_OUTPUT_PATH, not a template fault): all findings in one pass', () => {
  const nodes = seedStructure();
  nodes[3].condition = { operator: 'eq', left: { contextPath: 'delegate-reveiw.issues_count' } };
  const end = nodes.find((n) => n.type === 'end')!;
  Object.assign(end, { finalOutput: ['nope', 'a b', 7] });
  const report = validateWorkflow(workflow(nodes));
  const i = nodes.indexOf(end);
  assert.equal([...codes(report)].sort(), [
    'E_SCHEMA /nodes/3/condition',
    'E_UNDECLARED_VARIABLE /nodes/3/condition/left/contextPath',
    `E_FINAL_OUTPUT_PATH /nodes/${i}/finalOutput/1`,
    `E_SCHEMA /nodes/${i}/finalOutput/2`,
  ].sort());
  assert.ok(report.warnings.some((w) => w.code === 'E_FINAL_OUTPUT_UNRESOLVED' && w.pointer === `/nodes/${i}/finalOutput/0`), JSON.stringify(report.warnings));
});

robust('an unknown key leaves the node checkable: its other problems are still found', () => {
  const nodes = seedStructure();
  nodes[1].colour = 'red';
  nodes[1].directive = 'Use {{undeclared_thing}}.';
  assert.equal(codes(validateWorkflow(workflow(nodes))), ['E_UNKNOWN_KEY /nodes/1/colour', 'E_UNDECLARED_VARIABLE /nodes/1/directive']);
});

robust.run();

const files = suite('validateFile and validateWorkflow');

files('validateWorkflow reports line and col 0, since an object has no source', () => {
  const nodes = seedStructure();
  nodes[1].colour = 'red';
  const report = validateWorkflow(workflow(nodes), 'mine.json');
  assert.is(report.file, 'mine.json');
  assert.equal(report.errors.map((e) => [e.line, e.col]), [[0, 0]]);
  assert.is(validateWorkflow(workflow(nodes)).file, '<workflow>');
});

files('a missing file is one E_FILE_NOT_FOUND finding with an empty pointer', () => {
  const report = validateFile('/nonexistent/countersign/workflow.yaml');
  assert.is(report.ok, false);
  assert.equal(codes(report), ['E_FILE_NOT_FOUND ']);
  assert.is(report.file, '/nonexistent/countersign/workflow.yaml');
});

files('findings are sorted by position in the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-validate-'));
  const path = join(dir, 'wf.yaml');
  writeFileSync(
    path,
    [
      'metadata: { name: t, version: 1.0.0, description: d }',
      'nodes:',
      '  - { id: start, type: start, connections: { default: ghost } }',
      '  - { id: end, type: end, finalOutput: [nothing] }',
      '  - { id: zzz, type: end, colour: red }',
    ].join('\n'),
  );
  const report = validateFile(path);
  assert.equal(report.errors.map((e) => `${e.line}:${e.col} ${e.code}`), ['3:55 E_DANGLING_CONNECTION', '5:27 E_UNKNOWN_KEY']);
  assert.equal(report.warnings.map((e) => `${e.line}:${e.col} ${e.code}`), [
    '4:5 E_UNREACHABLE',
    '4:41 E_FINAL_OUTPUT_UNRESOLVED',
    '5:5 E_UNREACHABLE',
  ]);
});

files.run();

const Isolation = suite('validation is a property of the file');

Isolation('two workflows whose inputSchemas reuse one $id for different schemas both validate and run in one process', async () => {
  const { validateWorkflow } = await import('../../engine/validate/index.js');
  const { createEngine } = await import('../../engine/run/engine.js');
  const { createMemoryStore } = await import('../../engine/store/memory.js');
  const make = (prop: string) => ({
    metadata: { name: `id-${prop}`, version: '1.0.0', description: 'shared $id' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Answer.', completionCondition: 'ok',
        inputSchema: { $id: 'https://example.com/answer', type: 'object', properties: { [prop]: { type: 'string' } }, required: [prop] },
        connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  });
  assert.ok(validateWorkflow(make('a')).ok);
  assert.ok(validateWorkflow(make('b')).ok, JSON.stringify(validateWorkflow(make('b')).errors));
  const engine = createEngine({ store: createMemoryStore() });
  const a = await engine.start(make('a') as never);
  const b = await engine.start(make('b') as never);
  assert.is((await engine.submit(a.runId, { a: 'x' })).status, 'completed');
  const rejected = await engine.submit(b.runId, { a: 'x' });
  assert.is(rejected.status === 'waiting' && rejected.rejected?.code, 'E_ANSWER_INVALID');
  assert.is((await engine.submit(b.runId, { b: 'x' })).status, 'completed');
});

Isolation.run();
