/**
 * A start whose newRunId repeats a stored run's id is refused before its
 * first step touches the workspace: the run already there keeps its review
 * report, its journal and its next answer's outcome, whichever store holds it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, createSqliteStore, type Store, type Workflow } from '../../engine/index.js';
import { tempDir } from '../helpers/cli.js';
import { ARTIFACT, REPORT, reviewLoop } from '../fixtures/review/loop.js';

const test = suite('a start refused for a run id already stored');

/** The review loop starting at its review: the first step of a start moves the review's report aside. */
function reviewFirst(): Workflow {
  const wf = reviewLoop() as unknown as { nodes: Array<Record<string, unknown>> };
  wf.nodes = wf.nodes.filter((n) => n.id !== 'write');
  wf.nodes[0].connections = { default: 'review' };
  return wf as unknown as Workflow;
}

for (const [name, open] of [['memory', () => createMemoryStore()], ['sqlite', () => createSqliteStore(tempDir('countersign-dup-store-'))]] as Array<[string, () => Store]>) {
  test(`${name}: the second start is E_STORE naming the run, and the first run's report file, journal and next step are as they were`, async () => {
    const store = open();
    const ws = tempDir('countersign-dup-ws-');
    writeFileSync(join(ws, ARTIFACT), '# A\n');
    const engine = createEngine({ store, newRunId: () => 'fixed' });
    const first = await engine.start(reviewFirst(), { workspace: ws });
    assert.is(first.status === 'waiting' && first.pending.nodeId, 'review');
    const findings = '{"issues": ["heading \\"A\\" has no body"]}';
    writeFileSync(join(ws, REPORT), findings);
    const atFix = await engine.submit('fixed', { issues_count: 1 }, { as: 'rev' });
    assert.is(atFix.status === 'waiting' && atFix.pending.nodeId, 'fix', JSON.stringify(atFix));
    const filesBefore = readdirSync(ws).sort();
    const journalBefore = (await engine.trace('fixed')).events;

    const e = await engine.start(reviewFirst(), { workspace: ws }).then(() => undefined, (err) => err);
    assert.is(e?.code, 'E_STORE', String(e));
    assert.is(e.message, `a run "fixed" already exists in ${store.file ?? 'the store'}`);
    assert.match(e.fix, 'give each run a new id');

    assert.equal(readdirSync(ws).sort(), filesBefore, 'no file of the workspace was moved');
    assert.ok(existsSync(join(ws, REPORT)));
    assert.is(readFileSync(join(ws, REPORT), 'utf8'), findings, 'the first run\'s report is where its reviewer wrote it');
    assert.equal((await engine.trace('fixed')).events, journalBefore, 'the first run\'s journal is unchanged');

    writeFileSync(join(ws, ARTIFACT), '# A\nNow with a body.\n');
    const fixed = await engine.submit('fixed', { }, { as: 'author' });
    assert.is(fixed.status === 'waiting' && fixed.pending.nodeId, 'review', JSON.stringify(fixed));
    const restored = (await engine.trace('fixed')).events.filter((ev) => ev.type === 'review.report_restored');
    assert.equal(restored, [], 'no report is said to have been changed by the fixer');
    store.close();
  });
}

test.run();
