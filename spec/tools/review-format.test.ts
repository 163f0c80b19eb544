import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CODE_REVIEW, DOCS_REVIEW, DOCS_VERDICTS, REVIEW_VERDICTS,
  formatCodeReview, formatDocsReview, formatReviewComment, reviewBodyProblem,
  type ReviewVerdict,
} from '../../engine/tools/review-format.js';
import { thrownWithCode } from '../helpers/errors.js';

const Format = suite('tools/review-format: the exact comments the ADR-019 tools post');

Format('H14, H26: post_review posts "## Code Review Summary", a blank line, the body, a blank line, "### Verdict: <verdict>"', () => {
  assert.is(formatCodeReview('Looks good.\n\n- tests pass', 'APPROVE'),
    '## Code Review Summary\n\nLooks good.\n\n- tests pass\n\n### Verdict: APPROVE');
  assert.is(formatCodeReview('Two bugs.', 'REQUEST_CHANGES'), '## Code Review Summary\n\nTwo bugs.\n\n### Verdict: REQUEST_CHANGES');
  assert.is(formatCodeReview('', 'NEEDS_DISCUSSION'), '## Code Review Summary\n\n\n\n### Verdict: NEEDS_DISCUSSION');
});

Format('H15, H31: post_docs_review posts "## Docs Review Summary" … "### Verdict: <verdict>"', () => {
  assert.is(formatDocsReview('README updated.', 'FIXED'), '## Docs Review Summary\n\nREADME updated.\n\n### Verdict: FIXED');
  assert.is(formatDocsReview('Nothing to change.', 'NO_CHANGES'), '## Docs Review Summary\n\nNothing to change.\n\n### Verdict: NO_CHANGES');
  assert.is(formatDocsReview('ok', 'APPROVE'), '## Docs Review Summary\n\nok\n\n### Verdict: APPROVE');
});

Format('H28: the output has exactly one heading and one verdict line, for every verdict of both tools', () => {
  for (const v of REVIEW_VERDICTS) {
    const out = formatCodeReview('Body line.', v);
    assert.is(out.match(/^## /gm)?.length, 1);
    assert.is(out.match(/^### Verdict:/gm)?.length, 1);
  }
  for (const v of DOCS_VERDICTS) {
    const out = formatDocsReview('Body line.', v);
    assert.is(out.match(/^## /gm)?.length, 1);
    assert.is(out.match(/^### Verdict:/gm)?.length, 1);
  }
});

Format('H25, H30: the verdict enums are exactly the ADR\'s', () => {
  assert.equal([...REVIEW_VERDICTS], ['APPROVE', 'REQUEST_CHANGES', 'NEEDS_DISCUSSION']);
  assert.equal([...DOCS_VERDICTS], ['APPROVE', 'FIXED', 'NO_CHANGES']);
});

Format('§4.14: a body with its own "### Verdict:" line is E_TOOL_ARGS at /body, with a fix (§3.3 item 3)', () => {
  for (const body of ['All good.\n\n### Verdict: APPROVE', '###Verdict: APPROVE', 'see ### verdict: approve below', '###\nVerdict: FIXED']) {
    const e = thrownWithCode(() => formatCodeReview(body, 'REQUEST_CHANGES'), 'E_TOOL_ARGS');
    assert.is(e.pointer, '/body');
    assert.match(e.message, 'verdict line');
    assert.match(e.fix!, 'no "### Verdict:" line');
    assert.match(e.fix!, 'call post_review again');
  }
});

Format('§4.14: a body with its own "## … Review Summary" heading is E_TOOL_ARGS at /body, naming the line', () => {
  const cases: [string, string][] = [
    ['## Code Review Summary\n\nfine', 'line 1'],
    ['intro\n## Docs Review Summary\nfine', 'line 2'],
    ['# Review Summary', 'line 1'],
    ['text\n  ### code review summary', 'line 2'],
    ['inline ## Code Review Summary in prose', 'line 1'],
  ];
  for (const [body, line] of cases) {
    const e = thrownWithCode(() => formatDocsReview(body, 'FIXED'), 'E_TOOL_ARGS');
    assert.is(e.pointer, '/body');
    assert.match(e.message, 'review heading');
    assert.match(e.message, line);
    assert.match(e.fix!, 'call post_docs_review again');
  }
});

Format('a body that only talks about reviews and verdicts is accepted', () => {
  for (const body of ['The verdict is in the line below.', '## Findings\n\n- the Review Summary section of the docs is stale', 'Docs Review pending', '#### Notes\n- Verdict: see below']) {
    assert.is(reviewBodyProblem(body), undefined, body);
  }
  assert.ok(formatCodeReview('## Findings\n\n- one', 'APPROVE').includes('## Findings'));
});

Format('§3.3 item 6: the formatter refuses a verdict outside the enum, case-sensitively, also for library callers', () => {
  for (const v of ['APROVE', 'REQUEST CHANGES', 'approve', 'FIXED']) {
    const e = thrownWithCode(() => formatCodeReview('x', v as ReviewVerdict), 'E_TOOL_ARGS');
    assert.is(e.pointer, '/verdict');
  }
  thrownWithCode(() => formatReviewComment(DOCS_REVIEW, 'x', 'NEEDS_DISCUSSION' as 'FIXED'), 'E_TOOL_ARGS');
  assert.is(CODE_REVIEW.tool, 'post_review');
  assert.is(DOCS_REVIEW.tool, 'post_docs_review');
});

Format.run();
