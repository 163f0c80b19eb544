/**
 * Artifact hashes (seed G13: the reviewer diagnoses, never fixes; G12: no
 * unchanged iteration) and moving the previous report aside (G8: each review
 * overwrites one known report file; the previous one stays in `.prev`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hashArtifacts, moveAside } from '../../engine/review/artifacts.js';
import { thrownWithCode } from '../helpers/errors.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-artifacts-')));

/** A workspace with a file artifact and a directory artifact. */
function setup(): { ws: string; plan: string; src: string } {
  const ws = mkdtempSync(join(root, 'ws-'));
  const plan = join(ws, 'plan.md');
  const src = join(ws, 'src');
  mkdirSync(join(src, 'lib'), { recursive: true });
  writeFileSync(plan, '# plan\n');
  writeFileSync(join(src, 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(src, 'lib', 'b.ts'), 'export const b = 2;\n');
  return { ws, plan, src };
}

const hashing = suite('artifact hashes');

hashing('G13: the hash is a sha256 hex digest and is the same on every call while nothing changes', () => {
  const { plan, src } = setup();
  const first = hashArtifacts([plan, src], []);
  assert.match(first, /^[0-9a-f]{64}$/);
  assert.is(hashArtifacts([plan, src], []), first);
});

hashing('G13: editing a file, in a listed file or deep in a listed directory, changes the hash', () => {
  const { plan, src } = setup();
  const before = hashArtifacts([plan, src], []);
  writeFileSync(plan, '# plan\nedited\n');
  const afterPlan = hashArtifacts([plan, src], []);
  assert.is.not(afterPlan, before);
  writeFileSync(join(src, 'lib', 'b.ts'), 'export const b = 3;\n');
  assert.is.not(hashArtifacts([plan, src], []), afterPlan);
});

hashing('G13: creating, deleting and renaming files change the hash', () => {
  const { plan, src } = setup();
  const h0 = hashArtifacts([plan, src], []);
  writeFileSync(join(src, 'c.ts'), '');
  const h1 = hashArtifacts([plan, src], []);
  assert.is.not(h1, h0);
  renameSync(join(src, 'c.ts'), join(src, 'd.ts'));
  const h2 = hashArtifacts([plan, src], []);
  assert.is.not(h2, h1);
  unlinkSync(join(src, 'd.ts'));
  assert.is(hashArtifacts([plan, src], []), h0);
  mkdirSync(join(src, 'empty'));
  assert.is.not(hashArtifacts([plan, src], []), h0);
});

hashing('G13: a missing artifact has its own hash, and creating it changes the hash (even empty)', () => {
  const { ws } = setup();
  const later = join(ws, 'later.md');
  const missing = hashArtifacts([later], []);
  assert.is(hashArtifacts([later], []), missing);
  writeFileSync(later, '');
  assert.is.not(hashArtifacts([later], []), missing);
});

hashing('G12: touching a file (mtime only) leaves the hash unchanged, so an untouched artifact reads as unchanged', () => {
  const { plan, src } = setup();
  const before = hashArtifacts([plan, src], []);
  const mtime = statSync(plan).mtimeMs;
  const future = new Date(Date.now() + 3_600_000);
  utimesSync(plan, future, future);
  utimesSync(join(src, 'a.ts'), future, future);
  assert.is.not(statSync(plan).mtimeMs, mtime);
  assert.is(hashArtifacts([plan, src], []), before);
});

hashing('G8/G13: the report, its .prev and a skipped directory do not count; without skip they do', () => {
  const { ws } = setup();
  const report = join(ws, 'review.json');
  const store = join(ws, '.countersign');
  mkdirSync(store);
  const skip = [report, `${report}.prev`, store];
  const before = hashArtifacts([ws], skip);
  writeFileSync(report, '{"issues": ["x"]}');
  writeFileSync(`${report}.prev`, '{"issues": []}');
  writeFileSync(join(store, 'runs.db'), 'data');
  assert.is(hashArtifacts([ws], skip), before);
  assert.is.not(hashArtifacts([ws], []), hashArtifacts([ws], skip));
});

hashing('G13: a .git directory anywhere in an artifact is ignored', () => {
  const { src } = setup();
  const before = hashArtifacts([src], []);
  mkdirSync(join(src, '.git', 'objects'), { recursive: true });
  writeFileSync(join(src, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(join(src, 'lib', '.git'));
  assert.is(hashArtifacts([src], []), before);
  // Only the directory name .git is special: other dot-files count.
  writeFileSync(join(src, '.gitignore'), 'dist\n');
  assert.is.not(hashArtifacts([src], []), before);
});

hashing('G13: without a workspace to read within (or for a target outside it), a symlink counts by its link text and is never followed', () => {
  const { ws, src } = setup();
  const elsewhere = join(ws, 'elsewhere.txt');
  writeFileSync(elsewhere, 'one');
  symlinkSync(elsewhere, join(src, 'link'));
  const before = hashArtifacts([src], []);
  writeFileSync(elsewhere, 'two');
  assert.is(hashArtifacts([src], []), before);
  unlinkSync(join(src, 'link'));
  symlinkSync(join(ws, 'plan.md'), join(src, 'link'));
  assert.is.not(hashArtifacts([src], []), before);
});

hashing('G12/G13: the same path listed twice, or a file inside a listed directory, is hashed without error and deterministically', () => {
  const { plan, src } = setup();
  const twice = hashArtifacts([plan, plan, src, join(src, 'a.ts')], []);
  assert.is(hashArtifacts([plan, plan, src, join(src, 'a.ts')], []), twice);
  assert.is.not(twice, hashArtifacts([plan, src], []));
});

hashing('G13: renaming a whole artifact directory changes the hash even when the contents are the same', () => {
  const { ws, src } = setup();
  const before = hashArtifacts([src], []);
  renameSync(src, join(ws, 'src2'));
  mkdirSync(src);
  assert.is.not(hashArtifacts([src], []), before);
});

hashing('a directory artifact named through a link (alias -> docs) skips the report written under its real spelling (docs/review.json): writing the report changes nothing', () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'cs-artifacts-link-')));
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs', 'api.md'), '# API\n');
  symlinkSync(join(ws, 'docs'), join(ws, 'alias'));
  const report = join(ws, 'docs', 'review.json');
  const before = hashArtifacts([join(ws, 'alias')], [report], ws);
  writeFileSync(report, '{"issues": []}');
  assert.is(hashArtifacts([join(ws, 'alias')], [report], ws), before, 'the report is not part of the artifact');
  writeFileSync(join(ws, 'docs', 'api.md'), '# API, edited\n');
  assert.is.not(hashArtifacts([join(ws, 'alias')], [report], ws), before, 'an edit of the artifact still counts');
});

