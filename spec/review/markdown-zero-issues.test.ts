/**
 * A `.md` reviewer with nothing to report is told one consistent thing
 * (issue 3 guarantee 2; seed 003 G8, G10): write the file, empty and
 * nothing else. The prompt no longer says "leave it empty" (the engine has
 * moved the old report away, so nothing is left), and E_REPORT_MISSING's
 * fix gives Markdown advice, never the JSON form a .md report refuses.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reviewPrompt } from '../../engine/review/prompt.js';
import { readReport } from '../../engine/review/report.js';
import { thrownWithCode } from '../helpers/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'cs-md-zero-'));
const test = suite('review: zero issues in a Markdown report');

test('G10: the prompt for a .md report says to write the file even when there are no issues, never to leave it', () => {
  const prompt = reviewPrompt({ reviewer: 'r', artifacts: ['/w/a.md'], criteria: ['c'], context: [], report: join(dir, 'review.md') });
  assert.match(prompt, 'when there are none, still write the file, empty');
  assert.not.match(prompt, 'leave it empty');
});

test('G8, G10: E_REPORT_MISSING for a .md report advises an empty Markdown file; following the advice is accepted as zero issues', () => {
  const path = join(dir, 'review.md');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_MISSING');
  assert.match(e.fix ?? '', 'or an empty file when there are none');
  assert.not.match(e.fix ?? '', '{"issues"');
  writeFileSync(path, '');
  assert.is(readReport(path).issues.length, 0);
  const json = thrownWithCode(() => readReport(join(dir, 'review.json')), 'E_REPORT_MISSING');
  assert.match(json.fix ?? '', '{"issues": []} when there are none');
});

test.run();
