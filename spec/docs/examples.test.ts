import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, cli, spawnCli, tempDir } from '../helpers/cli.js';

const Examples = suite('examples');

Examples('seed 003 G7 G8: examples/embed.ts runs as documented in README and completes the review loop', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/embed.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.is(result.status, 'completed');
  assert.equal(result.endNodeId, 'done');
  assert.is(result.output.issues_count, 0);
  // The reviewer's second report holds no findings; the first (2 findings) was kept as .prev (G8).
  assert.equal(JSON.parse(readFileSync(result.output['review.report'], 'utf8')), { issues: [] });
  assert.is(JSON.parse(readFileSync(`${result.output['review.report']}.prev`, 'utf8')).issues.length, 2);
  assert.match(r.stderr, /→ produce \(seq 1\)\n→ review \(seq 2\)\n→ fix \(seq 3\)\n→ review \(seq 4\)/);
});

Examples.run();

/* ------------------------------------------------------------------ */
/* examples/review-loop: `npm start` (issue 3, seed 003 G7–G14)        */
/* ------------------------------------------------------------------ */

const EXAMPLE = join(ROOT, 'examples/review-loop');
const PRODUCER = join(EXAMPLE, 'producer.mjs');
const REVIEWER = join(EXAMPLE, 'reviewer.mjs');
const INPUT = JSON.stringify({ artifact_path: 'docs/api.md', context_path: 'lib' });
const CRITERIA = (JSON.parse(readFileSync(join(ROOT, 'workflows/review-fix-loop.json'), 'utf8')) as { nodes: Array<{ id: string; criteria?: string[] }> })
  .nodes.find((n) => n.id === 'review')!.criteria!;

/** A fresh copy of the example's committed workspace (only lib/: everything else there is generated). */
function workspaceCopy(): string {
  const ws = tempDir('countersign-review-loop-');
  cpSync(join(EXAMPLE, 'workspace/lib'), join(ws, 'lib'), { recursive: true });
  return ws;
}

/** `countersign run` on the shipped loop with the example's agents, as a user runs it (real launcher, own process). */
function runExample(ws: string, store: string) {
  const r = spawnCli(
    ['run', 'workflows/review-fix-loop.json', '--agent', `exec:node "${PRODUCER}"`, '--reviewer', `exec:node "${REVIEWER}"`, '--workspace', ws, '--input', INPUT, '--json'],
    { env: { COUNTERSIGN_STORE: store } },
  );
  return { ...r, json: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
}

async function reviewCounts(runId: string, store: string): Promise<{ counts: number[]; reviewers: string[]; fixers: string[] }> {
  const t = await cli(['trace', runId, '--json'], { store });
  assert.is(t.code, 0, t.stderr);
  const events = t.json.events as Array<Record<string, unknown>>;
  return {
    counts: events.filter((e) => e.type === 'review.accepted').map((e) => e.issues_count as number),
    reviewers: events.filter((e) => e.type === 'answer.accepted' && e.nodeId === 'review').map((e) => e.userId as string),
    fixers: events.filter((e) => e.type === 'answer.accepted' && e.nodeId !== 'review').map((e) => e.userId as string),
  };
}

/** Runs one example agent script on a request, in `ws`, as the exec adapter does. */
function agent(script: string, ws: string, request: object): { status: number | null; answer: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, [script], { cwd: ws, input: JSON.stringify(request), encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, answer: r.stdout.trim() ? JSON.parse(r.stdout) : {}, stderr: r.stderr };
}

function reviewRequest(ws: string, report: string, criteria = CRITERIA) {
  return {
    kind: 'review', contract: 'issues', nodeId: 'review', reviewer: 'reviewer', prompt: 'YOU ARE reviewer.',
    artifacts: [join(ws, 'docs/api.md')], criteria, context: [join(ws, 'lib')], report, iteration: 1, attempt: 1, maxRetries: 3,
    inputSchema: {}, runId: 'r', seq: 2,
  };
}

const ReviewLoop = suite('examples/review-loop');

ReviewLoop('seed 003 G1 G7: npm start runs the review-loop example: the shipped loop with a separate exec producer and reviewer on the example workspace', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = pkg.scripts.start;
  assert.match(start, /^node engine\/cli\/countersign\.mjs run workflows\/review-fix-loop\.json /);
  assert.match(start, /--agent "exec:node \.\.\/producer\.mjs"/);
  assert.match(start, /--reviewer "exec:node \.\.\/reviewer\.mjs"/);
  assert.match(start, /--workspace examples\/review-loop\/workspace /);
  const input = /--input '([^']*)'/.exec(start);
  assert.ok(input, start);
  assert.equal(JSON.parse(input![1]), JSON.parse(INPUT));
  // exec commands run in the workspace, so ../ must reach the scripts from there.
  const ws = join(ROOT, 'examples/review-loop/workspace');
  assert.is(resolve(ws, '../producer.mjs'), PRODUCER);
  assert.is(resolve(ws, '../reviewer.mjs'), REVIEWER);
  assert.ok(existsSync(PRODUCER) && existsSync(REVIEWER) && existsSync(join(ws, 'lib/text.mjs')));
});

