/**
 * The example's rule-based reviewer (examples/ongrid/reviewer-steps.mjs) at
 * the boundaries of its time rules, on a fixed clock (issue 4: "fake clocks
 * for the 5 min / 10 min boundaries"): step 2 rejects a target whose last
 * mutating action is under 5 minutes old (C3), step 3 rejects when an audit
 * entry touched the same target under 10 minutes ago (C4). And the classes
 * of the seed's tool bag as the example registers them (A20–A22, F8).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimClock } from '../../examples/ongrid/clock.js';
import { createOngridHost } from '../../examples/ongrid/host.js';
import type { Fleet } from '../../examples/ongrid/fleet.js';
import { readTools } from '../../examples/ongrid/read-tools.js';
import { writeTools } from '../../examples/ongrid/write-tools.js';
import { parseDecision } from '../../engine/index.js';

interface Steps {
  LAST_MUTATION_MS: number;
  PARALLEL_WINDOW_MS: number;
  reply(p: Record<string, unknown>, looked: Record<string, { result?: unknown }>): string;
}
// A plain .mjs module (the reviewer process runs it without tsx): imported by URL.
const steps = (await import(new URL('../../examples/ongrid/reviewer-steps.mjs', import.meta.url).href)) as Steps;

const AS_OF = '2026-07-24T09:00:00.000Z';
const MIN = 60_000;
const before = (ms: number) => new Date(Date.parse(AS_OF) - ms).toISOString();
const PROPOSAL = {
  action: 'host_restart_service', target: { device_id: 1, service: 'nginx' }, reason: 'User reported 502; nginx OOM',
  blast_radius: 'single_device', operator: 'user_42', context_summary: 'INC-4411 nginx OOM on node-01',
};

/** Everything passes except what the boundary under test sets. */
function looked(over: { lastMutating?: number; parallel?: number[] }) {
  return {
    sop: { result: { sops: [{ sop_id: 'SOP-007', covers: ['nginx'], rollback: 'systemctl start nginx' }] } },
    target_state: {
      result: {
        name: 'node-01', status: 'online', restart_loop: false, restarts_last_hour: 0, tags: [], as_of: AS_OF, last_seen: AS_OF,
        last_mutating: over.lastMutating === undefined ? null : { at: before(over.lastMutating), action: 'host_restart_service', subject: 'nginx', actor: 'user_9' },
      },
    },
    no_parallel: { result: { as_of: AS_OF, entries: (over.parallel ?? []).map((age) => ({ ts: before(age), labels: { action: 'host_restart_service', subject: 'nginx', actor: 'user_9' } })) } },
    reason_matches_alerts: { result: { incidents: [{ incident_id: 'INC-4411', device_id: 1, device: 'node-01', symptoms: ['oom', 'http_5xx'], title: 'nginx OOM' }] } },
  };
}

const decide = (over: Parameters<typeof looked>[0]) => parseDecision(steps.reply(PROPOSAL, looked(over)));

const Rules = suite('examples/ongrid reviewer: time rules and tool classes');

Rules('C3: a last mutating action 4:59.999 old rejects on target state; at exactly 5:00 it passes', () => {
  assert.is(steps.LAST_MUTATION_MS, 5 * MIN);
  const young = decide({ lastMutating: 5 * MIN - 1 });
  assert.is(young.decision, 'reject');
  assert.match(young.missing_gates!.join('\n'), /had a mutating action .* wait until 5min have passed/);
  const old = decide({ lastMutating: 5 * MIN });
  assert.is(old.decision, 'approve');
  assert.is(old.missing_gates, null);
});

Rules('C4: an audit entry on the same target 9:59.999 (and 9 min) ago is a parallel operation; at 10:00 (and 11 min) it is not', () => {
  assert.is(steps.PARALLEL_WINDOW_MS, 10 * MIN);
  for (const age of [9 * MIN, 10 * MIN - 1]) {
    const r = decide({ parallel: [age] });
    assert.is(r.decision, 'reject', `${age} ms`);
    assert.match(r.missing_gates!.join('\n'), 'parallel operation detected; wait for host_restart_service of nginx by user_9 to complete');
  }
  for (const age of [10 * MIN, 11 * MIN]) assert.is(decide({ parallel: [age] }).decision, 'approve', `${age} ms`);
});

Rules('A20 A21 A22 A19 F8: host_restart_service, execute_skill and AgentTool are class write; kill_process and run_shell destructive; the reviewer\'s look-ups read', () => {
  const clock = createSimClock();
  // The tools reach the fleet only when run; their classes are fixed at definition.
  const fleet = {} as Fleet;
  const classes = Object.fromEntries([...writeTools(fleet, clock, { personas: new Set() }), ...readTools(fleet, clock)].map((t) => [t.name, t.class]));
  assert.equal(
    [classes.host_restart_service, classes.execute_skill, classes.AgentTool, classes.kill_process, classes.run_shell],
    ['write', 'write', 'write', 'destructive', 'destructive'],
  );
  for (const name of ['get_incident_detail', 'get_edge_summary', 'query_promql', 'query_logql', 'get_sop_text']) assert.is(classes[name], 'read', name);
});

Rules('A11: with another reviewer (--reviewer) the simulated clock runs in real time, so the gate\'s 60 s ceiling is real seconds and a silent reviewer times out; the default reviewer keeps a still clock', async () => {
  const still = createSimClock();
  const live = createSimClock(undefined, { realTime: true });
  const [s0, l0] = [still.ms(), live.ms()];
  await new Promise((r) => setTimeout(r, 30));
  assert.is(still.ms(), s0);
  assert.ok(live.ms() - l0 >= 25, `moved ${live.ms() - l0} ms`);
  live.advance(60_000);
  assert.ok(live.ms() - l0 >= 60_025, 'advance still moves it');
  for (const [options, runs] of [[{}, false], [{ reviewer: 'jsonl:cat' }, true]] as const) {
    const host = createOngridHost(mkdtempSync(join(tmpdir(), 'cs-ongrid-clock-')), options);
    try {
      const t0 = host.clock.ms();
      await new Promise((r) => setTimeout(r, 30));
      assert.is(host.clock.ms() > t0, runs, JSON.stringify(options));
    } finally {
      await host.close();
    }
  }
});

Rules.run();
