/**
 * `countersign gate` on a reviewer that never replies (E11, E13, §4.4): the
 * gate's ceiling fires, the exit status is 4, --json says ErrReviewTimeout,
 * and a timeout row is in the ledger. The CLI runs on a fast clock (100×),
 * so the 30 s ceiling passes in a fraction of a second of real time.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, ROOT, tempDir } from '../helpers/cli.js';

const FAST_CLI = join(ROOT, 'spec/helpers/fast-clock-cli.mjs');
const PROPOSAL = JSON.stringify({ action: 'host_restart_service', target: { device_id: 7, service: 'nginx' }, reason: '502s', operator: 'user_42', context_summary: 'nginx OOM' });

function fastGate(store: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', FAST_CLI, '100', 'gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', PROPOSAL, ...args], {
    // From the project root, where --import tsx resolves; the reviewer's path is absolute.
    cwd: ROOT,
    env: { ...process.env, COUNTERSIGN_STORE: store },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const Timeout = suite('countersign gate: timeout');

Timeout('E11 E13 §4.4: a reviewer silent past --timeout-ms exits 4 with ErrReviewTimeout and leaves a timeout row that audit lists', async () => {
  const dir = tempDir('countersign-gate-timeout-');
  const store = join(dir, 'store');
  // Reads its request and never answers.
  writeFileSync(join(dir, 'silent.mjs'), 'process.stdin.resume();\n');
  const started = Date.now();
  const r = fastGate(store, ['--reviewer', `jsonl:node ${join(dir, 'silent.mjs')}`, '--timeout-ms', '30000', '--json']);
  assert.is(r.code, 4, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal([out.outcome, out.code, out.message], ['timeout', 'ErrReviewTimeout', 'review timed out after 30s']);
  assert.equal([out.proposal.status, out.proposal.decision_text, out.proposal.deduped], ['timeout', null, false]);
  assert.ok(Date.now() - started < 25_000, 'the fast clock, not the wall clock, ran out');
  const audit = await cli(['audit', '--json', '--status', 'timeout'], { store });
  assert.equal(audit.json.proposals.map((p: { id: string }) => p.id), [out.proposal.id]);
});

Timeout('E13 §4.5: a timeout is not remembered as a rejection — the next call is reviewed again, not deduped', async () => {
  const dir = tempDir('countersign-gate-timeout-');
  const store = join(dir, 'store');
  writeFileSync(join(dir, 'silent.mjs'), 'process.stdin.resume();\n');
  writeFileSync(join(dir, 'approve.md'), '**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 covers restart nginx\n- ✓ Rollback: systemctl start nginx\n\n**Notes**\nLow risk.\n');
  assert.is(fastGate(store, ['--reviewer', `jsonl:node ${join(dir, 'silent.mjs')}`, '--timeout-ms', '30000']).code, 4);
  const again = await cli(['gate', '--tool', 'host_restart_service', '--class', 'write', '--proposal', PROPOSAL, '--reviewer', 'reply:approve.md', '--json'], { store, cwd: dir });
  assert.is(again.code, 0, again.stderr);
  assert.is(again.json.proposal.deduped, false);
});

Timeout.run();
