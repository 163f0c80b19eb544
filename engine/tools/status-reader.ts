/**
 * The reader the ADR's `pipeline-status` relies on (H16–H18), ported so its
 * patterns match what they match in Python (H37): the review phase is done
 * when a comment has a `## Code Review Summary` heading followed by a
 * `### Verdict: <word>`; the docs phase is done when any comment mentions
 * `Docs Review`.
 *
 * The behaviours kept on purpose:
 * - A wrong heading (`## Code Review`, `## Review Summary`) is not a review
 *   (H19).
 * - A verdict outside the enum (`APROVE`, `REQUEST CHANGES`, which `(\w+)`
 *   captures as `REQUEST`) is not a verdict, so the phase is NOT_DONE (H20,
 *   §3.3 item 2). The pattern is case-insensitive, so the whitelist is too;
 *   the verdict is reported in its canonical upper case.
 * - `Docs Review` is a substring match: a comment that merely mentions it
 *   counts (the known false positive, H22), and so do legacy comments with
 *   another docs heading (H44). The docs verdict is never read (§3.3 item 4).
 *
 * The patterns are Python's, so they are matched as Python matches them
 * (python-regex.ts): `ı`/`İ` count as `i`, `ſ` as `s` and `K` (U+212A) as `k`
 * under IGNORECASE, `\s` is Python's whitespace and `\w` takes letters and
 * digits of any script. A comment thus reads here exactly as it reads in the
 * ADR's reader: `### Verdıct: APPROVE` is a verdict line, and
 * `### Verdict: APPROVEé` captures `APPROVEé`, which is not a verdict.
 */
import { REVIEW_VERDICTS, type ReviewVerdict } from './review-format.js';
import { PY_SPACE, PY_WORD, pythonIgnoreCase } from './python-regex.js';

/** The ADR's review pattern, as Python compiles it with re.IGNORECASE | re.DOTALL (H17). */
export const ADR_REVIEW_VERDICT_PATTERN = '## Code Review Summary.*?###\\s*Verdict:\\s*(\\w+)';
/** The ADR's docs pattern, as Python compiles it with re.IGNORECASE (H18). */
export const ADR_DOCS_REVIEW_PATTERN = 'Docs Review';

/** ADR_REVIEW_VERDICT_PATTERN with Python's case folding, `\s` and `\w`; dot-all. */
export const REVIEW_VERDICT_RE = new RegExp(
  `${pythonIgnoreCase('## Code Review Summary')}.*?###${PY_SPACE}*${pythonIgnoreCase('Verdict:')}${PY_SPACE}*(${PY_WORD}+)`,
  'su',
);
/** ADR_DOCS_REVIEW_PATTERN with Python's case folding, anywhere (H18). */
export const DOCS_REVIEW_RE = new RegExp(pythonIgnoreCase(ADR_DOCS_REVIEW_PATTERN), 'u');

export type PhaseStatus = 'DONE' | 'NOT_DONE';

export interface PrStatus {
  review: { status: PhaseStatus; verdict?: ReviewVerdict };
  docs: { status: PhaseStatus };
}

/**
 * The review and docs status of a PR from its comment bodies, oldest first
 * (the order `gh pr view --json comments` gives). Each comment is read on its
 * own. The latest comment the review pattern matches decides the review
 * phase, so a re-review supersedes the one before it, and a latest review
 * whose verdict is not in the enum leaves the phase NOT_DONE.
 */
export function readPrStatus(comments: readonly string[]): PrStatus {
  let review: PrStatus['review'] = { status: 'NOT_DONE' };
  let docs: PhaseStatus = 'NOT_DONE';
  for (const body of comments) {
    const match = REVIEW_VERDICT_RE.exec(body);
    if (match) review = reviewPhase(match[1]);
    if (DOCS_REVIEW_RE.test(body)) docs = 'DONE';
  }
  return { review, docs: { status: docs } };
}

/** `review: DONE APPROVE` and `docs: NOT_DONE`, one line each. */
export function formatPrStatus(status: PrStatus): string {
  const review = status.review.verdict ? `${status.review.status} ${status.review.verdict}` : status.review.status;
  return `review: ${review}\ndocs: ${status.docs.status}\n`;
}

// The whitelist is case-insensitive, as the pattern is: toUpperCase, like
// Python's str.upper(), turns `ı` into `I` and `ſ` into `S`.
function reviewPhase(captured: string): PrStatus['review'] {
  const verdict = captured.toUpperCase();
  return (REVIEW_VERDICTS as readonly string[]).includes(verdict)
    ? { status: 'DONE', verdict: verdict as ReviewVerdict }
    : { status: 'NOT_DONE' };
}
