/**
 * The shape both ADR-019 posting tools share (H24–H31): schema-guarded
 * arguments (the verdict is a case-sensitive enum), a comment produced by
 * the formatter, and `gh pr comment <N> --body-file -` in the workspace with
 * the comment on stdin. Everything is checked before gh starts (H41, §4.13),
 * the body rule too (§4.14): it is the tool's `refineArgs`, so it runs with
 * the schema wherever arguments are checked: in `validate` for a literal
 * body, before a tool node's `tool.started`, before the review gate sees a
 * chained call.
 */
import type { JsonObject } from '../../format/model.js';
import { deepFreeze } from '../../format/freeze.js';
import { runGh } from '../gh.js';
import { formatReviewComment, reviewBodyProblem, type ReviewFormat } from '../review-format.js';
import { defineBuiltinTool, type ArgProblem, type Tool } from '../tool.js';

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
  // GitHub numbers issues and PRs with 32-bit integers; a larger number would be rounded or printed as 1e+21.
  maximum: 2147483647,
  description: 'The pull request number in the repository of the run\'s workspace (the repository gh resolves from its remotes)',
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
    refineArgs: (args) => bodyProblems(format, args),
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

/**
 * The body may not hold its own `## … Review Summary` heading or a
 * `### Verdict:` line (§4.14): the status reader would take the wrong
 * verdict. Arguments may be of any shape here (the schema may already have
 * refused them), so only a string body is looked at.
 */
function bodyProblems(format: ReviewFormat, args: JsonObject): ArgProblem[] {
  const body = args.body;
  if (typeof body !== 'string') return [];
  const problem = reviewBodyProblem(body);
  if (problem === undefined) return [];
  return [{
    pointer: '/body',
    message: `${problem}; put only the review text in body (no "## … Review Summary" heading, no "### Verdict:" line): ${format.tool} adds "${format.heading}" and "### Verdict: <verdict>" itself, and a second heading or verdict line would make the status reader read the wrong verdict`,
  }];
}
