/**
 * A decision review that cannot be issued (no usable persona or proposal in
 * the run's context) takes its `error` route with E_DECISION_INPUT (review
 * r91). Like every review refused on entry it is journaled as
 * `review.refused` with its code, message and fix, so `trace` and a driving
 * run's progress say why the run left by `error` and which field to repair.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore } from '../../engine/index.js';
import { cli, tempDir } from '../helpers/cli.js';

const GATE = fileURLToPath(new URL('../../workflows/ongrid-review-gate.json', import.meta.url));
/** A persona missing model, max_turns and tools. */
const INCOMPLETE_PERSONA = { name: 'rev', body: 'you review' };
const PROPOSAL = { action: 'restart', target: { id: 1 }, reason: 'r', blast_radius: 'single_device', operator: 'u', context_summary: 'c' };
const INPUT = { tool: 'restart', tool_class: 'write', persona: INCOMPLETE_PERSONA, proposal: PROPOSAL };

const Refused = suite('a decision review refused on entry says why');

Refused('the journal holds review.refused with E_DECISION_INPUT, a message naming each missing persona field, and a fix', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const s = await engine.start(GATE, { input: INPUT });
  assert.is(s.status === 'completed' && s.outcome, 'rejected', JSON.stringify(s));
  const refused = (await engine.trace(s.runId)).events.filter((e) => e.type === 'review.refused');
  assert.is(refused.length, 1, JSON.stringify(refused));
  const [e] = refused;
  assert.is(e.nodeId, 'review');
  assert.is(e.code, 'E_DECISION_INPUT');
  for (const field of ['persona.model', 'persona.max_turns', 'persona.tools']) assert.ok(String(e.message).includes(field), `${field} in ${String(e.message)}`);
  assert.ok(typeof e.fix === 'string' && e.fix.includes('persona'), `a fix: ${JSON.stringify(e)}`);
});

Refused('a driving run prints the refusal with its code and message, then the error route it took', async () => {
  const dir = tempDir('countersign-decision-input-');
  writeFileSync(join(dir, 'empty.yaml'), '{}\n');
  writeFileSync(join(dir, 'og.yaml'), 'review: [{reply: "approve\\nlooks fine"}]\n');
  const r = await cli(['run', GATE, '--agent', 'scripted:empty.yaml', '--reviewer', 'scripted:og.yaml', '--input', JSON.stringify(INPUT)], { cwd: dir, store: join(dir, 'store') });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /✗ review: E_DECISION_INPUT: decision review "review" cannot be issued: .*persona\.model/);
  assert.match(r.stderr, /· review: error → \S+/);
  assert.ok(r.stderr.indexOf('E_DECISION_INPUT') < r.stderr.indexOf('· review: error'), r.stderr);
});

Refused.run();
