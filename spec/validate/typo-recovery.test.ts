/**
 * One typo, one finding: a misspelt key, node type or globalInputs name with
 * a did-you-mean is reported once, and the rest of the workflow is checked
 * as if it were written as meant (r78 b5–b7).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow, type ValidationReport } from '../../engine/validate/index.js';

type Json = Record<string, any>;

/** start (declares iv) → a (answers f) → c (routes on a.f) → b / x (updates n) → end (outputs n, a.f). */
function base(): Json {
  return {
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    variableRegistry: { n: { type: 'integer', description: 'n', default: 0 }, s: { type: 'string', description: 's' } },
    nodes: [
      { type: 'start', id: 'start', initialData: { variables: { iv: { description: 'd', value: 1 } } }, connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'x {{s}} {{iv}}', completionCondition: 'y {{a.f}}', inputSchema: { type: 'object', properties: { f: { type: 'string' } }, globalInputs: ['s'], required: ['f'] }, connections: { success: 'c' } },
      { type: 'condition', id: 'c', condition: { operator: 'eq', left: { contextPath: 'a.f' }, right: 'x' }, connections: { true: 'x', false: 'b' } },
      { type: 'agent-directive', id: 'b', directive: '{{a.f}} {{n}}', completionCondition: 'z', connections: { success: 'end' } },
      { type: 'expression', id: 'x', expressions: ['n = n + 1'], connections: { default: 'end' } },
      { type: 'end', id: 'end', finalOutput: ['n', 'a.f'] },
    ],
  };
}

function rename(holder: Json, from: string, to: string): void {
  const entries = Object.entries(holder);
  for (const key of Object.keys(holder)) delete holder[key];
  for (const [k, v] of entries) holder[k === from ? to : k] = v;
}

const all = (r: ValidationReport) => [...r.errors, ...r.warnings].map((f) => `${f.code} ${f.pointer}`);

const Typos = suite('validate: a misspelt name is one finding, the rest read as meant');

Typos('the untouched workflow is clean', () => {
  assert.equal(all(validateWorkflow(base())), []);
});

const cases: Array<[string, (w: Json) => void, string]> = [
  ['B7 variableRegistry → variableRegistery', (w) => rename(w, 'variableRegistry', 'variableRegistery'), 'E_UNKNOWN_KEY /variableRegistery'],
  ['B7 nodes → node', (w) => rename(w, 'nodes', 'node'), 'E_UNKNOWN_KEY /node'],
  ['B7 inputSchema → inputSchem', (w) => rename(w.nodes[1], 'inputSchema', 'inputSchem'), 'E_UNKNOWN_KEY /nodes/1/inputSchem'],
  ['B7 properties → propertis', (w) => rename(w.nodes[1].inputSchema, 'properties', 'propertis'), 'E_INPUT_SCHEMA /nodes/1/inputSchema/propertis'],
  ['B7 initialData → initalData', (w) => rename(w.nodes[0], 'initialData', 'initalData'), 'E_UNKNOWN_KEY /nodes/0/initalData'],
  ['B7 variables → variable', (w) => rename(w.nodes[0].initialData, 'variables', 'variable'), 'E_UNKNOWN_KEY /nodes/0/initialData/variable'],
  ['B7 node type start → strat', (w) => { w.nodes[0].type = 'strat'; }, 'E_UNKNOWN_NODE_TYPE /nodes/0/type'],
  ['B5 registry type → tpye', (w) => rename(w.variableRegistry.n, 'type', 'tpye'), 'E_UNKNOWN_KEY /variableRegistry/n/tpye'],
  ['B5 registry description → desription', (w) => rename(w.variableRegistry.n, 'description', 'desription'), 'E_UNKNOWN_KEY /variableRegistry/n/desription'],
  ['B5 registry default → defualt', (w) => rename(w.variableRegistry.n, 'default', 'defualt'), 'E_VARIABLE_SCHEMA /variableRegistry/n/defualt'],
  ['r79 b4 node type key → tpye (no type for the schema to pick the node\'s shape by)', (w) => rename(w.nodes[2], 'type', 'tpye'), 'E_UNKNOWN_KEY /nodes/2/tpye'],
  ['B6 node id → di', (w) => rename(w.nodes[3], 'id', 'di'), 'E_UNKNOWN_KEY /nodes/3/di'],
  ['globalInputs entry s → ss', (w) => { w.nodes[1].inputSchema.globalInputs = ['ss']; }, 'E_GLOBAL_INPUT_UNDECLARED /nodes/1/inputSchema/globalInputs/0'],
  ['connections → conections', (w) => rename(w.nodes[1], 'connections', 'conections'), 'E_UNKNOWN_KEY /nodes/1/conections'],
];

