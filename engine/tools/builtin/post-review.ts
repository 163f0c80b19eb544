/** `post_review`: the reviewer's code review comment, `## Code Review Summary` … `### Verdict: …` (H25–H29). */
import { CODE_REVIEW } from '../review-format.js';
import { postCommentTool } from './post-comment.js';

export const postReview = postCommentTool(
  CODE_REVIEW,
  'Posts the code review on a pull request as "## Code Review Summary", the body, and "### Verdict: APPROVE|REQUEST_CHANGES|NEEDS_DISCUSSION". Runs gh in the workspace; fails loudly, never posts elsewhere.',
);
