/**
 * The review proposal: what the gate hands the reviewer for one mutating
 * tool call (A23), checked against schemas/proposal.schema.json. The schema
 * refuses unknown keys, so no admin-bypass flag can ever slip in (F2), and
 * every problem names its JSON pointer and says how to fix it, for the
 * agent or person who wrote the proposal.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvModules } from '../format/ajv.js';
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import { suggest } from '../format/suggest.js';

// Imported, not read from disk: the schema travels with the code into any bundle.
import proposalSchema from '../../schemas/proposal.schema.json' with { type: 'json' };

import { BLAST_RADII, type BlastRadius } from '../tools/tool.js';

export { BLAST_RADII, type BlastRadius };

export interface Proposal {
  action: string;
  target: JsonObject;
  reason: string;
  blast_radius: BlastRadius;
  operator: string;
  context_summary: string;
  force_approve_no_sop?: boolean;
  confirmation_id?: string;
}

export interface ProposalProblem {
  code: 'E_PROPOSAL';
  /** RFC 6901 pointer into the proposal ('' for the proposal itself). */
  pointer: string;
  message: string;
  fix: string;
}

export const PROPOSAL_KEYS = Object.keys(proposalSchema.properties) as (keyof Proposal)[];

const FIXES: Record<keyof Proposal, string> = {
  action: 'set "action" to the name of the tool being called, e.g. "host_restart_service"',
  target: 'set "target" to the tool call\'s arguments as an object, e.g. {"device_id": 7, "service": "nginx"}',
  reason: 'say in "reason" why the action is needed, e.g. "User reported 502; nginx error log shows OOM"',
  blast_radius: `set "blast_radius" to one of ${BLAST_RADII.join(', ')}`,
  operator: 'set "operator" to the user id tenant_bind resolved for the caller, e.g. "user_42"',
  context_summary: 'set "context_summary" to the coordinator\'s running summary of the conversation ("" when there is none)',
  force_approve_no_sop: 'set "force_approve_no_sop" to true or false, or leave it out',
  confirmation_id: 'set "confirmation_id" to the id `countersign confirm` printed, or leave it out',
};

let validator: ValidateFunction | undefined;

/** The proposal schema, compiled once per process. */
function proposalValidator(): ValidateFunction {
  validator ??= new (ajvModules().Ajv)({ allErrors: true, strict: true, logger: false }).compile(proposalSchema);
  return validator;
}

/** Every way `value` fails the proposal schema; empty when it is a valid proposal. */
export function validateProposal(value: unknown): ProposalProblem[] {
  const validate = proposalValidator();
  if (validate(value)) return [];
  // In the schema's key order, unknown keys last, so the list reads like the proposal.
  const rank = (p: ProposalProblem) => {
    const i = PROPOSAL_KEYS.indexOf(p.pointer.slice(1) as keyof Proposal);
    return i < 0 ? PROPOSAL_KEYS.length : i;
  };
  return (validate.errors ?? []).map((e) => problemOf(e, value)).sort((a, b) => rank(a) - rank(b));
}

export function isProposal(value: unknown): value is Proposal {
  return validateProposal(value).length === 0;
}

/** The proposal itself, or E_PROPOSAL naming the first problem (all of them in `data`). */
export function assertProposal(value: unknown): Proposal {
  const problems = validateProposal(value);
  if (problems.length === 0) return value as Proposal;
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  throw new CountersignError('E_PROPOSAL', `invalid proposal: ${first.message}${more}`, {
    pointer: first.pointer,
    fix: first.fix,
    data: problems,
  });
}

function problemOf(e: ErrorObject, value: unknown): ProposalProblem {
  const field = e.instancePath.split('/')[1] as keyof Proposal | undefined;
  const fieldFix = field && FIXES[field] ? FIXES[field] : undefined;
  switch (e.keyword) {
    case 'required': {
      const key = (e.params as { missingProperty: string }).missingProperty as keyof Proposal;
      return problem(`/${key}`, `the proposal has no "${key}"`, FIXES[key]);
    }
    case 'additionalProperties': {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const guess = suggest(key, PROPOSAL_KEYS);
      return problem(
        `/${escapePointer(key)}`,
        `"${key}" is not a proposal key${guess ? ` — did you mean "${guess}"?` : ''}`,
        `remove "${key}"${guess ? ` or rename it to "${guess}"` : ''}: a proposal holds only ${PROPOSAL_KEYS.join(', ')}, and no key skips the review (an admin is reviewed like anyone)`,
      );
    }
    case 'type': {
      if (e.instancePath === '') return problem('', `a proposal must be a JSON object, not ${kindOf(value)}`, 'send {"action", "target", "reason", "blast_radius", "operator", "context_summary"}');
      const expected = (e.params as { type: string }).type;
      return problem(e.instancePath, `"${field}" must be ${article(expected)}, not ${kindOf(valueAt(value, field))}`, fieldFix ?? 'correct its type');
    }
    case 'enum':
      return problem(e.instancePath, `"${field}" must be one of ${BLAST_RADII.join(', ')}, not ${JSON.stringify(valueAt(value, field))}`, fieldFix ?? 'use one of the allowed values');
    case 'pattern':
      return problem(e.instancePath, `"${field}" must not be blank`, fieldFix ?? 'give it a value');
    default:
      return problem(e.instancePath, `${e.instancePath || 'the proposal'} ${e.message ?? 'is invalid'}`, fieldFix ?? 'correct the proposal against schemas/proposal.schema.json');
  }
}

function problem(pointer: string, message: string, fix: string): ProposalProblem {
  return { code: 'E_PROPOSAL', pointer, message, fix };
}

function valueAt(value: unknown, field: string | undefined): unknown {
  return field === undefined ? value : (value as Record<string, unknown>)[field];
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${article(typeof v)} (${JSON.stringify(v)})`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
