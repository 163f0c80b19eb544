/**
 * Step mode in a review loop (issue 3, guarantee 3): every answer there
 * names its identity with `--as`; a missing one is a usage error and a
 * review by whoever produced or fixed the artifacts is rejected — and
 * neither costs an attempt. The human output of a waiting review tells the
 * person what to read, where to write and how to answer.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, tempDir } from '../helpers/cli.js';
import { ARTIFACT, CRITERION, REPORT, reviewLoop, writeWorkflow } from '../fixtures/review/loop.js';

interface Loop {
  ws: string;
  store: string;
  runId: string;
}

async function startLoop(): Promise<Loop> {
  const ws = tempDir('countersign-review-ws-');
  const store = tempDir('countersign-review-store-');
  const s = await cli(['start', writeWorkflow(ws, reviewLoop()), '--workspace', ws, '--json'], { store });
  assert.is(s.code, 0, s.stderr);
  assert.is(s.json.pending.nodeId, 'write');
  return { ws, store, runId: s.json.runId };
}

function step(l: Loop, answer: unknown, as?: string, json = true) {
  return cli(['step', l.runId, '--response', JSON.stringify(answer), ...(as ? ['--as', as] : []), ...(json ? ['--json'] : [])], { store: l.store });
}

async function status(l: Loop) {
  const s = await cli(['status', l.runId, '--json'], { store: l.store });
  assert.is(s.code, 0, s.stderr);
  return s.json;
}

async function journalLength(l: Loop): Promise<number> {
  return (await cli(['trace', l.runId, '--json'], { store: l.store })).json.events.length;
}

function writeReport(l: Loop, issues: string[]): void {
  writeFileSync(join(l.ws, REPORT), JSON.stringify({ issues }));
}

/** Produces the draft as `as` and leaves the run waiting at review 1. */
async function produce(l: Loop, as: string): Promise<void> {
  writeFileSync(join(l.ws, ARTIFACT), '# A\n');
  const r = await step(l, {}, as);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.pending.kind, 'review');
}

const Step = suite('review: step mode');

Step('G4: an answer without --as in a review loop is a usage error — exit 2, E_IDENTITY_REQUIRED — that changes neither seq, attempt nor journal', async () => {
  const l = await startLoop();
  writeFileSync(join(l.ws, ARTIFACT), '# A\n');
  for (const node of ['write', 'review']) {
    const before = await status(l);
    const events = await journalLength(l);
    assert.is(before.pending.nodeId, node);
    const r = await step(l, node === 'write' ? {} : { issues_count: 0 });
    assert.is(r.code, 2, `${node}: ${r.stderr}`);
    assert.is(r.json.error.code, 'E_IDENTITY_REQUIRED', node);
    assert.is(r.json.error.nodeId, node);
    assert.match(r.json.error.fix, '--as');
    const after = await status(l);
    assert.is(after.seq, before.seq, `${node}: seq unchanged`);
    assert.is(after.pending.attempt, before.pending.attempt, `${node}: attempt unchanged`);
    assert.equal(after.pending.errors, undefined, `${node}: no rejection recorded`);
    assert.is(await journalLength(l), events, `${node}: nothing journaled`);
    if (node === 'write') assert.is((await step(l, {}, 'alice')).code, 0);
  }
});

Step('G1/G2: a review answered by the producer is rejected — exit 5, E_SELF_REVIEW — costs no attempt however often it is tried, and its fix asks for another identity', async () => {
  const l = await startLoop();
  await produce(l, 'alice');
  writeReport(l, []);
  // More tries than the node's maxRetries + 1: none of them uses up an attempt.
  for (let i = 0; i < 5; i++) {
    const r = await step(l, { issues_count: 0 }, 'alice');
    assert.is(r.code, 5, r.stderr);
    assert.is(r.json.status, 'waiting');
    assert.is(r.json.rejected.code, 'E_SELF_REVIEW');
    assert.match(r.json.rejected.errors[0], '"alice"');
    assert.is(r.json.pending.nodeId, 'review');
    assert.is(r.json.pending.attempt, 1);
    assert.is(r.json.pending.iteration, 1);
    // The fix asks for another identity: retrying as "alice" would be refused again.
    assert.match(r.stderr, '--as <reviewer identity> --response');
    assert.not.match(r.stderr, '--as alice');
  }
  const events = (await cli(['trace', l.runId, '--json'], { store: l.store })).json.events;
  const rejected = events.filter((e: any) => e.type === 'answer.rejected');
  assert.equal(rejected.map((e: any) => `${e.code} ${e.userId}`), Array(5).fill('E_SELF_REVIEW alice'));
  // The report is left alone: it may be the real reviewer's, judged on the next answer.
  assert.equal(JSON.parse(readFileSync(join(l.ws, REPORT), 'utf8')), { issues: [] });
  assert.not.ok(existsSync(join(l.ws, `${REPORT}.refused`)));
  const ok = await step(l, { issues_count: 0 }, 'carol');
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.json.status, 'completed');
  assert.is(ok.json.endNodeId, 'done');
});

