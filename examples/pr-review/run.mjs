#!/usr/bin/env node
// Runs workflows/pr-review.json offline: scripted reviewers, and a stand-in
// `gh` first on PATH that records what would be posted and where. The
// workspace is a throwaway git repository whose origin is
// github.com/acme/widgets, so gh (and the stand-in) post there — the
// repository comes from the workspace, never from a --repo flag (ADR-019).
// `--not-a-repo` runs it from a plain directory instead: the post fails
// loudly: the run fails with E_TOOL_FAILED (gh's own message kept) and
// exit 1, with nothing posted elsewhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const notARepo = process.argv.includes('--not-a-repo');
const work = mkdtempSync(join(tmpdir(), 'countersign-pr-review-'));
const log = join(work, 'gh.log');
const repo = join(work, 'widgets');
try {
  execFileSync('git', ['init', '-q', repo]);
  if (!notARepo) execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git']);
  else rmSync(join(repo, '.git'), { recursive: true, force: true });
  writeFileSync(join(repo, 'pr.diff'), '--- a/src/slugify.js\n+++ b/src/slugify.js\n@@\n-  return s.toLowerCase();\n+  return s.normalize("NFKD").replace(/[^a-z0-9]+/gi, "-").toLowerCase();\n');
  const env = { ...process.env, PATH: `${join(here, 'bin')}${delimiter}${process.env.PATH}`, GH_STANDIN_LOG: log, COUNTERSIGN_STORE: join(work, 'store') };
  const run = spawnSync(process.execPath, [
    join(root, 'engine/cli/countersign.mjs'), 'run', join(root, 'workflows/pr-review.json'),
    '--agent', `scripted:${join(here, 'answers.yaml')}`, '--workspace', repo, '--input', '{"pr_number": 42}', '--json',
  ], { env, encoding: 'utf8' });
  process.stderr.write(run.stderr);
  const result = JSON.parse(run.stdout);
  let calls = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    calls = [];
  }
  for (const call of calls) {
    console.log(`$ gh ${call.argv.join(' ')}    (in ${call.cwd}, repo ${call.repo ?? 'none'}, exit ${call.exit})`);
    if (call.stdin) console.log(call.stdin.replace(/^/gm, '  │ '));
  }
  console.log(result.status === 'failed'
    ? `run failed at "${result.error?.nodeId ?? '-'}": ${result.error?.code}: ${result.error?.message}`
    : `run ${result.status} at "${result.endNodeId ?? '-'}"`);
  const trace = spawnSync(process.execPath, [join(root, 'engine/cli/countersign.mjs'), 'trace', result.runId, '--json'], { env, encoding: 'utf8' });
  for (const e of JSON.parse(trace.stdout).events) {
    if (e.type === 'tool.failed') console.log(`tool.failed ${e.tool}: ${e.code}: ${e.message}`);
  }
  if (result.output?.['status.result']) console.log(`pr_status: ${JSON.stringify(result.output['status.result'])}`);
  process.exitCode = run.status ?? 1;
} finally {
  if (!process.argv.includes('--keep')) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
