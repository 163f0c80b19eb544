/**
 * The report slot holds plain files the engine owns (G8): a report path or
 * a `.prev` that is a symbolic link is refused on entry (E_REPORT_PATH),
 * so skipping the report never drops an artifact from the hash and the
 * engine never writes through a link to a file elsewhere.
 */
import { mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type RunState } from '../../engine/index.js';
import { markdownIssues } from '../../engine/review/report-markdown.js';
import { tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, reviewLoop } from '../fixtures/review/loop.js';

const Links = suite('review: links in the report slot');

Links('G8 G13: a report path that is a symlink to the artifact is E_REPORT_PATH on entry, so a reviewer edit cannot hide behind it', async () => {
  const ws = tempDir('countersign-links-');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(reviewLoop(), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  symlinkSync(join(ws, ARTIFACT), join(ws, REPORT));
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH');
  assert.match(s.status === 'failed' ? s.error.message : '', /symbolic link/);
});

Links('G8: a .prev left as a symlink to a file outside the workspace is refused, and that file is never written', async () => {
  const ws = tempDir('countersign-links-');
  const outside = mkdtempSync(join(tmpdir(), 'countersign-outside-'));
  const victim = join(outside, 'victim.txt');
  writeFileSync(victim, 'precious\n');
  const engine = createEngine({ store: createMemoryStore() });
  let s: RunState = await engine.start(reviewLoop(), { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, REPORT), JSON.stringify({ issues: ['heading A has no body'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  unlinkSync(join(ws, REPORT));
  symlinkSync(victim, join(ws, `${REPORT}.prev`));
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH');
  assert.is(readFileSync(victim, 'utf8'), 'precious\n');
});

const Prose = suite('review: Markdown prose that looks like markup');

Prose('G10 §4.12: emphasis, dotted numbers and an item mentioning <li> are prose or issue text, not odd listings', () => {
  assert.equal(markdownIssues('# Review\n\n*Scope:* the public API only.\n\n- slugify has the wrong signature\n', 'r.md'), ['slugify has the wrong signature']);
  assert.equal(markdownIssues('- slugify: wrong signature\n*see* lib/text.mjs line 3\n', 'r.md'), ['slugify: wrong signature\n*see* lib/text.mjs line 3']);
  assert.equal(markdownIssues('3.x branch was checked.\n\n- one\n', 'r.md'), ['one']);
  assert.equal(markdownIssues('- the <li> of the third entry is never closed\n- the nav <li class="x"> has no link\n', 'r.md').length, 2);
});

Prose('G15 G17: a marker without its space and a line of HTML list markup are still refused', () => {
  for (const text of ['-foo\n', '+foo\n', '*unclosed\n', '<ul><li>a</li></ul>\n', '  <li>a</li>\n']) {
    assert.throws(() => markdownIssues(text, 'r.md'), (e: { code?: string }) => e.code === 'E_REPORT_FORMAT', text);
  }
});

Links.run();
Prose.run();
