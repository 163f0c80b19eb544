/**
 * Persona files (seed B1–B12, B17–B18, F9, F13): agents/reviewer.md carries
 * the seed's frontmatter verbatim, its body states the five steps and the
 * reply format, and every problem in a persona file is refused with the
 * file and the line:col of the offending key or value.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDecision } from '../../engine/review/decision.js';
import { DefaultReviewerAgent, loadPersona, parsePersona, readPersonaSource } from '../../engine/gate/persona.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { thrownWithCode } from '../helpers/errors.js';

const REVIEWER = join(ROOT, 'agents/reviewer.md');
const shipped = readFileSync(REVIEWER, 'utf8');

/** The seed's frontmatter block (000 L57–82), comments and blank lines included. */
const SEED_FRONTMATTER = [
  'name: reviewer',
  'description: SOP 二审 reviewer worker，对 mutating / destructive 提案做静态审查',
  'permission_mode: read-only',
  'max_turns: 5',
  'model: anthropic/claude-opus-4-7   # 关键路径用最强',
  'background: true                   # async: spawn returns immediately',
  '',
  'tools:',
  '  - get_incident_detail',
  '  - get_edge_summary',
  '  - query_promql',
  '  - query_logql',
  '  - get_sop_text                   # planned (HLD-003 PR-D)',
  '',
  'disallowed_tools:',
  '  - "*_skill"                      # wildcard — no skill execution',
  '  - run_shell',
  '  - execute_skill',
  '  - host_restart_service           # explicitly: reviewer cannot itself act',
  '  - kill_process',
  '',
  'critical_reminder: |',
  '  你是高危操作二审 reviewer。reject 是默认选项，approve 必须三条都满足：',
  '    1. 找得到对应 SOP 且明确覆盖此场景',
  '    2. 当前没有并行的同类操作（看告警 / 看运维窗口）',
  '    3. 回滚路径已知',
].join('\n');

/** A valid persona file with `replace` applied to its frontmatter lines. */
function personaText(frontmatter: string[], body = 'Review the proposal.\n'): string {
  return ['---', ...frontmatter, '---', body].join('\n');
}

const MINIMAL = [
  'name: reviewer',
  'description: reviews proposals',
  'permission_mode: read-only',
  'max_turns: 5',
  'model: anthropic/claude-opus-4-7',
  'tools:',
  '  - get_sop_text',
  'disallowed_tools:',
  '  - "*_skill"',
  '  - run_shell',
  '  - execute_skill',
  '  - host_restart_service',
  '  - kill_process',
];

function writePersona(name: string, text: string): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

const Shipped = suite('agents/reviewer.md');

Shipped('B1: the frontmatter of agents/reviewer.md is the seed block verbatim, between two "---" lines', () => {
  assert.fixture(shipped.slice(0, shipped.indexOf('\n---\n') + 5), `---\n${SEED_FRONTMATTER}\n---\n`);
});

Shipped('B1–B12: the frontmatter parses to the seed values (snapshot)', () => {
  assert.equal(readPersonaSource(REVIEWER).frontmatter, {
    name: 'reviewer',
    description: 'SOP 二审 reviewer worker，对 mutating / destructive 提案做静态审查',
    permission_mode: 'read-only',
    max_turns: 5,
    model: 'anthropic/claude-opus-4-7',
    background: true,
    tools: ['get_incident_detail', 'get_edge_summary', 'query_promql', 'query_logql', 'get_sop_text'],
    disallowed_tools: ['*_skill', 'run_shell', 'execute_skill', 'host_restart_service', 'kill_process'],
    critical_reminder:
      '你是高危操作二审 reviewer。reject 是默认选项，approve 必须三条都满足：\n  1. 找得到对应 SOP 且明确覆盖此场景\n  2. 当前没有并行的同类操作（看告警 / 看运维窗口）\n  3. 回滚路径已知\n',
  });
});

