import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { delimiter, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { BUILTIN_TOOLS, postDocsReview, postReview, prStatus } from '../../engine/tools/builtin/index.js';
import { ghEnvironment, runGh } from '../../engine/tools/gh.js';
import { isGated } from '../../engine/tools/tool.js';
import { rejection } from '../helpers/errors.js';
import { fakeGhDir, gitRepo, plainDir, tempDir, useStandIn } from './standin.js';

const Tools = suite('tools/builtin: post_review, post_docs_review and pr_status through gh');
let standIn: ReturnType<typeof useStandIn>;
Tools.before.each(() => {
  standIn = useStandIn();
});
Tools.after.each(() => standIn.restore());

const review = { pr_number: 29, verdict: 'APPROVE', body: 'Checked the diff.' };

Tools('H34, H35: the built-ins are post_review and post_docs_review (write, so gated) and pr_status (read)', () => {
  assert.equal(BUILTIN_TOOLS.map((t) => [t.name, t.class]), [['post_review', 'write'], ['post_docs_review', 'write'], ['pr_status', 'read']]);
  assert.equal(BUILTIN_TOOLS.map(isGated), [true, true, false]);
  assert.ok(Object.isFrozen(BUILTIN_TOOLS));
});

Tools('§4.13: every built-in schema compiles (they compile on first use, so this is where a broken one would show) and takes a valid call', () => {
  const valid: Record<string, unknown> = { post_review: review, post_docs_review: { ...review, verdict: 'FIXED' }, pr_status: { pr_number: 29 } };
  for (const tool of BUILTIN_TOOLS) assert.equal(tool.checkArgs(structuredClone(valid[tool.name])), valid[tool.name], tool.name);
});

Tools('H20, H29, §4.13: verdict typos (APROVE, REQUEST CHANGES, lower case) are E_TOOL_ARGS and gh is never started', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  for (const verdict of ['APROVE', 'REQUEST CHANGES', 'approve', 'request_changes', 'Approve']) {
    const e = await rejection(postReview.run({ ...review, verdict }, { workspace: ws }));
    assert.is(e.code, 'E_TOOL_ARGS', verdict);
    assert.is(e.pointer, '/verdict');
    assert.match(e.message, '"APPROVE", "REQUEST_CHANGES", "NEEDS_DISCUSSION"');
  }
  for (const verdict of ['FIXD', 'NO CHANGES', 'fixed', 'REQUEST_CHANGES']) {
    assert.is((await rejection(postDocsReview.run({ ...review, verdict }, { workspace: ws }))).code, 'E_TOOL_ARGS', verdict);
  }
  assert.equal(standIn.calls(), []);
});

Tools('H41: other bad arguments (pr_number 0 or "29", an extra key, a missing body) are refused before gh starts', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  const bad: unknown[] = [
    { ...review, pr_number: 0 },
    { ...review, pr_number: '29' },
    { ...review, pr_number: 2.5 },
    { ...review, repo: 'slaid098/opencode-config' },
    { pr_number: 29, verdict: 'APPROVE' },
  ];
  for (const args of bad) assert.is((await rejection(postReview.run(args, { workspace: ws }))).code, 'E_TOOL_ARGS', JSON.stringify(args));
  assert.is((await rejection(prStatus.run({ pr_number: -1 }, { workspace: ws }))).code, 'E_TOOL_ARGS');
  assert.equal(standIn.calls(), []);
});

Tools('§4.14: a body with its own heading or verdict line is E_TOOL_ARGS at /body and gh is never started', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  const a = await rejection(postReview.run({ ...review, body: 'fine\n\n### Verdict: APPROVE' }, { workspace: ws }));
  const b = await rejection(postDocsReview.run({ ...review, body: '## Docs Review Summary\nfine' }, { workspace: ws }));
  for (const e of [a, b]) {
    assert.is(e.code, 'E_TOOL_ARGS');
    assert.is(e.pointer, '/body');
    assert.ok(e.fix);
  }
  assert.equal(standIn.calls(), []);
});

