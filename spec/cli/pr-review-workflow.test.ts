/**
 * workflows/pr-review.json as a user drives it (issue 5, ADR-019): the PR
 * is required input, a body that carries its own heading or verdict line
 * is refused at the reviewer's answer (it can answer again), and `run`
 * shows each tool node it ran.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWorkflow, type Workflow } from '../../engine/index.js';
import { cli, ROOT, tempDir } from '../helpers/cli.js';
import { fakeGhDir, gitRepo, plainDir, useStandIn } from '../tools/standin.js';

const WORKFLOW = join(ROOT, 'workflows/pr-review.json');
const ANSWERS = join(ROOT, 'examples/pr-review/answers.yaml');

const T = suite('workflows/pr-review.json');
let standIn: ReturnType<typeof useStandIn>;
T.before.each(() => {
  standIn = useStandIn();
});
T.after.each(() => standIn.restore());

T('H5: the pull request is required input: a start without it is E_INPUT (exit 2), nothing is stored and nothing posted', async () => {
  const store = join(tempDir('countersign-prwf-'), 'store');
  const r = await cli(['start', WORKFLOW], { store });
  assert.is(r.code, 2);
  assert.match(r.stderr, /E_INPUT: the start input must give "pr_number"/);
  const runs = await cli(['runs', '--json'], { store });
  assert.equal(runs.json.runs, []);
  assert.equal(standIn.calls(), []);
});

T('§4.14 H20: a body with its own verdict line (any case) or review heading is refused at the reviewer\'s answer (exit 5), which it may give again', async () => {
  const store = join(tempDir('countersign-prwf-'), 'store');
  const started = await cli(['start', WORKFLOW, '--input', '{"pr_number": 7}', '--workspace', plainDir(), '--json'], { store });
  const id = started.json.runId as string;
  for (const body of ['Fine.\n### verdict: APPROVE', '## Code Review Summary\n\nFine.', 'Fine.\n# Docs review summary']) {
    const r = await cli(['step', id, '--response', JSON.stringify({ verdict: 'APPROVE', body }), '--json'], { store });
    assert.is(r.code, 5, body);
    assert.is(r.json.rejected.code, 'E_ANSWER_INVALID');
  }
  // Accepted: the run moves on to posting, which fails loudly outside a git repository.
  const ok = await cli(['step', id, '--response', '{"verdict": "APPROVE", "body": "Fine."}', '--json'], { store, env: process.env });
  assert.is(ok.code, 1);
  assert.equal([ok.json.error.code, ok.json.error.nodeId], ['E_TOOL_FAILED', 'post-review']);
  assert.equal(ok.json.toolsRun.map((t: { nodeId: string; ok: boolean; code?: string }) => [t.nodeId, t.ok, t.code]), [['post-review', false, 'E_TOOL_FAILED']], 'step says which tool node it ran');
  assert.match(ok.stderr, /▸ post-review: tool post_review ✗ E_TOOL_FAILED/);
  assert.is(standIn.calls().length, 1);
});

T('run shows each tool node it ran, with its outcome', async () => {
  const dir = tempDir('countersign-prwf-');
  const repo = gitRepo('https://github.com/acme/widgets.git');
  writeFileSync(join(repo, 'pr.diff'), '--- a/x\n+++ b/x\n');
  const r = await cli(['run', WORKFLOW, '--agent', `scripted:${ANSWERS}`, '--workspace', repo, '--input', '{"pr_number": 42}'], { store: join(dir, 'store'), env: process.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /▸ post-review: tool post_review ✓/);
  assert.match(r.stderr, /▸ post-docs-review: tool post_docs_review ✓/);
  assert.match(r.stderr, /▸ status: tool pr_status ✓/);
});

T('requiredInputs must name declared variables: E_REQUIRED_INPUT_UNDECLARED at /requiredInputs/<i>, with a did-you-mean', () => {
  const wf = {
    metadata: { name: 'req', version: '1.0.0', description: 'required input' },
    variableRegistry: { pr_number: { type: 'integer', description: 'the PR' } },
    requiredInputs: ['pr_numbr'],
    nodes: [{ type: 'start', id: 'start', connections: { default: 'done' } }, { type: 'end', id: 'done' }],
  } as unknown as Workflow;
  const report = validateWorkflow(wf);
  assert.equal(report.errors.map((f) => [f.code, f.pointer]), [['E_REQUIRED_INPUT_UNDECLARED', '/requiredInputs/0']]);
  assert.match(report.errors[0].message, /did you mean "pr_number"/);
  const fixed = validateWorkflow({ ...wf, requiredInputs: ['pr_number'] } as Workflow);
  assert.equal([fixed.errors, fixed.warnings.map((w) => w.code)], [[], []], 'a required input is written by every start: no never-written warning');
});

T('§4.14: the reviewer\'s answer schema and post_review\'s body rule agree, so every body the tool would refuse is refused at the answer, where the reviewer can answer again', async () => {
  const { Ajv } = await import('ajv');
  const { reviewBodyProblem } = await import('../../engine/tools/review-format.js');
  const wf = JSON.parse(readFileSync(WORKFLOW, 'utf8'));
  const bodySchema = wf.nodes.find((n: { id: string }) => n.id === 'review').inputSchema.properties.body;
  const schemaAccepts = new Ajv().compile(bodySchema);
  const bodies = [
    'Fine.', 'Fine.\n### Verdict: APPROVE', 'Fine.\n###verdict:x', '## Code Review Summary', 'x ## code review summary y',
    'Fine.\n# Docs Review Summary', 'Fine.\r# Docs Review Summary', 'Fine.\u2028## review summary', '   ###### Review Summary',
    '#57 introduced this; its review summary was wrong.', '#include <x.h> // review summary', 'a review summary, no heading',
    'Fine.\n### Verd\u0131ct: APPROVE', 'Fine.\n### VERD\u0130CT: APPROVE', 'Fine.\n###\x1cVerdict: APPROVE', 'Fine.\n###\x85verdict:x',
    'Fine.\n###\ufeffVerdict: APPROVE', '## Code Rev\u0131ew Summary', 'x ## code review \u017fummary y', 'Fine.\n# Docs REV\u0130EW \u017fummary',
    'Fine.\u2028## review summ\u0430ry', 'Fine.\n### Verdict\u0130: x',
  ];
  for (const body of bodies) assert.is(schemaAccepts(body), reviewBodyProblem(body) === undefined, JSON.stringify(body));
});

T('H16 H37: the workflow checks its own posting: when the comments do not read back as DONE with the posted verdict, the run ends at not-verified (outcome not_verified), not at done', async () => {
  const dir = tempDir('countersign-prwf-');
  const repo = gitRepo('https://github.com/acme/widgets.git');
  writeFileSync(join(repo, 'pr.diff'), '--- a/x\n+++ b/x\n');
  // A gh that takes the comment but whose PR shows none of it.
  const gh = fakeGhDir('if [ "$2" = "view" ]; then echo \'{"comments": []}\'; else cat > /dev/null; echo https://github.com/acme/widgets/pull/42#issuecomment-1; fi');
  const saved = process.env.PATH;
  process.env.PATH = `${gh}${delimiter}${saved}`;
  let r;
  try {
    r = await cli(['run', WORKFLOW, '--agent', `scripted:${ANSWERS}`, '--workspace', repo, '--input', '{"pr_number": 42}', '--json'], { store: join(dir, 'store'), env: process.env });
  } finally {
    process.env.PATH = saved;
  }
  assert.is(r.json.status, 'completed');
  assert.is(r.json.endNodeId, 'not-verified');
  assert.is(r.json.outcome, 'not_verified');
  assert.equal(r.json.output['status.result'], { review: { status: 'NOT_DONE' }, docs: { status: 'NOT_DONE' } });
});

T.run();
