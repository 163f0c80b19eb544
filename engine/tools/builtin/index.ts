/**
 * The tools countersign ships (ADR-019). Ids use underscores, files hyphens
 * (H34). The posting tools are `write`; `pr_status` is `read`.
 */
import type { Tool } from '../tool.js';
import { postDocsReview } from './post-docs-review.js';
import { postReview } from './post-review.js';
import { prStatus } from './pr-status.js';

export { postReview, postDocsReview, prStatus };
export type { PostCommentArgs, PostedComment } from './post-comment.js';

export const BUILTIN_TOOLS: readonly Tool[] = Object.freeze([postReview, postDocsReview, prStatus]);
