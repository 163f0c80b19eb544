/**
 * The reader the ADR's `pipeline-status` relies on (H16–H18), ported with its
 * patterns unchanged (H37): the review phase is done when a comment has a
 * `## Code Review Summary` heading followed by a `### Verdict: <word>`; the
 * docs phase is done when any comment mentions `Docs Review`.
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
 */
import { REVIEW_VERDICTS, type ReviewVerdict } from './review-format.js';

/** `## Code Review Summary.*?###\s*Verdict:\s*(\w+)`, case-insensitive and dot-all (H17). */
export const REVIEW_VERDICT_RE = /## Code Review Summary.*?###\s*Verdict:\s*(\w+)/is;
/** `Docs Review`, case-insensitive, anywhere (H18). */
export const DOCS_REVIEW_RE = /Docs Review/i;

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

function reviewPhase(captured: string): PrStatus['review'] {
  const verdict = captured.toUpperCase();
  return (REVIEW_VERDICTS as readonly string[]).includes(verdict)
    ? { status: 'DONE', verdict: verdict as ReviewVerdict }
    : { status: 'NOT_DONE' };
}
