/**
 * examples/ongrid (issue 4, "Runs offline, and with a real model"): `npm run
 * example:ongrid` plays the Ongrid ReviewGate scenarios on a simulated fleet
 * with the rule-based jsonl reviewer. These tests run it as a user does and
 * check each scenario's outcome and rows, and the A7 equality, from its
 * output (`--json` prints one document; the readable output is checked too).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ExecutionRow, ProposalRow } from '../../engine/index.js';
import { ROOT, tempDir } from '../helpers/cli.js';

const COMMAND = 'node --import tsx examples/ongrid/main.ts';

interface Scenario {
  id: string;
  tool: string;
  toolClass: string | null;
  args: Record<string, unknown>;
  caller: string | null;
  outcome: { ok: true; result: Record<string, unknown> } | { ok: false; code: string; message: string };
  reviewPending: boolean;
  reviewerRuns: Array<{ persona: { name: string; model: string; max_turns: number; tools: string[] }; action: string }>;
  lookups: Array<{ name: string; args: Record<string, unknown> }>;
  gateLog: string[];
  proposals: ProposalRow[];
  executions: ExecutionRow[];
  note?: string;
}

interface Report {
  clock: { simulated: boolean; start: string; end: string };
  reviewer: { name: string; model: string; max_turns: number; tools: string[] };
  scenarios: Scenario[];
  summary: {
    proposals: Record<'total' | 'approved' | 'rejected' | 'timeout' | 'skipped' | 'deduped', number>;
    executions: { total: number; ok: number; failed: number };
    reviewerRuns: number;
    a7: { reviewedRows: number; reviewerRuns: number; holds: boolean };
  };
}

function runExample(extra: string[]) {
  const started = Date.now();
  const r = spawnSync('npm', ['run', '-s', 'example:ongrid', '--', ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

const json = runExample(['--json']);
const report: Report = json.status === 0 ? JSON.parse(json.stdout) : ({ scenarios: [] } as unknown as Report);

function scenario(id: string): Scenario {
  const s = report.scenarios.find((x) => x.id === id);
  assert.ok(s, `scenario "${id}" is missing from the output`);
  return s!;
}

function rejected(s: Scenario, code = 'ErrReviewRejected'): { code: string; message: string } {
  assert.is(s.outcome.ok, false, `${s.id} should fail`);
  const o = s.outcome as { code: string; message: string };
  assert.is(o.code, code, o.message);
  return o;
}

/** One reviewed call: one reviewer run, one proposal row of `status`, which the function returns. */
function reviewedOnce(s: Scenario, status: ProposalRow['status']): ProposalRow {
  assert.is(s.reviewerRuns.length, 1, `${s.id}: one reviewer run`);
  assert.is(s.proposals.length, 1, `${s.id}: one proposal row`);
  const [row] = s.proposals;
  assert.is(row.status, status);
  assert.is(row.deduped, false);
  assert.is(row.tool, s.tool);
  assert.equal(row.target, s.args);
  return row;
}

const Run = suite('examples/ongrid: npm run example:ongrid');

Run('README and the example\'s README give the --json command as run here, with -s: npm\'s own banner lines would break the one JSON document', () => {
  for (const file of ['README.md', 'examples/ongrid/README.md']) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    assert.match(text, 'npm run -s example:ongrid -- --json', file);
    assert.not.match(text, /npm run example:ongrid -- --json/, file);
  }
});

Run('the example is the package script "example:ongrid", runs offline and finishes well under 30 s', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.is(pkg.scripts['example:ongrid'], COMMAND);
  assert.is(json.status, 0, json.stderr);
  assert.ok(json.ms < 30_000, `took ${json.ms} ms`);
  assert.is(report.clock.simulated, true);
  assert.equal(report.scenarios.map((s) => s.id), [
    'approve', 'reject-no-sop', 'reject-offline', 'reject-restart-loop', 'reject-recent-mutation', 'reject-parallel',
    'reject-reason-contradicts', 'timeout', 'dedupe', 'admin', 'no-sop-production-unconfirmed', 'no-sop-production-confirmed',
    'skill', 'read', 'bad-args', 'agent-tool-reviewer',
  ]);
});

