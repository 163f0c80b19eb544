/** examples/host/: the embedded-library host drives the shipped review loop to completion with its own agent and reviewer. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const Host = suite('examples/host');

Host('seed 003 G1 G4 G7 G8: examples/host/host.ts runs as its README says and completes the review loop 2 → 0 with a reviewer apart from the producer', () => {
  const readme = readFileSync(join(ROOT, 'examples/host/README.md'), 'utf8');
  assert.ok(readme.includes('npx tsx examples/host/host.ts --keep'), 'the README says how to keep the workspace');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/host/host.ts', '--keep'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const state = JSON.parse(r.stdout);
  const kept = /workspace kept at (\S+) /.exec(r.stderr)?.[1];
  assert.ok(kept && existsSync(kept), 'with --keep the workspace is kept and named');
  try {
    assert.is(state.status, 'completed');
    assert.is(state.endNodeId, 'done');
    assert.is(state.output.issues_count, 0);
    assert.ok(state.output['review.report'].startsWith(kept!), 'the report is in the kept workspace');
    assert.equal(JSON.parse(readFileSync(state.output['review.report'], 'utf8')), { issues: [] });
    assert.is(JSON.parse(readFileSync(`${state.output['review.report']}.prev`, 'utf8')).issues.length, 2);
    assert.match(r.stderr, /→ produce \(seq 1, directive\)\n→ review \(seq 2, review\)\n→ fix \(seq 3, directive\)\n {2}agent fixes 2 issue\(s\) from the report\n→ review \(seq 4, review\)/);
  } finally {
    rmSync(kept!, { recursive: true, force: true });
  }
});

Host('examples/host/host.ts removes its temporary workspace and store when it ends, as its README says', () => {
  const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('countersign-host-')));
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/host/host.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const state = JSON.parse(r.stdout);
  assert.is(state.status, 'completed');
  assert.not.ok(existsSync(state.output['review.report']), 'the workspace is gone');
  const left = readdirSync(tmpdir()).filter((n) => n.startsWith('countersign-host-') && !before.has(n));
  assert.equal(left, [], 'no countersign-host-* folder is left behind');
});

Host.run();
