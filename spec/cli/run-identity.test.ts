/**
 * `run`'s default identities come from the normalised adapter spec (seed
 * 003 G1/G4, issue 3 §3): two spellings of one adapter are one identity,
 * so a script cannot pass its own review by writing its path twice.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, ROOT, tempDir } from '../helpers/cli.js';

const Identity = suite('run: adapter identities');

Identity('G1 G4: --reviewer "scripted: ./both.yaml" is the same identity as --agent scripted:both.yaml — E_SELF_REVIEW, exit 2', async () => {
  const dir = tempDir('countersign-identity-');
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs/api.md'), '# API\n');
  writeFileSync(join(dir, 'both.yaml'), 'produce: [{}]\nreview: [{issues: []}]\n');
  for (const reviewer of ['scripted:both.yaml', 'scripted: both.yaml', 'scripted:./both.yaml', `scripted:${join(dir, 'both.yaml')}`]) {
    const r = await cli(['run', join(ROOT, 'workflows/review-fix-loop.json'), '--agent', 'scripted:both.yaml', '--reviewer', reviewer, '--workspace', dir, '--json'], { cwd: dir, store: join(dir, 'store') });
    assert.is(r.code, 2, `${reviewer}: ${r.stdout}`);
    assert.is(r.json.error.code, 'E_SELF_REVIEW', reviewer);
  }
});

Identity.run();
