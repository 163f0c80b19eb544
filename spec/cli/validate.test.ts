import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers/cli.js';

const Validate = suite('cli validate');

Validate('every shipped workflow validates with exit 0, without warnings', async () => {
  const shipped = readdirSync('workflows').sort().map((name) => `workflows/${name}`);
  assert.ok(shipped.length >= 6, shipped.join(', '));
  const r = await cli(['validate', '--json', ...shipped]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as { files: { file: string; ok: boolean; errors: unknown[]; warnings: unknown[] }[] };
  assert.equal(report.files.map((f) => f.file), shipped);
  for (const f of report.files) {
    assert.ok(f.ok, `${f.file}: ${JSON.stringify(f.errors)}`);
    assert.equal(f.warnings, [], f.file);
  }
  const human = await cli(['validate', ...shipped]);
  assert.is(human.code, 0);
  assert.is(human.stdout, '');
  for (const file of shipped) assert.ok(human.stderr.includes(`${file}: ok`), human.stderr);
});

Validate('human output is one line per finding: file:line:col error CODE message; exit 1', async () => {
  const dir = tempDir();
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, [
    'metadata: { name: bad, version: 1.0.0, description: d }',
    'nodes:',
    '  - { type: start, id: start, connections: { default: ask } }',
    '  - type: agent-directive',
    '    id: ask',
    '    directive: "Review {{artefact}}"',
    '    completionCondition: ok',
    '    connections: { success: done }',
    '  - { type: end, id: done }',
    '',
  ].join('\n'));
  const r = await cli(['validate', file]);
  assert.is(r.code, 1);
  const lines = r.stdout.trim().split('\n');
  assert.is(lines.length, 1);
  assert.match(lines[0], new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:\\d+ error E_UNDECLARED_VARIABLE `));
});

Validate('--json prints exactly one document {files: [{file, ok, errors, warnings}]} and findings carry pointer, line and col', async () => {
  const dir = tempDir();
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{\n  "metadata": {"name": "b", "version": "1.0.0", "description": "d"},\n  "nodes": [\n    {"type": "start", "id": "start", "connections": {"default": "done"}},\n    {"type": "end", "id": "done", "colour": "red"}\n  ]\n}\n');
  const r = await cli(['validate', bad, 'workflows/review-fix-loop.json', '--json']);
  assert.is(r.code, 1);
  assert.equal(Object.keys(r.json), ['files']);
  const [first, second] = r.json.files;
  assert.is(first.file, bad);
  assert.is(first.ok, false);
  assert.equal(first.errors, [{ code: 'E_UNKNOWN_KEY', message: first.errors[0].message, pointer: '/nodes/1/colour', line: 5, col: 35 }]);
  assert.equal(second.ok, true);
  assert.equal(second.errors, []);
});

Validate('malformed JSON is reported at the syntax error position; a missing file is named with no made-up position (line/col null) and makes the exit 2, as no files does', async () => {
  const dir = tempDir();
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{\n  "metadata": {"name": "x"\n  "nodes": []\n}\n');
  const r = await cli(['validate', broken, join(dir, 'missing.json'), '--json']);
  assert.is(r.code, 2);
  assert.equal(r.json.files.map((f: any) => [f.errors[0].code, f.errors[0].line, f.errors[0].col]), [['E_PARSE', 3, 3], ['E_FILE_NOT_FOUND', null, null]]);
  // Under --json too the error is said on stderr, as every command says one; stdout keeps its one document.
  assert.match(r.stderr, /^countersign: E_FILE_NOT_FOUND: file not found: .*missing\.json\n {2}fix: check the path/m);
  const human = await cli(['validate', broken, dir]);
  assert.is(human.code, 2);
  assert.match(human.stdout, new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: error E_FILE_NOT_FOUND .* is a directory`, 'm'));
  // And said on stderr as every command says an error: countersign: CODE: message, then the fix.
  const gone = await cli(['validate', join(dir, 'missing.json')]);
  assert.match(gone.stderr, /^countersign: E_FILE_NOT_FOUND: file not found: .*missing\.json\n  fix: check the path/m);
  const onlyInvalid = await cli(['validate', broken]);
  assert.is(onlyInvalid.code, 1, 'a file that was read and is invalid is still exit 1');
  const none = await cli(['validate']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /countersign: E_USAGE: /);
});

Validate.run();
