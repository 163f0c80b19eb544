/**
 * The reviewer diagnoses, never fixes (issue 3 guarantee 4; seed 003 G8,
 * G13), at node level: when the report lives inside a directory under
 * review, the report, its `.prev` and the directories the engine creates
 * for it are not the reviewer's edits. An honest two-iteration loop
 * completes; a reviewer that writes anything else there is caught.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Agent, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { reviewLoop } from '../fixtures/review/loop.js';

interface Case {
  name: string;
  artifacts: string[];
  /** The review node's `report`; undefined keeps the default. */
  report?: string;
  /** Where the producer writes, relative to the workspace. */
  notes: string;
}

function loop(c: Case): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  const node = wf.nodes.find((n) => n.id === 'review')!;
  node.artifacts = c.artifacts;
  if (c.report === undefined) delete node.report;
  else node.report = c.report;
  return wf as unknown as Workflow;
}

/**
 * A producer that writes a heading without a body, then fixes it; a
 * reviewer that checks it and writes the report (JSON, or Markdown items
 * for a .md report). `extra` makes the reviewer also drop a file into the
 * workspace, which a reviewer must not do.
 */
function agents(ws: string, notes: string, extra?: string) {
  const agent: Agent = {
    async answer(req) {
      writeFileSync(join(ws, notes), req.nodeId === 'write' ? '# A\n' : '# A\nbody\n');
      return {};
    },
  };
  const reviewer: Agent = {
    async answer(req) {
      if (req.kind !== 'review' || req.contract !== 'issues') return { $error: 'not a review' };
      const issues = readFileSync(join(ws, notes), 'utf8').includes('body') ? [] : ['heading "A" has no body'];
      writeFileSync(req.report, req.report.endsWith('.md') ? issues.map((i) => `- ${i}\n`).join('') : JSON.stringify({ issues }));
      if (extra) writeFileSync(join(ws, extra), 'scratch notes of the reviewer\n');
      return { issues_count: issues.length };
    },
  };
  return { agent, reviewer };
}

const CASES: Case[] = [
  { name: 'artifacts ["."] with the default report (memory store, no store directory in the workspace)', artifacts: ['.'], notes: 'notes.md' },
  { name: 'artifacts ["."] with report out/review.json in a directory that does not exist yet', artifacts: ['.'], report: 'out/review.json', notes: 'notes.md' },
  { name: 'artifacts ["."] with report review.json beside the artifact', artifacts: ['.'], report: 'review.json', notes: 'notes.md' },
  { name: 'artifacts ["docs"] with a Markdown report in a new subdirectory docs/findings/review.md', artifacts: ['docs'], report: 'docs/findings/review.md', notes: 'docs/notes.md' },
];

const Hashing = suite('review: hashing skips the report inside a directory artifact');

for (const c of CASES) {
  Hashing(`G8/G13: ${c.name}: an honest review is accepted twice (1 → 0) and the run completes, never E_REVIEWER_MODIFIED`, async () => {
    const ws = tempDir('countersign-hash-ws-');
    mkdirSync(join(ws, c.notes, '..'), { recursive: true });
    const engine = createEngine({ store: createMemoryStore() });
    const { agent, reviewer } = agents(ws, c.notes);
    const r = await engine.run(loop(c), { agent, reviewer, workspace: ws });
    assert.is(r.status, 'completed', JSON.stringify(r.error));
    assert.is(r.endNodeId, 'done');
    const events = (await engine.trace(r.runId)).events;
    assert.equal(events.filter((e) => e.type === 'answer.rejected').map((e) => e.code), [], 'no answer was rejected');
    assert.equal(events.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count), [1, 0]);
    // Both generations of the report are where the engine put them: the current one and .prev.
    const report = join(ws, c.report ?? join('.countersign', 'reviews', r.runId, 'review.json'));
    assert.ok(existsSync(report), `${report} exists`);
    assert.ok(existsSync(`${report}.prev`), `${report}.prev exists`);
    assert.match(readFileSync(`${report}.prev`, 'utf8'), 'has no body', '.prev holds the first review');
    assert.not.match(readFileSync(report, 'utf8'), 'has no body', 'the report holds only the second review');
  });
}

Hashing('G13: the same layout still catches a reviewer that leaves any other file inside the directory artifact: E_REVIEWER_MODIFIED', async () => {
  for (const c of CASES) {
    const ws = tempDir('countersign-hash-ws-');
    mkdirSync(join(ws, c.notes, '..'), { recursive: true });
    const engine = createEngine({ store: createMemoryStore() });
    const scratch = c.artifacts[0] === 'docs' ? 'docs/scratch.txt' : 'scratch.txt';
    const { agent, reviewer } = agents(ws, c.notes, scratch);
    const r = await engine.run(loop(c), { agent, reviewer, workspace: ws });
    assert.is(r.status, 'failed', c.name);
    assert.is(r.error?.code, 'E_REVIEWER_MODIFIED', c.name);
  }
});

Hashing.run();