Tools('H3, H4, H26: post_review runs "gh pr comment N --body-file -" with no --repo, in the workspace, the exact comment on stdin', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  const result = await postReview.run(review, { workspace: ws });
  const [call] = standIn.calls();
  assert.equal(call.argv, ['pr', 'comment', '29', '--body-file', '-']);
  assert.not.ok(call.argv.some((a) => a === '--repo' || a === '-R' || a.startsWith('--repo=')));
  assert.is(call.cwd, ws);
  assert.is(call.stdin, '## Code Review Summary\n\nChecked the diff.\n\n### Verdict: APPROVE');
  assert.is(call.repo, 'acme/widgets');
  assert.equal(result, { pr_number: 29, verdict: 'APPROVE', url: 'https://github.com/acme/widgets/pull/29#issuecomment-1', comment: call.stdin });
});

Tools('H31: post_docs_review posts its own heading the same way', async () => {
  const ws = gitRepo('git@github.com:acme/widgets.git');
  await postDocsReview.run({ pr_number: 3, verdict: 'NO_CHANGES', body: 'Docs are current.' }, { workspace: ws });
  const [call] = standIn.calls();
  assert.equal(call.argv, ['pr', 'comment', '3', '--body-file', '-']);
  assert.is(call.stdin, '## Docs Review Summary\n\nDocs are current.\n\n### Verdict: NO_CHANGES');
});

Tools('H5: the misroute regression: two workspaces with different origins post from two directories to two repositories', async () => {
  const dictation = gitRepo('https://github.com/slaid098/opencode-voice-dictation.git');
  const config = gitRepo('https://github.com/slaid098/opencode-config.git');
  await postReview.run({ ...review, body: 'for dictation' }, { workspace: dictation });
  await postReview.run({ ...review, body: 'for config' }, { workspace: config });
  const calls = standIn.calls();
  assert.equal(calls.map((c) => [c.cwd, c.repo]), [[dictation, 'slaid098/opencode-voice-dictation'], [config, 'slaid098/opencode-config']]);
  assert.match(calls[0].stdin!, 'for dictation');
  assert.match(calls[1].stdin!, 'for config');
});

Tools('H5: a GH_REPO in the environment cannot reroute a post: gh runs without it and uses the workspace', async () => {
  const ws = gitRepo('https://github.com/acme/voice.git');
  process.env.GH_REPO = 'slaid098/opencode-config';
  await postReview.run(review, { workspace: ws });
  assert.is(standIn.calls()[0].repo, 'acme/voice');
});

