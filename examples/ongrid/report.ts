/**
 * How the example prints: one block per scenario (the call, the review, the
 * outcome, the rows written) and a closing summary with the A7 check. Plain
 * text for people; main.ts prints JSON instead with --json.
 */
import type { ExecutionRow, ProposalRow } from '../../engine/index.js';
import type { ScenarioReport, Summary } from './play.js';

const LABEL = 11;

function line(label: string, text: string): string {
  return `  ${label.padEnd(LABEL)}${text}`;
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => line('', `│ ${l}`));
}

function clockTime(iso: string): string {
  return iso.slice(11, 19);
}

function proposalLines(r: ProposalRow): string[] {
  const head = [r.status, `operator ${r.operator}`, `blast_radius ${r.blast_radius}`];
  if (r.sop_id) head.push(`sop ${r.sop_id}`);
  if (r.rollback) head.push(`rollback ${r.rollback}`);
  head.push(`deduped ${r.deduped ? 'yes' : 'no'}`);
  const out = [line('proposal', `${head.join(' · ')}  (${r.id})`)];
  if (r.status !== 'approved') out.push(line('', `reason: ${r.reason}`));
  if (r.missing_gates) out.push(line('', `missing_gates: ${JSON.stringify(r.missing_gates)}`));
  if (r.decision_text) out.push(...indent(r.decision_text));
  return out;
}

function executionLine(r: ExecutionRow): string {
  return line('execution', `${r.ok ? 'ok' : `failed: ${r.error}`} · ${r.tool} ${JSON.stringify(r.args)} · proposal ${r.proposal_id ?? 'none'}  (${r.id})`);
}

export function scenarioText(r: ScenarioReport, index: number, total: number): string {
  const out = [`[${index}/${total}] ${r.id} — ${r.title}   (${r.seeds.join(' ')})`];
  out.push(line('call', `${r.tool} ${JSON.stringify(r.args)} by ${r.caller ?? 'nobody'} at ${clockTime(r.at)} (simulated)`));
  for (const m of r.gateLog) out.push(line('gate', m));
  if (r.reviewerRuns.length > 0) {
    const looked = r.lookups.map((l) => l.name).join(', ') || 'nothing';
    out.push(line('review', `pending while the call blocked; the reviewer looked up ${looked}`));
  } else if (r.reviewPending) {
    out.push(line('review', 'the gate answered without a reviewer (no reviewer ran)'));
  } else if (r.toolClass === 'read') {
    out.push(line('review', 'none: a read call is not gated (no reviewer ran)'));
  } else {
    out.push(line('review', 'none: the call never reached the gate (no reviewer ran)'));
  }
  if (r.note) out.push(line('note', r.note));
  out.push(line('outcome', r.outcome.ok ? `OK ${JSON.stringify(r.outcome.result)}` : `${r.outcome.code}: ${r.outcome.message}`));
  for (const p of r.proposals) out.push(...proposalLines(p));
  for (const e of r.executions) out.push(executionLine(e));
  if (r.proposals.length === 0 && r.executions.length === 0) out.push(line('rows', 'none written'));
  return out.join('\n');
}

export function summaryText(s: Summary): string {
  const p = s.proposals;
  return [
    'summary',
    line('proposals', `${p.total}: approved ${p.approved} · rejected ${p.rejected} (deduped ${p.deduped}) · timeout ${p.timeout} · skipped ${p.skipped}`),
    line('executions', `${s.executions.total}: ok ${s.executions.ok} · failed ${s.executions.failed}`),
    line('A7', `proposal rows neither deduped nor skipped: ${s.a7.reviewedRows}; reviewer runs: ${s.a7.reviewerRuns}; ${s.a7.holds ? 'equal ✓' : 'NOT EQUAL ✗'}`),
  ].join('\n');
}
