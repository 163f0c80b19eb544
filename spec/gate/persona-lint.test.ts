/**
 * The persona lint (seed F13, F14, B4, B5, B16): what no persona edit may
 * drop, reported as findings with JSON pointers into the frontmatter, and
 * `validatePersonaFile` locating them at line:col.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPersona, parsePersona } from '../../engine/gate/persona.js';
import { lintPersona, personaLintProblems, REQUIRED_DISALLOWED_TOOLS, validatePersonaFile } from '../../engine/gate/persona-lint.js';
import { ROOT, tempDir } from '../helpers/cli.js';

import { thrownWithCode } from '../helpers/errors.js';
const REVIEWER = join(ROOT, 'agents/reviewer.md');
const shipped = readFileSync(REVIEWER, 'utf8');
const codes = (findings: Array<{ code: string }>) => findings.map((f) => f.code);

const Lint = suite('persona lint');

Lint('the shipped reviewer has no lint findings', () => {
  assert.equal(lintPersona(loadPersona(REVIEWER)), []);
});

Lint('a description holding a line break is E_PERSONA ("it is one line"), as the schema says; a blank one is said as blank', () => {
  const broken = shipped.replace(/^description: .*$/m, 'description: |\n  first line\n  second line');
  const e = thrownWithCode(() => parsePersona(broken, 'agents/reviewer.md'), 'E_PERSONA');
  assert.match(e.message, 'description holds a line break; it is one line');
  assert.match(thrownWithCode(() => parsePersona(shipped.replace(/^description: .*$/m, 'description: "   "'), 'agents/reviewer.md'), 'E_PERSONA').message, 'is blank');
});

Lint('a one-line description written as a block scalar ("description: >" or "|", YAML adds the final line break) is that line, not a description holding a line break', () => {
  for (const style of ['>', '|']) {
    const folded = shipped.replace(/^description: .*$/m, `description: ${style}\n  reviews proposals before they run`);
    assert.is(parsePersona(folded, 'agents/reviewer.md').description, 'reviews proposals before they run', style);
  }
});

Lint('F14: the required deny entries are *_skill, run_shell, execute_skill, host_restart_service, kill_process', () => {
  assert.equal([...REQUIRED_DISALLOWED_TOOLS], ['*_skill', 'run_shell', 'execute_skill', 'host_restart_service', 'kill_process']);
});

// execute_skill is also denied by the *_skill wildcard: dropping it alone leaves it denied (next test).
for (const entry of REQUIRED_DISALLOWED_TOOLS.filter((e) => e !== 'execute_skill')) {
  Lint(`F14: a reviewer whose disallowed_tools drops "${entry}" is an E_PERSONA_DENY error naming it`, () => {
    const line = entry.startsWith('*') ? `  - "${entry}"` : `  - ${entry}`;
    const text = shipped.replace(new RegExp(`\\n${line.replace(/[*"]/g, '\\$&')} *(#[^\\n]*)?(?=\\n)`), '');
    assert.is.not(text, shipped, 'the entry was removed');
    const findings = lintPersona(parsePersona(text, 'agents/reviewer.md'));
    assert.equal(codes(findings), ['E_PERSONA_DENY']);
    assert.is(findings[0].pointer, '/disallowed_tools');
    assert.is(findings[0].severity, 'error');
    assert.ok(findings[0].message.includes(`lacks "${entry}"`), findings[0].message);
  });
}

Lint('F14: listing execute_skill does not stand in for the *_skill wildcard', () => {
  const findings = personaLintProblems({ name: 'reviewer', max_turns: 5, permission_mode: 'read-only', disallowed_tools: ['run_shell', 'execute_skill', 'host_restart_service', 'kill_process', 'x_skill'] }, 'reviewer.md');
  assert.equal(codes(findings), ['E_PERSONA_DENY']);
  assert.match(findings[0].message, /lacks "\*_skill":/);
});

Lint('F14: a broader deny pattern covers a required entry: "*" (deny everything), "execute_*", "*_service", "kill_*", or *_skill for execute_skill, need no literal entries', () => {
  for (const deny of [['*'], ['*_skill', 'run_shell', 'execute_*', '*_service', 'kill_*'], ['*_skill', 'run_shell', 'host_restart_service', 'kill_process']]) {
    const findings = personaLintProblems({ name: 'reviewer', max_turns: 5, permission_mode: 'read-only', disallowed_tools: deny }, 'reviewer.md');
    assert.equal(codes(findings), [], deny.join(','));
  }
});

Lint('F14: a persona with no disallowed_tools at all lacks every entry, in one finding at the frontmatter', () => {
  const findings = personaLintProblems({ name: 'reviewer', max_turns: 5, permission_mode: 'read-only' }, 'reviewer.md');
  assert.equal(findings.map((f) => [f.code, f.pointer]), [['E_PERSONA_DENY', '']]);
  assert.match(findings[0].fix, /add - "\*_skill", - run_shell, - execute_skill, - host_restart_service, - kill_process/);
});

Lint('F13: renaming the shipped reviewer is an E_PERSONA_NAME error at /name', () => {
  const findings = lintPersona(parsePersona(shipped.replace('name: reviewer', 'name: approver'), 'agents/reviewer.md'));
  assert.equal(findings.map((f) => [f.code, f.pointer]), [['E_PERSONA_NAME', '/name']]);
  assert.match(findings[0].message, /named "approver" but its file is reviewer\.md/);
  assert.match(findings[0].message, /write name: reviewer/);
});

Lint('F13: a persona with no name is the one schema problem the gate reports, never also "named undefined"', () => {
  const e = thrownWithCode(() => parsePersona(shipped.replace(/^name: reviewer\n/m, ''), 'agents/reviewer.md', { name: 'reviewer' }), 'E_PERSONA');
  const problems = (e.data as { problems: Array<{ code: string; message: string }> }).problems;
  assert.equal(problems.map((p) => p.code), ['E_PERSONA']);
  assert.not.match(e.message, 'undefined');
});

Lint('F13: another persona is fine when its name is its file name (a db-specific reviewer)', () => {
  assert.equal(lintPersona(parsePersona(shipped.replace('name: reviewer', 'name: db-reviewer'), 'agents/db-reviewer.md')), []);
});

Lint('an allowlisted tool that the deny list removes is a warning at that tools entry', () => {
  const text = shipped.replace('  - get_sop_text ', '  - execute_skill\n  - lookup_skill\n  - get_sop_text ');
  const findings = lintPersona(parsePersona(text, 'agents/reviewer.md'));
  assert.equal(findings.map((f) => [f.code, f.pointer, f.severity]), [
    ['E_PERSONA_TOOL_DENIED', '/tools/4', 'warning'],
    ['E_PERSONA_TOOL_DENIED', '/tools/5', 'warning'],
  ]);
  assert.match(findings[0].message, /tools lists "execute_skill", but disallowed_tools also lists it/);
  assert.match(findings[1].message, /disallowed_tools entry "\*_skill" denies it/);
});

Lint('a pattern tools entry the deny list removes entirely ("*_skill", "exec_*_skill") is a warning too; one the deny list only narrows ("get_*") is not', () => {
  const text = shipped.replace('  - get_sop_text ', '  - "*_skill"\n  - "exec_*_skill"\n  - "get_*"\n  - get_sop_text ');
  const findings = lintPersona(parsePersona(text, 'agents/reviewer.md'));
  assert.equal(findings.map((f) => [f.code, f.pointer, f.severity]), [
    ['E_PERSONA_TOOL_DENIED', '/tools/4', 'warning'],
    ['E_PERSONA_TOOL_DENIED', '/tools/5', 'warning'],
  ]);
  assert.match(findings[0].message, /every tool the pattern "\*_skill" names/);
});

Lint('B5: a persona without max_turns is an E_PERSONA_MAX_TURNS error', () => {
  const findings = lintPersona(parsePersona(shipped.replace('max_turns: 5\n', ''), 'agents/reviewer.md'));
  assert.equal(codes(findings), ['E_PERSONA_MAX_TURNS']);
});

Lint('B4/B16: a reviewer persona that is not read-only is an E_PERSONA_PERMISSION error', () => {
  const findings = lintPersona(parsePersona(shipped.replace('permission_mode: read-only', 'permission_mode: read-write'), 'agents/reviewer.md'));
  assert.equal(findings.map((f) => [f.code, f.pointer]), [['E_PERSONA_PERMISSION', '/permission_mode']]);
});

Lint('values of the wrong type are left to the schema check: the lint does not throw on them', () => {
  assert.equal(personaLintProblems('not a mapping', 'x.md'), []);
  assert.equal(codes(personaLintProblems({ name: 5, max_turns: 5, permission_mode: 'read-only', disallowed_tools: 'run_shell', tools: 'x' }, 'x.md')), []);
});

Lint.run();

const Validate = suite('validatePersonaFile');

Validate('schema findings and lints come together, sorted by line:col, warnings apart', () => {
  const file = join(tempDir(), 'reviewer.md');
  writeFileSync(file, shipped.replace('name: reviewer', 'name: approver').replace('disallowed_tools:', 'disalowed_tools:').replace('  - get_sop_text ', '  - run_shell\n  - get_sop_text '));
  const report = validatePersonaFile(file);
  assert.is(report.ok, false);
  assert.equal(report.errors.map((f) => [f.code, f.line, f.col]), [
    ['E_PERSONA_DENY', 2, 1],
    ['E_PERSONA_NAME', 2, 7],
    ['E_UNKNOWN_KEY', 17, 1],
  ]);
  assert.equal(report.warnings, []);
  assert.match(report.errors[2].message, /did you mean "disallowed_tools"\? Correct its spelling/);
});

Validate('the shipped reviewer validates with no findings', () => {
  assert.equal(validatePersonaFile(REVIEWER), { file: REVIEWER, ok: true, errors: [], warnings: [] });
});

Validate.run();