Shipped('B2/B17: loadPersona finds the shipped persona by DefaultReviewerAgent = "reviewer"', () => {
  assert.is(DefaultReviewerAgent, 'reviewer');
  const persona = loadPersona(REVIEWER, { name: DefaultReviewerAgent });
  assert.is(persona.name, 'reviewer');
  assert.is(persona.file, REVIEWER);
  assert.is(persona.permission_mode, 'read-only');
  assert.is(persona.max_turns, 5);
  assert.is(persona.background, true);
});

Shipped('B6/C8/C10: the body says 看不清就 reject and that reject is the default', () => {
  const { body } = loadPersona(REVIEWER);
  assert.ok(body.includes('看不清就 reject'));
  assert.match(body, /Reject is the default/);
  assert.match(body, /"Not sure" means reject/);
  assert.not.match(body, /^---/, 'the body starts after the frontmatter');
});

Shipped('C1–C7: the body states the five steps in order, each with its tool, gate name and reject reason', () => {
  const { body } = loadPersona(REVIEWER);
  const steps = ['1. **Find the SOP** (gate `sop`)', '2. **Check the target\'s state** (gate `target_state`)', '3. **Check for parallel operations** (gate `no_parallel`)', '4. **Validate the reason against the alerts**', '5. **Decide**'];
  const at = steps.map((s) => body.indexOf(s));
  assert.ok(at.every((i) => i >= 0), `steps found at ${at}`);
  assert.equal([...at].sort((a, b) => a - b), at, 'in order');
  for (const text of ['get_sop_text(action)', 'get_edge_summary(device_id)', 'query_logql', 'get_incident_detail', '`reason_matches_alerts`', '`rollback_known`',
    '`no SOP for action <X>`', 'less than 5 minutes ago', 'last\n   10 minutes', '`parallel operation detected; wait for <X> to complete`', 'operator may have misread', 'all\n   five gates pass']) {
    assert.ok(body.includes(text), `body lacks ${JSON.stringify(text)}`);
  }
});

Shipped('C9, F5, F6: the body keeps the three-of-three floor (SOP coverage, no parallel operation, rollback known), and names the confirmed force_approve_no_sop as the SOP gate\'s one stand-in in both places it speaks of it', () => {
  const { body } = loadPersona(REVIEWER);
  const floor = body.slice(body.indexOf('Three of them can never be waived'));
  assert.match(floor, /^Three of them can never be waived[^]*?the SOP covers the scenario[^]*?no parallel\s+operation of the same kind runs now, and the rollback path is known/);
  assert.match(floor.slice(0, floor.indexOf('Otherwise reject')), /stand-in is step 1's\s+user-confirmed `force_approve_no_sop`/, 'step 5 does not contradict step 1\'s exception');
  assert.match(body, /The one\s+exception: the proposal carries `force_approve_no_sop: true`/);
});

Shipped('D2–D4: the body states the reply format, and its own example replies parse to the decision they show', () => {
  const { body } = loadPersona(REVIEWER);
  for (const text of ['**Decision: approve**', '**Decision: reject**', '**Gates**', '- ✓ ', '- ✗ ', 'Rollback:', '`SOP-<n>`', '**Notes**', 'included even on approve']) {
    assert.ok(body.includes(text), `body lacks ${text}`);
  }
  const examples = [...body.matchAll(/```\n(\*\*Decision[\s\S]*?)```/g)].map((m) => parseDecision(m[1]));
  assert.equal(examples.map((e) => e.decision), ['approve', 'reject']);
  assert.equal([examples[0].sop_id, examples[0].rollback, examples[0].missing_gates, examples[0].gates.length], ['SOP-007', 'systemctl start nginx', null, 5]);
  assert.equal(examples[1].missing_gates, ['parallel operation detected; wait for restart of nginx by user_7 to complete']);
});

Shipped.run();

const Load = suite('loadPersona');

