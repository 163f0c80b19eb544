/**
 * E_UNCHANGED_REASON_UNDECLARED (warning; issue 3 §5, seed 003 G12): the
 * step whose answer brings a fixed artifact back into a review must be able
 * to say why the artifact stayed as it was, or an unchanged artifact is
 * always rejected with E_UNCHANGED_ARTIFACT.
 */
import type { Finding, WaitingType } from '../nodes/node-type.js';
import type { GraphModel, NodeEntry } from './graph-model.js';
import { isPlainObject } from './pointer.js';

const UNCHANGED_REASON = 'unchanged_reason';

/**
 * The warning for `step` (the fix step `fixId` itself, or a step after it),
 * or undefined when it declares a usable reason. A tool node entering the
 * review answers nothing itself (its outcome is the engine's): the runtime
 * reads the reason from the agent answer that led to it, so the warning is
 * about that step — the fix step, or a step on its way back — which is the
 * one that can declare the field (`model` finds it).
 */
export function unchangedReasonFinding(step: NodeEntry, fixId: string, reviewId: string, model?: GraphModel): Finding | undefined {
  if (model !== undefined && answeredByEngine(step)) {
    for (const answerer of answerersBefore(step, fixId, reviewId, model)) {
      const declared = unchangedReasonDeclaration(answerer);
      if (declared !== 'ok') return unchangedReasonWarning(answerer, fixId, reviewId, declared, step.id);
    }
    return undefined;
  }
  const declared = unchangedReasonDeclaration(step);
  return declared === 'ok' ? undefined : unchangedReasonWarning(step, fixId, reviewId, declared);
}

function answeredByEngine(entry: NodeEntry): boolean {
  return entry.nodeType?.kind === 'waiting' && (entry.nodeType as WaitingType).answeredByEngine === true;
}

/**
 * The steps on the fix's way back (the fix step first, then the waiting
 * nodes its success leads through, never past the review) whose success
 * reaches the engine-answered `tool` through transient and other
 * engine-answered nodes only: the answers the runtime reads behind it.
 */
function answerersBefore(tool: NodeEntry, fixId: string, reviewId: string, model: GraphModel): NodeEntry[] {
  const kind = (entry: NodeEntry | undefined) => (entry === undefined ? undefined : answeredByEngine(entry) ? 'engine' : entry.nodeType?.kind);
  const success = (entry: NodeEntry) => entry.connections.find(([name]) => name === 'success')?.[1];
  // Transient nodes pass on by any connection, waiting ones (the engine's too) by success.
  const next = (entry: NodeEntry) => (kind(entry) === 'transient' ? entry.connections.map(([, to]) => to) : [success(entry)].filter((to): to is string => to !== undefined));
  const reaches = (from: NodeEntry): boolean => {
    const seen = new Set<string>();
    const queue = next(from);
    while (queue.length > 0) {
      const id = queue.shift() as string;
      if (id === tool.id) return true;
      const entry = model.byId.get(id);
      if (seen.has(id) || id === reviewId || !entry || (kind(entry) !== 'transient' && kind(entry) !== 'engine')) continue;
      seen.add(id);
      queue.push(...next(entry));
    }
    return false;
  };
  const way: NodeEntry[] = [];
  const seen = new Set<string>();
  const queue = [fixId];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    const entry = model.byId.get(id);
    if (seen.has(id) || id === reviewId || !entry || kind(entry) === 'final') continue;
    seen.add(id);
    if (kind(entry) === 'waiting' && reaches(entry)) way.push(entry);
    queue.push(...next(entry));
  }
  return way;
}

function unchangedReasonWarning(step: NodeEntry, fixId: string, reviewId: string, declared: 'missing' | 'not-string', tool?: string): Finding {
  const through = tool === undefined ? '' : ` (its answer reaches the review through tool node "${tool}", whose outcome is the engine's, not an answer)`;
  const who = step.id === fixId
    ? `fix step "${fixId}" of review "${reviewId}"${through}`
    : `step "${step.id}", whose answer brings the artifact fixed by "${fixId}" back into review "${reviewId}"${through},`;
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
