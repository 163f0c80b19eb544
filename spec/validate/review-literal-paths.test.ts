/**
 * Literal delegate-review fields that can never work are refused by
 * `validate`, at their position, instead of by every run (issue 3 "Paths",
 * §1): a blank reviewer role or report, a path holding a control
 * character, and a report that is an artifact however the path is written.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument } from '../../engine/validate/index.js';

/** Seed 003's loop in YAML; `review` holds the review node's field lines (4-space indented). */
function loop(review: string[]): string {
  return [
    'metadata: { name: t, version: 1.0.0, description: t }',
    'nodes:',
    '  - { type: start, id: start, connections: { default: write } }',
    '  - { type: agent-directive, id: write, agent: author, directive: Write notes.md., completionCondition: written, connections: { success: review } }',
    '  - type: delegate-review',
    '    id: review',
    ...review,
    '    criteria: [Every heading has a body.]',
    '    connections: { success: check, exhausted: done }',
    '  - { type: condition, id: check, condition: { operator: eq, left: { contextPath: issues_count }, right: 0 }, connections: { "true": done, "false": fix } }',
    '  - { type: agent-directive, id: fix, agent: author, directive: Fix., completionCondition: fixed, inputSchema: { type: object, properties: { unchanged_reason: { type: string } } }, connections: { success: review } }',
    '  - { type: end, id: done }',
    '',
  ].join('\n');
}

const errorsOf = (text: string) => validateDocument(parseSource(text, 'w.yaml')).errors.map((f) => `${f.code} ${f.pointer} ${f.line}:${f.col}`);
const messagesOf = (text: string) => validateDocument(parseSource(text, 'w.yaml')).errors.map((f) => f.message);

const test = suite('delegate-review literal fields refused by validate');

test('G8: a literal path that leaves the workspace is E_PATH_OUTSIDE_WORKSPACE, read with the platform\'s separators as the run reads it: on POSIX "..\\\\notes.md" is a file name inside the workspace, and validate accepts it as the run does', () => {
  assert.equal(errorsOf(loop(['    reviewer: checker', '    artifacts: [../notes.md]'])).map((e) => e.split(' ')[0]), ['E_PATH_OUTSIDE_WORKSPACE']);
  const backslashed = errorsOf(loop(['    reviewer: checker', "    artifacts: ['..\\notes.md']"]));
  assert.equal(backslashed.map((e) => e.split(' ')[0]), process.platform === 'win32' ? ['E_PATH_OUTSIDE_WORKSPACE'] : []);
});

test('G28: a blank reviewer role is E_SCHEMA at /reviewer, as a blank artifact is (the prompt would read "YOU ARE    .")', () => {
  assert.equal(errorsOf(loop(['    reviewer: "   "', '    artifacts: [notes.md]'])), ['E_SCHEMA /nodes/2/reviewer 7:15']);
  assert.equal(errorsOf(loop(['    reviewer: checker', '    artifacts: [notes.md]'])), []);
});

test('G8 (issue 3 Paths): a blank report is E_SCHEMA at /report instead of E_PATH_EMPTY on every run', () => {
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: "   "'])), ['E_SCHEMA /nodes/2/report 8:13']);
});

test('G31 (issue 3 Paths): a literal path holding a line break is E_PATH_INVALID at the character, for artifacts, context and report', () => {
  assert.equal(errorsOf(loop(['    artifacts: ["notes.md\\n"]'])), ['E_PATH_INVALID /nodes/2/artifacts/0 7:26']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    context: ["lib\\tsrc"]'])), ['E_PATH_INVALID /nodes/2/context/0 8:19']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: "r.json\\r"'])), ['E_PATH_INVALID /nodes/2/report 8:20']);
  assert.match(messagesOf(loop(['    artifacts: ["notes.md\\n"]']))[0], 'holds a line break or another control character');
});

test('G31: a control character in the literal text around a template is refused; a plain templated path is not', () => {
  assert.equal(errorsOf(loop(['    artifacts: ["docs/{{executionId}}\\n"]'])).map((e) => e.split(' ')[0]), ['E_PATH_INVALID']);
  assert.equal(errorsOf(loop(['    artifacts: ["docs/{{executionId}}"]'])).filter((e) => e.startsWith('E_PATH_INVALID')), []);
});

test('G8: a report that is the workspace folder itself ("." or "./") is E_REPORT_PATH at /report: no report file can be written there', () => {
  for (const report of ['.', './']) {
    assert.equal(errorsOf(loop(['    artifacts: [notes.md]', `    report: "${report}"`])), ['E_REPORT_PATH /nodes/2/report 8:13'], report);
    assert.match(messagesOf(loop(['    artifacts: [notes.md]', `    report: "${report}"`]))[0], 'the workspace folder itself');
  }
});

test('G8: a report written with a trailing slash is still the artifact it names: E_REPORT_PATH at /report, either way round', () => {
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: notes.md/'])), ['E_REPORT_PATH /nodes/2/report 8:13']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md/]', '    report: notes.md'])), ['E_REPORT_PATH /nodes/2/report 8:13']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: notes.md.json'])), []);
});

test('G8: a report that is a folder holding an artifact or context path can never be a file: E_REPORT_PATH at /report; a report inside an artifact folder is fine', () => {
  assert.equal(errorsOf(loop(['    artifacts: [docs/api.md]', '    report: docs'])), ['E_REPORT_PATH /nodes/2/report 8:13']);
  assert.match(messagesOf(loop(['    artifacts: [docs/api.md]', '    report: ./docs/']))[0], 'is a folder holding the artifact "docs/api.md" under review');
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    context: [lib/a.js]', '    report: lib'])), ['E_REPORT_PATH /nodes/2/report 9:13']);
  assert.equal(errorsOf(loop(['    artifacts: [docs]', '    report: docs/review.json'])), []);
  assert.equal(errorsOf(loop(['    artifacts: [docs/api.md]', '    report: docs.json'])), [], 'a name that merely starts the same is another file');
});

test('G8: a report over another review\'s literal artifact or context path is refused too (entering the second review would move the first one\'s approved file aside)', () => {
  const second = (report: string) => loop(['    artifacts: [notes.md]']).replace(
    '  - { type: end, id: done }',
    `  - { type: delegate-review, id: review2, artifacts: [lib/a.js], context: [docs/spec.md], report: ${report}, criteria: [Correct.], connections: { success: done, exhausted: done } }\n  - { type: end, id: done }`,
  );
  // (The second review is not routed through a loop: only its report is looked at here.)
  const reportErrors = (text: string) => errorsOf(text).filter((e) => e.startsWith('E_REPORT_PATH'));
  assert.equal(reportErrors(second('notes.md')), ['E_REPORT_PATH /nodes/5/report 12:99']);
  assert.match(messagesOf(second('notes.md'))[0], 'is review "review"\'s artifact "notes.md"');
  assert.equal(reportErrors(second('docs/spec.md')), ['E_REPORT_PATH /nodes/5/report 12:99'], 'its own context path, as before');
  assert.equal(reportErrors(second('.countersign/reviews/review.json')), [], 'two reviews may share a report path: the engine keeps one slot for the run');
});

test.run();
