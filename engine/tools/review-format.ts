/**
 * The exact comments the ADR-019 tools post (H14, H15, H26, H31). The
 * heading and the verdict line are produced here, by code, never by a model:
 * a hand-written heading or verdict is what silently broke the pipeline
 * (H19, H20, H23). The status reader (status-reader.ts) reads these back with
 * the ADR's unchanged patterns (H37).
 */
import { CountersignError } from '../errors.js';
import { PY_SPACE, pythonIgnoreCase } from './python-regex.js';

export const REVIEW_VERDICTS = Object.freeze(['APPROVE', 'REQUEST_CHANGES', 'NEEDS_DISCUSSION'] as const);
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

export const DOCS_VERDICTS = Object.freeze(['APPROVE', 'FIXED', 'NO_CHANGES'] as const);
export type DocsVerdict = (typeof DOCS_VERDICTS)[number];

export const CODE_REVIEW_HEADING = '## Code Review Summary';
export const DOCS_REVIEW_HEADING = '## Docs Review Summary';

/** One kind of review comment: its heading, its verdicts, the tool that posts it. */
export interface ReviewFormat<V extends string = string> {
  tool: string;
  heading: string;
  verdicts: readonly V[];
}

export const CODE_REVIEW: ReviewFormat<ReviewVerdict> = Object.freeze({
  tool: 'post_review',
  heading: CODE_REVIEW_HEADING,
  verdicts: REVIEW_VERDICTS,
});

export const DOCS_REVIEW: ReviewFormat<DocsVerdict> = Object.freeze({
  tool: 'post_docs_review',
  heading: DOCS_REVIEW_HEADING,
  verdicts: DOCS_VERDICTS,
});

// What a body may not hold (§4.14). The reader finds `## Code Review
// Summary` anywhere and then takes the FIRST `###\s*Verdict:` after it, so a
// verdict inside the body would win over the appended one (§3.3 item 3).
// Hence the checks are as loose as the reader: anywhere, any case, any
// whitespace, not only at the start of a line. "Any case" and "whitespace"
// are Python's (python-regex.ts), as the ADR's reader is Python: it reads
// `### Verdıct:` (dotless ı) as a verdict line, so that is refused too.
// The body is never rewritten before the test, so the line a message quotes
// is the body's own.
const VERDICT_LINE = new RegExp(`###${PY_SPACE}*${pythonIgnoreCase('Verdict:')}`, 'u');
const CODE_HEADING_ANYWHERE = new RegExp(pythonIgnoreCase('## Code Review Summary'), 'u');
// A heading is 1–6 `#` then a space or tab (as in Markdown): `#57 … review
// summary` or `#include` are not headings, and the reader would not misread them.
// Lines end at \n, \r, U+2028 and U+2029, as the m flag's ^ sees them.
const SUMMARY_HEADING_LINE = new RegExp(`^[ \\t]*#{1,6}[ \\t]+[^\\n\\r\\u2028\\u2029]*${pythonIgnoreCase('Review Summary')}`, 'mu');

/**
 * The reason `body` cannot be posted as a review body, or undefined when it
 * can: it holds a `## … Review Summary` heading or a `### Verdict:` line.
 */
export function reviewBodyProblem(body: string): string | undefined {
  const verdict = VERDICT_LINE.exec(body);
  if (verdict) return `the body holds its own verdict line (${quoteAt(body, verdict.index)})`;
  const heading = CODE_HEADING_ANYWHERE.exec(body) ?? SUMMARY_HEADING_LINE.exec(body);
  if (heading) return `the body holds its own review heading (${quoteAt(body, heading.index)})`;
  return undefined;
}

/** Throws E_TOOL_ARGS (pointer /body) when `body` holds a heading or verdict line of its own (§4.14). */
export function checkReviewBody(format: ReviewFormat, body: string): void {
  const problem = reviewBodyProblem(body);
  if (problem === undefined) return;
  throw new CountersignError('E_TOOL_ARGS', `tool "${format.tool}": ${problem}; the tool adds "${format.heading}" and "### Verdict: …" itself, and the status reader would read the wrong verdict`, {
    pointer: '/body',
    fix: `call ${format.tool} again with only the review text in body: no "## … Review Summary" heading and no "### Verdict:" line (put the verdict in the verdict argument); nothing was posted`,
    data: { tool: format.tool, errors: [`/body: ${problem}`] },
  });
}

/**
 * `${heading}\n\n${body}\n\n### Verdict: ${verdict}`, exactly (H26, H31).
 * Checks the verdict and the body first, so a library caller gets the same
 * guarantee as a tool call.
 */
export function formatReviewComment<V extends string>(format: ReviewFormat<V>, body: string, verdict: V): string {
  if (!(format.verdicts as readonly string[]).includes(verdict)) {
    throw new CountersignError('E_TOOL_ARGS', `tool "${format.tool}": verdict ${JSON.stringify(verdict)} is not one of ${format.verdicts.join(', ')} (verdicts are case-sensitive)`, {
      pointer: '/verdict',
      fix: `use exactly one of ${format.verdicts.join(', ')}; nothing was posted`,
      data: { tool: format.tool, errors: [`/verdict: must be one of ${format.verdicts.join(', ')}`] },
    });
  }
  if (typeof body !== 'string') {
    throw new CountersignError('E_TOOL_ARGS', `tool "${format.tool}": body must be a string`, { pointer: '/body', fix: 'pass the review text as a string' });
  }
  checkReviewBody(format, body);
  return `${format.heading}\n\n${body}\n\n### Verdict: ${verdict}`;
}

/** The code review comment post_review posts. */
export function formatCodeReview(body: string, verdict: ReviewVerdict): string {
  return formatReviewComment(CODE_REVIEW, body, verdict);
}

/** The docs review comment post_docs_review posts. */
export function formatDocsReview(body: string, verdict: DocsVerdict): string {
  return formatReviewComment(DOCS_REVIEW, body, verdict);
}

function quoteAt(text: string, index: number): string {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const lineEnd = text.indexOf('\n', index);
  const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).trim();
  const shown = line.length > 60 ? `${line.slice(0, 57)}...` : line;
  const lineNo = text.slice(0, index).split('\n').length;
  return `line ${lineNo}: ${JSON.stringify(shown)}`;
}
