/**
 * Symlinks below an artifact root count by what they show when their
 * target lies inside the workspace (issue 3 guarantees 4 and 5; seed 003
 * G12, G13): an edit made through a link is an edit of the artifact, so a
 * reviewer cannot fix through one unseen, and a real fix through one is no
 * "unchanged artifact". Targets outside the workspace are never read.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import { hashArtifacts } from '../../engine/review/artifacts.js';
import { REPORT, reviewLoop } from '../fixtures/review/loop.js';

/** ws/docs/api.md → ../gen/api.md; plus a file outside the workspace. */
function setup(): { ws: string; docs: string; target: string; outside: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cs-links-')));
  const ws = join(base, 'ws');
  mkdirSync(join(ws, 'docs'), { recursive: true });
  mkdirSync(join(ws, 'gen'));
  const target = join(ws, 'gen', 'api.md');
  writeFileSync(target, '# A\n');
  symlinkSync('../gen/api.md', join(ws, 'docs', 'api.md'));
  const outside = join(base, 'outside.md');
  writeFileSync(outside, 'one');
  return { ws, docs: join(ws, 'docs'), target, outside };
}

const hashing = suite('artifact hashes through links');

hashing('G13: editing the file a link below the artifact points at, inside the workspace, changes the hash', () => {
  const { ws, docs, target } = setup();
  const before = hashArtifacts([docs], [], ws);
  assert.is(hashArtifacts([docs], [], ws), before, 'deterministic');
  writeFileSync(target, '# A\nedited through the link\n');
  assert.is.not(hashArtifacts([docs], [], ws), before);
});

hashing('G13: a link to a file outside the workspace counts by its link text only: the outside file is never read', () => {
  const { ws, docs, outside } = setup();
  symlinkSync(outside, join(docs, 'out.md'));
  const before = hashArtifacts([docs], [], ws);
  writeFileSync(outside, 'two');
  assert.is(hashArtifacts([docs], [], ws), before);
});

hashing('G13: a linked directory inside the workspace is hashed by its tree, and a link loop ends', () => {
  const { ws, docs } = setup();
  mkdirSync(join(ws, 'shared'));
  writeFileSync(join(ws, 'shared', 'intro.md'), 'intro');
  symlinkSync('../shared', join(docs, 'shared'));
  symlinkSync('..', join(ws, 'shared', 'up'));
  const before = hashArtifacts([docs], [], ws);
  writeFileSync(join(ws, 'shared', 'intro.md'), 'intro, edited');
  assert.is.not(hashArtifacts([docs], [], ws), before);
});

hashing('G8: the report and the store, reached through a linked directory, are still left out', () => {
  const { ws, docs } = setup();
  symlinkSync('..', join(docs, 'all'));
  const report = join(ws, 'review.json');
  const before = hashArtifacts([docs], [report], ws);
  writeFileSync(report, '{"issues": []}');
  assert.is(hashArtifacts([docs], [report], ws), before);
});

hashing.run();

const run = suite('review: edits through a link below a directory artifact');

function linkedLoop(): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  Object.assign(wf.nodes.find((n) => n.id === 'review')!, { artifacts: ['docs'] });
  return wf as unknown as Workflow;
}

run('G13 (issue 3 §4): a reviewer that edits the artifact through a link is E_REVIEWER_MODIFIED', async () => {
  const { ws, target } = setup();
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(linkedLoop(), { workspace: ws });
  await engine.submit(runId, {}, { as: 'author' });
  writeFileSync(target, '# A\nthe reviewer wrote this body\n');
  writeFileSync(join(ws, REPORT), '{"issues": []}');
  const state = await engine.submit(runId, { issues_count: 0 }, { as: 'checker' });
  assert.is(state.status === 'failed' && state.error.code, 'E_REVIEWER_MODIFIED', JSON.stringify(state));
});

run('G12 (issue 3 §5): a fix made through a link is a change, not E_UNCHANGED_ARTIFACT', async () => {
  const { ws, target } = setup();
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(linkedLoop(), { workspace: ws });
  await engine.submit(runId, {}, { as: 'author' });
  writeFileSync(join(ws, REPORT), '{"issues": ["heading A has no body"]}');
  await engine.submit(runId, { issues_count: 1 }, { as: 'checker' });
  writeFileSync(target, '# A\nfixed body\n');
  const state = await engine.submit(runId, {}, { as: 'author' });
  assert.is(state.status === 'waiting' && state.pending.nodeId, 'review', JSON.stringify(state));
  assert.is(state.status === 'waiting' && state.rejected, undefined);
});

run.run();
