import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCS_VERDICTS, REVIEW_VERDICTS, formatCodeReview, formatDocsReview } from '../../engine/tools/review-format.js';
import {
  ADR_DOCS_REVIEW_PATTERN, ADR_REVIEW_VERDICT_PATTERN, DOCS_REVIEW_RE, REVIEW_VERDICT_RE, formatPrStatus, readPrStatus,
} from '../../engine/tools/status-reader.js';

const Reader = suite('tools/status-reader: what pipeline-status reads from PR comments');

Reader('H17, H18: the patterns are the ADR\'s, unchanged (Python: IGNORECASE | DOTALL; the docs one a bare substring), matched as Python matches them', () => {
  assert.is(ADR_REVIEW_VERDICT_PATTERN, '## Code Review Summary.*?###\\s*Verdict:\\s*(\\w+)');
  assert.is(ADR_DOCS_REVIEW_PATTERN, 'Docs Review');
  assert.ok(REVIEW_VERDICT_RE.flags.includes('s') && REVIEW_VERDICT_RE.flags.includes('u'));
  for (const [ok, no] of [['## code REVIEW summary\n\n###   verdict:\tx', '## Code Review\n### Verdict: x'], ['docs review', 'docs-review']]) {
    const re = ok.startsWith('##') ? REVIEW_VERDICT_RE : DOCS_REVIEW_RE;
    assert.ok(re.test(ok), ok);
    assert.not.ok(re.test(no), no);
  }
});

// Each row: a comment, then what Python 3.11 gives for it, pinned by hand from
//   R = re.compile(r"## Code Review Summary.*?###\s*Verdict:\s*(\w+)", re.I | re.S); m = R.search(c); m and m.group(1)
//   bool(re.compile(r"Docs Review", re.I).search(c))
// Python's IGNORECASE matches ı and İ with i and ſ with s, its \s takes U+001C–U+001F and U+0085 but
// not U+FEFF, and its \w takes letters and digits of any script (but not combining marks).
const PYTHON_READS: [comment: string, capture: string | null, docs: boolean][] = [
  ['## Code Review Summary\n\nFine.\n### Verd\u0131ct: APPROVE\n\n### Verdict: REQUEST_CHANGES', 'APPROVE', false],
  ['## Code Rev\u0130ew Summary\n### Verdict: APPROVE', 'APPROVE', false],
  ['## CODE REVIEW \u017fUMMARY\n###verdict:needs_d\u0131scuss\u0131on', 'needs_d\u0131scuss\u0131on', false],
  ['## Code Review Summary\n###\x1cVerdict:\x85REQUE\u017fT_CHANGES', 'REQUE\u017fT_CHANGES', false],
  ['## Code Review Summary\n###\ufeffVerdict: APPROVE', null, false],
  ['## Code Review Summary\n### Verdict: APPROVE\u00e9', 'APPROVE\u00e9', false],
  ['## Code Review Summary\n### Verdict: APPROVE\u0301', 'APPROVE', false],
  ['## Code Review Summary\n### Verdict: APPROVE\u2014fine', 'APPROVE', false],
  ['## Code Review Summary\n### Verdict: \u0661APPROVE', '\u0661APPROVE', false],
  ['## Code Review Summary\n\n### Verdict: approve', 'approve', false],
  ['Waiting for the Doc\u017f Review.', null, true],
  ['DOCS REV\u0130EW: done', null, true],
  ['Docs\u00a0Review', null, false],
];

Reader('H17, H18, §4.14: the reader matches what Python\'s re matches: ı/İ as i, ſ as s, Python\'s \\s and \\w (pinned against Python 3.11)', () => {
  for (const [comment, capture, docs] of PYTHON_READS) {
    assert.is(REVIEW_VERDICT_RE.exec(comment)?.[1] ?? null, capture, JSON.stringify(comment));
    assert.is(DOCS_REVIEW_RE.test(comment), docs, JSON.stringify(comment));
  }
});

Reader('H17, H20, §4.14: a verdict read the Python way is whitelisted case-insensitively (str.upper()), so ſ and ı spellings count and APPROVEé does not', () => {
  const status = (c: string) => readPrStatus([c]).review;
  assert.equal(status(PYTHON_READS[0][0]), { status: 'DONE', verdict: 'APPROVE' }, 'the body\'s dotless-ı verdict wins, as in Python: why post_review refuses such a body');
  assert.equal(status(PYTHON_READS[2][0]), { status: 'DONE', verdict: 'NEEDS_DISCUSSION' });
  assert.equal(status(PYTHON_READS[3][0]), { status: 'DONE', verdict: 'REQUEST_CHANGES' });
  assert.equal(status(PYTHON_READS[4][0]), { status: 'NOT_DONE' });
  assert.equal(status(PYTHON_READS[5][0]), { status: 'NOT_DONE' });
  assert.equal(status(PYTHON_READS[6][0]), { status: 'DONE', verdict: 'APPROVE' });
  assert.equal(readPrStatus([PYTHON_READS[10][0]]).docs, { status: 'DONE' });
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