Run('A1 A18 E1–E4 F3: approve — one reviewer run, an approved row with SOP-007, the rollback and a time, the tool runs once, its execution row points at the proposal, and the result comes back', () => {
  const s = scenario('approve');
  assert.is(s.outcome.ok, true);
  assert.equal((s.outcome as { result: Record<string, unknown> }).result.restarted, true);
  const row = reviewedOnce(s, 'approved');
  assert.equal([row.sop_id, row.rollback, row.operator, row.blast_radius], ['SOP-007', 'systemctl start nginx', 'user_42', 'single_device']);
  assert.match(row.decision_text!, /^\*\*Decision: approve\*\*\n\n\*\*Gates\*\*\n- ✓ SOP-007/);
  assert.match(row.decision_text!, /\n\*\*Notes\*\*\n\S/);
  assert.ok(!Number.isNaN(Date.parse(row.at)));
  assert.is(s.executions.length, 1);
  assert.equal([s.executions[0].proposal_id, s.executions[0].ok, s.executions[0].tool], [row.id, true, 'host_restart_service']);
});

Run('C2 E5–E8 A12 A19: no SOP — the destructive run_shell is rejected with "review rejected: no SOP for action run_shell", a rejected row lists the missing gates, and no execution row is written', () => {
  const s = scenario('reject-no-sop');
  assert.is(rejected(s).message, 'review rejected: no SOP for action run_shell');
  const row = reviewedOnce(s, 'rejected');
  assert.is(row.reason, 'no SOP for action run_shell');
  assert.ok(row.missing_gates!.includes('no SOP for action run_shell'));
  assert.is(row.sop_id, null);
  assert.equal(s.executions, []);
});

Run('C3: a device offline, in a restart loop, or with a mutating action under 5 minutes ago is rejected, each for its own reason', () => {
  const reasons: Record<string, RegExp> = {
    'reject-offline': /^node-09 is offline \(last seen 42min ago\)$/,
    'reject-restart-loop': /^node-11 is in a restart loop \(6 restarts in the last hour\)$/,
    'reject-recent-mutation': /^node-05 had a mutating action 3min ago \(host_restart_service redis by user_7\); wait until 5min have passed$/,
  };
  for (const [id, reason] of Object.entries(reasons)) {
    const s = scenario(id);
    assert.match(rejected(s).message, /^review rejected: /);
    const row = reviewedOnce(s, 'rejected');
    assert.match(row.reason, reason);
    // The target state is the only failed gate: the SOP, parallel, reason and rollback gates passed.
    assert.equal(row.missing_gates, [row.reason], id);
    assert.is(row.sop_id, 'SOP-007');
    assert.equal(s.executions, []);
  }
});

Run('C4: an audit entry on the same target 9 minutes ago (inside 10 min) is a parallel operation: "parallel operation detected; wait for … to complete"', () => {
  const s = scenario('reject-parallel');
  assert.is(s.tool, 'kill_process');
  assert.is(rejected(s).message, 'review rejected: parallel operation detected; wait for host_restart_service of nginx by user_7 to complete');
  const row = reviewedOnce(s, 'rejected');
  // 9 minutes is past the 5-minute rule, so only the parallel gate failed.
  assert.match(row.decision_text!, /- ✓ node-06 status online; last mutating 9min ago/);
  assert.equal(row.missing_gates, [row.reason]);
  assert.equal(s.executions, []);
});

Run('C5: a reason that contradicts the referenced incident is rejected: the operator may have misread the symptom', () => {
  const s = scenario('reject-reason-contradicts');
  assert.match(rejected(s).message, /^review rejected: operator may have misread the symptom: the reason says oom, incident INC-4430 reports disk_full/);
  const row = reviewedOnce(s, 'rejected');
  assert.equal(row.missing_gates, [row.reason]);
  assert.equal(s.executions, []);
});

Run('A11 E11 E13 E14: a reviewer slower than the 60 s ceiling on the simulated clock times out — ErrReviewTimeout, a timeout row, no execution — and the output says the clock is simulated', () => {
  const s = scenario('timeout');
  assert.is(rejected(s, 'ErrReviewTimeout').message, 'review timed out after 60s');
  const row = reviewedOnce(s, 'timeout');
  assert.equal([row.decision_text, row.sop_id], [null, null]);
  assert.equal(s.executions, []);
  assert.match(s.note!, /clock is simulated/);
  // The scenario moved the clock 10 s plus 4 slow turns of 16 s: the run's whole simulated span shows it.
  assert.is(Date.parse(report.clock.end) - Date.parse(report.clock.start), report.scenarios.length * 10_000 + 64_000);
});

