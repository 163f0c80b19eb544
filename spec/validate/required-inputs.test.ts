/** `requiredInputs` (issue 5's pr-review.json): variables the start input must give. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, validateWorkflow, type Workflow } from '../../engine/index.js';

const wf = (extra: Record<string, unknown> = {}, decl: Record<string, unknown> = { type: 'integer', minimum: 1, description: 'the PR' }) =>
  ({
    metadata: { name: 'req', version: '1.0.0', description: 'required input' },
    variableRegistry: { pr_number: decl },
    requiredInputs: ['pr_number'],
    ...extra,
    nodes: [{ type: 'start', id: 'start', connections: { default: 'done' } }, { type: 'end', id: 'done', finalOutput: ['pr_number'] }],
  }) as unknown as Workflow;

const T = suite('requiredInputs');

T('a start without a required input is E_INPUT naming it and its type as a placeholder (never a value that could be copied as is); nothing is stored', async () => {
  const store = createMemoryStore();
  const engine = createEngine({ store });
  const e = await engine.start(wf()).then(() => undefined, (x: { code?: string; message?: string; fix?: string }) => x);
  assert.is(e?.code, 'E_INPUT');
  assert.match(e?.message ?? '', 'must give "pr_number"');
  assert.match(e?.fix ?? '', `--input '{"pr_number": <integer ≥ 1>}'`);
  assert.equal(store.list(), []);
  const ok = await engine.start(wf(), { input: { pr_number: 42 } });
  assert.equal(ok.status === 'completed' && ok.output, { pr_number: 42 });
});

T('a required input with a default is a warning at that default: it is never used', () => {
  const report = validateWorkflow(wf({}, { type: 'integer', description: 'the PR', default: 3 }));
  assert.equal(report.errors, []);
  assert.equal(report.warnings.map((w) => [w.code, w.pointer]), [['E_REQUIRED_INPUT_DEFAULT', '/variableRegistry/pr_number/default']]);
});

T('a required input with a start value (initialData) is the same warning, at that value: the start input must give it, so the value is never used', async () => {
  const w = wf() as unknown as { nodes: Record<string, unknown>[] };
  w.nodes[0].initialData = { variables: { pr_number: { description: 'the PR', value: 5 } } };
  const report = validateWorkflow(w as unknown as Workflow);
  assert.equal(report.warnings.map((x) => [x.code, x.pointer]), [['E_REQUIRED_INPUT_DEFAULT', '/nodes/0/initialData/variables/pr_number/value']]);
  assert.match(report.warnings[0].message, 'its start value is never used');
  const e = await createEngine({ store: createMemoryStore() }).start(w as unknown as Workflow).then(() => undefined, (x: { code?: string }) => x);
  assert.is(e?.code, 'E_INPUT', 'as the warning says: the value is not used');
});

T.run();
