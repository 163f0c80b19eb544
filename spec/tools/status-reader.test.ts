import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCS_VERDICTS, REVIEW_VERDICTS, formatCodeReview, formatDocsReview } from '../../engine/tools/review-format.js';
import { DOCS_REVIEW_RE, REVIEW_VERDICT_RE, formatPrStatus, readPrStatus } from '../../engine/tools/status-reader.js';

const Reader = suite('tools/status-reader: what pipeline-status reads from PR comments');

Reader('H17, H18: the patterns are the ADR\'s, unchanged: case-insensitive, dot-all; the docs one a bare substring', () => {
  assert.is(REVIEW_VERDICT_RE.source, '## Code Review Summary.*?###\\s*Verdict:\\s*(\\w+)');
  assert.ok(REVIEW_VERDICT_RE.flags.includes('i') && REVIEW_VERDICT_RE.flags.includes('s'));
  assert.is(DOCS_REVIEW_RE.source, 'Docs Review');
  assert.is(DOCS_REVIEW_RE.flags, 'i');
});

Reader('H37: for every verdict of post_review, the formatter\'s comment reads back as DONE with that verdict', () => {
  for (const v of REVIEW_VERDICTS) {
    assert.equal(readPrStatus([formatCodeReview('Checked the diff.\n\n- fine', v)]).review, { status: 'DONE', verdict: v });
  }
});

Reader('H37: for every verdict of post_docs_review, the formatter\'s comment makes the docs phase DONE and is not read as a code review', () => {
  for (const v of DOCS_VERDICTS) {
    assert.equal(readPrStatus([formatDocsReview('Docs checked.', v)]), { review: { status: 'NOT_DONE' }, docs: { status: 'DONE' } });
  }
});

Reader('H16: no comments, or unrelated ones, leave both phases NOT_DONE', () => {
  const none = { review: { status: 'NOT_DONE' }, docs: { status: 'NOT_DONE' } };
  assert.equal(readPrStatus([]), none);
  assert.equal(readPrStatus(['LGTM', 'CI is green']), none);
});

Reader('H19: a wrong heading (## Code Review, ## Review Summary) is not a review: NOT_DONE', () => {
  for (const c of ['## Code Review\n\nfine\n\n### Verdict: APPROVE', '## Review Summary\n\nfine\n\n### Verdict: APPROVE']) {
    assert.equal(readPrStatus([c]).review, { status: 'NOT_DONE' }, c);
  }
});

Reader('H20, §3.3 item 2: a verdict typo is NOT_DONE: APROVE is captured but not a verdict, REQUEST CHANGES captures only REQUEST', () => {
  for (const v of ['APROVE', 'REQUEST CHANGES', 'LGTM']) {
    assert.equal(readPrStatus([`## Code Review Summary\n\nx\n\n### Verdict: ${v}`]).review, { status: 'NOT_DONE' }, v);
  }
});

Reader('H17: the pattern is case-insensitive, so a lower-case hand-written verdict still reads, reported in its canonical case', () => {
  assert.equal(readPrStatus(['## code review summary\nok\n###verdict:   approve']).review, { status: 'DONE', verdict: 'APPROVE' });
});

Reader('§3.3 item 3: the first "### Verdict:" after the heading wins, which is why the tools refuse a body holding one', () => {
  assert.equal(readPrStatus(['## Code Review Summary\n\n### Verdict: APPROVE\n\n### Verdict: REQUEST_CHANGES']).review, { status: 'DONE', verdict: 'APPROVE' });
});

Reader('the latest review comment decides: a re-review supersedes the one before it, and a latest typo blocks again', () => {
  const first = formatCodeReview('first pass', 'REQUEST_CHANGES');
  const second = formatCodeReview('second pass', 'APPROVE');
  assert.equal(readPrStatus([first, 'fixed it', second]).review, { status: 'DONE', verdict: 'APPROVE' });
  assert.equal(readPrStatus([second, '## Code Review Summary\n\n### Verdict: APROVE']).review, { status: 'NOT_DONE' });
  assert.equal(readPrStatus([second, 'a later note without a review']).review, { status: 'DONE', verdict: 'APPROVE' });
});

Reader('each comment is read on its own: a heading in one comment and a verdict in the next are not a review', () => {
  assert.equal(readPrStatus(['## Code Review Summary\n\nsee next comment', '### Verdict: APPROVE']).review, { status: 'NOT_DONE' });
});

Reader('H22: the known false positive is kept: any comment that merely mentions "docs review" makes the docs phase DONE', () => {
  assert.equal(readPrStatus(['Waiting for the docs review before merging.']).docs, { status: 'DONE' });
  assert.equal(readPrStatus([formatCodeReview('The Docs Review is still missing.', 'APPROVE')]).docs, { status: 'DONE' });
});

Reader('H44: a legacy docs comment with another heading still counts (the substring stays a tolerant fallback)', () => {
  assert.equal(readPrStatus(['## Docs Review\n\nUpdated the README.']).docs, { status: 'DONE' });
  assert.equal(readPrStatus(['### docs review: done']).docs, { status: 'DONE' });
});

Reader('§3.3 item 4: the docs verdict is never read: docs has a status only', () => {
  const s = readPrStatus([formatDocsReview('x', 'FIXED')]);
  assert.equal(Object.keys(s.docs), ['status']);
});

Reader('formatPrStatus prints one line per phase: "review: DONE APPROVE", "docs: NOT_DONE"', () => {
  assert.is(formatPrStatus(readPrStatus([formatCodeReview('x', 'APPROVE')])), 'review: DONE APPROVE\ndocs: NOT_DONE\n');
  assert.is(formatPrStatus(readPrStatus([formatDocsReview('x', 'FIXED')])), 'review: NOT_DONE\ndocs: DONE\n');
});

Reader.run();