hashing('a linked directory\'s tree is closed off in the hash: moving an entry from beside the link into the linked tree changes the hash', () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'cs-artifacts-end-')));
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(ws, 'd'));
  writeFileSync(join(ws, 'd', 'x.md'), 'x');
  symlinkSync(join(ws, 'd'), join(ws, 'src', 'a'));
  mkdirSync(join(ws, 'src', 'b'));
  writeFileSync(join(ws, 'src', 'b', 'y.md'), 'y');
  const before = hashArtifacts([join(ws, 'src')], [], ws);
  renameSync(join(ws, 'src', 'b'), join(ws, 'd', 'b'));
  assert.is.not(hashArtifacts([join(ws, 'src')], [], ws), before);
});

hashing.run();

const aside = suite('moving the report aside');
// The last suite in this file cleans up the shared temp root.
aside.after(() => rmSync(root, { recursive: true, force: true }));

aside('G8: with no report yet nothing is moved, and the report directory is created for the reviewer', () => {
  const { ws } = setup();
  const report = join(ws, '.countersign', 'reviews', 'run-1', 'review.json');
  assert.is(moveAside(report), false);
  assert.ok(statSync(join(ws, '.countersign', 'reviews', 'run-1')).isDirectory());
  assert.not.ok(existsSync(report));
  assert.not.ok(existsSync(`${report}.prev`));
});

aside('G8: an existing report becomes <report>.prev and the report path is free for the new review', () => {
  const { ws } = setup();
  const report = join(ws, 'review.json');
  writeFileSync(report, '{"issues": ["first"]}');
  assert.is(moveAside(report), true);
  assert.not.ok(existsSync(report));
  assert.is(readFileSync(`${report}.prev`, 'utf8'), '{"issues": ["first"]}');
});

aside('G8: .prev keeps exactly one generation: the report of the previous review replaces the older one', () => {
  const { ws } = setup();
  const report = join(ws, 'review.json');
  writeFileSync(report, '{"issues": ["first"]}');
  moveAside(report);
  writeFileSync(report, '{"issues": ["second"]}');
  assert.is(moveAside(report), true);
  assert.is(readFileSync(`${report}.prev`, 'utf8'), '{"issues": ["second"]}');
  assert.not.ok(existsSync(`${report}.prev.prev`));
  // No new report was written: the .prev from before stays as it is.
  assert.is(moveAside(report), false);
  assert.is(readFileSync(`${report}.prev`, 'utf8'), '{"issues": ["second"]}');
});

aside('G8: a directory where the report should be is refused with E_REPORT_PATH and left in place', () => {
  const { ws } = setup();
  const report = join(ws, 'review.json');
  mkdirSync(report);
  const e = thrownWithCode(() => moveAside(report), 'E_REPORT_PATH');
  assert.match(e.message, report);
  assert.is(e.file, report);
  assert.ok(statSync(report).isDirectory());
});

aside.run();
