import { suggest } from '../format/suggest.js';
/**
 * What a stored row must look like to be used. A row that is valid JSON but
 * not a record, a workflow copy or an event (a hand edit, another program
 * writing the database) is a damaged store, reported as such, never a
 * TypeError deep in a step.
 */
const STATUSES = new Set(['waiting', 'completed', 'failed']);

/**
 * Whether `value` is a plain object (a literal, or Object.create(null)): what
 * JSON writes back as it was. A Map, a class instance or an object whose
 * fields are inherited would be stored as something else (`{}`), or read
 * as "left out" by a check of own keys.
 */
export function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a value that is no plain object is, for messages: "a Map", "an object inheriting its fields", "a list", 5. */
export function kindOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (Array.isArray(value)) return 'a list';
  const name = (value as object).constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : 'an object inheriting its fields';
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A stored field's value for a message: a scalar as JSON writes it (5, null, "soon"), an object or a list by its kind. */
const shownValue = (v: unknown): string => (isObject(v) ? 'an object' : Array.isArray(v) ? 'a list' : JSON.stringify(v) ?? String(v));

/** Why `value` is not the stored record of run `runId`; undefined when it is one. */
export function recordProblem(value: unknown, runId: string): string | undefined {
  if (!isObject(value)) return 'is not an object';
  if (value.runId !== runId) return `names run ${JSON.stringify(value.runId)}, not "${runId}"`;
  if (typeof value.status !== 'string' || !STATUSES.has(value.status)) return `has status ${JSON.stringify(value.status)}, not waiting, completed or failed`;
  if (!Number.isInteger(value.seq) || (value.seq as number) < 0) return `has seq ${JSON.stringify(value.seq)}, not a whole number`;
  // A field that is there with another type is named with its value: "has no" would send the reader looking for a missing field.
  for (const key of ['workflow', 'workflowHash', 'workspace']) {
    if (value[key] === undefined) return `has no ${key}`;
    if (typeof value[key] !== 'string') return `has the ${key} ${shownValue(value[key])}, not a string`;
  }
  // Shown by info() and listed by runs(): a time that is no time, or a file that is no path, is damage, not a value to hand on.
  for (const key of ['createdAt', 'updatedAt']) {
    if (value[key] === undefined) return `has no ${key}`;
    if (typeof value[key] !== 'string' || !Number.isFinite(Date.parse(value[key] as string))) return `has the ${key} ${shownValue(value[key])}, which is no time`;
  }
  if (value.file !== undefined && typeof value.file !== 'string') return `has the file ${shownValue(value.file)}, which is no path`;
  if (value.snapshot === undefined) return 'has no snapshot';
  if (!isObject(value.snapshot)) return `has the snapshot ${shownValue(value.snapshot)}, not an object`;
  if (value.status === 'waiting') {
    // Every host acts on the pending item: it must be the item of the node the run rests at.
    const pending = value.pending;
    if (pending === undefined) return 'is waiting without a pending item';
    if (!isObject(pending)) return `is waiting with the pending item ${shownValue(pending)}, not an object`;
    for (const key of ['kind', 'nodeId']) {
      if (pending[key] === undefined) return `has a pending item without its ${key}`;
      if (typeof pending[key] !== 'string') return `has a pending item whose ${key} is ${shownValue(pending[key])}, not a string`;
    }
    if (typeof value.snapshot.value !== 'string') return `has a snapshot without the node the run rests at (its "value" is ${value.snapshot.value === undefined ? 'missing' : shownValue(value.snapshot.value)})`;
    if (pending.nodeId !== value.snapshot.value) return `is waiting at node ${JSON.stringify(value.snapshot.value)} with the pending item of node "${pending.nodeId}"`;
    // A deadline no clock can reach would never fire: the node's timeout silently lost.
    if (value.deadline !== undefined && (typeof value.deadline !== 'string' || !Number.isFinite(Date.parse(value.deadline)))) return `has the deadline ${JSON.stringify(value.deadline)}, which is no time`;
  }
  return undefined;
}

