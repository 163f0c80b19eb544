/**
 * The review gate's audit trail, as typed rows over the store's ledger
 * (A7, A13, E1–E5, F3): one proposal row per gated call, one execution row
 * per inner tool run, and the user confirmations `force_approve_no_sop`
 * needs (F6, decision 6). Rows are append-only; `id` and `at` live in the
 * ledger's own columns and are merged back on reading, so a row reads back
 * with the JSON types it was written with.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import { canonicalJson } from '../run/hash.js';
import type { LedgerRow, Store } from '../store/store.js';
import { checkShape, PROPOSAL_STATUSES } from '../format/table-shapes.js';
import { gateRowCheck } from './gate-runs.js';

export const PROPOSALS_TABLE = 'chat_mutating_proposals';
export const EXECUTIONS_TABLE = 'tool_executions';
export const CONFIRMATIONS_TABLE = 'user_confirmations';

/** A confirmation is good for less than this long after it was recorded (decision 6). */
export const CONFIRMATION_TTL_MS = 600_000;

export { PROPOSAL_STATUSES };
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export type ProposalRow = {
  id: string;
  /** ISO-8601 time the row was written. */
  at: string;
  operator: string;
  tool: string;
  action: string;
  reason: string;
  blast_radius: string;
  context_summary: string;
  /** The call's arguments. */
  target: JsonObject;
  status: ProposalStatus;
  /** The reviewer's reply, verbatim; null when no reviewer ran. */
  decision_text: string | null;
  sop_id: string | null;
  rollback: string | null;
  /** The ✗ line texts of the reply. */
  missing_gates: string[] | null;
  /** A repeat refused from an earlier rejection without a review (§4.5). */
  deduped: boolean;
  proposal_hash: string;
  persona: string;
  model: string;
  /**
   * The operator's own reason for the call (the proposal's), kept on every
   * row the gate writes; `reason` is the reviewer's on a rejection. Absent
   * on rows written before it was kept, and on a host's own rows.
   */
  proposal_reason?: string;
  /**
   * The user confirmation (`countersign confirm`, recordConfirmation) a
   * `force_approve_no_sop` review was given under: the one human override
   * of a gate, traceable from the row it allowed. null when none; absent on
   * rows written before it was kept.
   */
  confirmation_id?: string | null;
  /**
   * What the reviewer wrote when its answer was not a decision answer (out
   * of its schema): kept for the audit trail, never read as a decision
   * (`decision_text` stays empty, so it dedupes nothing). null otherwise.
   */
  reviewer_output?: string | null;
  /**
   * On rows read back only, never stored: true when the review gate wrote
   * the row (or a host, through writeProposal); false when a run of the
   * gate workflow that the gate did not start wrote it (see gate-runs.ts).
   */
  by_gate?: boolean;
};

export type ExecutionRow = {
  id: string;
  at: string;
  proposal_id: string | null;
  tool: string;
  args: JsonObject;
  ok: boolean;
  error: string | null;
};

export type ConfirmationRow = {
  id: string;
  at: string;
  operator: string;
  action: string;
  target: JsonObject;
};

/** A row to write: `id` and `at` are made when absent, and a proposal's hash is computed when absent. */
export type NewProposalRow = Omit<ProposalRow, 'id' | 'at' | 'proposal_hash' | 'by_gate'> & Partial<Pick<ProposalRow, 'id' | 'at' | 'proposal_hash'>>;
export type NewExecutionRow = Omit<ExecutionRow, 'id' | 'at'> & Partial<Pick<ExecutionRow, 'id' | 'at'>>;

export interface Confirmation {
  operator: string;
  action: string;
  target: JsonObject;
}

export type ConfirmationCheck = { ok: true } | { ok: false; why: string };

/**
 * The dedupe key (§4.5): sha256 over the operator, the tool name and the
 * canonical JSON of the target (sorted keys). Key order and the proposal's
 * reason never change it.
 */
export function proposalHash(operator: string, tool: string, target: JsonObject): string {
  return createHash('sha256').update(canonicalJson([operator, tool, target])).digest('hex');
}

/** The ledger row a proposal is stored as; a `record` node may append it through `Mutation.rows`. */
export function proposalLedgerRow(row: ProposalRow): LedgerRow {
  // by_gate is derived on reading; a row read back can be stored again without it.
  const { id, at, by_gate: _derived, ...body } = row;
  checkShape(PROPOSALS_TABLE, body, id);
  return { id, table: PROPOSALS_TABLE, at, key: row.proposal_hash, row: body };
}

export function executionLedgerRow(row: ExecutionRow): LedgerRow {
  const { id, at, ...body } = row;
  checkShape(EXECUTIONS_TABLE, body, id);
  return { id, table: EXECUTIONS_TABLE, at, ...(row.proposal_id !== null ? { key: row.proposal_id } : {}), row: body };
}

export function writeProposal(store: Store, fields: NewProposalRow, now: number | Date = Date.now()): ProposalRow {
  const row: ProposalRow = {
    ...fields,
    id: fields.id ?? `prop-${randomUUID()}`,
    at: fields.at ?? iso(now),
    proposal_hash: fields.proposal_hash ?? proposalHash(fields.operator, fields.tool, fields.target),
  };
  store.appendRows([proposalLedgerRow(row)]);
  // Written outside any run: read back, it is the gate's (see gate-runs.ts).
  return { ...row, by_gate: true };
}

