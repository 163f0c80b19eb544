/**
 * `pr_status`: reads a PR's comments back through gh and reports the review
 * and docs phases as `pipeline-status` would (H16–H22), so a workflow can
 * check its own posting. A `read` tool: it changes nothing.
 */
import { CountersignError } from '../../errors.js';
import { deepFreeze } from '../../format/freeze.js';
import { runGh } from '../gh.js';
import { readPrStatus, type PrStatus } from '../status-reader.js';
import { defineBuiltinTool } from '../tool.js';
import { PR_NUMBER_SCHEMA } from './post-comment.js';

export const prStatus = defineBuiltinTool<{ pr_number: number }, PrStatus>({
  name: 'pr_status',
  class: 'read',
  description: 'Reads a pull request\'s comments with gh in the workspace and reports {review: {status: DONE|NOT_DONE, verdict?}, docs: {status}}.',
  inputSchema: deepFreeze({
    type: 'object',
    properties: { pr_number: PR_NUMBER_SCHEMA },
    required: ['pr_number'],
    additionalProperties: false,
  }),
  async run(args, ctx) {
    const shown = `gh pr view ${args.pr_number} --json comments`;
    const out = await runGh(['pr', 'view', String(args.pr_number), '--json', 'comments'], {
      tool: 'pr_status',
      workspace: ctx.workspace,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    return readPrStatus(commentBodies(out.stdout, shown));
  },
});

/** The bodies out of gh's `{"comments": [{"body": …}, …]}`, oldest first as gh lists them. */
function commentBodies(stdout: string, shown: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw unreadable(shown, `it printed something that is not JSON: ${JSON.stringify(stdout.slice(0, 80))}`);
  }
  const comments = (parsed as { comments?: unknown } | null)?.comments;
  if (!Array.isArray(comments)) throw unreadable(shown, 'its output has no "comments" array');
  return comments.map((c, i) => {
    const body = (c as { body?: unknown } | null)?.body;
    if (typeof body !== 'string') throw unreadable(shown, `comment ${i} has no string "body"`);
    return body;
  });
}

function unreadable(shown: string, what: string): CountersignError {
  return new CountersignError('E_TOOL_FAILED', `tool "pr_status" failed: ${shown}: ${what}`, {
    fix: 'check that gh is the GitHub CLI (gh --version) and supports --json comments; nothing was changed',
  });
}
