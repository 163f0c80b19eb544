/**
 * A Markdown report holds as many issues as CommonMark shows top-level list
 * items (seed 003 G10, G17; §4.12): the count a reviewer sees in any viewer
 * is the count the loop routes on. The reference implementation
 * (commonmark.js) is the oracle; a report the reader accepts must agree
 * with it, and a report the engine writes back (reportText) must read back
 * as the same issues and the same count.
 */
import { Parser } from 'commonmark';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { markdownIssues } from '../../engine/review/report-markdown.js';
import { reportText } from '../../engine/review/report.js';

const reference = new Parser();

/** Top-level list items as commonmark.js reads them. */
function referenceCount(text: string): number {
  let n = 0;
  for (let block = reference.parse(text).firstChild; block; block = block.next) {
    if (block.type !== 'list') continue;
    for (let item = block.firstChild; item; item = item.next) n++;
  }
  return n;
}

/** Lines reviewers write, odd ones included: markers of every kind and indentation, fences, HTML, lazy lines. */
const PIECES = [
  '- issue a', '* issue b', '+ issue c', '1. one', '2. two', '1) paren', '3) three', '10. ten',
  '  continuation', '   more', '    code?', 'lazy line', '', '', '',
  '# Heading', '## Findings', 'Intro text', 'Findings\n========', 'para\n---',
  '```', '~~~', '    ```', '  ```', '<!-- c -->', '---', '***', '___',
  '- `code`', '-\ttab item', ' - one space', '  - two', '   - three', '\t- tab',
  '2024. was a year', '- a\n  b', '> quote', '<div>', '</div>', '<br>', '- <!-- x -->',
  '1.', '-', '- ', '[link](x)', '| a |', '\\- escaped', '*emph* text', '**bold**', 'x <!-- y -->',
  '<!--', '-->', '  <!-- z -->', '-   <!--', '    - deep', '     - five', '- ```', '  ~~~', '>', '> - q', '1. ```',
];

/** A fixed pseudo-random sequence (mulberry32): the same reports on every run. */
function seeded(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function* reports(count: number): Generator<string> {
  const pick = seeded(19);
  for (let k = 0; k < count; k++) {
    const lines: string[] = [];
    for (let j = 0, len = 1 + pick(7); j < len; j++) lines.push(PIECES[pick(PIECES.length)]);
    yield `${lines.join('\n')}\n`;
  }
}

const Oracle = suite('review: Markdown reports counted as CommonMark counts them');

Oracle('G10 G17: numbered lines right under a bullet item start items of their own, whatever their number (commonmark.js: two lists)', () => {
  assert.equal(markdownIssues('- finding A\n2. finding B\n', 'r.md'), ['finding A', 'finding B']);
  assert.equal(markdownIssues('- The handler leaks the socket.\n2) The retry count is off by one.\n', 'r.md').length, 2);
});

Oracle('G10 G17: a numbered line indented under an item\'s text continues that text (no number but 1 interrupts a paragraph), and is no nested item', () => {
  assert.equal(markdownIssues('- fourth\n  2024. was not the release year\n- fifth\n', 'r.md'), ['fourth\n2024. was not the release year', 'fifth']);
});

Oracle('G8 G17: reportText writes an issue with a numbered further line so that CommonMark reads it as one item, not as a list of its own', () => {
  const issues = ['fourth\n2024. was not the release year', 'fifth'];
  const written = reportText(issues, 'markdown');
  assert.is(referenceCount(written), 2, written);
  assert.equal(markdownIssues(written, 'r.md'), issues);
});

Oracle('G10 G17: a paragraph indented 1–3 spaces is a paragraph, not code: a number other than 1 under it is more of its text, so a report of that alone has no items', () => {
  for (const text of ['  Review of api.md:\n2. the example is wrong\n', '   Intro.\n10. ten\n']) {
    assert.throws(() => markdownIssues(text, 'r.md'), (e: { code?: string; message: string }) => e.code === 'E_REPORT_FORMAT' && e.message.includes('no list items'), text);
  }
});

Oracle('G10 G17: every accepted report holds exactly the top-level items commonmark.js reads, and reportText writes them back as the same issues', () => {
  let accepted = 0;
  for (const text of reports(4000)) {
    let issues: string[];
    try {
      issues = markdownIssues(text, 'r.md');
    } catch (e) {
      assert.is((e as { code?: string }).code, 'E_REPORT_FORMAT', JSON.stringify(text));
      continue;
    }
    accepted++;
    assert.is(issues.length, referenceCount(text), JSON.stringify(text));
    const written = reportText(issues, 'markdown');
    assert.equal(markdownIssues(written, 'r.md'), issues, JSON.stringify(written));
    assert.is(referenceCount(written), issues.length, JSON.stringify(written));
  }
  // The corpus exercises acceptance, not only refusals.
  assert.ok(accepted > 800, `${accepted} accepted`);
});

Oracle.run();