/** Sets process.env for one call and puts it back: the repositories must be made before, as `git init` obeys GIT_DIR too. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

Tools('H3–H6: a GIT_DIR naming another repository (as git sets it for a hook) cannot reroute a post: gh runs without it and uses the workspace', async () => {
  const ws = gitRepo('https://github.com/acme/voice.git');
  const other = gitRepo('https://github.com/slaid098/opencode-config.git');
  const result = await withEnv({ GIT_DIR: join(other, '.git'), GIT_WORK_TREE: other }, () => postReview.run(review, { workspace: ws }));
  const [call] = standIn.calls();
  assert.equal([call.cwd, call.repo], [ws, 'acme/voice']);
  assert.is((result as { url: string }).url, 'https://github.com/acme/voice/pull/29#issuecomment-1');
});

Tools('H3–H6: GIT_COMMON_DIR, and remote rewrites injected by git -c (GIT_CONFIG_PARAMETERS) or GIT_CONFIG_COUNT, cannot reroute a post either', async () => {
  const ws = gitRepo('https://github.com/acme/voice.git');
  const other = gitRepo('https://github.com/slaid098/opencode-config.git');
  const rewrite = 'url.https://github.com/slaid098/opencode-config.git.insteadOf';
  await withEnv({ GIT_COMMON_DIR: join(other, '.git') }, () => postReview.run(review, { workspace: ws }));
  await withEnv({ GIT_CONFIG_PARAMETERS: `'${rewrite}'='https://github.com/acme/voice.git'` }, () => postReview.run(review, { workspace: ws }));
  await withEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: rewrite, GIT_CONFIG_VALUE_0: 'https://github.com/acme/voice.git' }, () => postReview.run(review, { workspace: ws }));
  assert.equal(standIn.calls().map((c) => [c.cwd, c.repo]), [[ws, 'acme/voice'], [ws, 'acme/voice'], [ws, 'acme/voice']]);
});

Tools('gh\'s environment loses only what names a repository: the user\'s own git and gh settings are kept', () => {
  const env = ghEnvironment({
    HOME: '/home/u', PATH: '/bin', GH_TOKEN: 't', GH_HOST: 'github.com', GIT_CONFIG_GLOBAL: '/home/u/.gitconfig', GIT_CONFIG_SYSTEM: '/etc/gitconfig',
    GIT_CEILING_DIRECTORIES: '/home', GIT_NAMESPACE: 'ns', GIT_AUTHOR_NAME: 'U',
    GH_REPO: 'a/b', GIT_DIR: '/x/.git', GIT_WORK_TREE: '/x', GIT_COMMON_DIR: '/x/.git', GIT_INDEX_FILE: '/x/.git/index',
    GIT_OBJECT_DIRECTORY: '/x/.git/objects', GIT_ALTERNATE_OBJECT_DIRECTORIES: '/y', GIT_CONFIG: '/x/.git/config',
    GIT_CONFIG_PARAMETERS: "'a.b'='c'", GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'a.b', GIT_CONFIG_VALUE_0: 'c', Git_Dir: '/x/.git',
  });
  assert.equal(Object.keys(env).sort(), ['GH_HOST', 'GH_TOKEN', 'GIT_AUTHOR_NAME', 'GIT_CEILING_DIRECTORIES', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_NAMESPACE', 'HOME', 'PATH']);
});

Tools('H11, H12: from a directory that is not a git repository the post fails loudly with E_TOOL_FAILED, keeping gh\'s message, and nothing is retried', async () => {
  const dir = plainDir();
  const e = await rejection(postReview.run(review, { workspace: dir }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, 'tool "post_review" failed');
  assert.match(e.message, 'exited with code 1');
  assert.match(e.message, 'not a git repository');
  assert.match(e.fix!, 'top folder of a git repository whose only GitHub remote is the PR\'s repository');
  assert.not.match(e.message, 'subfolder', 'a folder outside every checkout gets no top-folder note');
  const calls = standIn.calls();
  assert.is(calls.length, 1);
  assert.is(calls[0].exit, 1);
  assert.is(calls[0].cwd, dir);
});

Tools('H12: a git repository without any remote fails the same way (gh: no git remotes found)', async () => {
  const dir = plainDir();
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const e = await rejection(postDocsReview.run({ ...review, verdict: 'FIXED' }, { workspace: dir }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, 'no git remotes found');
  assert.equal(standIn.calls().map((c) => [c.exit, c.repo]), [[1, null]]);
});

/** A git repository with the given remotes (name → URL), added in that order. */
function repoWithRemotes(remotes: Record<string, string>): string {
  const dir = plainDir();
  execFileSync('git', ['init', '-q'], { cwd: dir });
  for (const [name, url] of Object.entries(remotes)) execFileSync('git', ['remote', 'add', name, url], { cwd: dir });
  return dir;
}

