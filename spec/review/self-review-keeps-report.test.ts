/**
 * An E_SELF_REVIEW refusal costs nothing (issue 3 §3; seed 003 G1, G4):
 * not an attempt, and not the real reviewer's report either. Who wrote the
 * report file cannot be told, so the refusal leaves it where it is and the
 * reviewer's own answer is judged on it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, reviewLoop } from '../fixtures/review/loop.js';

const test = suite('review: a self-review refusal leaves the report alone');

test('G1, G4 (issue 3 §3): the reviewer writes its report, the producer answers the review by mistake (E_SELF_REVIEW), then the reviewer\'s answer is accepted on its own report, even with maxRetries 0', async () => {
  const wf = reviewLoop() as unknown as { nodes: Record<string, unknown>[] };
  wf.nodes.find((n) => n.id === 'review')!.maxRetries = 0;
  const ws = tempDir('countersign-self-review-');
  const engine = createEngine({ store: createMemoryStore() });
  const { runId } = await engine.start(wf as unknown as Workflow, { workspace: ws });
  writeFileSync(join(ws, ARTIFACT), '# A\n');
  await engine.submit(runId, {}, { as: 'alice' });
  const findings = '{"issues": ["heading \\"A\\" has no body"]}';
  writeFileSync(join(ws, REPORT), findings);
  const mistaken = await engine.submit(runId, { issues_count: 1 }, { as: 'alice' });
  assert.is(mistaken.status === 'waiting' && mistaken.rejected?.code, 'E_SELF_REVIEW');
  assert.not.match(JSON.stringify(mistaken), 'moved', 'the refusal blames no one for the report');
  assert.is(readFileSync(join(ws, REPORT), 'utf8'), findings, 'the reviewer\'s report is where it wrote it');
  assert.not.ok(existsSync(join(ws, `${REPORT}.refused`)));
  const honest = await engine.submit(runId, { issues_count: 1 }, { as: 'carol' });
  assert.is(honest.status, 'waiting', JSON.stringify(honest));
  assert.is(honest.status === 'waiting' && honest.pending.nodeId, 'fix', 'the review was accepted and the run went on to the fix');
});

test.run();
