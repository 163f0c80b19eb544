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

Gone.run();