Tools('H3–H6: like gh, a workspace with several remotes posts to upstream, then github, then origin, then any other: why the workspace should have one GitHub remote', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ origin: 'https://github.com/me/widgets.git', upstream: 'https://github.com/acme/widgets.git' }, 'acme/widgets'],
    [{ origin: 'https://github.com/me/widgets.git', github: 'git@github.com:gh/widgets.git', mirror: 'https://github.com/m/widgets.git' }, 'gh/widgets'],
    [{ mirror: 'https://github.com/m/widgets.git', origin: 'https://github.com/me/widgets.git' }, 'me/widgets'],
    [{ Upstream: 'https://github.com/acme/widgets.git', origin: 'https://github.com/me/widgets.git' }, 'acme/widgets'],
    [{ fork: 'https://github.com/me/widgets.git' }, 'me/widgets'],
  ];
  for (const [remotes, repo] of cases) {
    const ws = repoWithRemotes(remotes);
    const result = await postReview.run(review, { workspace: ws });
    assert.is((result as { url: string }).url.split('/pull/')[0], `https://github.com/${repo}`, JSON.stringify(remotes));
  }
  assert.equal(standIn.calls().map((c) => c.repo), cases.map(([, repo]) => repo));
});

Tools('H3–H6: a gh repo set-default choice (remote.<name>.gh-resolved) wins over the name order, as in gh', async () => {
  const ws = repoWithRemotes({ origin: 'https://github.com/acme/widgets.git', upstream: 'https://github.com/other/widgets.git' });
  execFileSync('git', ['config', 'remote.origin.gh-resolved', 'base'], { cwd: ws });
  await postReview.run(review, { workspace: ws });
  execFileSync('git', ['config', 'remote.origin.gh-resolved', 'acme/elsewhere'], { cwd: ws });
  await postReview.run(review, { workspace: ws });
  assert.equal(standIn.calls().map((c) => c.repo), ['acme/widgets', 'acme/elsewhere']);
});

