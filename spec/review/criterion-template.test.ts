/**
 * Criteria are literal (issue 3 guarantee 1; seed 003 G30): they are linted
 * as written and never rendered, so `validate` reports a `{{` in one at
 * its exact line:col instead of letting it reach the reviewer unrendered.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, ROOT } from '../helpers/cli.js';

const FIXTURE = join(ROOT, 'spec/fixtures/bad/review-criterion-template.yaml');

const Criteria = suite('review: templates in criteria');

Criteria('G30: countersign validate warns E_CRITERION_TEMPLATE at the "{{" of each templated criterion (quoted and block scalar), exit 0, and passes the literal ones and \\{{', async () => {
  const human = await cli(['validate', FIXTURE]);
  assert.is(human.code, 0, human.stdout + human.stderr);
  const lines = (human.stdout + human.stderr).split('\n').filter((l) => l.includes('E_CRITERION_TEMPLATE'));
  assert.equal(lines.map((l) => l.slice(0, l.indexOf(' warning'))), [`${FIXTURE}:17:19`, `${FIXTURE}:20:15`]);
  const json = await cli(['validate', FIXTURE, '--json']);
  assert.equal(json.json.files[0].errors, []);
  const errors = json.json.files[0].warnings as { code: string; pointer: string; line: number; col: number }[];
  assert.equal(errors.map((e) => `${e.code} ${e.pointer} ${e.line}:${e.col}`), [
    'E_CRITERION_TEMPLATE /nodes/2/criteria/1 17:19',
    'E_CRITERION_TEMPLATE /nodes/2/criteria/2 20:15',
  ]);
});

Criteria('G30: as a template reads it (as Moira does), "{{" right after a backslash is escaped (no warning), however many backslashes come before; any other "{{" is a tag (warned at it)', async () => {
  const { criterionTemplates } = await import('../../engine/nodes/review-static-checks.js');
  const warned = (text: string) => criterionTemplates([text], '/nodes/2').map((f) => f.offset);
  assert.equal(warned('a \\{{x}} b'), [], 'one backslash: escaped');
  assert.equal(warned('a \\\\{{x}} b'), [], 'two: a backslash, then escaped braces');
  assert.equal(warned('a \\\\\\{{x}} b'), [], 'three: two backslashes, then escaped braces');
  assert.equal(warned('a \\ {{x}} b'), [4], 'a backslash not right before the braces escapes nothing');
  assert.equal(warned('\\{{a}} then {{b}}'), [12], 'the first unescaped one');
});

Criteria.run();