Load('defaults: no tools, no deny list, no background, no critical_reminder, no max_turns are [] / false / null', () => {
  const p = parsePersona(personaText(['name: x', 'description: d', 'permission_mode: read-only', 'model: m']), 'x.md');
  assert.equal([p.tools, p.disallowed_tools, p.background, p.critical_reminder, p.max_turns], [[], [], false, null, null]);
  assert.is(p.body, 'Review the proposal.\n');
});

Load('an unknown key (a misspelled disallowed_tools) is refused at its line:col with a "did you mean"; the persona never loads', () => {
  const text = personaText([...MINIMAL.slice(0, 7), 'disalowed_tools:', ...MINIMAL.slice(8)]);
  const file = writePersona('reviewer.md', text);
  const e = thrownWithCode(() => loadPersona(file), 'E_UNKNOWN_KEY');
  assert.is(e.file, file);
  assert.equal([e.line, e.col, e.pointer], [9, 1, '/disalowed_tools']);
  assert.match(e.message, /unknown key "disalowed_tools" .*did you mean "disallowed_tools"\?/);
  assert.match(e.fix!, /never ignored/);
});

Load('every frontmatter problem is reported with its position; the first by position is thrown, all are in data.problems', () => {
  const text = personaText(['name: reviewer', 'description: d', 'permission_mode: read-only', 'max_turns: "5"', 'model: m', 'colour: red']);
  const e = thrownWithCode(() => parsePersona(text, 'agents/reviewer.md'), 'E_PERSONA');
  assert.equal([e.file, e.line, e.col, e.pointer], ['agents/reviewer.md', 5, 12, '/max_turns']);
  assert.match(e.message, /max_turns must be an integer, not a string \("5"\)/);
  assert.match(e.fix!, /1 more problem\(s\) in this file: run countersign validate agents\/reviewer\.md/);
  const problems = (e.data as { problems: Array<{ code: string; line: number; col: number }> }).problems;
  assert.equal(problems.map((p) => [p.code, p.line, p.col]), [['E_PERSONA', 5, 12], ['E_UNKNOWN_KEY', 7, 1]]);
});

Load('a missing required field, a bad enum value and a bad tool pattern are E_PERSONA with a fix', () => {
  const noModel = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'permission_mode: read-only']), 'r.md'), 'E_PERSONA');
  assert.match(noModel.message, /has no "model"/);
  assert.match(noModel.fix!, /add "model:".*no fallback/);
  const mode = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'permission_mode: readonly', 'model: m']), 'r.md'), 'E_PERSONA');
  assert.match(mode.message, /permission_mode is "readonly" — did you mean "read-only"\?/);
  assert.equal([mode.line, mode.col], [4, 18]);
  const pattern = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'permission_mode: read-only', 'model: m', 'tools: ["run shell"]']), 'r.md'), 'E_PERSONA');
  assert.match(pattern.message, /tools\[0\] "run shell" is not a valid tool name or pattern/);
});

Load('a persona tool entry holds only characters a tool name can have: ":" is E_PERSONA, not an entry that silently matches nothing', () => {
  for (const key of ['tools', 'disallowed_tools']) {
    const e = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'permission_mode: read-only', 'model: m', `${key}: [get_sop:text]`]), 'r.md'), 'E_PERSONA');
    assert.match(e.message, /"get_sop:text" is not a valid tool name or pattern/);
    assert.ok(!e.fix!.includes('":"'), e.fix);
    assert.match(e.fix!, /"_", "\." and "-"/);
  }
});

Load('a missing file, a file without frontmatter and an unclosed frontmatter are clear errors', () => {
  const missing = thrownWithCode(() => loadPersona(join(tempDir(), 'nope.md')), 'E_FILE_NOT_FOUND');
  assert.match(missing.message, /persona file not found: .*nope\.md/);
  const none = thrownWithCode(() => parsePersona('# Reviewer\n\nno frontmatter\n', 'agents/r.md'), 'E_PERSONA');
  assert.equal([none.file, none.line, none.col], ['agents/r.md', 1, 1]);
  assert.match(none.message, /no YAML frontmatter/);
  assert.match(none.fix!, /start the file with a line "---"/);
  const open = thrownWithCode(() => parsePersona('---\nname: r\nmodel: m\n', 'r.md'), 'E_PERSONA');
  assert.match(open.message, /never closed/);
  const empty = thrownWithCode(() => parsePersona('---\n# nothing\n---\nbody\n', 'r.md'), 'E_PERSONA');
  assert.match(empty.message, /frontmatter is empty/);
});

