/** The test driver's own contract: CI reads its last line. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const Driver = suite('spec driver');
const after: string[] = [];
Driver.after(() => {
  for (const dir of after) rmSync(dir, { recursive: true, force: true });
});

Driver('a suite that fails to load is reported as failed, the rest still run, and the closing line is last', () => {
  // Inside the package so the suites resolve uvu like the real ones (not node_modules: the CLI bundle watches it); removed after.
  const dir = mkdtempSync(join(ROOT, '.spec-driver-'));
  after.push(dir);
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

Driver('a failing before hook fails the run (exit 1) naming the suite; a failing after hook is shown, and later suites still run to the closing line', () => {
  const dir = mkdtempSync(join(ROOT, '.spec-driver-'));
  after.push(dir);
  const suiteWith = (hook: string) => `import { suite } from 'uvu';\nimport * as assert from 'uvu/assert';\nconst S = suite('${hook}');\nS.${hook}(() => { throw new Error('${hook} broke'); });\nS('a', () => assert.ok(true));\nS('b', () => assert.ok(true));\nS.run();\n`;
  writeFileSync(join(dir, 'a-before.test.ts'), suiteWith('before'));
  writeFileSync(join(dir, 'b-after.test.ts'), suiteWith('after'));
  writeFileSync(join(dir, 'c-fine.test.ts'), "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('fine', () => assert.ok(true));\ntest.run();\n");
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'spec/run.ts')], { cwd: ROOT, env: { ...process.env, SPEC_DIR: dir }, encoding: 'utf8' });
  assert.is(r.status, 1, 'a suite whose tests never ran fails the run');
  assert.match(r.stderr, /FAIL {2}a-before\.test\.ts: 2 test\(s\) did not run \(a before hook failed\)/);
  assert.match(r.stderr, /FAIL {2}b-after\.test\.ts: a suite hook failed: Error: after broke/);
  assert.match(r.stdout, /fine/);
  assert.match(r.stdout.trim().split('\n').pop() ?? '', /^1 passed, \d+ failed$/);
});

Driver('a filter matching no suite fails (exit 1, saying so) instead of passing with nothing run; a filter written from the repository (spec/…) selects as one under spec/ does', () => {
  const dir = mkdtempSync(join(ROOT, '.spec-driver-'));
  after.push(dir);
  writeFileSync(join(dir, 'fine.test.ts'), "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('fine', () => assert.ok(true));\ntest.run();\n");
  const run = (filter: string) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'spec/run.ts'), filter], { cwd: ROOT, env: { ...process.env, SPEC_DIR: dir }, encoding: 'utf8' });
  const none = run('no/such/suite');
  assert.is(none.status, 1);
  assert.match(none.stderr, 'no suite under spec/ matches "no/such/suite"');
  assert.is(none.stdout.trim().split('\n').pop(), '0 passed, 1 failed');
  const prefixed = run('spec/fine');
  assert.is(prefixed.status, 0, prefixed.stderr);
  assert.is(prefixed.stdout.trim().split('\n').pop(), '1 passed, 0 failed');
});

Driver.run();