Run('E9 E10 §4.5: the same rejected call again, reason reworded, is refused without a reviewer run and writes a deduped rejected row', () => {
  const first = scenario('reject-no-sop');
  const s = scenario('dedupe');
  assert.equal(s.args, first.args);
  assert.is(rejected(s).message, 'review rejected: no SOP for action run_shell');
  assert.is(s.reviewerRuns.length, 0);
  assert.is(s.proposals.length, 1);
  assert.equal([s.proposals[0].status, s.proposals[0].deduped, s.proposals[0].proposal_hash], ['rejected', true, first.proposals[0].proposal_hash]);
  assert.equal(s.executions, []);
});

Run('F1 F2: an admin is reviewed like anyone — the reviewer runs and its reject stands', () => {
  const s = scenario('admin');
  assert.is(s.caller, 'admin_1');
  rejected(s);
  const row = reviewedOnce(s, 'rejected');
  assert.is(row.operator, 'admin_1');
  assert.equal(s.executions, []);
});

Run('F4–F6 §4.6: no SOP on a production device — force_approve_no_sop without a recorded confirmation is ignored (and logged) and rejected; with one it is approved, with no SOP id', () => {
  const without = scenario('no-sop-production-unconfirmed');
  assert.match(without.gateLog.join('\n'), /force_approve_no_sop .* ignored: no confirmation_id was given/);
  assert.match(rejected(without).message, /no SOP for action host_restart_service covering ongrid-agent; node-03 is tagged production/);
  reviewedOnce(without, 'rejected');
  assert.equal(without.executions, []);

  const confirmed = scenario('no-sop-production-confirmed');
  assert.equal(confirmed.gateLog, []);
  assert.is(confirmed.outcome.ok, true);
  const row = reviewedOnce(confirmed, 'approved');
  assert.equal([row.sop_id, row.rollback], [null, 'systemctl start ongrid-agent']);
  assert.match(row.decision_text!, /force_approve_no_sop: true, confirmed by the user/);
  assert.is(confirmed.executions[0].proposal_id, row.id);
});

Run('A21: a skill call through execute_skill is gated like any write — reviewed, approved against its SOP, then executed', () => {
  const s = scenario('skill');
  assert.equal([s.tool, s.toolClass], ['execute_skill', 'write']);
  assert.is(s.outcome.ok, true);
  const row = reviewedOnce(s, 'approved');
  assert.is(row.sop_id, 'SOP-031');
  assert.is(s.executions.length, 1);
});

Run('A17 F8: a read call runs with no review pending, no reviewer and no row', () => {
  const s = scenario('read');
  assert.equal([s.toolClass, s.outcome.ok, s.reviewPending, s.reviewerRuns.length], ['read', true, false, 0]);
  assert.equal([s.proposals, s.executions], [[], []]);
});

Run('§4.13: arguments are validated first — a malformed call is E_TOOL_ARGS with no review and no row', () => {
  const s = scenario('bad-args');
  rejected(s, 'E_TOOL_ARGS');
  assert.equal([s.reviewPending, s.reviewerRuns.length, s.proposals, s.executions], [false, 0, [], []]);
});

Run('A2 A3: AgentTool naming the reviewer persona is refused (E_PERSONA_RESERVED) before any review: no reviewer run, no row', () => {
  const s = scenario('agent-tool-reviewer');
  assert.equal([s.tool, s.toolClass], ['AgentTool', 'write']);
  rejected(s, 'E_PERSONA_RESERVED');
  assert.equal([s.reviewPending, s.reviewerRuns.length, s.proposals, s.executions], [false, 0, [], []]);
});

