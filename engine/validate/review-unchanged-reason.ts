/**
 * E_UNCHANGED_REASON_UNDECLARED (warning; issue 3 §5, seed 003 G12): the
 * step whose answer brings a fixed artifact back into a review must be able
 * to say why the artifact stayed as it was, or an unchanged artifact is
 * always rejected with E_UNCHANGED_ARTIFACT.
 */
import type { Finding } from '../nodes/node-type.js';
import type { NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

const UNCHANGED_REASON = 'unchanged_reason';

/** The warning for `step` (the fix step `fixId` itself, or a step after it), or undefined when it declares a usable reason. */
export function unchangedReasonFinding(step: NodeEntry, fixId: string, reviewId: string): Finding | undefined {
  const declared = unchangedReasonDeclaration(step);
  return declared === 'ok' ? undefined : unchangedReasonWarning(step, fixId, reviewId, declared);
}

function unchangedReasonWarning(step: NodeEntry, fixId: string, reviewId: string, declared: 'missing' | 'not-string'): Finding {
  const who = step.id === fixId
    ? `fix step "${fixId}" of review "${reviewId}"`
    : `step "${step.id}", whose answer brings the artifact fixed by "${fixId}" back into review "${reviewId}",`;
  if (declared === 'not-string') {
    return {
      code: 'E_UNCHANGED_REASON_UNDECLARED',
      message: `${who} declares "unchanged_reason" with a type that does not admit a string, but it must be a string: the runtime reads only a non-blank string as the reason, so an unchanged artifact is always rejected with E_UNCHANGED_ARTIFACT (seed 003 G12); declare it as "unchanged_reason": {"type": "string"} under inputSchema.properties`,
      pointer: `${step.pointer}/inputSchema/properties/${UNCHANGED_REASON}`,
      severity: 'warning',
    };
  }
  return {
    code: 'E_UNCHANGED_REASON_UNDECLARED',
    message: `${who} does not declare "unchanged_reason" in its inputSchema, so when a defect does not reproduce it cannot explain an unchanged artifact and the answer is rejected with E_UNCHANGED_ARTIFACT (seed 003 G12); add "unchanged_reason": {"type": "string"} under inputSchema.properties, or list a registry variable "unchanged_reason" in inputSchema.globalInputs`,
    pointer: step.raw.inputSchema === undefined ? step.pointer : `${step.pointer}/inputSchema`,
    severity: 'warning',
  };
}

/**
 * Declared as the node's own field (`properties`) or as a global it writes
 * (`globalInputs`). An own field whose `type` leaves out "string" can never
 * carry a reason the runtime reads, so it counts as not usable.
 */
function unchangedReasonDeclaration(entry: NodeEntry): 'ok' | 'missing' | 'not-string' {
  const schema = entry.raw.inputSchema;
  if (!isPlainObject(schema)) return 'missing';
  if (isPlainObject(schema.properties) && Object.prototype.hasOwnProperty.call(schema.properties, UNCHANGED_REASON)) {
    return admitsString(schema.properties[UNCHANGED_REASON]) ? 'ok' : 'not-string';
  }
  return Array.isArray(schema.globalInputs) && schema.globalInputs.includes(UNCHANGED_REASON) ? 'ok' : 'missing';
}

/** A property schema without a `type` admits a string; one with a type must list "string". */
function admitsString(property: unknown): boolean {
  if (!isPlainObject(property) || property.type === undefined) return true;
  if (typeof property.type === 'string') return property.type === 'string';
  return Array.isArray(property.type) ? property.type.includes('string') : true;
}