Load('malformed YAML is E_PARSE at its line:col in the file (not in the frontmatter alone)', () => {
  const bad = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'tools: [a, b', 'model: m']), 'r.md'), 'E_PARSE');
  assert.is(bad.file, 'r.md');
  assert.ok(bad.line! >= 4, `line ${bad.line}`);
  const dup = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'name: s']), 'r.md'), 'E_PARSE');
  assert.equal([dup.line, dup.col], [4, 1]);
  assert.match(dup.message, /duplicate key "name"/);
});

Load('an unquoted *_skill (a YAML alias) is E_PARSE at the entry, and the fix says to quote it', () => {
  const e = thrownWithCode(() => parsePersona(personaText(['name: r', 'description: d', 'disallowed_tools:', '  - run_shell', '  - *_skill']), 'r.md'), 'E_PARSE');
  assert.equal([e.line, e.col], [6, 5]);
  assert.match(e.fix!, /quote it: - "\*_skill"/);
});

Load('a BOM and CRLF line ends are read like plain LF files, with the same positions', () => {
  const text = '\uFEFF' + personaText([...MINIMAL, 'colour: red']).replace(/\n/g, '\r\n');
  const e = thrownWithCode(() => parsePersona(text, 'r.md'), 'E_UNKNOWN_KEY');
  assert.equal([e.line, e.col], [15, 1]);
  const ok = parsePersona('\uFEFF' + personaText(MINIMAL).replace(/\n/g, '\r\n'), 'r.md');
  assert.is(ok.model, 'anthropic/claude-opus-4-7');
  assert.equal(ok.tools, ['get_sop_text']);
});

Load('F13: a renamed reviewer does not load as the configured persona (E_PERSONA_NAME at name)', () => {
  const text = shipped.replace('name: reviewer', 'name: reviewer2');
  const file = writePersona('reviewer.md', text);
  assert.is(loadPersona(file).name, 'reviewer2', 'the name is read as written');
  const e = thrownWithCode(() => loadPersona(file, { name: DefaultReviewerAgent }), 'E_PERSONA_NAME');
  assert.equal([e.line, e.col, e.pointer], [2, 7, '/name']);
  assert.match(e.message, /named "reviewer2", not "reviewer"/);
  // With schema problems too, the name is one of every problem listed, in order of position.
  const both = writePersona('reviewer.md', text.replace(/^description: .*$/m, 'description: 5'));
  const all = thrownWithCode(() => loadPersona(both, { name: DefaultReviewerAgent }), 'E_PERSONA_NAME');
  const problems = (all.data as { problems: Array<{ code: string; line: number }> }).problems;
  assert.equal(problems.map((p) => p.code), ['E_PERSONA_NAME', 'E_PERSONA']);
  assert.ok(problems[0].line < problems[1].line);
});

Load('F9/B18: the model is read exactly as written, with no fallback when it changes', () => {
  const text = shipped.replace('model: anthropic/claude-opus-4-7', 'model: openai/gpt-5.1-high');
  assert.is(parsePersona(text, 'agents/reviewer.md').model, 'openai/gpt-5.1-high');
  assert.is(loadPersona(REVIEWER).model, 'anthropic/claude-opus-4-7');
  const blank = thrownWithCode(() => parsePersona(shipped.replace('model: anthropic/claude-opus-4-7', 'model: ""'), 'agents/reviewer.md'), 'E_PERSONA');
  assert.match(blank.message, /model is empty/);
});

Load.run();
