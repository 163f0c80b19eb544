/**
 * A command given in a directory that has since been removed (a shell
 * still inside a deleted checkout) is refused with E_USAGE naming it and
 * the fix, exit 2 and one {error} document under --json: never a Node stack
 * trace, never a hang (the launcher could not rebuild its bundle there).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';
import { copyOfPackage } from '../helpers/package-copy.js';

const Gone = suite('cli: the current directory has been removed');
const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');

/** `node launcher args…` run from inside a directory removed just before, as a shell left in it would; PWD names it, as a shell's does. */
function fromRemovedDirectory(launcher: string, args: string[]) {
  const parent = tempDir('countersign-cwd-');
  const gone = join(parent, 'gone');
  const script = 'mkdir "$GONE" && cd "$GONE" && rmdir "$GONE" && PWD="$GONE" exec "$@"';
  const r = spawnSync('sh', ['-c', script, 'sh', process.execPath, launcher, ...args], {
    cwd: parent,
    env: { ...process.env, GONE: gone, COUNTERSIGN_STORE: join(parent, 'store') },
    encoding: 'utf8',
    // A refusal is quick; a launcher that hangs is stopped well before the suite's own limit.
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, gone, timedOut: r.error !== undefined };
}

function assertRefused(r: ReturnType<typeof fromRemovedDirectory>, json: boolean) {
  assert.not.ok(r.timedOut, 'the command returned');
  assert.is(r.code, 2, r.stderr);
  assert.not.match(r.stderr, /uv_cwd|node:internal|\n\s+at /);
  assert.match(r.stderr, new RegExp(`^countersign: E_USAGE: the current directory \\(${r.gone.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) no longer exists`, 'm'));
  assert.match(r.stderr, /^ {2}fix: cd to an existing directory/m);
  if (json) {
    const doc = JSON.parse(r.stdout);
    assert.is(doc.error.code, 'E_USAGE');
    assert.match(doc.error.message, /no longer exists/);
    assert.match(doc.error.fix, /cd to an existing directory/);
  } else {
    assert.is(r.stdout, '');
  }
}

Gone('run with absolute paths, with and without --workspace, and status --json: E_USAGE naming the directory, exit 2, one JSON document', () => {
  const agent = `scripted:${join(ROOT, 'spec/fixtures/agents')}`;
  assertRefused(fromRemovedDirectory(LAUNCHER, ['run', WF, '--agent', agent, '--workspace', tempDir(), '--json']), true);
  assertRefused(fromRemovedDirectory(LAUNCHER, ['run', WF, '--agent', agent]), false);
  assertRefused(fromRemovedDirectory(LAUNCHER, ['status', 'x', '--json']), true);
});

Gone('with a bundle that must be rebuilt first: the same refusal, not a hang', () => {
  const pkg = copyOfPackage();
  assertRefused(fromRemovedDirectory(join(pkg, 'engine/cli/countersign.mjs'), ['status', 'x', '--json']), true);
});

/** As fromRemovedDirectory, with `then` run after the directory is removed and before the command (the shell's PWD left as it is). */
function afterRemoval(then: string, args: string[]) {
  const parent = tempDir('countersign-cwd-');
  const gone = join(parent, 'gone');
  const script = `mkdir "$GONE" && cd "$GONE" && rmdir "$GONE" && ${then} "$@"`;
  const r = spawnSync('sh', ['-c', script, 'sh', process.execPath, LAUNCHER, ...args], {
    cwd: parent,
    env: { ...process.env, GONE: gone, COUNTERSIGN_STORE: join(parent, 'store') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, gone, timedOut: r.error !== undefined };
}

Gone('r84 a2: the path re-created since (mkdir at the same path), or no PWD at all: the message still names the removed directory; re-created, the fix is to re-enter it', () => {
  // Another directory now stands at the same path: the process is still in the removed one.
  const again = afterRemoval('mkdir "$GONE" && PWD="$GONE" exec', ['runs', '--json']);
  assert.not.ok(again.timedOut, 'the command returned');
  assert.is(again.code, 2, again.stderr);
  const doc = JSON.parse(again.stdout);
  assert.is(doc.error.code, 'E_USAGE');
  assert.match(doc.error.message, `the current directory (${again.gone}) no longer exists`);
  assert.match(doc.error.message, 'a new directory');
  assert.match(doc.error.fix, 'cd "$PWD"');
  assert.not.match(doc.error.fix, 'cd to an existing directory');
  // No PWD in the environment: the process's own record names it (Linux's /proc/self/cwd).
  if (process.platform !== 'linux') return;
  const unset = afterRemoval('exec env -u PWD', ['runs', '--json']);
  assert.not.ok(unset.timedOut, 'the command returned');
  assert.is(unset.code, 2, unset.stderr);
  const plain = JSON.parse(unset.stdout);
  assert.match(plain.error.message, `the current directory (${unset.gone}) no longer exists`);
  assert.match(plain.error.fix, 'cd to an existing directory');
});

Gone('r85: a file made at the path since (not a directory): no "new directory", no `cd "$PWD"` that would fail; the message says a file stands there, the fix is to cd to an existing directory', () => {
  const file = afterRemoval('touch "$GONE" && PWD="$GONE" exec', ['runs', '--json']);
  assert.not.ok(file.timedOut, 'the command returned');
  assert.is(file.code, 2, file.stderr);
  const doc = JSON.parse(file.stdout);
  assert.is(doc.error.code, 'E_USAGE');
  assert.match(doc.error.message, `the current directory (${file.gone}) no longer exists`);
  assert.not.match(doc.error.message, 'a new directory');
  assert.match(doc.error.message, 'a file stands at that path now');
  assert.not.match(doc.error.fix, 'cd "$PWD"');
  assert.match(doc.error.fix, 'cd to an existing directory');
  // A link to a directory made there is a directory to enter.
  const linked = afterRemoval('mkdir "$GONE.real" && ln -s "$GONE.real" "$GONE" && PWD="$GONE" exec', ['runs', '--json']);
  assert.is(linked.code, 2, linked.stderr);
  assert.match(JSON.parse(linked.stdout).error.fix, 'cd "$PWD"');
});

/** `node launcher args…` run from `<gone>/sub`, after `<gone>` is removed and `replace` (a shell command given $GONE) puts something else at its path. */
function fromUnderReplaced(replace: string, args: string[]) {
  const parent = tempDir('countersign-cwd-');
  const gone = join(parent, 'gone');
  const script = `mkdir -p "$GONE/sub" && cd "$GONE/sub" && rm -r "$GONE" && ${replace} && PWD="$GONE/sub" exec "$@"`;
  const r = spawnSync('sh', ['-c', script, 'sh', process.execPath, LAUNCHER, ...args], {
    cwd: parent,
    env: { ...process.env, GONE: gone, COUNTERSIGN_STORE: join(parent, 'store') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, gone: join(gone, 'sub'), timedOut: r.error !== undefined };
}

Gone('r86: the removed directory\'s parent path now a file, or a link loop: the same E_USAGE refusal (exit 2, one {error} document), no ENOTDIR/ELOOP stack trace', () => {
  for (const replace of ['touch "$GONE"', 'ln -s gone "$GONE"']) {
    assertRefused(fromUnderReplaced(replace, ['runs', '--json']), true);
    assertRefused(fromUnderReplaced(replace, ['runs']), false);
  }
});

Gone.run();