Run('B5 B7 B10 B16 C1: every reviewer run gets the persona\'s model, max_turns 5 and only read tools, and makes the five steps\' four look-ups in order through $tool', () => {
  const reviewed = report.scenarios.filter((s) => s.reviewerRuns.length > 0);
  assert.is(reviewed.length, 12);
  for (const s of reviewed) {
    const [run] = s.reviewerRuns;
    assert.equal([run.persona.name, run.persona.model, run.persona.max_turns], ['reviewer', 'anthropic/claude-opus-4-7', 5]);
    assert.equal(run.persona.tools, ['get_incident_detail', 'get_edge_summary', 'query_promql', 'query_logql', 'get_sop_text']);
    assert.equal(s.lookups.map((l) => l.name), ['get_sop_text', 'get_edge_summary', 'query_logql', 'get_incident_detail'], s.id);
    assert.equal(s.lookups[2].args.range, '10m');
  }
});

Run('A7: proposal rows that are neither deduped nor skipped equal the reviewer runs, and the summary counts the ledger', () => {
  const { summary } = report;
  const runs = report.scenarios.reduce((n, s) => n + s.reviewerRuns.length, 0);
  const rows = report.scenarios.flatMap((s) => s.proposals);
  assert.is(summary.reviewerRuns, runs);
  assert.equal(summary.a7, { reviewedRows: rows.filter((r) => !r.deduped && r.status !== 'skipped').length, reviewerRuns: runs, holds: true });
  assert.is(summary.a7.reviewedRows, 12);
  assert.equal(summary.proposals, { total: 13, approved: 3, rejected: 9, timeout: 1, skipped: 0, deduped: 1 });
  assert.equal(summary.executions, { total: 3, ok: 3, failed: 0 });
});

Run.run();

const Text = suite('examples/ongrid: the readable output');

Text('prints every scenario with its call, outcome and rows, says the clock is simulated, and ends with the A7 line', () => {
  const r = runExample([]);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /clock: simulated/);
  assert.match(r.stdout, /\[1\/16\] approve — [^\n]*\n {2}call {7}host_restart_service \{"device_id":7,"service":"nginx"\} by user_42/);
  assert.match(r.stdout, /outcome {4}ErrReviewTimeout: review timed out after 60s/);
  assert.match(r.stdout, /note {7}the clock is simulated/);
  assert.match(r.stdout, /proposal {3}rejected · operator user_42 · blast_radius single_device · deduped yes/);
  assert.match(r.stdout, /outcome {4}E_PERSONA_RESERVED: /);
  assert.match(r.stdout, /A7 {9}proposal rows neither deduped nor skipped: 12; reviewer runs: 12; equal ✓\n$/);
});

Text('options: --reviewer without an adapter says so (exit 2), and an unknown option names the ones there are', () => {
  for (const extra of [['--reviewer'], ['--reviewer='], ['--reviewer', '--json']]) {
    const r = runExample(extra);
    assert.equal([r.status, r.stderr.trim()], [2, "example:ongrid: --reviewer needs an adapter, e.g. --reviewer 'jsonl:<command>'"], extra.join(' '));
  }
  const unknown = runExample(['--verbose']);
  assert.equal([unknown.status, unknown.stderr.trim()], [2, 'example:ongrid: unknown option --verbose; use --json, --keep and --reviewer <adapter>']);
});

Text('B10: a reviewer plugged in with --reviewer is offered the read tools with their descriptions, ready to hand a model as tool definitions', () => {
  const dir = tempDir('countersign-ongrid-reviewer-');
  const dump = join(dir, 'requests.jsonl');
  const reviewer = join(dir, 'reviewer.mjs');
  writeFileSync(reviewer, `import { createInterface } from 'node:readline';\nimport { appendFileSync } from 'node:fs';\nfor await (const line of createInterface({ input: process.stdin })) {\n  const req = JSON.parse(line);\n  if (req.kind) { appendFileSync(${JSON.stringify(dump)}, JSON.stringify(req.toolSpecs ?? []) + '\\n'); process.stdout.write(JSON.stringify({ reply: '**Decision: reject**\\n\\n**Notes**\\nno' }) + '\\n'); }\n}\n`);
  const r = runExample(['--json', '--reviewer', `jsonl:node ${reviewer}`]);
  assert.is(r.status, 0, r.stderr);
  const specs = JSON.parse(readFileSync(dump, 'utf8').split('\n')[0]) as Array<{ name: string; description?: string }>;
  assert.ok(specs.length > 0, 'the reviewer is offered its read tools');
  for (const spec of specs) assert.ok(typeof spec.description === 'string' && spec.description.length > 0, `${spec.name} has a description`);
});

Text.run();
