/**
 * A store path that cannot hold a store — a file among its parent folders
 * (`--store afile/sub`), or a link to nothing where the store directory
 * goes — is E_STORE for the commands that only read too, with the fix
 * that names what to move aside, as `start` says it: never "no runs yet"
 * with a `start` suggestion that would fail, nor E_RUN_NOT_FOUND (r84 a2).
 */
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';

const WF = join(ROOT, 'spec/fixtures/cli/two-step.json');
const Blocked = suite('CLI: a store path blocked by a file or a dangling link');

Blocked('runs, status, trace, step, run --resume and audit on --store afile/sub, COUNTERSIGN_STORE=afile/sub or a dangling link: E_STORE naming what is in the way, exit 2, as start says it; nothing created', async () => {
  const cwd = tempDir('countersign-blocked-store-');
  mkdirSync(join(cwd, 'blk'));
  writeFileSync(join(cwd, 'blk', 'afile'), '');
  symlinkSync(join(cwd, 'nowhere'), join(cwd, 'blk', 'dangle'));
  const commands = [['runs'], ['status', 'abc'], ['trace', 'abc'], ['step', 'abc', '--response', '{}'], ['run', '--resume', 'abc', '--agent', 'interactive'], ['audit'], ['start', WF]];
  const places: [string, Record<string, string>, string[], string][] = [
    ['--store blk/afile/sub', {}, ['--store', 'blk/afile/sub'], join(cwd, 'blk', 'afile')],
    ['COUNTERSIGN_STORE=blk/afile/sub', { COUNTERSIGN_STORE: 'blk/afile/sub' }, [], join(cwd, 'blk', 'afile')],
    ['--store blk/dangle', {}, ['--store', 'blk/dangle'], join(cwd, 'blk', 'dangle')],
  ];
  for (const [where, env, flag, inTheWay] of places) {
    for (const command of commands) {
      const said = `${command.join(' ')} with ${where}`;
      const r = await cli([...command, ...flag, '--json'], { cwd, env });
      assert.is(r.code, 2, `${said}: ${r.stderr}`);
      assert.is(r.json.error.code, 'E_STORE', `${said}: ${r.stderr}`);
      assert.match(r.json.error.message, `${inTheWay} exists but is not a directory`, said);
      assert.match(r.json.error.fix, `move ${inTheWay} aside`, said);
      assert.not.match(r.stderr, 'no runs yet', said);
      assert.not.match(r.stderr, 'countersign start', said);
    }
  }
  const human = await cli(['runs', '--store', 'blk/afile/sub'], { cwd });
  assert.is(human.code, 2);
  assert.is(human.stdout, '');
  assert.match(human.stderr, /^countersign: E_STORE: /);
  assert.not.ok(existsSync(join(cwd, 'nowhere')), 'nothing was created through the link');
});

Blocked('r85: a countersign.db that is a link to nothing: E_STORE naming the link and where it points, for the commands that only read and for start; never "no runs yet", E_RUN_NOT_FOUND or a write-access fix; nothing created through it', async () => {
  const cwd = tempDir('countersign-blocked-store-');
  for (const [name, target] of [['s3', '/nonexistent/z'], ['s4', join(cwd, 'elsewhere', 'gone.db')]] as const) {
    mkdirSync(join(cwd, name));
    mkdirSync(join(cwd, 'elsewhere'), { recursive: true });
    const link = join(cwd, name, 'countersign.db');
    symlinkSync(target, link);
    for (const command of [['runs'], ['status', 'x'], ['trace', 'x'], ['step', 'x', '--response', '{}'], ['run', '--resume', 'x', '--agent', 'interactive'], ['audit'], ['start', WF]]) {
      const said = `${command[0]} --store ${name}`;
      const r = await cli([...command, '--store', name, '--json'], { cwd });
      assert.is(r.code, 2, `${said}: ${r.stderr}`);
      assert.is(r.json.error.code, 'E_STORE', `${said}: ${r.stderr}`);
      assert.match(r.json.error.message, `${link}: it is a link to ${target}, which does not exist`, said);
      assert.match(r.json.error.fix, `move ${link} aside`, said);
      assert.not.match(r.json.error.fix, 'write access', said);
      assert.not.match(r.stderr, 'no runs yet', said);
    }
  }
  assert.not.ok(existsSync(join(cwd, 'elsewhere', 'gone.db')), 'no database was created where the link points');
});

Blocked('a store path whose folders do not exist yet is still just "no store there yet" for the commands that only read', async () => {
  const cwd = tempDir('countersign-blocked-store-');
  const r = await cli(['runs', '--store', 'not/yet/here'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'no runs yet');
  assert.not.ok(existsSync(join(cwd, 'not')));
});

Blocked('r86: a countersign.db link to a link to nothing: the message says where the chain of links ends, and the fix names that file to put back', async () => {
  const cwd = tempDir('countersign-blocked-store-');
  mkdirSync(join(cwd, 's'));
  const middle = join(cwd, 'l2');
  const end = join(cwd, 'none');
  symlinkSync(middle, join(cwd, 's', 'countersign.db'));
  symlinkSync(end, middle);
  const r = await cli(['runs', '--store', 's', '--json'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_STORE');
  assert.match(r.json.error.message, `a link to ${middle}`);
  assert.match(r.json.error.message, `ends at ${end}, which does not exist`);
  assert.not.match(r.json.error.message, `${middle}, which does not exist`);
  assert.match(r.json.error.fix, `put back the store file at ${end}`);
});

Blocked('r98 d1: a store folder this user may not look into is E_STORE saying so for runs, status, trace and audit, never "no runs yet" or E_RUN_NOT_FOUND', async () => {
  const cwd = tempDir('countersign-unreadable-store-');
  const store = join(cwd, 'st');
  const made = spawnSync(process.execPath, [LAUNCHER, 'start', WF, '--store', store, '--json'], { encoding: 'utf8' });
  const runId = JSON.parse(made.stdout).runId as string;
  chmodSync(cwd, 0o755);
  chmodSync(store, 0o700);
  // Root looks into any folder: the commands run as another user then; anyone else is kept out by the mode.
  const asOther = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  // As root the check runs as another user, who must be able to reach the launcher (a clone in a private
  // mktemp folder is not): then it is said and skipped, never passed by accident.
  if (process.getuid?.() === 0 && spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(LAUNCHER)})`], asOther).status !== 0) {
    console.log(`  (skipped: user 65534 cannot reach ${LAUNCHER})`);
    return;
  }
  if (process.getuid?.() !== 0) chmodSync(store, 0o000);
  try {
    for (const command of [['runs'], ['status', runId], ['trace', runId], ['audit']]) {
      const r = spawnSync(process.execPath, [LAUNCHER, ...command, '--store', store, '--json'], { cwd: '/', encoding: 'utf8', ...asOther });
      assert.is(r.status, 2, `${command[0]}: ${r.stdout}${r.stderr}`);
      const doc = JSON.parse(r.stdout);
      assert.is(doc.error.code, 'E_STORE', command[0]);
      assert.match(doc.error.message, `cannot read the store in ${store}: this user may not look into`, command[0]);
      assert.match(doc.error.fix, 'give this user read and search access', command[0]);
    }
  } finally {
    chmodSync(store, 0o755);
  }
});

Blocked.run();
