/**
 * review_gate: the second signature on every mutating call (A3, A4).
 *
 * For a `read` tool the call goes straight through: no proposal, no
 * decision, no row (A17, F8). For `write` and `destructive` the decorator
 * builds the proposal and asks the injected `decide` (the gate workflow and
 * its reviewer, which also write the proposal row). The inner tool runs only
 * on `approved`, or on `skipped` for a tool the gate's `skip` names (A18,
 * A19, E14). Anything else fails closed: a reject, a timeout, an unknown
 * outcome, a `skipped` the configuration does not allow, or `decide`
 * failing.
 *
 * While `decide` runs, the review is pending and observable (B9): the
 * caller's UI need not block even though the tool call does.
 */
import { CountersignError, isCountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import { DEFAULT_BLAST_RADIUS, type Tool } from '../../tools/tool.js';
import { assertProposal, type Proposal } from '../proposal.js';
import { cancelled } from './until-stopped.js';
import { deepFreeze } from '../../format/freeze.js';

/** Errors from the gate that reach the caller unchanged; every other failure of the gate is ErrReviewRejected. */
const PASSED_ON: ReadonlySet<string> = new Set(['E_STORE', 'E_PROPOSAL', 'ErrReviewRejected', 'ErrReviewTimeout']);
import type { ReviewGateDecorator, ToolCall } from '../chain.js';

export type GateOutcome = 'approved' | 'rejected' | 'timeout' | 'skipped';

export interface GateVerdict {
  outcome: GateOutcome;
  /** The reviewer's reason (a reject), or why the gate decided as it did. */
  reason?: string;
  /** The proposal row the gate wrote; the audit row of the execution points at it. */
  proposalId?: string;
  /** On `timeout`: the ceiling that passed, for the error message. */
  timeoutMs?: number;
}

/** Runs the review of one proposal and records it. */
export type DecideFn = (proposal: Proposal, tool: Tool) => Promise<GateVerdict>;

/** One review in flight. */
export interface PendingReview {
  readonly tool: string;
  readonly proposal: Proposal;
}

export interface ReviewGateOptions {
  decide: DecideFn;
  /** Tools the gate exempts; `decide` records each such call as `skipped` (A6, §4.8). */
  skip?: Iterable<string>;
  /** Called when a review starts: the caller can show "review pending" (B9). */
  onPending?(review: PendingReview): void;
  /** Called when a review ends, whatever the outcome (a `decide` failure reads as `rejected`). */
  onSettled?(review: PendingReview, outcome: GateOutcome): void;
  /** For the timeout message when the verdict carries no `timeoutMs`; the gate's default ceiling is 60 s (A11). */
  reviewTimeoutMs?: number;
  /** Where a failing `onSettled` is said; stderr by default. */
  log?: (message: string) => void;
}

export interface ReviewGate extends ReviewGateDecorator {
  /** Reviews in flight right now, oldest first. */
  pending(): PendingReview[];
}

const DEFAULT_REVIEW_TIMEOUT_MS = 60_000;
const OUTCOMES: ReadonlySet<string> = new Set(['approved', 'rejected', 'timeout', 'skipped']);

export function reviewGateDecorator(options: ReviewGateOptions): ReviewGate {
  if (typeof options?.decide !== 'function') {
    throw new CountersignError('E_CHAIN_INVALID', 'reviewGateDecorator needs a decide(proposal, tool) function', {
      fix: 'pass the gate\'s decide function: reviewGateDecorator({decide: gate.decide, skip: gate.skip})',
    });
  }
  const { decide } = options;
  // A string would be read letter by letter ("wr" → w, r): only a list or set of tool names will do.
  const names = options.skip;
  const iterable = names !== null && typeof names === 'object' && typeof (names as Iterable<unknown>)[Symbol.iterator] === 'function';
  if (names !== undefined && (!iterable || [...(names as Iterable<unknown>)].some((n) => typeof n !== 'string'))) {
    throw new CountersignError('E_CHAIN_INVALID', `reviewGateDecorator: skip must be a list of tool names, got ${said(options.skip)}`, {
      fix: 'pass skip: ["tool_name", …] (or the gate\'s own gate.skip), or leave it out',
    });
  }
  const skip: ReadonlySet<string> = new Set(options.skip ?? []);
  const inFlight = new Set<PendingReview>();
  const log = options.log ?? ((m: string) => process.stderr.write(`countersign: review gate: ${m}\n`));

  const review = async (call: ToolCall): Promise<GateVerdict> => {
    const proposal = buildProposal(call);
    // Observers (onPending, onSettled, pending()) get a deep-frozen copy: they report a review, and nothing they
    // do can change the proposal the reviewer is asked about.
    const pending: PendingReview = deepFreeze({ tool: call.tool.name, proposal: structuredClone(proposal) });
    inFlight.add(pending);
    // A host's onPending that throws fails the call closed before any
    // review: no review started, so none settles.
    try {
      options.onPending?.(pending);
    } catch (err) {
      inFlight.delete(pending);
      throw new CountersignError('ErrReviewRejected', `tool "${call.tool.name}" was not reviewed: the host's onPending failed (${(err as Error)?.message ?? String(err)}), so the call did not run`, {
        fix: 'fix the host\'s onPending callback, then call again; no reviewer saw this call and no ledger row was written',
        cause: err,
        data: { tool: call.tool.name, proposalId: null },
      });
    }
    let outcome: GateOutcome = 'rejected';
    try {
      const verdict = await decide(proposal, call.tool);
      if (verdict && OUTCOMES.has(verdict.outcome)) outcome = verdict.outcome;
      // A skipped answer for a tool the skip list does not name is refused below: reported as the rejection it is.
      if (outcome === 'skipped' && !skip.has(call.tool.name)) outcome = 'rejected';
      // A let-through naming no proposal row is refused below: reported as the rejection the caller gets.
      if ((outcome === 'approved' || outcome === 'skipped') && !namesRow(verdict)) outcome = 'rejected';
      return verdict;
    } finally {
      inFlight.delete(pending);
      // A host's notifier reports a review; it never decides one. Its failure
      // must not turn an approval the ledger records into a rejection.
      try {
        options.onSettled?.(pending, outcome);
      } catch (err) {
        log(`onSettled failed for ${pending.tool} (${outcome}): ${(err as Error)?.message ?? String(err)}; the verdict stands`);
      }
    }
  };

  return {
    position: 'review_gate',
    skip,
    namedTools: Object.freeze([...skip]),
    pending: () => [...inFlight],
    wrap: (next, tool) => {
      // Fail closed: only a read tool passes unreviewed, whatever else its class says.
      if (tool.class === 'read') return next;
      return async (call) => {
        // Cancelled before its review began (while tenant_bind resolved): no review, no row.
        if (call.ctx?.signal?.aborted) throw cancelled(tool.name, call.ctx.signal, 'before it was reviewed: the tool did not run and no ledger row was written');
        let verdict: GateVerdict;
        try {
          verdict = await review(call);
        } catch (err) {
          // Passed on as they are: the caller's own mistake (an invalid
          // proposal), a store that failed, and the gate's typed verdicts.
          // Anything else the gate threw (E_GATE_WORKFLOW, a crash) fails closed.
          if (isCountersignError(err) && PASSED_ON.has(err.code)) throw err;
          throw rejected(`the review gate failed: ${isCountersignError(err) ? `${err.code}: ${err.message}` : ((err as Error)?.message ?? String(err))}`, undefined, err);
        }
        // A mutation runs only on a decision on the record: decide writes the
        // proposal row and names it, and the execution row points at it (A7).
        const recorded = namesRow(verdict);

        switch (verdict?.outcome) {
          case 'approved':
            if (!recorded) throw unrecorded(tool.name, 'approved the call');
            return next({ ...call, proposalId: verdict.proposalId });
          case 'skipped':
            if (!skip.has(tool.name)) throw rejected(`the gate answered skipped, but its skip list does not name "${tool.name}"`, verdict.proposalId);
            if (!recorded) throw unrecorded(tool.name, 'skipped the review');
            return next({ ...call, proposalId: verdict.proposalId });
          case 'rejected':
            // A host's decide may return any shape: a reason that is no text is no reason.
            throw rejected((typeof verdict.reason === 'string' ? verdict.reason.trim() : '') || 'the reviewer gave no reason', verdict.proposalId);
          case 'timeout': {
            const ms = verdict.timeoutMs ?? options.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS;
            throw new CountersignError('ErrReviewTimeout', `review timed out after ${ms / 1000}s`, {
              fix: 'tell the user the review timed out; do not retry the same call (persistent timeouts are a reviewer-latency problem)',
              data: { tool: tool.name, proposalId: verdict.proposalId ?? null },
            });
          }
          default:
            throw rejected(`the gate returned an unknown outcome ${JSON.stringify(verdict?.outcome)}`, verdict?.proposalId);
        }
      };
    },
  };
}

/**
 * The proposal for one gated call (A23–A26), or E_PROPOSAL. The target is a
 * copy, so a tool that mutates its arguments cannot rewrite what was reviewed.
 */
export function buildProposal(call: ToolCall): Proposal {
  if (call.operator === undefined) {
    throw new CountersignError('E_OPERATOR_REQUIRED', `tool "${call.tool.name}" reached the review gate without a bound operator`, {
      fix: 'put tenant_bind in the chain (tenantBind: tenantBindDecorator()); the proposal\'s operator is its bound user id',
    });
  }
  const { ctx } = call;
  // The reviewer checks the reason against the alerts (C5): a call without one is refused before any review.
  if (typeof ctx.reason !== 'string' || ctx.reason.trim() === '') {
    throw new CountersignError('E_PROPOSAL', `tool "${call.tool.name}" is gated and the call gives no reason`, {
      pointer: '/reason',
      fix: 'pass ctx.reason: why the operator wants this action, e.g. "User reported 502; nginx error log shows OOM"; nothing ran',
    });
  }
  const proposal: Proposal = {
    action: call.tool.name,
    target: structuredClone(call.args),
    reason: ctx.reason,
    blast_radius: call.tool.blastRadius ?? DEFAULT_BLAST_RADIUS,
    operator: call.operator,
    context_summary: ctx.contextSummary ?? '',
  };
  if (ctx.forceApproveNoSop !== undefined) proposal.force_approve_no_sop = ctx.forceApproveNoSop;
  if (ctx.confirmationId !== undefined) proposal.confirmation_id = ctx.confirmationId;
  // What reaches `decide` always satisfies schemas/proposal.schema.json (a blank confirmation id does not).
  return assertProposal(proposal);
}

/** Whether a verdict names the proposal row decide wrote (the execution row points at it). */
function namesRow(verdict: GateVerdict | undefined): boolean {
  return typeof verdict?.proposalId === 'string' && verdict.proposalId.trim() !== '';
}

/** A decide that let a call through without the proposal row it must write: the call fails closed. */
function unrecorded(tool: string, what: string): CountersignError {
  const reason = `the gate ${what} but named no proposal row it recorded (proposalId), so the execution would have no review on the trail`;
  return new CountersignError('ErrReviewRejected', `review rejected: ${reason}`, {
    fix: 'make the gate\'s decide record the proposal and return its row id as proposalId (createGate\'s decide does); the call did not run',
    data: { reason, tool, proposalId: null },
  });
}

function rejected(reason: string, proposalId?: string, cause?: unknown): CountersignError {
  return new CountersignError('ErrReviewRejected', `review rejected: ${reason}`, {
    fix: 'explain the reason to the user; do not retry the same call (a repeat is rejected without a new review)',
    data: { reason, proposalId: proposalId ?? null },
    ...(cause !== undefined ? { cause } : {}),
  });
}