Step('G4: a rejected review answer\'s fix is a command that runs as printed: it keeps the --as given (a wrong count here), or asks for one', async () => {
  const l = await startLoop();
  await produce(l, 'alice');
  writeReport(l, ['one finding']);
  const wrong = await step(l, { issues_count: 0 }, 'carol o\'neil', false);
  assert.is(wrong.code, 5, wrong.stderr);
  assert.match(wrong.stderr, new RegExp(`fix: answer node "review" again, fixing what is listed: \`countersign step ${l.runId} --seq \\d+ --as 'carol o'\\\\''neil' --response …\``));
  const right = await step(l, { issues_count: 1 }, "carol o'neil");
  assert.is(right.code, 0, right.stderr);
});

Step('G4/G11: whoever fixed the artifacts may not review them either; a third identity may', async () => {
  const l = await startLoop();
  await produce(l, 'alice');
  writeReport(l, ['heading "A" has no body']);
  const first = await step(l, { issues_count: 1 }, 'carol');
  assert.is(first.code, 0, first.stderr);
  assert.is(first.json.pending.nodeId, 'fix');
  writeFileSync(join(l.ws, ARTIFACT), '# A\nbody\n');
  const fixed = await step(l, {}, 'bob');
  assert.is(fixed.code, 0, fixed.stderr);
  assert.is(fixed.json.pending.iteration, 2);
  writeReport(l, []);
  for (const author of ['bob', 'alice']) {
    const r = await step(l, { issues_count: 0 }, author);
    assert.is(r.code, 5, `${author}: ${r.stderr}`);
    assert.is(r.json.rejected.code, 'E_SELF_REVIEW', author);
    assert.is(r.json.pending.attempt, 1, author);
    writeReport(l, []);
  }
  const ok = await step(l, { issues_count: 0 }, 'carol');
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(ok.json.output, { issues_count: 0 });
});

Step('G4/G28/G30: the human output of a waiting review shows the fixed prompt, the report path and a step command with --as', async () => {
  const l = await startLoop();
  writeFileSync(join(l.ws, ARTIFACT), '# A\n');
  const stepped = await step(l, {}, 'alice', false);
  assert.is(stepped.code, 0, stepped.stderr);
  const shown = await cli(['status', l.runId], { store: l.store });
  assert.is(shown.code, 0, shown.stderr);
  const seq = (await status(l)).seq;
  for (const out of [stepped.stdout, shown.stdout]) {
    assert.match(out, `waiting at "review" — seq ${seq}, review 1, attempt 1 of 4, for role "reviewer"`);
    assert.match(out, 'YOU ARE reviewer. Your assessment determines if we proceed.');
    assert.match(out, join(l.ws, ARTIFACT));
    assert.match(out, CRITERION);
    assert.match(out, `report file: ${join(l.ws, REPORT)}`);
    assert.match(out, `countersign step ${l.runId} --seq ${seq} --as <reviewer identity> --response '{"issues_count": N}'`);
    assert.not.match(out, 'done when:');
  }
});

// A directive inside a review loop is answered only with --as (E_IDENTITY_REQUIRED
// otherwise), so a printed hint without --as would fail when followed.
Step('G4: the human output of a waiting directive inside a review loop hints --as, so the printed command works', async () => {
  const ws = tempDir('countersign-review-ws-');
  const store = tempDir('countersign-review-store-');
  const s = await cli(['start', writeWorkflow(ws, reviewLoop()), '--workspace', ws], { store });
  assert.is(s.code, 0, s.stderr);
  const hint = /answer with: (countersign step .*)$/m.exec(s.stdout)?.[1];
  assert.ok(hint, s.stdout);
  assert.match(hint, '--as ', `the printed command omits --as: ${hint}`);
});

// A blank identity names nobody, so it cannot be checked against who produced the
// artifacts; `run` refuses blank ids with a usage error in the same way.
Step('G4: an empty or blank --as in a review loop is refused as no identity: a usage error (exit 2) that leaves seq and journal unchanged', async () => {
  const l = await startLoop();
  writeFileSync(join(l.ws, ARTIFACT), '# A\n');
  for (const blank of ['', '   ']) {
    const before = await status(l);
    const events = await journalLength(l);
    const r = await cli(['step', l.runId, '--response', '{}', '--as', blank, '--json'], { store: l.store });
    assert.is(r.code, 2, `--as ${JSON.stringify(blank)} was taken as an identity: the run moved on to "${r.json.pending?.nodeId ?? r.json.status}"`);
    assert.ok(['E_IDENTITY_REQUIRED', 'E_USAGE'].includes(r.json.error.code), r.json.error.code);
    assert.is((await status(l)).seq, before.seq);
    assert.is(await journalLength(l), events);
  }
});

Step('G4: the fix for a blank --as asks only for a non-empty identity, never to leave --as out (in a review loop that is E_IDENTITY_REQUIRED too)', async () => {
  const l = await startLoop();
  const r = await cli(['step', l.runId, '--response', '{}', '--as', '  ', '--json'], { store: l.store });
  assert.is(r.json.error.code, 'E_IDENTITY_REQUIRED');
  assert.match(r.json.error.fix, '--as <identity>');
  assert.not.match(r.json.error.fix, 'leave it out');
  const without = await cli(['step', l.runId, '--response', '{}', '--json'], { store: l.store });
  assert.is(without.json.error.code, 'E_IDENTITY_REQUIRED', 'leaving --as out is refused in a review loop');
});

Step.run();
