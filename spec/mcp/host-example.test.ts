/** examples/host/: the embedded-library host drives the shipped review loop to completion with its own agent and reviewer. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const Host = suite('examples/host');

Host('examples/host/host.ts runs as its README says and completes the review loop 2 → 0', () => {
  const readme = readFileSync(join(ROOT, 'examples/host/README.md'), 'utf8');
  assert.ok(readme.includes('npx tsx examples/host/host.ts'), 'the README says how to run it');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/host/host.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const state = JSON.parse(r.stdout);
  assert.is(state.status, 'completed');
  assert.is(state.endNodeId, 'done');
  assert.is(state.output.issues_count, 0);
  assert.equal(JSON.parse(readFileSync(state.output['review.report'], 'utf8')), { issues: [] });
  assert.is(JSON.parse(readFileSync(`${state.output['review.report']}.prev`, 'utf8')).issues.length, 2);
  assert.match(r.stderr, /→ produce \(seq 1, directive\)\n→ review \(seq 2, review\)\n→ fix \(seq 3, directive\)\n {2}agent fixes 2 issue\(s\) from the report\n→ review \(seq 4, review\)/);
});

Host.run();
