/**
 * The runtime tool filter (seed B4, B10, B13–B16, §4.7): effective tools =
 * tools − disallowed_tools with whole-name globs, and a read-only persona
 * keeps only class `read`, whatever its body asks for.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { loadPersona, parsePersona } from '../../engine/gate/persona.js';
import { effectiveTools, matchesToolPattern, toolDenial, type CatalogTool, type ToolPolicy } from '../../engine/gate/tool-filter.js';
import { ROOT } from '../helpers/cli.js';

/** The seed's tool bag (issue 4, examples/ongrid). */
const ONGRID: CatalogTool[] = [
  { name: 'host_restart_service', class: 'write' },
  { name: 'execute_skill', class: 'write' },
  { name: 'AgentTool', class: 'write' },
  { name: 'kill_process', class: 'destructive' },
  { name: 'run_shell', class: 'destructive' },
  { name: 'get_incident_detail', class: 'read' },
  { name: 'get_edge_summary', class: 'read' },
  { name: 'query_promql', class: 'read' },
  { name: 'query_logql', class: 'read' },
  { name: 'get_sop_text', class: 'read' },
];

const reviewer = loadPersona(join(ROOT, 'agents/reviewer.md'));
const names = (tools: CatalogTool[]) => tools.map((t) => t.name);

const Glob = suite('§4.7 whole-name globs');

const TABLE: Array<[pattern: string, name: string, matches: boolean]> = [
  ['*_skill', 'execute_skill', true],
  ['*_skill', 'x_skill', true],
  ['*_skill', '_skill', true],
  ['*_skill', 'host_restart_service', false],
  ['*_skill', 'skill_list', false],
  ['*_skill', 'execute_skill_v2', false],
  ['*_skill', 'execute_skills', false],
  ['*_skill', 'execute_Skill', false],
  ['get_*', 'get_sop_text', true],
  ['get_*', 'get_', true],
  ['get_*', 'forget_it', false],
  ['query_*ql', 'query_promql', true],
  ['query_*ql', 'query_logql', true],
  ['query_*ql', 'query_sql_x', false],
  ['*', 'anything_at_all', true],
  ['*', '', true],
  ['run_shell', 'run_shell', true],
  ['run_shell', 'run_shell2', false],
  ['run_shell', 'xrun_shell', false],
  ['run_shell', 'Run_Shell', false],
  ['a*b*c', 'abc', true],
  ['a*b*c', 'aXbYc', true],
  ['a*b*c', 'abcbc', true],
  ['a*b*c', 'acb', false],
  ['a**c', 'ac', true],
  ['?', 'a', false],
  ['run.shell', 'run_shell', false],
];

for (const [pattern, name, matches] of TABLE) {
  Glob(`§4.7: "${pattern}" ${matches ? 'matches' : 'does not match'} "${name}"`, () => {
    assert.is(matchesToolPattern(pattern, name), matches);
  });
}

Glob('§4.7: a pattern of many * against a long name that does not match answers at once', () => {
  const started = performance.now();
  assert.is(matchesToolPattern(`${'*a'.repeat(40)}b`, 'a'.repeat(5000)), false);
  assert.ok(performance.now() - started < 500);
});

Glob.run();

const Filter = suite('effectiveTools');

Filter('B10: the shipped reviewer\'s effective toolset over the seed tool bag is exactly its five read tools', () => {
  assert.equal(names(effectiveTools(reviewer, ONGRID)), ['get_incident_detail', 'get_edge_summary', 'query_promql', 'query_logql', 'get_sop_text']);
});

Filter('B16: every effective reviewer tool has class read, so a reviewer cannot trigger a nested gate', () => {
  const effective = effectiveTools(reviewer, ONGRID);
  assert.ok(effective.length > 0);
  assert.ok(effective.every((t) => t.class === 'read'));
});

Filter('B13/B15: *_skill removes every skill tool even when tools lists it and its class is read', () => {
  const persona: ToolPolicy = { tools: ['get_sop_text', 'x_skill', 'lookup_skill', 'skill_list'], disallowed_tools: ['*_skill'], permission_mode: 'read-only' };
  const catalog: CatalogTool[] = ['get_sop_text', 'x_skill', 'lookup_skill', 'skill_list'].map((name) => ({ name, class: 'read' }));
  assert.equal(names(effectiveTools(persona, catalog)), ['get_sop_text', 'skill_list']);
  assert.is(toolDenial(persona, { name: 'x_skill', class: 'read' }), '"x_skill" is denied by the persona\'s disallowed_tools entry "*_skill"');
});

Filter('B14: a body that asks for run_shell, host_restart_service or kill_process does not get them, even with them allowlisted', () => {
  const persona = parsePersona(
    ['---', 'name: rogue', 'description: d', 'permission_mode: read-write', 'model: m',
      'tools: [get_sop_text, run_shell, host_restart_service, kill_process]',
      'disallowed_tools: ["*_skill", run_shell, execute_skill, host_restart_service, kill_process]',
      '---', 'Always call run_shell, then host_restart_service and kill_process.', ''].join('\n'),
    'rogue.md',
  );
  assert.equal(names(effectiveTools(persona, ONGRID)), ['get_sop_text']);
  for (const name of ['run_shell', 'host_restart_service', 'kill_process']) {
    assert.is(toolDenial(persona, ONGRID.find((t) => t.name === name)!), `"${name}" is in the persona's disallowed_tools`);
  }
});

Filter('B4: permission_mode read-only removes every non-read tool the lists would allow; read-write keeps them', () => {
  const readOnly: ToolPolicy = { tools: ['*'], disallowed_tools: [], permission_mode: 'read-only' };
  assert.equal(names(effectiveTools(readOnly, ONGRID)), ['get_incident_detail', 'get_edge_summary', 'query_promql', 'query_logql', 'get_sop_text']);
  assert.is(toolDenial(readOnly, { name: 'AgentTool', class: 'write' }), '"AgentTool" is a write tool and the persona is read-only');
  const readWrite: ToolPolicy = { ...readOnly, permission_mode: 'read-write' };
  assert.equal(effectiveTools(readWrite, ONGRID).length, ONGRID.length);
});

Filter('a tool the persona does not list is not effective; a listed tool missing from the catalog is no tool at all', () => {
  const persona: ToolPolicy = { tools: ['get_sop_text', 'get_host_load'], disallowed_tools: [], permission_mode: 'read-only' };
  assert.equal(names(effectiveTools(persona, ONGRID)), ['get_sop_text']);
  assert.is(toolDenial(persona, { name: 'query_promql', class: 'read' }), '"query_promql" is not in the persona\'s tools');
  assert.is(toolDenial(persona, { name: 'get_sop_text', class: 'read' }), null);
});

Filter('tools keep their own fields and catalog order', () => {
  const catalog = [{ name: 'b_read', class: 'read' as const, run: () => 2 }, { name: 'a_read', class: 'read' as const, run: () => 1 }];
  const out = effectiveTools({ tools: ['a_read', 'b_read'], disallowed_tools: [], permission_mode: 'read-only' }, catalog);
  assert.equal(out.map((t) => [t.name, t.run()]), [['b_read', 2], ['a_read', 1]]);
});

Filter.run();
