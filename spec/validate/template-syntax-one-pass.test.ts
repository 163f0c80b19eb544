/**
 * A template syntax error is one finding of its own, never a wall: every
 * malformed {{…}} in the same string is reported, and the well-formed reads
 * around them are still checked, so validation needs one pass.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument, type ValidationReport } from '../../engine/validate/index.js';

const OnePass = suite('template syntax errors in one pass');

function validateYaml(directive: string, completion = 'ok'): ValidationReport {
  const text = [
    'metadata: { name: t, version: 1.0.0, description: d }',
    'variableRegistry:',
    '  items: { type: array, description: i, items: { type: string }, default: [a] }',
    '  idx: { type: integer, description: i, default: 0 }',
    '  flag: { type: boolean, description: f, default: true }',
    'nodes:',
    '  - { type: start, id: start, connections: { default: ask } }',
    '  - type: agent-directive',
    '    id: ask',
    `    directive: ${JSON.stringify(directive)}`,
    `    completionCondition: ${JSON.stringify(completion)}`,
    '    connections: { success: done }',
    '  - { type: end, id: done }',
  ].join('\n');
  return validateDocument(parseSource(`${text}\n`, 't.yaml'));
}

/** `code line:col` of each finding about templates, in file order. */
const found = (r: ValidationReport) => r.errors.filter((e) => e.code === 'E_TEMPLATE_SYNTAX' || e.code === 'E_UNDECLARED_VARIABLE').map((e) => `${e.code} ${e.line}:${e.col}`).sort();

OnePass('each malformed tag is its own finding, and undeclared reads before, between and after them are reported in the same pass', () => {
  const directive = "{{cnt}} {{items[ idx ]}} {{items['a']}} {{cnt2}}";
  const completion = '{{cnt3}} {{#if}}x{{/if}}';
  const report = validateYaml(directive, completion);
  // 1-based columns: the string's text starts after `    directive: "` (16 characters), `    completionCondition: "` (26).
  const colD = (needle: string) => 17 + directive.indexOf(needle);
  const colC = (needle: string) => 27 + completion.indexOf(needle);
  assert.equal(found(report), [
    `E_TEMPLATE_SYNTAX 10:${colD('[ idx ]') + 1}`, // the space the path may not hold
    `E_TEMPLATE_SYNTAX 10:${colD("'a'")}`, // the quote
    `E_TEMPLATE_SYNTAX 11:${colC('#if}}')}`,
    `E_UNDECLARED_VARIABLE 10:${colD('cnt}}')}`,
    `E_UNDECLARED_VARIABLE 10:${colD('cnt2')}`,
    `E_UNDECLARED_VARIABLE 11:${colC('cnt3')}`,
  ].sort());
});

OnePass('a broken block tag still opens its block: its close is no second finding, and what the block reads is checked', () => {
  const report = validateYaml('{{#if items[ idx ]}}{{nope}}{{/if}} {{#each items[}}{{this}}{{/each}} {{#frob flag}}x{{/frob}} {{also}}');
  const codes = report.errors.filter((e) => e.code === 'E_TEMPLATE_SYNTAX' || e.code === 'E_UNDECLARED_VARIABLE').map((e) => e.code);
  assert.equal(codes.filter((c) => c === 'E_TEMPLATE_SYNTAX').length, 3, JSON.stringify(report.errors.map((e) => e.message)));
  assert.equal(codes.filter((c) => c === 'E_UNDECLARED_VARIABLE').length, 2, JSON.stringify(report.errors.map((e) => e.message)));
  assert.ok(!report.errors.some((e) => /closes no open block|does not match/.test(e.message)), 'no finding for the close of a broken block');
});

OnePass('an unclosed block and a stray close are each one finding; the reads around them are still checked', () => {
  const report = validateYaml('{{/if}} {{#if flag}}{{missing1}} {{missing2}}');
  const messages = report.errors.map((e) => `${e.code} ${e.message}`);
  assert.ok(messages.some((m) => /E_TEMPLATE_SYNTAX .*closes no open block/.test(m)), messages.join('\n'));
  assert.ok(messages.some((m) => /E_TEMPLATE_SYNTAX .*unclosed "\{\{#if flag\}\}"/.test(m)), messages.join('\n'));
  assert.is(messages.filter((m) => m.startsWith('E_UNDECLARED_VARIABLE')).length, 2, messages.join('\n'));
});

OnePass.run();
