/**
 * `countersign validate` on personas: any .md file is a persona wherever it
 * lies (.json, .yaml and .yml stay workflows), with the workflow output
 * style and exit codes (seed B1, F13, F14).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, ROOT, tempDir } from '../helpers/cli.js';

const shipped = readFileSync(join(ROOT, 'agents/reviewer.md'), 'utf8');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const Personas = suite('cli validate personas');

Personas('B1: `countersign validate agents/reviewer.md` checks the shipped persona: exit 0, "ok" on stderr, nothing on stdout', async () => {
  const r = await cli(['validate', 'agents/reviewer.md']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.is(r.stdout, '');
  assert.is(r.stderr, 'agents/reviewer.md: ok\n');
});

Personas('a broken persona: exit 1, one line per finding as file:line:col error CODE message', async () => {
  const file = join(tempDir(), 'reviewer.md');
  writeFileSync(file, shipped.replace('disallowed_tools:', 'disalowed_tools:'));
  const r = await cli(['validate', file]);
  assert.is(r.code, 1);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 2, r.stdout);
  assert.match(lines[0], new RegExp(`^${escape(file)}:2:1 error E_PERSONA_DENY disallowed_tools lacks "\\*_skill"`));
  assert.match(lines[1], new RegExp(`^${escape(file)}:16:1 error E_UNKNOWN_KEY unknown key "disalowed_tools" in the persona frontmatter — did you mean "disallowed_tools"\\?`));
});

Personas('F13: a renamed reviewer fails validation at the name, line 2 col 7', async () => {
  const file = join(tempDir(), 'reviewer.md');
  writeFileSync(file, shipped.replace('name: reviewer', 'name: approver'));
  const r = await cli(['validate', file]);
  assert.is(r.code, 1);
  assert.match(r.stdout, new RegExp(`^${escape(file)}:2:7 error E_PERSONA_NAME `));
});

Personas('a .md file is a persona wherever it lies (and .MD too); .yaml next to it stays a workflow', async () => {
  const dir = join(tempDir(), 'docs', 'notes');
  mkdirSync(dir, { recursive: true });
  const notes = join(dir, 'README.MD');
  writeFileSync(notes, '# Notes\n\nnot a persona\n');
  const r = await cli(['validate', notes, 'workflows/bugfix.yaml', '--json']);
  assert.is(r.code, 1);
  assert.equal(r.json.files.map((f: any) => [f.ok, f.errors.map((e: any) => [e.code, e.line, e.col])]), [
    [false, [['E_PERSONA', 1, 1]]],
    [true, []],
  ]);
  assert.match(r.json.files[0].errors[0].message, /no YAML frontmatter/);
});

Personas('--json for personas is the workflow document: {files: [{file, ok, errors, warnings}]} with pointer, line and col', async () => {
  const file = join(tempDir(), 'reviewer.md');
  writeFileSync(file, shipped.replace('  - get_sop_text ', '  - execute_skill\n  - get_sop_text '));
  const r = await cli(['validate', file, 'agents/reviewer.md', '--json']);
  assert.is(r.code, 0, 'a warning alone does not fail validation');
  assert.equal(r.json.files[0], {
    file, ok: true, errors: [],
    warnings: [{ code: 'E_PERSONA_TOOL_DENIED', message: r.json.files[0].warnings[0].message, pointer: '/tools/4', line: 14, col: 5 }],
  });
  assert.equal(r.json.files[1], { file: 'agents/reviewer.md', ok: true, errors: [], warnings: [] });
});

Personas('a missing persona file and malformed YAML are one finding each, exit 2 (a missing file is a usage error)', async () => {
  const dir = tempDir();
  const bad = join(dir, 'bad.md');
  writeFileSync(bad, '---\nname: bad\ndisallowed_tools:\n  - *_skill\n---\n');
  const r = await cli(['validate', bad, join(dir, 'missing.md')]);
  assert.is(r.code, 2, 'a missing file is a usage error, as in every other command');
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], new RegExp(`^${escape(bad)}:4:5 error E_PARSE .*quote it: - "\\*_skill"`));
  assert.match(lines[1], /missing\.md: error E_FILE_NOT_FOUND persona file not found/, 'no made-up 0:0 position');
});

Personas.run();