Tools('H11 H12: a plain folder inside another checkout fails loudly instead of posting to that checkout (git may not look above the workspace)', async () => {
  const outer = gitRepo('https://github.com/acme/outer.git');
  const inner = join(outer, 'other-project');
  mkdirSync(inner);
  const e = await rejection(postReview.run(review, { workspace: inner }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, /not a git repository/);
  assert.not.ok(standIn.calls().some((c) => c.repo === 'acme/outer'), 'nothing reached the enclosing repository');
});

Tools('H5 H11 H12: a symlink to a plain folder inside another checkout fails the same way: git climbs from the real folder, and so does the limit', async () => {
  const outer = gitRepo('https://github.com/acme/outer.git');
  const inner = join(outer, 'plain');
  mkdirSync(inner);
  const { symlinkSync } = await import('node:fs');
  const link = join(tempDir('links'), 'proj');
  symlinkSync(inner, link);
  const e = await rejection(postReview.run(review, { workspace: link }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.not.ok(standIn.calls().some((c) => c.repo === 'acme/outer'), 'nothing reached the enclosing repository');
});

Tools('H11: a workspace below a checkout\'s top folder fails saying that gh runs only in the top folder, and the fix names that folder', async () => {
  const top = gitRepo('https://github.com/acme/widgets.git');
  const sub = join(top, 'src', 'lib');
  mkdirSync(sub, { recursive: true });
  const e = await rejection(postReview.run(review, { workspace: sub }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, 'not a git repository', 'gh\'s own message is kept');
  assert.match(e.message, `the workspace is a subfolder of the git work tree ${top}`);
  assert.match(e.message, 'countersign runs gh only in a repository\'s top folder');
  assert.match(e.fix!, `pass --workspace ${top}`);
  assert.equal(standIn.calls().map((c) => [c.cwd, c.exit]), [[sub, 1]]);
  // From the top folder the same post goes through.
  await postReview.run(review, { workspace: top });
  assert.is(standIn.calls()[1].repo, 'acme/widgets');
});

Tools('H11: a checkout nested in another (its own .git) gets no top-folder note: the workspace is a top folder', async () => {
  const outer = gitRepo('https://github.com/acme/outer.git');
  const nested = join(outer, 'vendor');
  mkdirSync(nested);
  execFileSync('git', ['init', '-q'], { cwd: nested });
  const e = await rejection(postReview.run(review, { workspace: nested }));
  assert.match(e.message, 'no git remotes found');
  assert.not.match(e.message, 'subfolder');
  assert.not.match(e.fix!, '--workspace');
});

Tools('a run without a workspace, or with one that does not exist, is E_TOOL_FAILED before gh starts', async () => {
  const none = await rejection(postReview.run(review, {}));
  assert.is(none.code, 'E_TOOL_FAILED');
  assert.match(none.message, 'needs the run\'s workspace');
  const gone = join(tempDir('gone'), 'missing');
  const missing = await rejection(prStatus.run({ pr_number: 1 }, { workspace: gone }));
  assert.is(missing.code, 'E_TOOL_FAILED');
  assert.match(missing.message, 'not an existing directory');
  assert.equal(standIn.calls(), []);
});

Tools('gh missing from PATH is E_TOOL_FAILED saying so, with an install fix', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  process.env.PATH = tempDir('emptypath');
  const e = await rejection(postReview.run(review, { workspace: ws }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, 'not installed or not on PATH');
  assert.match(e.fix!, 'cli.github.com');
});

Tools('H16, H37: pr_status reads back through gh what the two tools posted to that repository and PR only', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  const other = gitRepo('https://github.com/acme/other.git');
  assert.equal(await prStatus.run({ pr_number: 29 }, { workspace: ws }), { review: { status: 'NOT_DONE' }, docs: { status: 'NOT_DONE' } });
  await postReview.run({ ...review, verdict: 'REQUEST_CHANGES' }, { workspace: ws });
  await postDocsReview.run({ ...review, verdict: 'FIXED' }, { workspace: other });
  await postDocsReview.run({ ...review, pr_number: 30, verdict: 'FIXED' }, { workspace: ws });
  assert.equal(await prStatus.run({ pr_number: 29 }, { workspace: ws }), { review: { status: 'DONE', verdict: 'REQUEST_CHANGES' }, docs: { status: 'NOT_DONE' } });
  await postDocsReview.run({ ...review, verdict: 'APPROVE' }, { workspace: ws });
  await postReview.run(review, { workspace: ws });
  assert.equal(await prStatus.run({ pr_number: 29 }, { workspace: ws }), { review: { status: 'DONE', verdict: 'APPROVE' }, docs: { status: 'DONE' } });
  const view = standIn.calls().filter((c) => c.argv[1] === 'view');
  assert.equal(view[0].argv, ['pr', 'view', '29', '--json', 'comments']);
  assert.ok(view.every((c) => c.cwd === ws));
});

Tools('pr_status: gh output that is not {comments: [{body}]} is E_TOOL_FAILED naming the command', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  for (const out of ['not json', '{"comments": 3}', '{"comments": [{"author": {}}]}']) {
    process.env.PATH = `${fakeGhDir(`printf '%s' '${out}'`)}${delimiter}${process.env.PATH}`;
    const e = await rejection(prStatus.run({ pr_number: 1 }, { workspace: ws }));
    assert.is(e.code, 'E_TOOL_FAILED', out);
    assert.match(e.message, 'gh pr view 1 --json comments');
  }
});

Tools('gh\'s own stderr is kept in the message, and the exit code is in details', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  process.env.PATH = `${fakeGhDir('echo "HTTP 401: Bad credentials (https://api.github.com/graphql)" >&2; exit 4')}${delimiter}${process.env.PATH}`;
  const e = await rejection(postReview.run(review, { workspace: ws }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, 'exited with code 4: HTTP 401: Bad credentials');
  assert.equal((e.data as { exitCode: number }).exitCode, 4);
});

Tools('runGh stops a gh that hangs past its timeout, or when the call is cancelled: E_TOOL_FAILED, saying it may have taken effect, with a fix to check before calling again', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  process.env.PATH = `${fakeGhDir('exec sleep 5')}${delimiter}${process.env.PATH}`;
  const slow = await rejection(runGh(['pr', 'view', '1'], { tool: 'pr_status', workspace: ws, timeoutMs: 200 }));
  assert.is(slow.code, 'E_TOOL_FAILED');
  assert.match(slow.message, 'did not finish within 0.2 s');
  assert.match(slow.message, 'it may still have taken effect');
  // Its fix says to look before calling again, never the workspace/remote advice.
  assert.match(slow.fix ?? '', 'before running the step again, so it is not posted twice');
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const cancelled = await rejection(postReview.run(review, { workspace: ws, signal: ac.signal }));
  assert.is(cancelled.code, 'E_TOOL_FAILED');
  assert.match(cancelled.message, 'cancelled');
  assert.match(cancelled.message, 'it may still have taken effect');
  assert.match(cancelled.fix ?? '', 'before running the step again, so it is not posted twice');
});

Tools('H3: runGh refuses --repo in any spelling: the repository always comes from the workspace', async () => {
  const ws = gitRepo('https://github.com/acme/widgets.git');
  for (const flag of [['--repo', 'a/b'], ['-R', 'a/b'], ['--repo=a/b']]) {
    const e = await rejection(runGh(['pr', 'comment', '1', ...flag], { tool: 'post_review', workspace: ws }));
    assert.is(e.code, 'E_TOOL_FAILED');
  }
  assert.equal(standIn.calls(), []);
  rmSync(ws, { recursive: true, force: true });
});

Tools.run();

const StandIn = suite('the stand-in gh behaves like gh where it matters');
let stand: ReturnType<typeof useStandIn>;
StandIn.before.each(() => {
  stand = useStandIn();
});
StandIn.after.each(() => stand.restore());

StandIn('H5 H12: a workspace whose only remote is on another host (GitLab, a local path) fails as gh does, never posting to a GitHub repository of the same name', async () => {
  for (const url of ['https://gitlab.com/acme/widgets.git', '/srv/git/acme/widgets.git']) {
    const e = await rejection(postReview.run(review, { workspace: gitRepo(url) }));
    assert.is(e.code, 'E_TOOL_FAILED', url);
    assert.match(e.message, /none of the git remotes configured for this repository point to a known GitHub host/);
  }
  assert.not.ok(stand.calls().some((c) => c.comment !== undefined), 'nothing was posted');
});

StandIn('flags the stand-in does not model are refused, and --jq "[.comments[].body]" (the README\'s pipeline into pr-status) is honoured', async () => {
  const ws = gitRepo('https://github.com/acme/jq.git');
  await postReview.run(review, { workspace: ws });
  const out = await runGh(['pr', 'view', '29', '--json', 'comments', '--jq', '[.comments[].body]'], { tool: 'pr_status', workspace: ws });
  assert.equal(JSON.parse(out.stdout), ['## Code Review Summary\n\nChecked the diff.\n\n### Verdict: APPROVE']);
  const e = await rejection(runGh(['pr', 'comment', '29', '--edit-last', '--body', 'x'], { tool: 'post_review', workspace: ws }));
  assert.match(e.message, /unknown flag: --edit-last/);
});

StandIn('H5 H11: a workspace whose parent folder holds the path delimiter is refused before gh starts (git could not be kept inside the workspace)', async () => {
  const outer = gitRepo('https://github.com/acme/outer.git');
  const odd = join(outer, 'a:b');
  mkdirSync(odd);
  const inner = join(odd, 'inner');
  mkdirSync(inner);
  const e = await rejection(postReview.run(review, { workspace: inner }));
  assert.is(e.code, 'E_TOOL_FAILED');
  assert.match(e.message, /holds ":"/);
  assert.equal(stand.calls(), [], 'gh never started');
});

StandIn.run();
