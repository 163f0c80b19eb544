/**
 * Review paths stay inside the run's workspace (issue 3, "Paths"): relative
 * paths resolve against it, and `..`, absolute paths elsewhere and symlinks
 * that lead out are refused, because these paths can come from agent-written
 * variables and the engine moves and hashes what they name.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveInWorkspace } from '../../engine/review/paths.js';
import { thrownWithCode } from '../helpers/errors.js';

const test = suite('review paths');
const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-paths-')));
test.after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh workspace and a sibling directory outside it. */
function setup(): { ws: string; outside: string } {
  const base = mkdtempSync(join(root, 't-'));
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(ws, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'docs', 'plan.md'), 'plan');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  return { ws, outside };
}

test('G30 (issue 3 Paths): a relative path resolves against the workspace and comes back absolute and normalised', () => {
  const { ws } = setup();
  assert.is(resolveInWorkspace(ws, 'docs/plan.md', 'artifact 1'), join(ws, 'docs', 'plan.md'));
  assert.is(resolveInWorkspace(ws, './docs/../docs//plan.md', 'artifact 1'), join(ws, 'docs', 'plan.md'));
});

test('G30 (issue 3 Paths): an absolute path inside the workspace is kept', () => {
  const { ws } = setup();
  assert.is(resolveInWorkspace(ws, join(ws, 'docs', 'plan.md'), 'artifact 1'), join(ws, 'docs', 'plan.md'));
});

test('G30 (issue 3 Paths): the workspace itself is inside it', () => {
  const { ws } = setup();
  assert.is(resolveInWorkspace(ws, '.', 'artifact 1'), ws);
  assert.is(resolveInWorkspace(ws, ws, 'artifact 1'), ws);
});

test('G30 (issue 3 Paths): a name that merely starts with ".." (such as "..foo") is inside', () => {
  const { ws } = setup();
  assert.is(resolveInWorkspace(ws, '..foo', 'context 1'), join(ws, '..foo'));
  assert.is(resolveInWorkspace(ws, 'docs/..notes/x.md', 'context 1'), join(ws, 'docs', '..notes', 'x.md'));
});

test('G30 (issue 3 Paths): a path that does not exist yet is judged by its parent and nothing is created', () => {
  const { ws } = setup();
  const report = resolveInWorkspace(ws, '.countersign/reviews/run-1/review.json', 'report');
  assert.is(report, join(ws, '.countersign', 'reviews', 'run-1', 'review.json'));
  assert.not.ok(existsSync(join(ws, '.countersign')));
});

test('G30 (issue 3 Paths): a ".." escape is refused with E_PATH_OUTSIDE_WORKSPACE naming the path, where it leads and the workspace', () => {
  const { ws, outside } = setup();
  const e = thrownWithCode(() => resolveInWorkspace(ws, '../outside/secret.txt', 'artifact 2'), 'E_PATH_OUTSIDE_WORKSPACE');
  assert.match(e.message, 'artifact 2');
  assert.match(e.message, '"../outside/secret.txt"');
  assert.match(e.message, join(outside, 'secret.txt'));
  assert.match(e.message, ws);
  assert.match(e.fix ?? '', 'inside the workspace');
  thrownWithCode(() => resolveInWorkspace(ws, '..', 'artifact 2'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G30 (issue 3 Paths): an absolute path outside the workspace is refused', () => {
  const { ws, outside } = setup();
  thrownWithCode(() => resolveInWorkspace(ws, join(outside, 'secret.txt'), 'context 1'), 'E_PATH_OUTSIDE_WORKSPACE');
  thrownWithCode(() => resolveInWorkspace(ws, '/etc/passwd', 'context 1'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G30 (issue 3 Paths): a symlink inside the workspace that leads outside is refused, for the link and for paths below it', () => {
  const { ws, outside } = setup();
  symlinkSync(outside, join(ws, 'escape'));
  const e = thrownWithCode(() => resolveInWorkspace(ws, 'escape/secret.txt', 'artifact 1'), 'E_PATH_OUTSIDE_WORKSPACE');
  assert.match(e.message, 'symlink');
  assert.match(e.message, join(outside, 'secret.txt'));
  thrownWithCode(() => resolveInWorkspace(ws, 'escape', 'artifact 1'), 'E_PATH_OUTSIDE_WORKSPACE');
  // Not yet existing below the link: writing there would still land outside.
  thrownWithCode(() => resolveInWorkspace(ws, 'escape/new/report.json', 'report'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G30 (issue 3 Paths): a dangling symlink whose target is outside is refused (writing through it would create the target)', () => {
  const { ws, outside } = setup();
  symlinkSync(join(outside, 'not-yet.json'), join(ws, 'report.json'));
  thrownWithCode(() => resolveInWorkspace(ws, 'report.json', 'report'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G30 (issue 3 Paths): a symlink loop is refused rather than followed forever', () => {
  const { ws } = setup();
  symlinkSync(join(ws, 'b'), join(ws, 'a'));
  symlinkSync(join(ws, 'a'), join(ws, 'b'));
  thrownWithCode(() => resolveInWorkspace(ws, 'a/x', 'artifact 1'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G30 (issue 3 Paths): a symlink that stays inside the workspace is accepted and the path is returned as given, not as its target', () => {
  const { ws } = setup();
  symlinkSync(join(ws, 'docs'), join(ws, 'docs-link'));
  assert.is(resolveInWorkspace(ws, 'docs-link/plan.md', 'artifact 1'), join(ws, 'docs-link', 'plan.md'));
});

test('G30 (issue 3 Paths): a workspace reached through a symlink is compared by its real path', () => {
  const { ws } = setup();
  const alias = `${ws}-alias`;
  symlinkSync(ws, alias);
  assert.is(resolveInWorkspace(alias, 'docs/plan.md', 'artifact 1'), join(alias, 'docs', 'plan.md'));
  thrownWithCode(() => resolveInWorkspace(alias, '../outside/secret.txt', 'artifact 1'), 'E_PATH_OUTSIDE_WORKSPACE');
});

test('G23/G30 (issue 3 Paths): an empty or blank path is E_PATH_EMPTY naming which path and the likely unset variable', () => {
  const { ws } = setup();
  const e = thrownWithCode(() => resolveInWorkspace(ws, '', 'artifact 2'), 'E_PATH_EMPTY');
  assert.match(e.message, 'artifact 2');
  assert.match(e.message, 'variable');
  assert.ok(e.fix);
  thrownWithCode(() => resolveInWorkspace(ws, '  \t', 'report'), 'E_PATH_EMPTY');
});

test.run();