for (const [name, mutate, finding] of cases) {
  Typos(`${name}: the typo's finding alone`, () => {
    const w = base();
    mutate(w);
    assert.equal(all(validateWorkflow(w)), [finding]);
  });
}

Typos('a typo inside a misspelt key is found too, at the keys as written; a fault elsewhere is still said', () => {
  const w = base();
  rename(w.nodes[1].inputSchema, 'properties', 'propertis');
  rename(w.nodes[1], 'inputSchema', 'inputSchem');
  w.nodes[3].directive = '{{a.f}} {{nope}}';
  assert.equal(all(validateWorkflow(w)), ['E_UNKNOWN_KEY /nodes/1/inputSchem', 'E_INPUT_SCHEMA /nodes/1/inputSchem/propertis', 'E_UNDECLARED_VARIABLE /nodes/3/directive']);
});

Typos('a misspelt key whose meant name is already there is a plain unknown key: the key that is there is what counts', () => {
  const w = base();
  w.nodes[3].directve = 'typo beside the real one';
  assert.equal(all(validateWorkflow(w)), ['E_UNKNOWN_KEY /nodes/3/directve']);
});

Typos('r79 b2-b3: what the misspelt key holds is checked as meant: a connection target under "sucess", a context path under "contextPth", a value that does not fit the meant keyword', () => {
  const target = base();
  target.nodes[1].connections = { sucess: 'cc' };
  const dangling = validateWorkflow(target);
  assert.equal(all(dangling), ['E_UNKNOWN_CONNECTION /nodes/1/connections/sucess', 'E_DANGLING_CONNECTION /nodes/1/connections/sucess']);
  assert.match(dangling.errors[1].message, 'goes to "cc", but no node has that id — did you mean "c"?');
  const path = base();
  path.nodes[2].condition.left = { contextPth: 'a.ff' };
  const undeclared = validateWorkflow(path);
  assert.equal(all(undeclared), ['E_CONDITION /nodes/2/condition/left/contextPth', 'E_UNDECLARED_VARIABLE /nodes/2/condition/left/contextPth']);
  assert.match(undeclared.errors[1].message, 'did you mean "a.f"?');
  const example = base();
  example.nodes[1].inputSchema.properties.f.example = 'foo';
  const report = validateWorkflow(example);
  assert.equal(all(report), ['E_INPUT_SCHEMA /nodes/1/inputSchema/properties/f/example', 'E_INPUT_SCHEMA /nodes/1/inputSchema/properties/f/example']);
  assert.match(report.errors[0].message, 'did you mean "examples"?');
  assert.match(report.errors[1].message, '"examples" must be array');
});

Typos('r80 b3: a node id E_NODE_ID refuses ("ab.") is never offered as a did-you-mean, by a connection or a read', () => {
  const w = base();
  w.nodes[1].id = 'ab.';
  w.nodes[0].connections.default = 'abc';
  w.nodes[3].directive = '{{abc.f}}';
  const report = validateWorkflow(w);
  assert.ok(report.errors.some((f) => f.code === 'E_NODE_ID'), JSON.stringify(report.errors));
  assert.ok(report.errors.some((f) => f.code === 'E_DANGLING_CONNECTION'), JSON.stringify(report.errors));
  for (const f of [...report.errors, ...report.warnings]) assert.not.match(f.message, 'did you mean "ab.', f.message);
});

Typos('r80 b4: globalInputs of the wrong shape (a string, an object) is the schema\'s finding alone: no required-name or never-written findings about the names it holds', () => {
  for (const shape of ['s', { s: true }]) {
    const w = base();
    w.nodes[1].inputSchema.globalInputs = shape;
    w.nodes[1].inputSchema.required = ['f', 's'];
    assert.equal(all(validateWorkflow(w)), ['E_SCHEMA /nodes/1/inputSchema/globalInputs'], JSON.stringify(shape));
  }
});

