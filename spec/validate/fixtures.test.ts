/**
 * The bad-input suite, data-driven: every workflow file under
 * spec/fixtures/bad/ has a sibling `<file>.expect.json` listing exactly the
 * errors and warnings it must produce — code, pointer and line:col — and
 * a text one message must contain. Good fixtures must validate cleanly, and
 * a workflow written in both JSON and YAML must give the same findings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateFile, type FindingOut, type ValidationReport } from '../../engine/validate/index.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const badDir = join(fixtures, 'bad');
const goodDir = join(fixtures, 'good');

interface Expected {
  code: string;
  pointer: string;
  line: number;
  col: number;
  message?: string;
}

const isWorkflowFile = (name: string) => /\.(json|ya?ml)$/.test(name) && !name.endsWith('.expect.json');
const workflowFiles = (dir: string) => readdirSync(dir).filter(isWorkflowFile).sort();

function compare(kind: string, actual: FindingOut[], expected: Expected[]): void {
  const shape = (f: { code: string; pointer: string; line: number; col: number }) => `${f.code} ${f.pointer} ${f.line}:${f.col}`;
  assert.equal(actual.map(shape), expected.map(shape), `${kind} (code pointer line:col)`);
  expected.forEach((e, i) => {
    if (e.message !== undefined) assert.ok(actual[i].message.includes(e.message), `${kind}[${i}] "${actual[i].message}" should contain "${e.message}"`);
  });
}

const bad = suite('bad workflows are reported with code, pointer and line:col');

const badFiles = workflowFiles(badDir);
for (const name of badFiles) {
  bad(`${name}`, () => {
    const expected = JSON.parse(readFileSync(join(badDir, `${name}.expect.json`), 'utf8')) as { errors: Expected[]; warnings: Expected[] };
    const report = validateFile(join(badDir, name));
    compare('errors', report.errors, expected.errors);
    compare('warnings', report.warnings, expected.warnings);
    assert.is(report.ok, expected.errors.length === 0);
    assert.ok([...expected.errors, ...expected.warnings].some((e) => e.message !== undefined), 'the expectation names message text');
  });
}

bad('every bad fixture has an expectation and fails at least one check', () => {
  assert.ok(badFiles.length >= 20, `only ${badFiles.length} bad fixtures`);
  for (const name of badFiles) {
    const expected = JSON.parse(readFileSync(join(badDir, `${name}.expect.json`), 'utf8')) as { errors: Expected[]; warnings: Expected[] };
    assert.ok(expected.errors.length + expected.warnings.length > 0, `${name} expects no finding`);
  }
});

bad('the suite covers every problem the issue lists', () => {
  const codes = new Set<string>();
  for (const name of badFiles) {
    const expected = JSON.parse(readFileSync(join(badDir, `${name}.expect.json`), 'utf8')) as { errors: Expected[]; warnings: Expected[] };
    for (const e of [...expected.errors, ...expected.warnings]) codes.add(e.code);
  }
  for (const code of [
    'E_PARSE', 'E_UNKNOWN_NODE_TYPE', 'E_UNKNOWN_KEY', 'E_NODE_ID', 'E_DANGLING_CONNECTION', 'E_TRANSIENT_CYCLE',
    'E_UNDECLARED_VARIABLE', 'E_INPUT_SCHEMA', 'E_START_COUNT', 'E_MISSING_CONNECTION', 'E_DUPLICATE_ID',
    'E_GLOBAL_INPUT_UNDECLARED', 'E_EXPRESSION_SYNTAX', 'E_UNKNOWN_CONNECTION', 'E_NO_END', 'E_SCHEMA',
    'E_TEMPLATE_SYNTAX', 'E_UNREACHABLE', 'E_FINAL_OUTPUT_UNRESOLVED', 'E_VARIABLE_NEVER_WRITTEN',
  ]) {
    assert.ok(codes.has(code), `no bad fixture produces ${code}`);
  }
});

bad.run();

const good = suite('good workflows validate cleanly');

for (const name of workflowFiles(goodDir)) {
  good(`${name} has no errors and no warnings`, () => {
    const report = validateFile(join(goodDir, name));
    assert.equal(report.errors, []);
    assert.equal(report.warnings, []);
    assert.ok(report.ok);
  });
}

good.run();

const pairs = suite('a workflow means the same in JSON and YAML');

function twins(dir: string): [string, string][] {
  const files = workflowFiles(dir);
  return files
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, f.replace(/\.json$/, '.yaml')] as [string, string])
    .filter(([, yaml]) => files.includes(yaml));
}

const places = (r: ValidationReport) => ({
  ok: r.ok,
  errors: r.errors.map((f) => `${f.code} ${f.pointer}`),
  warnings: r.warnings.map((f) => `${f.code} ${f.pointer}`),
});

for (const dir of [goodDir, badDir]) {
  for (const [json, yaml] of twins(dir)) {
    pairs(`${json} and ${yaml} hold the same data and give the same findings`, () => {
      const a = parseSource(readFileSync(join(dir, json), 'utf8'), json);
      const b = parseSource(readFileSync(join(dir, yaml), 'utf8'), yaml);
      assert.ok(isDeepStrictEqual(a.data, b.data), 'the two files must hold the same workflow');
      assert.equal(places(validateFile(join(dir, yaml))), places(validateFile(join(dir, json))));
    });
  }
}

pairs('there is at least one valid and one invalid JSON/YAML pair', () => {
  assert.ok(twins(goodDir).length >= 1);
  assert.ok(twins(badDir).length >= 1);
});

pairs.run();