/**
 * Why a listed run summary (what `runs` shows) is not a run's; undefined
 * when it is one. The engine asks it of every store's list, so a store that
 * keeps records as given (memory) lists no damage SQLite would refuse.
 */
export function listedProblem(summary: unknown): string | undefined {
  if (!isObject(summary)) return 'is not an object';
  if (typeof summary.status !== 'string' || !STATUSES.has(summary.status)) return `has status ${JSON.stringify(summary.status)}, not waiting, completed or failed`;
  for (const key of ['workflow', 'createdAt', 'updatedAt']) {
    if (typeof summary[key] !== 'string') return `has no ${key}`;
    if (key !== 'workflow' && !Number.isFinite(Date.parse(summary[key] as string))) return `has the ${key} ${JSON.stringify(summary[key])}, which is no time`;
  }
  return undefined;
}

/** Why a `runs` table row's summary columns (what `runs` lists) are not a run's; undefined when they are. */
export function summaryProblem(row: { run_id: unknown; workflow: unknown; status: unknown; created_at: unknown; updated_at: unknown }): string | undefined {
  if (typeof row.status !== 'string' || !STATUSES.has(row.status)) return `has status ${JSON.stringify(row.status)}, not waiting, completed or failed`;
  for (const [column, value] of [['workflow', row.workflow], ['created_at', row.created_at], ['updated_at', row.updated_at]] as const) {
    if (typeof value !== 'string') return `has no ${column}`;
    if (column !== 'workflow' && !Number.isFinite(Date.parse(value))) return `has the ${column} ${JSON.stringify(value)}, which is no time`;
  }
  return undefined;
}

/** Why `value` is not a stored workflow copy; undefined when it is one. */
export function workflowProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'is not an object';
  if (!Array.isArray(value.nodes)) return 'has no nodes list';
  return undefined;
}

/** Why `value` is not a journal event; undefined when it is one. */
export function eventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'is not an object';
  if (typeof value.type !== 'string') return value.type === undefined ? 'has no type' : `has the type ${shownValue(value.type)}, not a string`;
  if (value.seq === undefined) return 'has no seq';
  if (!Number.isInteger(value.seq) || (value.seq as number) < 0) return `has the seq ${shownValue(value.seq)}, not a whole number from 0`;
  // trace prints each event's time and node: a time that is no time, or a node that is no id, is no event to hand on.
  if (value.at === undefined) return 'has no at (the time it happened)';
  if (typeof value.at !== 'string' || !Number.isFinite(Date.parse(value.at))) return `has the at ${shownValue(value.at)}, which is no time`;
  if (value.nodeId !== undefined && typeof value.nodeId !== 'string') return `has the nodeId ${shownValue(value.nodeId)}, not a string`;
  return undefined;
}

/** Every field a run record may hold (RunRecord in store.ts). */
const RECORD_KEYS: readonly string[] = [
  'runId', 'workflow', 'workflowHash', 'file', 'workspace', 'status', 'snapshot', 'seq', 'pending', 'deadline',
  'endNodeId', 'output', 'outcome', 'error', 'createdAt', 'updatedAt',
];

/**
 * A field a host's record holds that no run record has (`deadLine`): it
 * would be stored and never read — a deadline that never fires — so it is
 * named, with the field meant; undefined when there is none.
 */
export function unknownRecordKey(record: Record<string, unknown>): string | undefined {
  const key = Object.keys(record).find((k) => !RECORD_KEYS.includes(k));
  if (key === undefined) return undefined;
  const near = suggest(key, RECORD_KEYS);
  return `has the field ${JSON.stringify(key)}, which no run record has${near ? ` — did you mean "${near}"?` : ''} (it would be stored and never read)`;
}

