/**
 * The gate's ceiling for one review (A11, F10, F11): at least 30 s, and at
 * most the longest wait a timer holds (about 24.8 days) — refused at
 * construction with E_GATE_CONFIG, never later as an invalid gate workflow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Agent } from '../../engine/hosts/agent.js';
import { createGate, MaxReviewerTimeout } from '../../engine/gate/gate.js';
import { gateToolChain } from '../../engine/gate/gate-chain.js';
import { chain } from '../../engine/gate/chain.js';
import { defineTool } from '../../engine/tools/tool.js';
import { FakeClock, settle } from './fake-clock.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { cli, ROOT, tempDir } from '../helpers/cli.js';
import { thrownWithCode } from '../helpers/errors.js';

const reviewer: Agent = { answer: async () => ({ reply: '**Decision: approve**' }) };
const Ceiling = suite('gate ceiling bounds');

Ceiling('F10: the longest ceiling is the longest wait a timer holds (2^31-1 ms), inside the workflow schema\'s limit on a decision review\'s timeoutMs; one more millisecond is E_GATE_CONFIG at construction', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/workflow.schema.json'), 'utf8'));
  assert.is(MaxReviewerTimeout, 2 ** 31 - 1);
  assert.ok(MaxReviewerTimeout <= schema.definitions.decisionReviewNode.properties.timeoutMs.maximum);
  const store = createMemoryStore();
  assert.is(createGate({ store, reviewer, timeoutMs: MaxReviewerTimeout }).timeoutMs, MaxReviewerTimeout);
  for (const timeoutMs of [MaxReviewerTimeout + 1, 1e14]) {
    const e = thrownWithCode(() => createGate({ store, reviewer, timeoutMs }), 'E_GATE_CONFIG');
    assert.match(e.message, 'timeoutMs');
    assert.match(e.message, `from 30000 to ${MaxReviewerTimeout}`);
    assert.match(e.fix ?? '', /lower timeoutMs/);
  }
});

Ceiling('F10 F11: countersign gate --timeout-ms out of range exits 2 with E_GATE_CONFIG naming the flag and the range; nothing runs, no row', async () => {
  const dir = tempDir('countersign-ceiling-');
  const store = join(dir, 'store');
  const proposal = JSON.stringify({ action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', operator: 'user_42', context_summary: 'x' });
  for (const value of ['100000000000000', '29999', '3e4', 'soon']) {
    const r = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', proposal, '--reviewer', 'reply:missing.md', '--timeout-ms', value, '--json'], { store, cwd: dir });
    assert.is(r.code, 2, value);
    assert.is(r.json.error.code, 'E_GATE_CONFIG', value);
    assert.match(r.json.error.message, `--timeout-ms ${value} is not a whole number of milliseconds from 30000 to ${MaxReviewerTimeout}`);
  }
  assert.equal((await cli(['audit', '--json'], { store })).json.proposals, []);
});

Ceiling('A10: in gateToolChain the gh built-ins (post_review, post_docs_review, pr_status) keep a 120 s ceiling; any other tool gets 15 s, and toolTimeout overrides both', async () => {
  const armedFor = async (name: string, toolTimeout: { ms?: number; perTool?: Record<string, number> } = {}) => {
    const clock = new FakeClock();
    const tool = defineTool({ name, class: 'read', inputSchema: { type: 'object' }, run: () => new Promise(() => undefined) });
    void chain(tool, gateToolChain({ store: createMemoryStore(), reviewer, toolTimeout: { ...toolTimeout, timers: clock.timers } })).run({}, { userId: 'user_42' }).catch(() => undefined);
    await settle();
    return clock.armed;
  };
  for (const name of ['post_review', 'post_docs_review', 'pr_status']) assert.equal(await armedFor(name), [120_000], name);
  assert.equal(await armedFor('query_promql'), [15_000]);
  assert.equal(await armedFor('query_promql', { ms: 5_000 }), [5_000]);
  assert.equal(await armedFor('post_review', { perTool: { post_review: 300_000 } }), [300_000]);
});

Ceiling.run();
