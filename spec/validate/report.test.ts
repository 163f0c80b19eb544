/**
 * Validation output: one `file:line:col severity CODE message` line per
 * finding for people and editors, and the documented `{files: [...]}`
 * document for `--json`.
 */
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatHuman, formatJson, validateFile, type ValidationReport } from '../../engine/validate/index.js';

const report: ValidationReport = {
  file: 'flows/a.yaml',
  ok: false,
  errors: [
    { code: 'E_DANGLING_CONNECTION', message: 'goes nowhere', pointer: '/nodes/1/connections/success', line: 9, col: 16 },
    { code: 'E_UNKNOWN_KEY', message: 'unknown key "x"', pointer: '/nodes/2/x', line: 14, col: 5 },
  ],
  warnings: [{ code: 'E_UNREACHABLE', message: 'cannot be reached', pointer: '/nodes/2', line: 12, col: 5 }],
};
const clean: ValidationReport = { file: 'flows/b.json', ok: true, errors: [], warnings: [] };

const test = suite('validation output');

test('human output is one file:line:col severity CODE message line per finding, in file order', () => {
  assert.is(
    formatHuman([report, clean]),
    [
      'flows/a.yaml:9:16 error E_DANGLING_CONNECTION goes nowhere',
      'flows/a.yaml:12:5 warning E_UNREACHABLE cannot be reached',
      'flows/a.yaml:14:5 error E_UNKNOWN_KEY unknown key "x"',
    ].join('\n'),
  );
  assert.is(formatHuman([clean]), '');
});

test('--json output is exactly {files: [{file, ok, errors: [{code, message, pointer, line, col}], warnings}]}', () => {
  const extra = { ...report, errors: report.errors.map((e) => ({ ...e, severity: 'error' })) } as ValidationReport;
  const doc = formatJson([extra, clean]);
  assert.equal(JSON.parse(JSON.stringify(doc)), {
    files: [
      { file: 'flows/a.yaml', ok: false, errors: report.errors, warnings: report.warnings },
      { file: 'flows/b.json', ok: true, errors: [], warnings: [] },
    ],
  });
  assert.equal(Object.keys(doc.files[0].errors[0]), ['code', 'message', 'pointer', 'line', 'col']);
});

test('a real file gives lines an editor can jump to', () => {
  const path = fileURLToPath(new URL('../fixtures/bad/unknown-key.json', import.meta.url));
  const lines = formatHuman([validateFile(path)]).split('\n');
  assert.is(lines.length, 1);
  assert.ok(lines[0].startsWith(`${path}:10:7 error E_UNKNOWN_KEY unknown key "maxRetry"`), lines[0]);
});

test.run();
