/**
 * `<report>.prev` holds the last accepted review's findings (G8), even when
 * the fix step ticks items off, rewrites or deletes the report file: the
 * engine rewrites `.prev` from what it accepted, sets an edited file aside
 * as `.refused` and journals `review.report_restored` — without the issue
 * text ever entering the journal (G14).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
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

Prev('G8: a fix step that deletes the report leaves .prev with the reviewer\'s findings, journaled as "deleted"', async () => {
  const ctx = await atFix();
  rmSync(join(ctx.ws, REPORT));
  const events = await fixAndReenter(ctx);
  assert.equal(JSON.parse(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8')), { issues: FINDINGS });
  assert.not.ok(existsSync(join(ctx.ws, `${REPORT}.refused`)));
  assert.equal(events.filter((e) => e.type === 'review.report_restored').map((e) => e.change), ['deleted']);
});

Prev('G8: an untouched report moves to .prev byte for byte, with no review.report_restored event', async () => {
  const ctx = await atFix();
  const before = readFileSync(join(ctx.ws, REPORT), 'utf8');
  const events = await fixAndReenter(ctx);
  assert.is(readFileSync(join(ctx.ws, `${REPORT}.prev`), 'utf8'), before);
  assert.equal(events.filter((e) => e.type === 'review.report_restored'), []);
});

Prev('a file already at the report path that this run never wrote (the user\'s, an earlier run\'s) is kept as <report>.before-<runId>, and an earlier .prev as <report>.prev.before-<runId>, so later reviews cannot overwrite them', async () => {
  const ws = tempDir('countersign-prev-user-');
  writeFileSync(join(ws, REPORT), 'my precious notes\n');
  writeFileSync(join(ws, `${REPORT}.prev`), 'an older generation\n');
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
});

Prev.run();
