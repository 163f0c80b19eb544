/**
 * A Markdown report must not read as "no issues" when its findings are
 * written in another form (seed 003 G10, G15, G17, G24; §4.10, §4.12):
 * JSON in a .md file, a table, or bullets other than - * + 1. are
 * E_REPORT_FORMAT. An ordinary Markdown report still counts its items.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readReport } from '../../engine/review/report.js';
import { thrownWithCode } from '../helpers/errors.js';
import { shapeOf } from '../helpers/report-file.js';
import { reportFiles } from '../helpers/report-file.js';

const { report, cleanup } = reportFiles('cs-report-disguised-');

const Disguised = suite('Markdown reports whose findings are not list items');
Disguised.after(() => cleanup());

Disguised('G17/G24/§4.12: a .md report holding JSON is E_REPORT_FORMAT, not a report of zero issues', () => {
  for (const text of ['{"issues": ["heading A has no body", "no title"]}', '\n  {"issues": []}\n', '["heading A has no body"]']) {
    const path = report('review.md', text);
    const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
    assert.is(e.file, path, text);
    // Said as what it is, with the fix for it (not the generic "no list items").
    assert.match(e.message, 'this Markdown report holds JSON', text);
    assert.match(e.message, 'give the report a .json name', text);
  }
  thrownWithCode(() => readReport(report('review.markdown', '{"issues": ["x"]}')), 'E_REPORT_FORMAT');
});

Disguised('G17/G24/§4.12: a .md report that lists its findings in a table is E_REPORT_FORMAT', () => {
  const text = '# Review\n\n| # | Issue |\n|---|-------|\n| 1 | heading A has no body |\n| 2 | no title |\n';
  const path = report('review.md', text);
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
  assert.is(e.file, path);
  assert.ok(e.line !== undefined && e.line >= 3 && e.line <= 5, `line ${e.line} points into the table`);
});

Disguised('G17/G24/§4.12: "• " bullets (or other non-standard markers) are E_REPORT_FORMAT, with the line of the first one', () => {
  const path = report('review.md', '# Review\n\n• heading A has no body\n• no title\n');
  assert.is(thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT').line, 3);
  thrownWithCode(() => readReport(report('review.md', 'Findings:\n\n– first issue\n– second issue\n')), 'E_REPORT_FORMAT');
});

Disguised('G10/G17/§4.12: a normal Markdown report — a heading, an intro paragraph, "- " items and a closing paragraph — counts exactly its items', () => {
  const text = [
    '# Review of notes.md',
    '',
    'I checked the file against every criterion. The findings follow; each one must be fixed.',
    '',
    '- heading "A" has no body',
    '- the file has no title',
    '- the last line has trailing spaces',
    '',
    'Nothing else was found.',
    '',
  ].join('\n');
  assert.equal(shapeOf(readReport(report('review.md', text))), {
    issues: ['heading "A" has no body', 'the file has no title', 'the last line has trailing spaces'],
    format: 'markdown',
  });
  // Prose that mentions a bullet or a pipe inside a sentence is not a disguised list.
  const prose = 'The reviewer checked; a | in prose and a • in a sentence are fine.\n\n- one issue\n';
  assert.equal(readReport(report('review.md', prose)).issues, ['one issue']);
});

// BUG (engine/review/report-markdown.ts:60): any Markdown report whose text starts with "[" is
// refused as "holds JSON", so an honest report that opens with a link is rejected with E_REPORT_FORMAT.
Disguised('G10/G17/§4.12: a normal Markdown report whose intro paragraph starts with a link ("[notes.md](notes.md) …") counts its "- " items; it is not "a Markdown report that holds JSON"', () => {
  const text = '[notes.md](notes.md) was checked against every criterion.\n\n- heading "A" has no body\n- the file has no title\n';
  assert.equal(shapeOf(readReport(report('review.md', text))), { issues: ['heading "A" has no body', 'the file has no title'], format: 'markdown' });
});

Disguised.run();

const odd = reportFiles('cs-report-odd-');
const Odd = suite('review: other ways of listing findings in a Markdown report');
Odd.after(() => odd.cleanup());

Odd('G15 G17 §4.12: a marker without a space, items inside a blockquote and an HTML list are E_REPORT_FORMAT; an item continued by an indented "|" or "–" line is one issue', () => {
  const read = (text: string) => readReport(odd.report('review.md', text));
  for (const text of ['-x no space\n', '> - quoted item\n', '<ul><li>a</li></ul>\n']) {
    thrownWithCode(() => read(text), 'E_REPORT_FORMAT');
  }
  assert.equal(read('- a\n  | a quoted row\n  – a dash line\n- b\n').issues, ['a\n| a quoted row\n– a dash line', 'b']);
});

Odd('G10 G15: a numbered marker without its space where the next finding is due ("2.second", "2)second") is E_REPORT_FORMAT, never a finding left uncounted or glued to the one before; numbers in prose stay prose', () => {
  const read = (text: string) => readReport(odd.report('review.md', text));
  for (const text of ['- first issue\n\n2.second issue\n', '- first issue\n\n2)second issue\n', '1. first issue\n2.second issue\n', '1.first issue\n']) {
    const e = thrownWithCode(() => read(text), 'E_REPORT_FORMAT');
    assert.match(e.message, 'a list marker needs a space after it', JSON.stringify(text));
  }
  assert.equal(read('- a\n- b\n\n3.x branch is fine\n').issues, ['a', 'b']);
  assert.equal(read('1.5 seconds is the budget.\n\n- a\n').issues, ['a']);
  assert.equal(read('- a\n\n2024.was the year it broke\n').issues, ['a']);
});

Odd('G10 G17: a lone tag line (<span>) where no paragraph or item is open starts an HTML block (CommonMark kind 7): the items after it are refused, never counted', () => {
  const read = (text: string) => readReport(odd.report('review.md', text));
  assert.match(thrownWithCode(() => read('<span>\n- first issue\n- second issue\n'), 'E_REPORT_FORMAT').message, 'an HTML block (<span>)');
  assert.equal(read('Intro\n<span>\n\n- a\n').issues, ['a'], 'inside a paragraph a tag is inline HTML');
});

Odd.run();

const prose = reportFiles('cs-report-prose-');
const Prose = suite('review: Markdown findings written as paragraphs');
Prose.after(() => prose.cleanup());

Prose('G10 G17 §4.12: a Markdown report with prose but no list items is E_REPORT_FORMAT at the first paragraph, not zero issues', () => {
  const path = prose.report('review.md', '# Review\n\nThe function parse() has no documentation.\n\nThe README example fails.\n');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
  assert.is(e.line, 3);
  assert.match(e.message, /no list items/);
});

Prose('G10 §4.12: a Markdown report of zero issues is empty; headings and prose beside items stay allowed', () => {
  assert.equal(readReport(prose.report('review.md', '')).issues, []);
  assert.equal(readReport(prose.report('review.md', '# Review\n\n## Findings\n\n- one issue\n')).issues, ['one issue']);
  assert.equal(readReport(prose.report('review.md', 'Checked all files.\n\n- one issue\n')).issues, ['one issue']);
});

Prose.run();
