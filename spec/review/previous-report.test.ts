/**
 * `<report>.prev` holds the last accepted review's findings (G8), even when
 * the fix step ticks items off, rewrites or deletes the report file: the
 * engine rewrites `.prev` from what it accepted, sets an edited file aside
 * as `.refused` and journals `review.report_restored` — without the issue
 * text ever entering the journal (G14).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { keepPreviousReport } from '../../engine/review/previous-report.js';
import type { Workflow } from '../../engine/format/model.js';
import { ARTIFACT, REPORT, reviewLoop } from '../fixtures/review/loop.js';

const FINDINGS = ['notes.md: heading "A" has no body', 'notes.md: no title'];

/** Runs write → review (2 issues) and leaves the run waiting at the fix step. */
async function atFix() {
  const ws = tempDir('countersign-prev-');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(reviewLoop(), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, REPORT), JSON.stringify({ issues: FINDINGS }));
  s = await engine.submit(s.runId, { issues_count: 2 }, { seq: s.seq, as: 'reviewer' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'fix');
  return { ws, engine, s };
}

async function fixAndReenter(ctx: Awaited<ReturnType<typeof atFix>>) {
  writeFileSync(join(ctx.ws, ARTIFACT), '# A\n\nBody.\n');
  const s = await ctx.engine.submit(ctx.s.runId, {}, { seq: ctx.s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  return (await ctx.engine.trace(s.runId)).events;
}

/**
 * The review loop with its report at `reviews/{{slot}}.json`, the fix step
 * writing `slot`; the user's own file already sits at `reviews/<userFile>.json`.
 */
function slotLoop(ws: string, userFile: string) {
  mkdirSync(join(ws, 'reviews'));
  writeFileSync(join(ws, `reviews/${userFile}.json`), 'USER OWN NOTES\n');
  const wf = reviewLoop() as unknown as { variableRegistry?: unknown; nodes: Array<Record<string, unknown>> };
  wf.variableRegistry = { slot: { type: 'string', default: 'a', description: 'which report file' } };
  const review = wf.nodes.find((n) => n.id === 'review')!;
  review.report = 'reviews/{{slot}}.json';
  const fix = wf.nodes.find((n) => n.id === 'fix')!;
  fix.inputSchema = { type: 'object', properties: { unchanged_reason: { type: 'string' } }, globalInputs: ['slot'] };
  return { wf, review };
}

const Prev = suite('review: .prev is the last accepted report');

Prev('G8: a fix step that ticks items off in the report leaves .prev with the reviewer\'s findings; its edit is kept as .refused', async () => {
  const ctx = await atFix();
  const edited = JSON.stringify({ issues: ['[done] notes.md: heading "A" has no body'] });
  writeFileSync(join(ctx.ws, REPORT), edited);
  const events = await fixAndReenter(ctx);
  assert.equal(JSON.parse(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8')), { issues: FINDINGS });
  assert.is(readFileSync(join(ctx.ws, `${REPORT}.refused`), 'utf8'), edited);
  assert.not.ok(existsSync(join(ctx.ws, REPORT)), 'the new reviewer starts from an empty slot');
  const restored = events.filter((e) => e.type === 'review.report_restored');
  assert.equal(restored.map((e) => e.change), ['edited']);
  // G14: the journal names the change, never the findings.
  assert.not.match(JSON.stringify(events), /no title/);
});

Prev('G8: a report the reviewer wrote with a byte-order mark (a Windows editor) and nobody touched is kept as it is: moved to .prev whole, no .refused, no report_restored', async () => {
  const ws = tempDir('countersign-prev-bom-');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(reviewLoop(), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  const written = `\uFEFF${JSON.stringify({ issues: FINDINGS })}`;
  writeFileSync(join(ws, REPORT), written);
  s = await engine.submit(s.runId, { issues_count: 2 }, { seq: s.seq, as: 'reviewer' });
  const events = await fixAndReenter({ ws, engine, s });
  assert.is(readFileSync(join(ws, `${REPORT}.prev`), 'utf8'), written, 'the reviewer\'s own file, untouched');
  assert.not.ok(existsSync(join(ws, `${REPORT}.refused`)));
  assert.equal(events.filter((e) => e.type === 'review.report_restored'), []);
});

Prev('G8: a fix step that deletes the report leaves .prev with the reviewer\'s findings, journaled as "deleted"', async () => {
  const ctx = await atFix();
  rmSync(join(ctx.ws, REPORT));
  const events = await fixAndReenter(ctx);
  assert.equal(JSON.parse(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8')), { issues: FINDINGS });
  assert.not.ok(existsSync(join(ctx.ws, `${REPORT}.refused`)));
  assert.equal(events.filter((e) => e.type === 'review.report_restored').map((e) => e.change), ['deleted']);
});

Prev('§5 crash: a fix step killed after it moved the accepted report to .prev but before it committed is retried to the same end: .prev as accepted, no "deleted" journaled for what the engine itself moved', async () => {
  const ctx = await atFix();
  // What the killed step did to the workspace before its transaction was lost.
  const { renameSync } = await import('node:fs');
  renameSync(join(ctx.ws, REPORT), join(ctx.ws, `${REPORT}.prev`));
  const events = await fixAndReenter(ctx);
  assert.equal(JSON.parse(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8')), { issues: FINDINGS });
  assert.not.ok(existsSync(join(ctx.ws, REPORT)));
  assert.equal(events.filter((e) => e.type === 'review.report_restored'), []);
});

Prev('G8: a temp file a crashed process left beside the report (its pid reused since) is never in the way of writing .prev', () => {
  const dir = tempDir('countersign-prev-stale-');
  const report = join(dir, 'review.json');
  writeFileSync(report, JSON.stringify({ issues: ['a', 'ticked off'] }));
  writeFileSync(`${report}.prev.${process.pid}.tmp`, 'left by a crash');
  assert.is(keepPreviousReport(report, { digest: 'not the live one', issues: ['a'], format: 'json' }), 'edited');
  assert.equal(JSON.parse(readFileSync(`${report}.prev`, 'utf8')), { issues: ['a'] });
});

Prev('G8: an untouched report moves to .prev byte for byte, with no review.report_restored event', async () => {
  const ctx = await atFix();
  const before = readFileSync(join(ctx.ws, REPORT), 'utf8');
  const events = await fixAndReenter(ctx);
  assert.is(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8'), before);
  assert.equal(events.filter((e) => e.type === 'review.report_restored'), []);
});

Prev('a file already at the report path that this run never wrote (the user\'s, an earlier run\'s) is kept as <report>.before-<runId>, and an earlier .prev and .refused as <report>.prev.before-<runId> and <report>.refused.before-<runId>, so later reviews cannot overwrite them', async () => {
  const ws = tempDir('countersign-prev-user-');
  writeFileSync(join(ws, REPORT), 'my precious notes\n');
  writeFileSync(join(ws, `${REPORT}.prev`), 'an older generation\n');
  writeFileSync(join(ws, `${REPORT}.refused`), 'an earlier run\'s refused report\n');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(reviewLoop(), { workspace: ws });
  const kept = join(ws, `${REPORT}.before-${s.runId}`);
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(readFileSync(kept, 'utf8'), 'my precious notes\n');
  const aside = (await engine.trace(s.runId)).events.filter((e) => e.type === 'review.report_set_aside');
  assert.equal(aside.map((e) => [e.report, e.to]), [[join(ws, REPORT), kept]]);
  // Two review → fix iterations: .prev is the engine's from now on, the user's file stays where it was put.
  writeFileSync(join(ws, REPORT), JSON.stringify({ issues: FINDINGS }));
  s = await engine.submit(s.runId, { issues_count: 2 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  assert.equal(JSON.parse(readFileSync(join(ws, `${REPORT}.prev`), 'utf8')), { issues: FINDINGS });
  assert.is(readFileSync(kept, 'utf8'), 'my precious notes\n', 'still there after the second review was issued');
  assert.is(readFileSync(join(ws, `${REPORT}.prev.before-${s.runId}`), 'utf8'), 'an older generation\n', 'an earlier run\'s .prev is kept too, not replaced by this run\'s');
  assert.is(readFileSync(join(ws, `${REPORT}.refused.before-${s.runId}`), 'utf8'), 'an earlier run\'s refused report\n', 'and its .refused, which this run\'s own would replace');
});

Prev('a report inside an artifact folder, with an earlier file at its path: setting that file aside is the engine\'s move, never blamed on the reviewer (no E_REVIEWER_MODIFIED)', async () => {
  const ws = tempDir('countersign-prev-inside-');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs/review.json'), JSON.stringify({ issues: ['left by an earlier run'] }));
  writeFileSync(join(ws, 'docs/review.json.prev'), 'an older generation\n');
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  const review = wf.nodes.find((n) => n.id === 'review')!;
  review.artifacts = ['docs'];
  review.report = 'docs/review.json';
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, 'docs/api.md'), '# API\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.ok(existsSync(join(ws, `docs/review.json.before-${s.runId}`)));
  writeFileSync(join(ws, 'docs/review.json'), JSON.stringify({ issues: [] }));
  s = await engine.submit(s.runId, { issues_count: 0 }, { seq: s.seq, as: 'reviewer' });
  assert.is(s.status, 'completed', JSON.stringify(s));
});

Prev('G8: a report path inside an artifact folder that names a file of the work (not a review report, e.g. the user\'s README, with or without a list in it) is E_REPORT_PATH on entry: the file is never moved out of the review; a bare earlier report is set aside', async () => {
  const ws = tempDir('countersign-prev-workfile-');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs/README.md'), '# user readme\n\nHow to use the API.\n');
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  const review = wf.nodes.find((n) => n.id === 'review')!;
  review.artifacts = ['docs/'];
  review.report = 'docs/README.md';
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, 'docs/api.md'), '# API\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH', JSON.stringify(s));
  assert.match(s.status === 'failed' ? s.error.message : '', 'is a file of');
  assert.is(readFileSync(join(ws, 'docs/README.md'), 'utf8'), '# user readme\n\nHow to use the API.\n', 'left where it is');
  assert.not.ok(existsSync(join(ws, `docs/README.md.before-${s.runId}`)));
  // A README with a list in it reads as Markdown items too, yet it says more than a list of findings: still the work's.
  const readme = '# Project\n\nThis project does X.\n\n- install with npm\n- run with npm start\n';
  writeFileSync(join(ws, 'docs/README.md'), readme);
  let r: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  r = await engine.submit(r.runId, {}, { seq: r.seq, as: 'author' });
  assert.is(r.status === 'failed' && r.error.code, 'E_REPORT_PATH', JSON.stringify(r));
  assert.is(readFileSync(join(ws, 'docs/README.md'), 'utf8'), readme, 'left where it is');
  // An earlier run's Markdown report (its items, a heading at most) is set aside as usual.
  writeFileSync(join(ws, 'docs/README.md'), '# Review\n\n- api.md: no examples\n');
  let e: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  e = await engine.submit(e.runId, {}, { seq: e.seq, as: 'author' });
  assert.is(e.status === 'waiting' && e.pending.nodeId, 'review', JSON.stringify(e));
  assert.ok(existsSync(join(ws, `docs/README.md.before-${e.runId}`)));
  // A file whose name starts with ".." is in the folder too.
  const ws2 = tempDir('countersign-prev-dotdot-');
  mkdirSync(join(ws2, 'docs'));
  writeFileSync(join(ws2, 'docs/..notes.md'), 'my own notes\n');
  review.report = 'docs/..notes.md';
  let t: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws2 });
  writeFileSync(join(ws2, 'docs/api.md'), '# API\n');
  t = await engine.submit(t.runId, {}, { seq: t.seq, as: 'author' });
  assert.is(t.status === 'failed' && t.error.code, 'E_REPORT_PATH', JSON.stringify(t));
  assert.is(readFileSync(join(ws2, 'docs/..notes.md'), 'utf8'), 'my own notes\n');
});

Prev('G8: a list in a file of the work that is not Markdown by name (.yaml, .txt) is the work, never an earlier report: E_REPORT_PATH on entry, the file left in the review', async () => {
  for (const name of ['endpoints.yaml', 'notes.txt']) {
    const ws = tempDir('countersign-prev-yaml-');
    mkdirSync(join(ws, 'docs'));
    writeFileSync(join(ws, 'docs/api.md'), '# API\n');
    writeFileSync(join(ws, `docs/${name}`), '- GET /users\n- POST /users\n');
    const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
    Object.assign(wf.nodes.find((n) => n.id === 'review')!, { artifacts: ['docs/'], report: `docs/${name}` });
    const engine = createEngine({ store: createMemoryStore() });
    let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
    s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
    assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH', name);
    assert.is(readFileSync(join(ws, `docs/${name}`), 'utf8'), '- GET /users\n- POST /users\n', name);
    assert.not.ok(existsSync(join(ws, `docs/${name}.before-${s.runId}`)), name);
  }
});

Prev('a templated report path that comes back to a file (A, then B, then A) never overwrites the user\'s file kept as <report>.before-<runId>: what is at A the second time is this run\'s own report, kept as .prev', async () => {
  const ws = tempDir('countersign-prev-return-');
  const { wf } = slotLoop(ws, 'a');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  const kept = join(ws, `reviews/a.json.before-${s.runId}`);
  const review1 = JSON.stringify({ issues: ['one'] });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, 'reviews/a.json'), review1);
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, { slot: 'b' }, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, 'reviews/b.json'), JSON.stringify({ issues: ['two'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody, longer.\n');
  s = await engine.submit(s.runId, { slot: 'a' }, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  assert.is(readFileSync(kept, 'utf8'), 'USER OWN NOTES\n', 'the user\'s file is still where it was kept');
  assert.is(readFileSync(join(ws, 'reviews/a.json.prev'), 'utf8'), review1);
  const aside = (await engine.trace(s.runId)).events.filter((e) => e.type === 'review.report_set_aside');
  assert.is(aside.length, 1, 'set aside once, at the first visit of a.json');
});

Prev('a templated report path that changes after a review that timed out keeps the user\'s file at the new path as <report>.before-<runId>, never as .refused (which a later refused report would replace)', async () => {
  const ws = tempDir('countersign-prev-timeout-');
  const { wf, review } = slotLoop(ws, 'b');
  review.timeoutMs = 60_000;
  review.connections = { ...(review.connections as object), timeout: 'fix' };
  const clock = { t: Date.parse('2026-12-02T10:00:00Z') };
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(clock.t) });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, 'reviews/a.json'), JSON.stringify({ issues: ['half written'] }));
  clock.t += 61_000;
  s = await engine.status(s.runId);
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'fix', JSON.stringify(s));
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, { slot: 'b' }, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  assert.is(readFileSync(join(ws, `reviews/b.json.before-${s.runId}`), 'utf8'), 'USER OWN NOTES\n');
  assert.not.ok(existsSync(join(ws, 'reviews/b.json.refused')));
});

Prev('two review nodes with one report path: the second takes the first\'s report as this run\'s own (kept as .prev), and the user\'s file kept as <report>.before-<runId> is never overwritten', async () => {
  const ws = tempDir('countersign-prev-two-');
  writeFileSync(join(ws, REPORT), 'USER OWN NOTES\n');
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  const check = wf.nodes.find((n) => n.id === 'check')!;
  check.connections = { true: 'review2', false: 'fix' };
  wf.nodes.push(
    { type: 'delegate-review', id: 'review2', artifacts: [ARTIFACT], criteria: ['Every heading has a body, again.'], report: REPORT, connections: { success: 'check2', exhausted: 'gave-up' } },
    { type: 'condition', id: 'check2', condition: { operator: 'eq', left: { contextPath: 'review2.issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
  );
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  const kept = join(ws, `${REPORT}.before-${s.runId}`);
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  const first = JSON.stringify({ issues: [] });
  writeFileSync(join(ws, REPORT), first);
  s = await engine.submit(s.runId, { issues_count: 0 }, { seq: s.seq, as: 'reviewer' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review2');
  assert.is(readFileSync(kept, 'utf8'), 'USER OWN NOTES\n', 'the user\'s file is still where the first review kept it');
  assert.is(readFileSync(join(ws, `${REPORT}.prev`), 'utf8'), first, 'the first review\'s report is this run\'s own: its .prev');
  assert.is((await engine.trace(s.runId)).events.filter((e) => e.type === 'review.report_set_aside').length, 1);
});

Prev('G8: two review nodes with one report path: a report the first\'s last visit did not accept goes to .refused when the second comes, and .prev keeps the findings the first accepted', async () => {
  const ws = tempDir('countersign-prev-shared-');
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  const review = wf.nodes.find((n) => n.id === 'review')!;
  review.maxRetries = 0;
  review.connections = { ...(review.connections as object), error: 'review2' };
  wf.nodes.push(
    { type: 'delegate-review', id: 'review2', artifacts: [ARTIFACT], criteria: ['Every heading has a body, again.'], report: REPORT, connections: { success: 'check2', exhausted: 'gave-up' } },
    { type: 'condition', id: 'check2', condition: { operator: 'eq', left: { contextPath: 'review2.issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix2' } },
    { ...wf.nodes.find((n) => n.id === 'fix')!, id: 'fix2', connections: { success: 'review2' } },
  );
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  const accepted = JSON.stringify({ issues: ['ACCEPTED FINDING'] });
  writeFileSync(join(ws, REPORT), accepted);
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review');
  // The reviewer writes something no review accepts; the answer is rejected, no retries: the error route to review2.
  writeFileSync(join(ws, REPORT), 'GARBAGE NOT ACCEPTED');
  s = await engine.submit(s.runId, { issues_count: 0 }, { seq: s.seq, as: 'reviewer' });
  assert.is(s.status === 'waiting' && s.pending.nodeId, 'review2');
  assert.is(readFileSync(join(ws, `${REPORT}.prev`), 'utf8'), accepted, 'the accepted findings are kept');
  assert.is(readFileSync(join(ws, `${REPORT}.refused`), 'utf8'), 'GARBAGE NOT ACCEPTED');
  assert.not.ok(existsSync(join(ws, REPORT)), 'the reviewer of review2 starts from an empty slot');
});

Prev('an artifact named like a file the engine keeps beside the report (review.json.prev, .refused) is refused (E_REPORT_PATH) before anything is moved', async () => {
  for (const name of [`${REPORT}.prev`, `${REPORT}.refused`]) {
    const ws = tempDir('countersign-prev-sibling-');
    writeFileSync(join(ws, name), 'the artifact under review\n');
    // Written literally, validate refuses it; through a template, the run does, at the review.
    const literal = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
    literal.nodes.find((n) => n.id === 'review')!.artifacts = [name];
    const refused = await createEngine({ store: createMemoryStore() }).start(literal as unknown as Workflow, { workspace: ws }).then(() => undefined, (e: { code?: string; message?: string }) => e);
    assert.is(refused?.code, 'E_WORKFLOW_INVALID');
    assert.match(refused?.message ?? '', 'E_REPORT_PATH');
    const wf = reviewLoop() as unknown as { variableRegistry?: unknown; nodes: Array<Record<string, unknown>> };
    wf.variableRegistry = { under_review: { type: 'string', default: name, description: 'the artifact' } };
    wf.nodes.find((n) => n.id === 'review')!.artifacts = ['{{under_review}}'];
    const engine = createEngine({ store: createMemoryStore() });
    let s: RunState = await engine.start(wf as unknown as Workflow, { workspace: ws });
    s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
    assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH', name);
    assert.match(s.status === 'failed' ? s.error.message : '', 'a name the engine keeps beside the report');
    assert.is(readFileSync(join(ws, name), 'utf8'), 'the artifact under review\n', `${name} was not moved`);
  }
});

Prev.run();
