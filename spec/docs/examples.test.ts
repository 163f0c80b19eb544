import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/cli.js';

const Examples = suite('examples');

Examples('examples/embed.ts runs as documented in README and completes the review loop', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/embed.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.is(result.status, 'completed');
  assert.equal(result.output, { artifact_path: 'src/greet.ts', issues_count: 0, review_round: 2, report_path: '.countersign/reviews/report.md' });
  assert.match(r.stderr, /→ produce \(seq 1\)[\s\S]*→ review \(seq 4\)/);
});

Examples.run();
