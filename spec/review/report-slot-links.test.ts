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

const Round5 = suite('review: wording, empty reports and changing report paths');

Round5('G15: a verb of sorting with a lower-case tier word is E_SEVERITY_TIER; prose about versions is not', async () => {
  const { wordingFindings } = await import('../../engine/review/wording.js');
  const codes = (c: string) => wordingFindings({ criteria: [c] } as never, '/nodes/1').map((f) => f.code);
  assert.equal(codes('Mark cosmetic findings as minor'), ['E_SEVERITY_TIER']);
  assert.equal(codes('Label a finding blocking when it stops the release'), ['E_SEVERITY_TIER']);
  assert.equal(codes('Mark the minor version in the changelog'), []);
});

Round5('G10 G17: an empty report whose name is neither .json nor .md is E_REPORT_FORMAT (the prompt asked for JSON), not zero issues', async () => {
  const { readReport } = await import('../../engine/review/report.js');
  const dir = tempDir('countersign-empty-');
  writeFileSync(join(dir, 'review.txt'), '');
  assert.throws(() => readReport(join(dir, 'review.txt')), (e: { code?: string }) => e.code === 'E_REPORT_FORMAT');
});

Round5('G8: a templated report path that names a new file next iteration journals no review.report_restored and writes no .prev there', async () => {
  const ws = tempDir('countersign-round-');
  const engine = createEngine({ store: createMemoryStore() });
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>>; variableRegistry?: unknown };
  wf.variableRegistry = { round: { type: 'integer', description: 'the round', default: 1 } };
  wf.nodes[2].report = 'reviews/round-{{round}}.json';
  wf.nodes[4].inputSchema = { type: 'object', properties: { round: { type: 'integer' } }, globalInputs: ['round'] };
  let s: RunState = await engine.start(wf as never, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  writeFileSync(join(ws, 'reviews/round-1.json'), JSON.stringify({ issues: ['x'] }));
  s = await engine.submit(s.runId, { issues_count: 1 }, { seq: s.seq, as: 'reviewer' });
  writeFileSync(join(ws, ARTIFACT), '# A\n\nBody.\n');
  s = await engine.submit(s.runId, { round: 2 }, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'waiting' && s.pending.kind === 'review' && s.pending.contract === 'issues' && s.pending.report, join(ws, 'reviews/round-2.json'));
  const events = (await engine.trace(s.runId)).events;
  assert.equal(events.filter((e) => e.type === 'review.report_restored'), []);
  assert.is(readFileSync(join(ws, 'reviews/round-1.json'), 'utf8'), JSON.stringify({ issues: ['x'] }));
});

Round5.run();

const Round6 = suite('review: report slots through linked folders, code blocks, Setext headings');

Round6('G8 G13: a report reached through a linked folder that is the artifact is E_REPORT_PATH on entry; nothing is moved', async () => {
  const ws = tempDir('countersign-alias-');
  const engine = createEngine({ store: createMemoryStore() });
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes[2].artifacts = ['docs/a.md'];
  wf.nodes[2].report = 'alias/a.md';
  let s: RunState = await engine.start(wf as never, { workspace: ws });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs/a.md'), 'important artifact\n');
  symlinkSync(join(ws, 'docs'), join(ws, 'alias'));
  s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'author' });
  assert.is(s.status === 'failed' && s.error.code, 'E_REPORT_PATH');
  assert.is(readFileSync(join(ws, 'docs/a.md'), 'utf8'), 'important artifact\n');
});

Round6('G10 G17: findings in a fenced or indented code block, with no list items, are E_REPORT_FORMAT; code beside items is fine', () => {
  for (const text of ['# Review\n\n```\n1. The file does not say hello\n```\n', '# Review\n\n    docs/api.md misses parse()\n', '```\nunclosed\n']) {
    assert.throws(() => markdownIssues(text, 'r.md'), (e: { code?: string }) => e.code === 'E_REPORT_FORMAT', text);
  }
  assert.equal(markdownIssues('# R\n\n- one\n\n```\ncode\n```\n', 'r.md'), ['one']);
});

Round6('G10: a report that is only headings, Setext or ATX, is E_REPORT_FORMAT (findings written as headings must not count as zero issues)', () => {
  for (const text of ['Review of docs/a.md\n===================\n', 'Issue one\n===\nIssue two\n---\n', '# Review\n\n## Findings\n']) {
    assert.throws(() => markdownIssues(text, 'r.md'), (e: { code?: string; line?: number }) => e.code === 'E_REPORT_FORMAT' && e.line === 1, text);
  }
});

Round6('G10 G15: HTML comments are not findings (nor glued onto one); an HTML block, whose lines Markdown does not read as items, is E_REPORT_FORMAT at its line', () => {
  assert.equal(markdownIssues('Findings:\n\n1. one\n2. two\n\n<!--\n- hidden\n-->\n', 'r.md'), ['one', 'two']);
  assert.equal(markdownIssues('- one\n<!-- - two -->\n- three\n', 'r.md'), ['one', 'three']);
  assert.equal(markdownIssues('- the `<!-- TODO -->` marker is left in docs/a.html\n', 'r.md'), ['the `<!-- TODO -->` marker is left in docs/a.html'], 'a comment quoted in a finding is its text');
  // A numbered line under a bullet item's text starts a list of its own, whatever its number, as CommonMark renders it (commonmark.js: three lists); a numbered list's own items stay items.
  assert.equal(markdownIssues('- the release note says\n2024. was when it broke\n- second\n', 'r.md'), ['the release note says', 'was when it broke', 'second']);
  assert.equal(markdownIssues('1. a\n2. b\n', 'r.md'), ['a', 'b']);
  // Lone-CR line ends (old Mac files) are line ends, as the reply parser reads them.
  assert.equal(markdownIssues('- first issue\r- second issue\r', 'r.md'), ['first issue', 'second issue']);
  // A bare marker followed by an unindented line: an empty item, then a paragraph (as Markdown renders it), never one issue.
  assert.throws(() => markdownIssues('-\nfoo\n', 'r.md'), (e: { code?: string; line?: number }) => e.code === 'E_REPORT_FORMAT' && e.line === 1);
  assert.equal(markdownIssues('-\n  foo\n', 'r.md'), ['foo'], 'an indented line is the item\'s text');
  for (const [text, line] of [['- one\n<details>\n- two\n</details>\n', 2], ['- a\n<div>\n', 2], ['- a\n<!--\n- b\n', 2], ['- a\n<!-- x --> - b\n', 2], ['- a\n- <!-- b -->\n', 2], ['- a\n-   <!--\n  b -->\n', 2]] as const) {
    assert.throws(() => markdownIssues(text, 'r.md'), (e: { code?: string; line?: number }) => e.code === 'E_REPORT_FORMAT' && e.line === line, text);
  }
});

Round6.run();

const Where = suite('review: where a Markdown report is wrong');

Where('G15: E_REPORT_FORMAT names file:line:col of the offending item, in the message and in col', () => {
  try {
    markdownIssues('- a\n  - sub\n- b\n', 'r.md');
    assert.unreachable('a nested item is refused');
  } catch (e) {
    const err = e as { message: string; line?: number; col?: number };
    assert.match(err.message, /^r\.md:2:3: /);
    assert.equal([err.line, err.col], [2, 3]);
  }
});

Where.run();
