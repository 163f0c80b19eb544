/**
 * The report slot must never name a file the run depends on (issue 3
 * "Paths", guarantee 2; seed 003 G8): the engine moves whatever is at the
 * report path aside before each review, and the path may come from an
 * agent-written variable. A report path inside the run store or on a
 * context path is refused on entry (E_REPORT_PATH), and nothing is moved.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument } from '../../engine/validate/index.js';
import { cli, tempDir } from '../helpers/cli.js';
import { ARTIFACT, reviewLoop, writeWorkflow } from '../fixtures/review/loop.js';

/** The review loop with a templated report the producer's answer chooses, and `review` fields merged in. */
function loop(review: Record<string, unknown> = {}): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  wf.nodes.find((n) => n.id === 'write')!.inputSchema = { type: 'object', properties: { report_path: { type: 'string' } } };
  Object.assign(wf.nodes.find((n) => n.id === 'review')!, { report: '{{write.report_path}}', ...review });
  return wf as unknown as Workflow;
}

const test = suite('review: a report path over the store or a context file');

test('G8 (issue 3 Paths): a report path inside the run store is E_REPORT_PATH on entry; the store and every run in it survive', async () => {
  const ws = tempDir('countersign-slot-ws-');
  const store = join(ws, '.countersign');
  const wf = writeWorkflow(ws, loop());
  const started = await cli(['start', wf, '--workspace', ws, '--json'], { store });
  assert.is(started.code, 0, started.stderr);
  writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
  const step = await cli(['step', started.json.runId, '--as', 'author', '--response', JSON.stringify({ report_path: '.countersign/countersign.db' }), '--json'], { store });
  assert.is(step.json.status, 'failed', step.stdout);
  assert.is(step.json.error.code, 'E_REPORT_PATH');
  assert.match(step.json.error.message, 'inside the run store');
  assert.ok(existsSync(join(store, 'countersign.db')), 'the database is where it was');
  assert.not.ok(readdirSync(store).some((f) => f.endsWith('.prev')), 'nothing in the store was moved aside');
  const status = await cli(['status', started.json.runId, '--json'], { store });
  assert.is(status.json.status, 'failed', 'the run is still in the store');
});

test('G8: a report path inside a git repository\'s own folder (.git/HEAD) is E_REPORT_PATH on entry, and the repository is left whole; a literal one is refused by validate', async () => {
  const ws = tempDir('countersign-slot-git-');
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(loop(), { workspace: ws });
  const state = await engine.submit(runId, { report_path: '.git/HEAD' }, { as: 'author' });
  assert.is(state.status === 'failed' && state.error.code, 'E_REPORT_PATH');
  assert.match(state.status === 'failed' ? state.error.message : '', "inside a git repository's own folder (.git)");
  assert.is(readFileSync(join(ws, '.git/HEAD'), 'utf8'), 'ref: refs/heads/main\n');
  assert.equal(readdirSync(join(ws, '.git')), ['HEAD']);
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  Object.assign(wf.nodes.find((n) => n.id === 'review')!, { report: 'sub/.git/config' });
  const errors = validateDocument(parseSource(JSON.stringify(wf, null, 2), 'w.json')).errors;
  assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_REPORT_PATH /nodes/2/report']);
});

test('G8: the default report under .countersign/reviews/ is still fine when the store is .countersign/ in the workspace', async () => {
  const ws = tempDir('countersign-slot-ws-');
  const store = join(ws, '.countersign');
  const wf = writeWorkflow(ws, reviewLoop({}));
  const started = await cli(['start', wf, '--workspace', ws, '--json'], { store });
  writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
  const step = await cli(['step', started.json.runId, '--as', 'author', '--response', '{}', '--json'], { store });
  assert.is(step.json.status, 'waiting', step.stdout);
  assert.is(step.json.pending.nodeId, 'review');
});

test('G8, G30: a report path equal to a context path is E_REPORT_PATH on entry, and the context file stays where the reviewer will read it', async () => {
  const ws = tempDir('countersign-slot-ws-');
  writeFileSync(join(ws, 'spec.md'), 'the specification\n');
  writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(loop({ context: ['spec.md'] }), { workspace: ws });
  const state = await engine.submit(runId, { report_path: 'spec.md' }, { as: 'author' });
  assert.is(state.status === 'failed' && state.error.code, 'E_REPORT_PATH');
  assert.is(readFileSync(join(ws, 'spec.md'), 'utf8'), 'the specification\n');
  assert.not.ok(existsSync(join(ws, 'spec.md.prev')));
});

test('G8: a literal report equal to a literal context path is E_REPORT_PATH from validate, at /report', () => {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  Object.assign(wf.nodes.find((n) => n.id === 'review')!, { context: ['spec.md'], report: './spec.md' });
  const errors = validateDocument(parseSource(JSON.stringify(wf, null, 2), 'w.json')).errors;
  assert.equal(errors.map((e) => `${e.code} ${e.pointer}`), ['E_REPORT_PATH /nodes/2/report']);
  assert.match(errors[0].message, 'the context path "spec.md" the reviewer must study');
});

test('G8: a folder where the engine keeps <report>.prev or <report>.refused is E_REPORT_PATH on entry, naming that folder and saying to move it (not to change the report path); nothing is moved', async () => {
  for (const beside of ['review.json.prev', 'review.json.refused']) {
    const ws = tempDir('countersign-slot-ws-');
    writeFileSync(join(ws, ARTIFACT), '# A\nbody\n');
    mkdirSync(join(ws, beside));
    const engine = createEngine({ store: createMemoryStore() });
    const { runId } = await engine.start(loop(), { workspace: ws });
    const state = await engine.submit(runId, { report_path: 'review.json' }, { as: 'author' });
    assert.is(state.status === 'failed' && state.error.code, 'E_REPORT_PATH', beside);
    const { events } = await engine.trace(runId);
    const refused = events.find((e) => e.type === 'review.refused') as { message: string; fix: string } | undefined;
    assert.match(refused?.message ?? '', `${join(ws, beside)} is a directory`);
    assert.is(refused?.fix, `move or remove the folder ${join(ws, beside)} (the engine keeps a file by that name beside the report)`);
    assert.ok(statSync(join(ws, beside)).isDirectory(), 'the folder is left as it was');
  }
});

test.run();
