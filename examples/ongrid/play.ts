/**
 * Plays one scenario against the host and reports what happened: the call,
 * its outcome (the result, or the error's code and message), whether a
 * review was pending and what the reviewer looked up, and the ledger rows
 * the call wrote — proposal rows and execution rows, read back from the
 * store.
 */
import { isCountersignError, listExecutions, listProposals, type ExecutionRow, type ProposalRow } from '../../engine/index.js';
import type { OngridHost, ReviewerRun } from './host.js';
import type { Scenario } from './scenarios.js';

/** Simulated time between two calls of the conversation. */
export const CALL_SPACING_MS = 10_000;

export type Outcome = { ok: true; result: unknown } | { ok: false; code: string; message: string };

export interface ScenarioReport {
  id: string;
  title: string;
  seeds: string[];
  /** The simulated time the call was made at. */
  at: string;
  tool: string;
  /** The tool's class: read calls are not gated. */
  toolClass: string | null;
  args: unknown;
  /** Who called (the context's user id; tenant_bind decides what the proposal says). */
  caller: string | null;
  outcome: Outcome;
  /** A review was observable as pending while the call blocked (B9). */
  reviewPending: boolean;
  reviewerRuns: ReviewerRun[];
  lookups: Array<{ name: string; args: unknown }>;
  gateLog: string[];
  proposals: ProposalRow[];
  executions: ExecutionRow[];
  note?: string;
}

export async function play(host: OngridHost, scenario: Scenario): Promise<ScenarioReport> {
  host.clock.advance(CALL_SPACING_MS);
  const at = host.clock.iso();
  const seenProposals = new Set(listProposals(host.store).map((r) => r.id));
  const seenExecutions = new Set(listExecutions(host.store).map((r) => r.id));
  const trace = host.startTrace();
  const ctx = { ...scenario.ctx, ...(scenario.before?.(host) ?? {}) };
  let outcome: Outcome;
  try {
    outcome = { ok: true, result: await host.call(scenario.tool, scenario.args, ctx) };
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    outcome = { ok: false, code: e.code, message: e.message };
  } finally {
    scenario.after?.(host);
  }
  return {
    id: scenario.id,
    title: scenario.title,
    seeds: scenario.seeds,
    at,
    tool: scenario.tool,
    toolClass: host.tools.get(scenario.tool)?.class ?? null,
    args: scenario.args,
    caller: ctx.userId ?? null,
    outcome,
    reviewPending: trace.pending.length > 0,
    reviewerRuns: trace.reviewerRuns,
    lookups: trace.lookups,
    gateLog: trace.gateLog,
    proposals: listProposals(host.store).filter((r) => !seenProposals.has(r.id)),
    executions: listExecutions(host.store).filter((r) => !seenExecutions.has(r.id)),
    ...(scenario.note ? { note: scenario.note } : {}),
  };
}

export interface Summary {
  proposals: { total: number; approved: number; rejected: number; timeout: number; skipped: number; deduped: number };
  executions: { total: number; ok: number; failed: number };
  reviewerRuns: number;
  /** A7: proposal rows that are neither deduped nor skipped equal reviewer runs. */
  a7: { reviewedRows: number; reviewerRuns: number; holds: boolean };
}

/** Counts over the whole ledger, not just the scenarios' diffs: the ledger is the audit trail. */
export function summarize(host: OngridHost): Summary {
  const proposals = listProposals(host.store);
  const executions = listExecutions(host.store);
  const count = (status: ProposalRow['status']) => proposals.filter((r) => r.status === status).length;
  const reviewedRows = proposals.filter((r) => !r.deduped && r.status !== 'skipped').length;
  const reviewerRuns = host.reviewerRuns();
  return {
    proposals: {
      total: proposals.length,
      approved: count('approved'),
      rejected: count('rejected'),
      timeout: count('timeout'),
      skipped: count('skipped'),
      deduped: proposals.filter((r) => r.deduped).length,
    },
    executions: { total: executions.length, ok: executions.filter((r) => r.ok).length, failed: executions.filter((r) => !r.ok).length },
    reviewerRuns,
    a7: { reviewedRows, reviewerRuns, holds: reviewedRows === reviewerRuns },
  };
}