export function writeExecution(store: Store, fields: NewExecutionRow, now: number | Date = Date.now()): ExecutionRow {
  const row: ExecutionRow = { ...fields, id: fields.id ?? `exec-${randomUUID()}`, at: fields.at ?? iso(now) };
  store.appendRows([executionLedgerRow(row)]);
  return row;
}

/** Proposal rows, oldest first; `since` is any ISO-8601 date or time. */
export function listProposals(store: Store, filter: { status?: string; since?: string } = {}): ProposalRow[] {
  const { status, since } = filter;
  if (status !== undefined && !(PROPOSAL_STATUSES as readonly string[]).includes(status)) {
    throw new CountersignError('E_LEDGER_QUERY', `status "${status}" is not a proposal status`, {
      fix: `pass one of ${PROPOSAL_STATUSES.join(', ')}`,
    });
  }
  const stored = store.rows(PROPOSALS_TABLE, since === undefined ? {} : { since });
  const byGate = gateRowCheck(store, stored.length > 8);
  const rows = stored.map((r) => proposalFrom(r, byGate));
  return status === undefined ? rows : rows.filter((r) => r.status === status);
}

/** Proposal rows with this proposal hash (an indexed lookup), oldest first. */
export function proposalsByHash(store: Store, hash: string, since?: string): ProposalRow[] {
  const byGate = gateRowCheck(store);
  return store.rows(PROPOSALS_TABLE, since === undefined ? { key: hash } : { key: hash, since }).map((r) => proposalFrom(r, byGate));
}

function proposalFrom(r: LedgerRow, byGate: (row: LedgerRow) => boolean): ProposalRow {
  return { ...fromLedger<ProposalRow>(r), by_gate: byGate(r) };
}

export function listExecutions(store: Store, filter: { since?: string } = {}): ExecutionRow[] {
  return store.rows(EXECUTIONS_TABLE, filter.since === undefined ? {} : { since: filter.since }).map((r) => fromLedger<ExecutionRow>(r));
}

/** Records the user's explicit confirmation (F6); its `id` is what a proposal's `confirmation_id` names. */
export function recordConfirmation(store: Store, confirmation: Confirmation, now: number | Date = Date.now()): ConfirmationRow {
  for (const field of ['operator', 'action'] as const) {
    const v = (confirmation as Partial<Confirmation>)[field];
    if (typeof v !== 'string' || v.trim() === '') {
      throw new CountersignError('E_LEDGER_ROW', `a confirmation needs a non-blank ${field}`, {
        fix: field === 'operator' ? 'pass the confirming user id (--operator U)' : 'pass the tool name the user confirmed (--action A)',
      });
    }
  }
  if (!isObject(confirmation.target)) {
    throw new CountersignError('E_LEDGER_ROW', 'a confirmation\'s target must be a JSON object', {
      fix: 'pass the tool call\'s arguments as an object, e.g. --target \'{"device_id": 7, "service": "nginx"}\'',
    });
  }
  const row: ConfirmationRow = {
    id: `confirm-${randomUUID()}`,
    at: iso(now),
    // Trimmed as the gate trims a proposal's operator (and `confirm` its
    // flags): "user_42 " and "user_42" are one user, or no confirmation would match.
    operator: confirmation.operator.trim(),
    action: confirmation.action.trim(),
    target: confirmation.target,
  };
  const { id, at, ...body } = row;
  store.appendRows([{ id, table: CONFIRMATIONS_TABLE, at, key: id, row: body }]);
  return row;
}

/** The recorded confirmation with this id, if any. */
export function findConfirmation(store: Store, id: string): ConfirmationRow | undefined {
  const [found] = store.rows(CONFIRMATIONS_TABLE, { key: id });
  return found ? fromLedger<ConfirmationRow>(found) : undefined;
}

/**
 * Whether confirmation `id` covers this proposal (F6, decision 6): recorded,
 * for the same operator, action and target (canonical JSON, so key order
 * does not matter), and less than 10 minutes old at `now`.
 */
export function checkConfirmation(store: Store, id: string | undefined, proposal: Confirmation, now: number | Date = Date.now()): ConfirmationCheck {
  if (typeof id !== 'string' || id.trim() === '') return { ok: false, why: 'no confirmation_id was given' };
  const c = findConfirmation(store, id);
  if (!c) return { ok: false, why: `no user confirmation "${id}" is recorded` };
  if (c.operator !== proposal.operator) return { ok: false, why: `confirmation "${id}" was given by operator "${c.operator}", not "${proposal.operator}"` };
  if (c.action !== proposal.action) return { ok: false, why: `confirmation "${id}" confirms action "${c.action}", not "${proposal.action}"` };
  if (canonicalJson(c.target) !== canonicalJson(proposal.target)) {
    return { ok: false, why: `confirmation "${id}" confirms target ${canonicalJson(c.target)}, not ${canonicalJson(proposal.target)}` };
  }
  const age = ms(now) - Date.parse(c.at);
  if (age < 0) return { ok: false, why: `confirmation "${id}" is dated ${c.at}, after the proposal` };
  if (age >= CONFIRMATION_TTL_MS) {
    return { ok: false, why: `confirmation "${id}" is ${Math.floor(age / 1000)} s old; a confirmation counts for less than ${CONFIRMATION_TTL_MS / 60_000} minutes` };
  }
  return { ok: true };
}

function fromLedger<T>(r: LedgerRow): T {
  const { id: _id, at: _at, ...body } = r.row;
  return { id: r.id, at: r.at, ...body } as T;
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function ms(now: number | Date): number {
  return typeof now === 'number' ? now : now.getTime();
}

function iso(now: number | Date): string {
  return new Date(ms(now)).toISOString();
}
