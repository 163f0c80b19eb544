/** `post_docs_review`: the docs reviewer's comment, `## Docs Review Summary` … `### Verdict: …` (H30, H31). */
import { DOCS_REVIEW } from '../review-format.js';
import { postCommentTool } from './post-comment.js';

export const postDocsReview = postCommentTool(
  DOCS_REVIEW,
  'Posts the docs review on a pull request as "## Docs Review Summary", the body, and "### Verdict: APPROVE|FIXED|NO_CHANGES". Runs gh in the workspace; fails loudly, never posts elsewhere.',
);
