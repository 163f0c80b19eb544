/**
 * examples/pr-review (issue 5, ADR-019): workflows/pr-review.json run
 * offline with scripted reviewers and the stand-in gh. The comments are
 * posted in their exact format from the workspace's repository, never with
 * --repo; from a directory that is not a repository the post fails loudly
 * and the run fails with E_TOOL_FAILED (exit 1), with nothing posted elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/cli.js';

function example(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'examples/pr-review/run.mjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const PrReview = suite('examples/pr-review');

PrReview('H1 H3 H5 H37: the review and the docs review are posted in their exact formats from the workspace\'s repository (no --repo), and pr_status reads them back', () => {
  const r = example();
  assert.is(r.code, 0, r.err);
  const posts = r.out.split('\n').filter((l) => l.startsWith('$ gh pr comment'));
  assert.is(posts.length, 2);
  for (const p of posts) {
    assert.match(p, /repo acme\/widgets, exit 0/);
    assert.not.match(p, /--repo/);
  }
  assert.match(r.out, /│ ## Code Review Summary\n {2}│ \n[\s\S]*│ ### Verdict: REQUEST_CHANGES/);
  assert.match(r.out, /│ ## Docs Review Summary[\s\S]*│ ### Verdict: FIXED/);
  assert.match(r.out, /run completed at "done"/);
  assert.match(r.out, /pr_status: \{"review":\{"status":"DONE","verdict":"REQUEST_CHANGES"\},"docs":\{"status":"DONE"\}\}/);
});

PrReview('H11 H12 §4.13: outside a git repository the post fails with E_TOOL_FAILED and gh\'s own message; the run fails (exit 1) after one attempt and nothing else is posted', () => {
  const r = example('--not-a-repo');
  assert.is(r.code, 1, 'a failed post is a failed run, never a finished review');
  assert.is(r.out.split('\n').filter((l) => l.startsWith('$ gh')).length, 1, 'one attempt, no retry, no other path');
  assert.match(r.out, /run failed at "post-review": E_TOOL_FAILED: .*not a git repository/);
  assert.match(r.out, /tool\.failed post_review: E_TOOL_FAILED: .*not a git repository/);
});

PrReview.run();