Typos('r81 b3: "this" and "@index" are offered as a did-you-mean only inside {{#each}}, never outside a loop or in a condition', () => {
  const outside = base();
  outside.nodes[3].directive = '{{thsi}} {{@idnex}}';
  outside.nodes[2].condition.left = { contextPath: 'thsi' };
  const report = validateWorkflow(outside);
  assert.equal(report.errors.length, 3, JSON.stringify(report.errors));
  for (const f of report.errors) assert.not.match(f.message, /did you mean "(this|@index)"/, f.message);
  const inside = base();
  inside.variableRegistry.list = { type: 'array', description: 'l', default: [1] };
  inside.nodes[3].directive = '{{#each list}}{{thsi}} {{@idnex}}{{/each}}';
  const loop = validateWorkflow(inside);
  assert.match(loop.errors.map((f) => f.message).join(' | '), 'did you mean "@index"?');
});

Typos('r82 b6: a bare template or condition name that misspells a node\'s field gets the node-id.field did-you-mean, as the exact name does', () => {
  const wf = (read: string, path: string): Json => ({
    metadata: { name: 't', version: '1.0.0', description: 'd' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'x', completionCondition: 'y', inputSchema: { type: 'object', properties: { summary: { type: 'string' } } }, connections: { success: 'b' } },
      { type: 'agent-directive', id: 'b', directive: `read {{${read}}}`, completionCondition: 'z', connections: { success: 'c' } },
      { type: 'condition', id: 'c', condition: { operator: 'eq', left: { contextPath: path }, right: 'x' }, connections: { true: 'end', false: 'end' } },
      { type: 'end', id: 'end' },
    ],
  });
  for (const name of ['summary', 'sumary', 'summray']) {
    const messages = validateWorkflow(wf(name, name)).errors.map((e) => `${e.pointer} ${e.message}`);
    assert.is(messages.length, 2, messages.join('\n'));
    for (const m of messages) assert.match(m, 'did you mean "a.summary"? (a node\'s answer is read as node-id.field)', m);
  }
  // A name near no field still gets none.
  const far = validateWorkflow(wf('headline', 'headline')).errors.map((e) => e.message);
  assert.ok(far.every((m) => !m.includes('did you mean')), far.join('\n'));
});

Typos('r97 b1 b2: a misspelt jsonLogic operation has a did-you-mean, and what it holds is checked as meant (a typo inside it, an undeclared var it reads) in the same pass', () => {
  const w = base();
  w.nodes[2].condition = { jsonLogic: { andd: [{ '==': [{ var: 'a.g' }, 'x'] }, { vr: 'nn' }, { wibble: [{ vr: 's' }] }] } };
  const r = validateWorkflow(w);
  const at = '/nodes/2/condition/jsonLogic';
  const find = (pointer: string) => r.errors.find((f) => f.pointer === pointer);
  assert.match(find(`${at}/andd`)?.message ?? '', 'unknown jsonLogic operation "andd" — did you mean "and"?');
  assert.match(find(`${at}/andd/1/vr`)?.message ?? '', 'unknown jsonLogic operation "vr" — did you mean "var"?');
  assert.match(find(`${at}/andd/0/==/0/var`)?.message ?? '', '"a.g"', 'a read inside the misspelt operation is checked');
  assert.match(find(`${at}/andd/1/vr`)?.message ?? '', 'did you mean');
  assert.ok(r.errors.some((f) => f.code === 'E_UNDECLARED_VARIABLE' && f.pointer === `${at}/andd/1/vr` && f.message.includes('did you mean "n"')), JSON.stringify(r.errors));
  assert.match(find(`${at}/andd/2/wibble`)?.message ?? '', 'unknown jsonLogic operation "wibble"; use one of');
  assert.match(find(`${at}/andd/2/wibble/0/vr`)?.message ?? '', 'did you mean "var"?', 'inside an operation with no guess, its arguments are still checked');
});

Typos.run();
