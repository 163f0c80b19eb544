/**
 * Personas as the gate loads them (B7, B17, F9, F13, F14): a persona the
 * gate refuses is refused with the file, the JSON pointer and the line:col
 * of the key to fix, as `countersign validate` reports it; the gate and
 * validate share one definition of a persona name; a blank model is no model.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../../engine/hosts/agent.js';
import { createGate, reviewGate } from '../../engine/gate/gate.js';
import { chain } from '../../engine/gate/chain.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { spyTool } from './fixtures.js';
import { loadPersona } from '../../engine/gate/persona.js';
import { validatePersonaFile } from '../../engine/gate/persona-lint.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { cli, ROOT, tempDir } from '../helpers/cli.js';
import { thrown, thrownWithCode } from '../helpers/errors.js';

const shipped = readFileSync(join(ROOT, 'agents/reviewer.md'), 'utf8');
const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.';
const reviewer: Agent = { answer: async () => ({ reply: '**Decision: approve**' }) };

/** An agents folder holding `reviewer.md` (or `<name>.md`) with `text`. */
function agents(text: string, name = 'reviewer'): string {
  const dir = tempDir('countersign-persona-gate-');
  writeFileSync(join(dir, `${name}.md`), text);
  return dir;
}

const Personas = suite('gate personas: located errors, names, models');

Personas('F14 B4: a read-write persona is a construction error at the permission_mode value: file, pointer, line:col and the fix for that key', () => {
  const dir = agents(shipped.replace('permission_mode: read-only', 'permission_mode: read-write'));
  const e = thrownWithCode(() => createGate({ store: createMemoryStore(), reviewer, agentsDir: dir }), 'E_PERSONA_PERMISSION');
  assert.equal([e.file, e.pointer, e.line, e.col], [join(dir, 'reviewer.md'), '/permission_mode', 4, 18]);
  assert.match(e.message, /cannot review: permission_mode is "read-write"/);
  assert.is(e.fix, 'write permission_mode: read-only');
  const v = validatePersonaFile(join(dir, 'reviewer.md')).errors[0];
  assert.equal([v.code, v.line, v.col], [e.code, e.line, e.col], 'the same place validate reports');
});

Personas('F14: a persona without kill_process in disallowed_tools is E_PERSONA_DENY located at disallowed_tools, as validate locates it', () => {
  const dir = agents(shipped.replace(/^ {2}- kill_process\n/m, ''));
  const e = thrownWithCode(() => createGate({ store: createMemoryStore(), reviewer, agentsDir: dir }), 'E_PERSONA_DENY');
  const v = validatePersonaFile(join(dir, 'reviewer.md')).errors[0];
  assert.equal([e.pointer, e.line, e.col], ['/disallowed_tools', v.line, v.col]);
  assert.ok(e.line! > 1);
  assert.match(e.fix ?? '', /add - kill_process to disallowed_tools/);
});

Personas('F14: countersign gate --json reports a refused persona with its file, line and col', async () => {
  const dir = agents(shipped.replace('permission_mode: read-only', 'permission_mode: read-write'));
  writeFileSync(join(dir, 'approve.md'), '**Decision: approve**\n');
  const proposal = JSON.stringify({ action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', operator: 'user_42', context_summary: 'x' });
  const r = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', proposal, '--reviewer', 'reply:approve.md', '--agents', dir, '--json'], { store: join(dir, 'store'), cwd: dir });
  assert.is(r.code, 2);
  const err = r.json.error;
  assert.equal([err.code, err.line, err.col], ['E_PERSONA_PERMISSION', 4, 18]);
});

Personas('B17 F13: a persona name validate accepts (_db, Db-2) is one the gate loads; one it refuses ("../x") the gate refuses too', () => {
  for (const name of ['_db', 'Db-2']) {
    const dir = agents(shipped.replace('name: reviewer', `name: ${name}`), name);
    assert.is(validatePersonaFile(join(dir, `${name}.md`)).ok, true, `${name} validates`);
    const gate = createGate({ store: createMemoryStore(), reviewer, agentsDir: dir, persona: name });
    assert.equal([...gate.personas], [name]);
  }
  const dir = tempDir('countersign-persona-gate-');
  mkdirSync(join(dir, 'sub'));
  const e = thrown(() => createGate({ store: createMemoryStore(), reviewer, agentsDir: join(dir, 'sub'), persona: '../x' }));
  assert.is(e.code, 'E_PERSONA');
  assert.match(e.message, /"\.\.\/x" is not a persona name/);
});

Personas('a whitespace-only description (a required field) is refused at its line by validate, as a blank model is', () => {
  const dir = agents(shipped.replace(/^description:.*$/m, 'description: "   "'));
  const v = validatePersonaFile(join(dir, 'reviewer.md'));
  assert.is(v.ok, false);
  assert.equal([v.errors[0].code, v.errors[0].line], ['E_PERSONA', shipped.split('\n').findIndex((l) => l.startsWith('description:')) + 1]);
  assert.match(v.errors[0].message, /description is blank/);
});

Personas('B7 F9: a whitespace-only model is refused at its line:col by validate and by the loader — never handed to a driver as a silent default', () => {
  const dir = agents(shipped.replace('model: anthropic/claude-opus-4-7', 'model: "  "'));
  const v = validatePersonaFile(join(dir, 'reviewer.md'));
  assert.is(v.ok, false);
  assert.equal([v.errors[0].code, v.errors[0].line, v.errors[0].col], ['E_PERSONA', 6, 8]);
  assert.match(v.errors[0].message, /model is blank/);
  const e = thrownWithCode(() => loadPersona(join(dir, 'reviewer.md')), 'E_PERSONA');
  assert.equal([e.pointer, e.line], ['/model', 6]);
  const empty = validatePersonaFile(join(agents(shipped.replace('model: anthropic/claude-opus-4-7', 'model: ""')), 'reviewer.md'));
  assert.equal(empty.errors.map((f) => f.message.split(';')[0]), ['model is empty'], 'an empty model is reported once');
});

Personas('B8 B9: background true or false changes nothing — the call waits for the review and onPending/onSettled fire either way — and README and the schema say so', async () => {
  const seen: string[][] = [];
  for (const background of ['true', 'false']) {
    const dir = agents(shipped.replace(/^background: true.*$/m, `background: ${background}`));
    const events: string[] = [];
    const gate = reviewGate({
      store: createMemoryStore(), agentsDir: dir, log: () => {},
      reviewer: { answer: async () => { events.push('reviewer'); return { reply: APPROVE }; } },
      onPending: () => events.push('pending'), onSettled: (_r, outcome) => events.push(`settled ${outcome}`),
    });
    assert.is(loadPersona(join(dir, 'reviewer.md')).background, background === 'true');
    const inner = spyTool('write');
    const tool = chain(inner.tool, { tenantBind: tenantBindDecorator(), reviewGate: gate });
    await tool.run({ device_id: 7, service: 'nginx' }, { userId: 'user_42', reason: '502s' });
    events.push(`inner ran ${inner.calls.length}`);
    seen.push(events);
  }
  assert.equal(seen[0], ['pending', 'reviewer', 'settled approved', 'inner ran 1']);
  assert.equal(seen[1], seen[0]);
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/persona.schema.json'), 'utf8'));
  assert.match(schema.properties.background.description, 'it changes nothing');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.match(readme, /\| `background` \| no \| [^\n]*it changes nothing/);
});

Personas.run();
