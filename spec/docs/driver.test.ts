/** The test driver's own contract: CI reads its last line. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const Driver = suite('spec driver');

Driver('a suite that fails to load is reported as failed, the rest still run, and the closing line is last', () => {
  // Inside node_modules/.cache so the suites resolve uvu like the real ones.
  const base = join(ROOT, 'node_modules/.cache');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'countersign-driver-'));
  writeFileSync(join(dir, 'broken.test.ts'), "throw new Error('broken at import');\n");
  writeFileSync(join(dir, 'fine.test.ts'), "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('fine', () => assert.ok(true));\ntest.run();\n");
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'spec/run.ts')], {
    cwd: ROOT,
    env: { ...process.env, SPEC_DIR: dir },
    encoding: 'utf8',
  });
  assert.is(r.status, 1);
  assert.match(r.stderr, /FAIL {2}broken\.test\.ts did not load: Error: broken at import/);
  const last = r.stdout.trim().split('\n').pop();
  assert.is(last, '1 passed, 1 failed');
});

Driver.run();
