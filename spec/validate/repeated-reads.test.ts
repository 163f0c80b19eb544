/**
 * An undeclared name read several times in one template or expression is
 * reported at every place it is read, each with its own line:col — as the
 * same reads written as jsonLogic vars are — so fixing the reported one
 * does not uncover the next on the following run. One place is still one
 * finding: `{{items[idx]}}` reads `idx` once, though it lists both the path
 * and its index.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument, type ValidationReport } from '../../engine/validate/index.js';

const Repeats = suite('repeated undeclared reads');

function validateJson(nodes: unknown[]): { report: ValidationReport; lines: string[] } {
  const lines = [
    '{',
    '  "metadata": { "name": "t", "version": "1.0.0", "description": "t" },',
    '  "variableRegistry": { "count": { "type": "integer", "description": "n", "default": 1 }, "items": { "type": "array", "description": "i", "default": [] } },',
    '  "nodes": [',
    ...nodes.map((n, i) => `    ${JSON.stringify(n)}${i < nodes.length - 1 ? ',' : ''}`),
    '  ]',
    '}',
  ];
  return { report: validateDocument(parseSource(lines.join('\n'), 'reads.json')), lines };
}

const start = (next: string) => ({ type: 'start', id: 'start', connections: { default: next } });
const end = { type: 'end', id: 'done' };

/** `line:col` of every occurrence of `needle` on 1-based line `line`. */
function everyPlace(lines: string[], line: number, needle: string): string[] {
  const out: string[] = [];
  for (let at = lines[line - 1].indexOf(needle); at >= 0; at = lines[line - 1].indexOf(needle, at + 1)) out.push(`${line}:${at + 1}`);
  return out;
}

const undeclared = (r: ValidationReport) => r.errors.filter((e) => e.code === 'E_UNDECLARED_VARIABLE').map((e) => `${e.line}:${e.col}`);

Repeats('every template read of an undeclared name is a finding at its own line:col, and so is every read of this outside {{#each}}', () => {
  const { report, lines } = validateJson([
    start('b'),
    { type: 'agent-directive', id: 'b', directive: '{{cnt}} and {{cnt}} and {{cnt.x}} {{this}} {{this.y}}', completionCondition: 'c', connections: { success: 'done' } },
    end,
  ]);
  assert.equal(undeclared(report), [...everyPlace(lines, 6, 'cnt'), ...everyPlace(lines, 6, 'this')]);
  const messages = report.errors.map((e) => e.message);
  assert.match(messages[2], '"{{cnt.x}}" reads "cnt", which is not declared');
  assert.match(messages[4], '"{{this.y}}" is read outside any {{#each}} block');
});

Repeats('every operand of an expression that reads an undeclared name is a finding at its own place, as jsonLogic vars are', () => {
  const { report, lines } = validateJson([
    start('e'),
    { type: 'expression', id: 'e', expressions: ['count = cnt + cnt * cnt'], connections: { default: 'c' } },
    { type: 'condition', id: 'c', condition: { jsonLogic: { and: [{ '==': [{ var: 'cnt' }, 1] }, { '==': [{ var: 'cnt' }, 2] }] } }, connections: { true: 'done', false: 'done' } },
    end,
  ]);
  assert.equal(undeclared(report), [...everyPlace(lines, 6, 'cnt'), ...everyPlace(lines, 7, '"cnt"')]);
});

Repeats('an undeclared index read twice is two findings, each once: {{items[idx]}} lists the path and its index, one place', () => {
  const { report, lines } = validateJson([
    start('b'),
    { type: 'agent-directive', id: 'b', directive: '{{items[idx]}} then {{items[idx]}}', completionCondition: 'c', connections: { success: 'done' } },
    end,
  ]);
  assert.equal(undeclared(report), everyPlace(lines, 6, 'idx'));
  for (const e of report.errors) assert.match(e.message, '"idx"');
});

Repeats.run();