/** Every field a pending item of each kind may hold (nodes/pending.ts); a review's by its answer contract. */
const PENDING_KEYS: Readonly<Record<string, readonly string[]>> = {
  directive: ['kind', 'nodeId', 'directive', 'completionCondition', 'inputSchema', 'attempt', 'maxRetries', 'errors', 'deadline', 'agent', 'requiresIdentity'],
  'review/issues': ['kind', 'contract', 'nodeId', 'reviewer', 'prompt', 'artifacts', 'criteria', 'context', 'report', 'iteration', 'attempt', 'maxRetries', 'inputSchema', 'errors', 'deadline'],
  'review/decision': ['kind', 'contract', 'nodeId', 'persona', 'prompt', 'proposal', 'toolSpecs', 'attempt', 'maxRetries', 'errors', 'inputSchema', 'answererPinned', 'deadline'],
  tool: ['kind', 'nodeId', 'tool', 'args', 'agent', 'attempt', 'maxRetries', 'startedAt', 'aliveAt', 'userId', 'unset', 'errors', 'deadline'],
};

/**
 * A field a host's pending item holds that no item of its kind has
 * (`errros`, `seq`): it would be stored and handed to every host and agent
 * inside the run contract, and never read by the engine, so it is named
 * with the field meant; undefined when there is none, or when the kind is
 * one the contract check names instead.
 */
export function unknownPendingKey(pending: unknown): string | undefined {
  if (!isObject(pending)) return undefined;
  const kind = pending.kind === 'review' ? `review/${String(pending.contract)}` : String(pending.kind);
  const keys = Object.hasOwn(PENDING_KEYS, kind) ? PENDING_KEYS[kind] : undefined;
  if (keys === undefined) return undefined;
  const key = Object.keys(pending).find((k) => !keys.includes(k));
  if (key === undefined) return undefined;
  const near = suggest(key, keys);
  const what = pending.kind === 'review' ? `a ${String(pending.contract)} review` : `a ${kind}`;
  return `has a pending item with the field ${JSON.stringify(key)}, which ${what} item does not have${near ? ` — did you mean "${near}"?` : ''} (it would be handed to every host and never read)`;
}

/** What `Date#toISOString()` writes: the only form whose text order is time order. */
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether `value` is a time as `Date#toISOString()` writes it (UTC, milliseconds): stores sort such times as text. */
export function isCanonicalTime(value: unknown): value is string {
  return typeof value === 'string' && CANONICAL_TIME.test(value) && new Date(Date.parse(value)).toISOString() === value;
}

type FieldType = 'string' | 'true' | 'whole' | 'count' | 'strings' | 'object' | 'list' | 'time';

/** The type of each field a pending item may hold beside its contract's own (checked in run/state.ts), as the engine writes it. */
const PENDING_FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  agent: 'string', requiresIdentity: 'true', contract: 'string', reviewer: 'string', artifacts: 'strings', criteria: 'strings',
  context: 'strings', report: 'string', iteration: 'whole', persona: 'object', proposal: 'object', toolSpecs: 'list',
  answererPinned: 'true', startedAt: 'time', aliveAt: 'time', userId: 'string', unset: 'strings', inputSchema: 'object', maxRetries: 'count',
};

const FIELD_TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  string: 'a string', true: 'true (or left out)', whole: 'a whole number from 1', count: 'a whole number from 0', strings: 'a list of strings', object: 'an object', list: 'a list', time: 'a time',
};

function fits(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'true': return value === true;
    case 'whole': return Number.isInteger(value) && (value as number) >= 1;
    case 'count': return Number.isInteger(value) && (value as number) >= 0;
    case 'strings': return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'object': return isObject(value);
    case 'list': return Array.isArray(value);
    case 'time': return typeof value === 'string' && Number.isFinite(Date.parse(value));
  }
}

/**
 * A field of a host's pending item whose value is not of the type the
 * engine writes (`agent: 5`, `requiresIdentity: "x"`): it would be handed
 * to every host and adapter inside the run contract, so it is named with
 * its value; undefined when every field fits.
 */
export function pendingFieldProblem(pending: unknown): string | undefined {
  if (!isObject(pending)) return undefined;
  for (const [key, value] of Object.entries(pending)) {
    const type = Object.hasOwn(PENDING_FIELD_TYPES, key) ? PENDING_FIELD_TYPES[key] : undefined;
    if (type === undefined || value === undefined || fits(value, type)) continue;
    return `has a pending item whose "${key}" is ${shownValue(value)}, not ${FIELD_TYPE_NAMES[type]}`;
  }
  return undefined;
}
