/**
 * The shape both ADR-019 posting tools share (H24–H31): schema-guarded
 * arguments (the verdict is a case-sensitive enum), a comment produced by
 * the formatter, and `gh pr comment <N> --body-file -` in the workspace with
 * the comment on stdin. Everything is checked before gh starts (H41, §4.13).
 */
import type { JsonObject } from '../../format/model.js';
import { deepFreeze } from '../../format/freeze.js';
import { runGh } from '../gh.js';
import { formatReviewComment, type ReviewFormat } from '../review-format.js';
import { defineBuiltinTool, type Tool } from '../tool.js';

export type PostCommentArgs<V extends string = string> = { pr_number: number; verdict: V; body: string };

/** What a posting tool returns (and a `tool` node stores as its result). */
export type PostedComment = {
  pr_number: number;
  verdict: string;
  /** What gh printed: the new comment's URL. */
  url: string;
  /** The exact text posted. */
  comment: string;
};

/** `{pr_number: integer ≥ 1}`, shared with pr_status. */
export const PR_NUMBER_SCHEMA: JsonObject = deepFreeze({
  type: 'integer',
  minimum: 1,
  description: 'The pull request number in the repository of the run\'s workspace (its origin remote)',
});

export function postCommentTool<V extends string>(format: ReviewFormat<V>, description: string): Tool<PostCommentArgs<V>, PostedComment> {
  return defineBuiltinTool<PostCommentArgs<V>, PostedComment>({
    name: format.tool,
    class: 'write',
    description,
    inputSchema: deepFreeze({
      type: 'object',
      properties: {
        pr_number: PR_NUMBER_SCHEMA,
        verdict: { type: 'string', enum: [...format.verdicts], description: `Exactly one of ${format.verdicts.join(', ')} (case-sensitive)` },
        body: { type: 'string', description: `The review text only: the tool adds "${format.heading}" above it and "### Verdict: <verdict>" below it` },
      },
      required: ['pr_number', 'verdict', 'body'],
      additionalProperties: false,
    }),
    async run(args, ctx) {
      const comment = formatReviewComment(format, args.body, args.verdict);
      const out = await runGh(['pr', 'comment', String(args.pr_number), '--body-file', '-'], {
        tool: format.tool,
        workspace: ctx.workspace,
        stdin: comment,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return { pr_number: args.pr_number, verdict: args.verdict, url: out.stdout.trim(), comment };
    },
  });
}
