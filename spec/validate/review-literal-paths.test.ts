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

test('G8: a report written with a trailing slash is still the artifact it names: E_REPORT_PATH at /report, either way round', () => {
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: notes.md/'])), ['E_REPORT_PATH /nodes/2/report 8:13']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md/]', '    report: notes.md'])), ['E_REPORT_PATH /nodes/2/report 8:13']);
  assert.equal(errorsOf(loop(['    artifacts: [notes.md]', '    report: notes.md.json'])), []);
});

test.run();
