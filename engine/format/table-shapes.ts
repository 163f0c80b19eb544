/**
 * Ledger tables with a fixed row shape: the review gate's proposals,
 * executions, confirmations and the record of its own runs. Every writer —
 * a `record` node, `writeProposal`, `appendRows` — goes through the store,
 * and the store checks a row of these tables against its shape before it
 * writes anything, so `audit` and the dedupe never meet a proposal row whose
 * `status` is missing or whose `target` is a string. Other tables (any a
 * workflow's `record` node names) keep free-form rows.
 */
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';

export const PROPOSAL_STATUSES = ['approved', 'rejected', 'timeout', 'skipped'] as const;

export type FieldKind = 'string' | 'string|null' | 'string?' | 'string|null?' | 'object' | 'boolean' | 'status' | 'strings|null';

/** Kinds a row may leave out (fields added after rows were first written, and hosts' own rows). */
export function optionalKind(kind: FieldKind): boolean {
  return kind === 'string?' || kind === 'string|null?';
}

/** The tables whose rows have a fixed shape, field by field (`id` and `at` are the ledger's own). */
export const TABLE_SHAPES: Readonly<Record<string, Readonly<Record<string, FieldKind>>>> = {
  chat_mutating_proposals: {
    operator: 'string', tool: 'string', action: 'string', reason: 'string', blast_radius: 'string', context_summary: 'string',
    target: 'object', status: 'status', decision_text: 'string|null', sop_id: 'string|null', rollback: 'string|null',
    missing_gates: 'strings|null', deduped: 'boolean', proposal_hash: 'string', persona: 'string', model: 'string',
    // The operator's own reason for the call, on every row the gate writes: `reason` is the reviewer's on a rejection (E5).
    proposal_reason: 'string?',
    // The user confirmation a force_approve_no_sop review was given under (F6): the one human override, traceable from its row.
    confirmation_id: 'string|null?',
    // The reviewer's text when its answer was no decision answer (out of shape): kept, never read as a decision.
    reviewer_output: 'string|null?',
  },
  tool_executions: { proposal_id: 'string|null', tool: 'string', args: 'object', ok: 'boolean', error: 'string|null' },
  user_confirmations: { operator: 'string', action: 'string', target: 'object' },
  review_gate_runs: { run_id: 'string' },
};

/**
 * Tables no workflow run may write: the review gate records the runs it
 * started in review_gate_runs, and a run that could write there could
 * vouch for itself; user_confirmations hold a person's explicit
 * confirmation (`countersign confirm`, recordConfirmation), which a run
 * an agent started could otherwise mint to reopen a rejected call;
 * tool_executions are written by the audit decorator as a tool runs, and a
 * row a run wrote would show a tool run that never happened as the
 * execution of an approved proposal.
 */
export const RUN_FORBIDDEN_TABLES: ReadonlySet<string> = new Set(['review_gate_runs', 'user_confirmations', 'tool_executions']);

/** Body keys every table may carry: a `record` node's row repeats its id and time. */
const LEDGER_FIELDS = new Set(['id', 'at']);

export interface ShapeProblem {
  /** The offending field. */
  field: string;
  message: string;
  fix: string;
}

/** The fixed shape of `table`, or undefined for a free-form table. */
export function tableShape(table: string): Readonly<Record<string, FieldKind>> | undefined {
  return Object.prototype.hasOwnProperty.call(TABLE_SHAPES, table) ? TABLE_SHAPES[table] : undefined;
}

/** Why `body` is not a row of `table`, one problem per field (none for a free-form table). */
export function shapeProblems(table: string, body: JsonObject): ShapeProblem[] {
  const shape = tableShape(table);
  if (!shape) return [];
  const problems: ShapeProblem[] = [];
  for (const [field, kind] of Object.entries(shape)) {
    if (!fitsKind(Object.hasOwn(body, field) ? body[field] : undefined, kind)) {
      const shown = Object.hasOwn(body, field) ? JSON.stringify(body[field]) : 'missing';
      problems.push({ field, message: `a ${table} row's ${field} is ${shown}, not ${describeKind(kind)}`, fix: `set ${field} to ${describeKind(kind)}` });
    }
  }
  for (const field of Object.keys(body)) {
    // Own keys only: a field named `constructor` is not one of the shape's.
    if (!LEDGER_FIELDS.has(field) && !Object.hasOwn(shape, field)) {
      problems.push({ field, message: `a ${table} row has no field "${field}"`, fix: `remove "${field}": the row's fields are id, at, ${Object.keys(shape).join(', ')}` });
    }
  }
  return problems;
}

/** Throws E_LEDGER_ROW for the first field of `body` that breaks its table's shape. */
export function checkShape(table: string, body: JsonObject, rowId?: string): void {
  const [first] = shapeProblems(table, body);
  if (first) {
    throw new CountersignError('E_LEDGER_ROW', `${rowId !== undefined ? `ledger row "${rowId}": ` : ''}${first.message}`, { fix: first.fix });
  }
}

export function fitsKind(v: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string': return typeof v === 'string';
    case 'string|null': return v === null || typeof v === 'string';
    case 'string?': return v === undefined || typeof v === 'string';
    case 'string|null?': return v === undefined || v === null || typeof v === 'string';
    case 'object': return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'boolean': return typeof v === 'boolean';
    case 'status': return (PROPOSAL_STATUSES as readonly unknown[]).includes(v);
    case 'strings|null': return v === null || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  }
}

export function describeKind(kind: FieldKind): string {
  switch (kind) {
    case 'string': return 'a string';
    case 'string|null': return 'a string or null';
    case 'string?': return 'a string (or left out)';
    case 'string|null?': return 'a string or null (or left out)';
    case 'object': return 'a JSON object';
    case 'boolean': return 'true or false';
    case 'status': return PROPOSAL_STATUSES.join(', ');
    case 'strings|null': return 'an array of strings or null';
  }
}

/** Whether a template (which always renders a string) can fill a field of this kind. */
export function takesString(kind: FieldKind): boolean {
  return kind === 'string' || kind === 'string|null' || kind === 'string?' || kind === 'string|null?' || kind === 'status';
}