ReviewLoop('seed 003 G7 G8 G10 G11 G14: the example converges 3 → 1 → 0 through real reviews; the final report is empty and .prev holds the previous findings', async () => {
  const ws = workspaceCopy();
  const store = tempDir();
  const r = runExample(ws, store);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.status, 'completed');
  assert.is(r.json.endNodeId, 'done');
  assert.is(r.json.output.issues_count, 0);
  assert.is(r.json.output.artifact_path, 'docs/api.md');
  const { counts, reviewers, fixers } = await reviewCounts(r.json.runId, store);
  assert.ok(counts.length >= 2, `at least two accepted reviews, got ${counts.join(' → ')}`);
  assert.equal(counts, [3, 1, 0]);
  // G1/G4: every review came from the reviewer's identity (its adapter's), every write and fix from the producer's (`local`, §2's default).
  const idOf = (command: string) => `exec-${createHash('sha256').update(`exec:${command}`).digest('hex').slice(0, 12)}`;
  assert.equal([...new Set(reviewers)], [idOf(`node "${REVIEWER}"`)]);
  assert.equal([...new Set(fixers)], ['local']);
  const report = r.json.output['review.report'] as string;
  assert.ok(report.startsWith(join(ws, '.countersign/reviews/')), report);
  assert.equal(JSON.parse(readFileSync(report, 'utf8')), { issues: [] });
  const prev = JSON.parse(readFileSync(`${report}.prev`, 'utf8')) as { issues: string[] };
  assert.is(prev.issues.length, 1);
  assert.match(prev.issues[0], /^docs\/api\.md:\d+: placeholder "TODO" in the section "wordCount\(text\)"$/);
  const doc = readFileSync(join(ws, 'docs/api.md'), 'utf8');
  assert.match(doc, /^## slugify\(text, separator\)$/m);
  assert.match(doc, /^## wordCount\(text\)$/m);
  assert.not.match(doc, /TODO|FIXME|TBD/);
  // Progress shows each review's count as it happens.
  assert.match(r.stderr, /review 1 of docs\/api\.md: 3 issue\(s\)[\s\S]*review 2 of docs\/api\.md: 1 issue\(s\)[\s\S]*review 3 of docs\/api\.md: 0 issue\(s\)/);
});

ReviewLoop('seed 003 G8: the example runs again in the same workspace with the same result: each run has its own report file and the producer rewrites its draft', () => {
  const ws = workspaceCopy();
  const store = tempDir();
  const first = runExample(ws, store);
  const second = runExample(ws, store);
  assert.is(first.code, 0, first.stderr);
  assert.is(second.code, 0, second.stderr);
  assert.is(second.json.endNodeId, 'done');
  assert.is.not(second.json.runId, first.json.runId);
  assert.match(second.stderr, /review 1 of docs\/api\.md: 3 issue\(s\)/);
  assert.is.not(second.json.output['review.report'], first.json.output['review.report']);
});

ReviewLoop('seed 003 G13 G15 G17: reviewer.mjs is a real checker — it reads the artifact, writes every finding as a flat list and answers the count, without touching the artifact', () => {
  const ws = workspaceCopy();
  mkdirSync(join(ws, 'docs'));
  const doc = '# text\n\nIntro.\n\n## slugify(text)\n\nSlugs.\n\n## truncate(text, max)\n\nFIXME\n\n## shout(text)\n\nLoud.\n\n## Notes\n';
  writeFileSync(join(ws, 'docs/api.md'), doc);
  const report = join(ws, 'report.json');
  const r = agent(REVIEWER, ws, reviewRequest(ws, report));
  assert.is(r.status, 0, r.stderr);
  const issues = (JSON.parse(readFileSync(report, 'utf8')) as { issues: string[] }).issues;
  assert.equal(r.answer, { issues_count: issues.length });
  assert.equal(issues, [
    'docs/api.md: no section for wordCount(text), which lib/text.mjs exports',
    'docs/api.md:5: the heading "slugify(text)" does not match the exported signature slugify(text, separator) in lib/text.mjs',
    'docs/api.md:13: the heading "shout(text)" documents shout(), which no module in the context paths exports',
    'docs/api.md:11: placeholder "FIXME" in the section "truncate(text, max)"',
    'docs/api.md:17: the section "Notes" has no body text',
  ]);
  assert.is(readFileSync(join(ws, 'docs/api.md'), 'utf8'), doc);
  // A document that meets every criterion gives an empty report and 0.
  writeFileSync(join(ws, 'docs/api.md'), '# text\n\nIntro.\n\n## slugify(text, separator)\n\nSlugs.\n\n## truncate(text, max)\n\nCuts.\n\n## wordCount(text)\n\nCounts.\n');
  const clean = agent(REVIEWER, ws, reviewRequest(ws, report));
  assert.equal(clean.answer, { issues_count: 0 });
  assert.equal(JSON.parse(readFileSync(report, 'utf8')), { issues: [] });
});

ReviewLoop('seed 003 G40 (honest reporting): reviewer.mjs declares failure for a criterion it cannot check instead of passing it unchecked', () => {
  const ws = workspaceCopy();
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs/api.md'), '# text\n\nIntro.\n');
  const report = join(ws, 'report.json');
  const r = agent(REVIEWER, ws, reviewRequest(ws, report, [...CRITERIA, 'The prose is friendly']));
  assert.is(r.status, 0, r.stderr);
  assert.match(String(r.answer.$error), /cannot check these criteria: "The prose is friendly"/);
  assert.not.ok(existsSync(report));
});

ReviewLoop('seed 003 G40 (honest reporting): reviewer.mjs declares failure for an artifact directory with no Markdown, or with files it cannot check, instead of passing it with 0 issues', () => {
  const ws = workspaceCopy();
  mkdirSync(join(ws, 'code'));
  writeFileSync(join(ws, 'code/notes.txt'), 'TODO nothing here\n');
  const report = join(ws, 'r.json');
  const request = { ...reviewRequest(ws, report), artifacts: [join(ws, 'code')] };
  const none = agent(REVIEWER, ws, request);
  assert.is(none.status, 0, none.stderr);
  assert.match(String(none.answer.$error), 'holds other files it cannot check: code/notes.txt');
  writeFileSync(join(ws, 'code/api.md'), '# text\n\nIntro.\n');
  assert.match(String(agent(REVIEWER, ws, request).answer.$error), 'code/notes.txt');
  rmSync(join(ws, 'code/notes.txt'));
  rmSync(join(ws, 'code/api.md'));
  assert.match(String(agent(REVIEWER, ws, request).answer.$error), 'holds no Markdown document, so there is nothing to review');
  assert.not.ok(existsSync(report), 'nothing was reviewed, so no report was written');
});

ReviewLoop('seed 003 G11 G12: producer.mjs resolves exactly the findings in the report named by the fix directive, and gives an unchanged_reason when it can act on none', () => {
  const ws = workspaceCopy();
  const directive = (report: string) => `READ the review report.\nArtifact: docs/api.md\nReport file: ${report}\nContext: lib\n`;
  const produced = agent(PRODUCER, ws, { kind: 'directive', nodeId: 'produce', directive: 'Write it.\nArtifact: docs/api.md\nContext: lib\n', attempt: 1 });
  assert.equal(produced.answer, {});
  const draft = readFileSync(join(ws, 'docs/api.md'), 'utf8');
  assert.match(draft, /^## slugify\(text\)$/m);
  assert.match(draft, /TODO/);
  // Only the signature finding is reported: only the signature changes.
  const report = join(ws, 'report.json');
  writeFileSync(report, JSON.stringify({ issues: ['docs/api.md:5: the heading "slugify(text)" does not match the exported signature slugify(text, separator) in lib/text.mjs'] }));
  const fixed = agent(PRODUCER, ws, { kind: 'directive', nodeId: 'fix', directive: directive(report), attempt: 1 });
  assert.equal(fixed.answer, {});
  assert.is(readFileSync(join(ws, 'docs/api.md'), 'utf8'), draft.replace('## slugify(text)\n', '## slugify(text, separator)\n'));
  // A finding it cannot act on leaves the artifact as it is, with the reason.
  writeFileSync(report, JSON.stringify({ issues: ['docs/api.md: the tone is too dry'] }));
  const before = readFileSync(join(ws, 'docs/api.md'), 'utf8');
  const declined = agent(PRODUCER, ws, { kind: 'directive', nodeId: 'fix', directive: directive(report), attempt: 1 });
  assert.match(String(declined.answer.unchanged_reason), /none of the 1 issue\(s\) in report\.json could be acted on: docs\/api\.md: the tone is too dry/);
  assert.is(readFileSync(join(ws, 'docs/api.md'), 'utf8'), before);
});

ReviewLoop('seed 003 G16: examples/review-loop/README.md documents the command and the expected 3 → 1 → 0 convergence', () => {
  const readme = readFileSync(join(EXAMPLE, 'README.md'), 'utf8');
  assert.ok(readme.includes('npm start'));
  assert.ok(readme.includes('3 → 1 → 0'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.ok(readme.includes(pkg.scripts.start), 'the README shows the exact command npm start runs');
});

ReviewLoop.run();
