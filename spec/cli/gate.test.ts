/**
 * `countersign gate`, `audit` and `confirm` (issue 4): one proposal through
 * the gate workflow from the command line, the exit codes per outcome, the
 * `--json` shapes with the rows' own JSON types, and the ledger read back —
 * across separate processes sharing one store (dedupe holds across them).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { LAUNCHER, cli, tempDir } from '../helpers/cli.js';

const APPROVE = '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.\n';
const REJECT = '**Decision: reject**\n\n**Gates**\n- ✗ node-01 restarted 2 min ago\n\n**Notes**\nlast mutating action 2 min ago\n';

function setup() {
  const dir = tempDir('countersign-gate-cli-');
  const store = join(dir, 'store');
  writeFileSync(join(dir, 'approve.md'), APPROVE);
  writeFileSync(join(dir, 'reject.md'), REJECT);
  const proposal = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', operator: 'user_42', context_summary: 'nginx OOM', ...extra });
  const gate = (args: string[]) => cli(['gate', '--tool', 'host_restart_service', '--class', 'write', ...args], { store, cwd: dir });
  return { dir, store, proposal, gate };
}

const Gate = suite('countersign gate');

Gate('E1 F3: an approving reply exits 0 and --json prints {outcome, proposal} with the row in its JSON types', async () => {
  const s = setup();
  const r = await s.gate(['--proposal', s.proposal(), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.outcome, 'approved');
  const row = r.json.proposal;
  assert.equal([row.status, row.sop_id, row.rollback, row.missing_gates, row.deduped, row.blast_radius], ['approved', 'SOP-007', 'systemctl start nginx', null, false, 'single_device']);
  assert.equal(row.target, { device_id: 7, service: 'nginx' });
  assert.type(row.id, 'string');
  assert.match(row.at, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.is(row.decision_text, APPROVE);
  assert.equal([row.persona, row.model], ['reviewer', 'anthropic/claude-opus-4-7']);
});

Gate('E5 E6 E9 §4.5: a reject exits 3 with ErrReviewRejected; the same proposal from a second process is deduped (exit 3, no reviewer, deduped row)', async () => {
  const s = setup();
  const first = await s.gate(['--proposal', s.proposal(), '--reviewer', 'reply:reject.md', '--json']);
  assert.is(first.code, 3, first.stderr);
  assert.equal([first.json.code, first.json.message], ['ErrReviewRejected', 'review rejected: last mutating action 2 min ago']);
  assert.equal(first.json.proposal.missing_gates, ['node-01 restarted 2 min ago']);
  // Another process, another reason, an approving reviewer: still refused from the ledger.
  const again = await s.gate(['--proposal', s.proposal({ reason: 'really urgent' }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(again.code, 3, again.stderr);
  assert.equal([again.json.proposal.status, again.json.proposal.deduped, again.json.proposal.decision_text], ['rejected', true, null]);
  // `reason` is the reviewer's on a rejection (E5); the operator's own reason is kept beside it, on every row.
  assert.equal([first.json.proposal.reason, first.json.proposal.proposal_reason], ['last mutating action 2 min ago', '502s']);
  assert.is(again.json.proposal.proposal_reason, 'really urgent', 'a reworded retry keeps its own reason');
  // Spaces around the operator are no other operator: still a repeat, recorded under the trimmed name.
  const spaced = await s.gate(['--proposal', s.proposal({ operator: ' user_42 ' }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(spaced.code, 3, spaced.stderr);
  assert.equal([spaced.json.proposal.deduped, spaced.json.proposal.operator], [true, 'user_42']);
});

Gate('§4.5: a reviewer that crashed or printed no JSON fails the call closed (exit 3) but decided nothing: a retry once it works is reviewed, not deduped', async () => {
  const s = setup();
  for (const [broken, reason, output] of [['exec:exit 1', 'the reviewer failed', null], ['exec:echo garbage', 'the reviewer wrote plain text', 'garbage\n']] as const) {
    const failed = await s.gate(['--proposal', s.proposal(), '--reviewer', broken, '--json']);
    assert.is(failed.code, 3, failed.stderr);
    assert.equal([failed.json.proposal.status, failed.json.proposal.deduped, failed.json.proposal.reviewer_output], ['rejected', false, output], broken);
    assert.match(failed.json.proposal.reason, reason);
  }
  const retried = await s.gate(['--proposal', s.proposal(), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(retried.code, 0, retried.stderr);
  assert.equal([retried.json.outcome, retried.json.proposal.deduped], ['approved', false]);
});

Gate('§4.5: Ctrl-C during a review fails the call closed at once (exit 130, a rejected row saying it was interrupted, the gate run ended, the reviewer stopped); no timeout row is made up later, and a retry is reviewed, not deduped', async () => {
  const s = setup();
  const marker = `countersign-gate-int-${process.pid}-${Date.now()}`;
  const child = spawn(process.execPath, [LAUNCHER, 'gate', '--tool', 'host_restart_service', '--class', 'write', '--reviewer', `exec:sleep 30 # ${marker}`, '--proposal', s.proposal(), '--json', '--store', s.store], { cwd: s.dir });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const running = () => spawnSync('pgrep', ['-f', `[-]c sleep 30 # ${marker}`]).status === 0;
  for (const end = Date.now() + 20_000; !running() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
  assert.ok(running(), 'the reviewer should be running');
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  assert.is(code, 130);
  assert.not.ok(running(), 'the reviewer was stopped');
  const result = JSON.parse(out);
  assert.is(result.outcome, 'rejected');
  assert.match(result.proposal.reason, 'the review was interrupted before the reviewer replied');
  const runs = (await cli(['runs', '--json'], { store: s.store })).json.runs as Array<{ status: string }>;
  assert.equal(runs.map((r) => r.status), ['completed'], 'the gate run was ended, not left waiting for its deadline');
  const retry = await s.gate(['--proposal', s.proposal(), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(retry.json.outcome, 'approved', 'an interruption decided nothing: the retry is reviewed');
});

Gate('--proposal - with --reviewer interactive is a usage error (both would read standard input): exit 2, no reviewer asked, no row written', async () => {
  const s = setup();
  const r = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', '-', '--reviewer', 'interactive', '--json'], { store: s.store, cwd: s.dir, stdin: s.proposal() });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_USAGE');
  assert.match(r.json.error.message, 'cannot both read standard input');
  const audit = await cli(['audit', '--json'], { store: s.store });
  assert.equal(audit.json.proposals, []);
});

Gate('A17: class read exits 0 with outcome pass, no reviewer and no row: no store is created for it, and no warning about a reviewer that is not asked', async () => {
  const s = setup();
  const fresh = join(s.dir, 'no-store-here');
  const r = await cli(['gate', '--tool', 'get_sop_text', '--class', 'read', '--json', '--proposal', JSON.stringify({ action: 'get_sop_text', target: {}, reason: 'r', operator: 'u', context_summary: 's' })], { store: fresh, cwd: s.dir });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { outcome: 'pass', proposal: null });
  assert.is(r.stderr, '');
  assert.not.ok(existsSync(fresh), 'nothing written for a read pass');
  // A read call is never reviewed: force_approve_no_sop has nothing to be ignored for, and nothing false is said about its confirmation.
  const flagged = await cli(['gate', '--tool', 'get_sop_text', '--class', 'read', '--proposal', JSON.stringify({ action: 'get_sop_text', target: {}, reason: 'r', operator: 'u', context_summary: 's', force_approve_no_sop: true, confirmation_id: 'confirm-x' })], { store: fresh, cwd: s.dir });
  assert.is(flagged.code, 0, flagged.stderr);
  assert.is(flagged.stderr, '');
});

Gate('a gate call refused for its personas (a missing --agents folder) exits 2 and creates no store: nothing ran', async () => {
  const s = setup();
  const fresh = join(s.dir, 'store-not-made');
  const r = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--reviewer', 'reply:approve.md', '--agents', join(s.dir, 'nodir'), '--json', '--proposal', s.proposal()], { store: fresh, cwd: s.dir });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_FILE_NOT_FOUND');
  assert.not.ok(existsSync(fresh), 'no store for a call that never ran');
});

Gate('exit 2 and no row for an unknown class, an action that is not --tool, a proposal failing its schema, or no --reviewer', async () => {
  const s = setup();
  // The codes as the library's gate.review and README's table name them.
  const cases: Array<[string[], string]> = [
    [['--class', 'admin', '--proposal', s.proposal(), '--reviewer', 'reply:approve.md'], 'E_USAGE'],
    [['--proposal', s.proposal({ action: 'kill_process' }), '--reviewer', 'reply:approve.md'], 'E_PROPOSAL'],
    [['--proposal', s.proposal({ blast_radius: 'planet' }), '--reviewer', 'reply:approve.md'], 'E_PROPOSAL'],
    [['--proposal', s.proposal({ is_admin: true }), '--reviewer', 'reply:approve.md'], 'E_PROPOSAL'],
    [['--proposal', s.proposal()], 'E_USAGE'],
  ];
  for (const [args, code] of cases) {
    const r = await s.gate([...args, '--json']);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.is(r.json.error.code, code, args.join(' '));
  }
  assert.equal((await cli(['audit', '--json'], { store: s.store })).json.proposals, []);
});

Gate('an action with white space around the tool name is said as such, quoting --tool as given, never "\" x \" is not --tool x"', async () => {
  const s = setup();
  const r = await s.gate(['--proposal', s.proposal({ action: ' host_restart_service ' }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_PROPOSAL');
  assert.is(r.json.error.message, 'the proposal\'s action " host_restart_service " has white space around the tool name "host_restart_service"');
  assert.is(r.json.error.fix, 'write the action as "host_restart_service", exactly the tool\'s name');
  const other = await s.gate(['--proposal', s.proposal({ action: 'kill_process' }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(other.json.error.message, 'the proposal\'s action "kill_process" is not --tool "host_restart_service"');
});

const Audit = suite('countersign audit and confirm');

Audit('E13: audit --json lists proposals (filterable by --status and --since) with their JSON types', async () => {
  const s = setup();
  await s.gate(['--proposal', s.proposal(), '--reviewer', 'reply:approve.md']);
  await s.gate(['--proposal', s.proposal({ target: { device_id: 9, service: 'nginx' } }), '--reviewer', 'reply:reject.md']);
  const all = await cli(['audit', '--json'], { store: s.store });
  assert.is(all.code, 0, all.stderr);
  assert.equal(all.json.proposals.map((p: { status: string }) => p.status), ['approved', 'rejected']);
  assert.equal(all.json.executions, []);
  assert.is(all.json.proposals[1].deduped, false);
  assert.equal((await cli(['audit', '--json', '--status', 'rejected'], { store: s.store })).json.proposals.length, 1);
  assert.equal((await cli(['audit', '--json', '--since', '2999-01-01T00:00:00Z'], { store: s.store })).json.proposals, []);
  // A since before the rows keeps them all; one between them keeps the later (rows carry their own times).
  assert.equal((await cli(['audit', '--json', '--since', '2000-01-01'], { store: s.store })).json.proposals.map((p: { status: string }) => p.status), ['approved', 'rejected']);
  const between = all.json.proposals[1].at as string;
  const later = await cli(['audit', '--json', '--since', between], { store: s.store });
  assert.ok(later.json.proposals.every((p: { at: string }) => p.at >= between) && later.json.proposals.some((p: { status: string }) => p.status === 'rejected'));
  assert.is((await cli(['audit', '--status', 'maybe'], { store: s.store })).code, 2);
});

Audit('F6 §4.6: confirm records a confirmation whose id makes force_approve_no_sop count; without it the flag is ignored and that is logged', async () => {
  const s = setup();
  const unconfirmed = await s.gate(['--proposal', s.proposal({ force_approve_no_sop: true }), '--reviewer', 'reply:approve.md']);
  assert.is(unconfirmed.code, 0);
  assert.match(unconfirmed.stderr, /force_approve_no_sop .* ignored/);
  const c = await cli(['confirm', '--operator', 'user_42', '--action', 'host_restart_service', '--target', '{"device_id": 8, "service": "nginx"}', '--json'], { store: s.store });
  assert.is(c.code, 0, c.stderr);
  const confirmed = await s.gate(['--proposal', s.proposal({ target: { device_id: 8, service: 'nginx' }, force_approve_no_sop: true, confirmation_id: c.json.id }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(confirmed.code, 0);
  assert.not.match(confirmed.stderr, /ignored/);
  // The confirmation counted: the row names it (an unrecorded id would leave it null).
  assert.is(confirmed.json.proposal.confirmation_id, c.json.id);
  const unknown = await s.gate(['--proposal', s.proposal({ target: { device_id: 9, service: 'nginx' }, force_approve_no_sop: true, confirmation_id: 'never-recorded' }), '--reviewer', 'reply:approve.md', '--json']);
  assert.is(unknown.json.proposal.confirmation_id, null);
});

Gate.run();
Audit.run();
