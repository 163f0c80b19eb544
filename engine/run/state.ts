/**
 * The run contract view of a stored run, and the checks every stored
 * record passes before the engine uses it, whichever store keeps it: a
 * record damaged by hand or by another program is E_STORE naming the run
 * and the damage, never served half-empty, answered, or a TypeError.
 */
import { shown } from '../format/said.js';
import { CountersignError } from '../errors.js';
import type { RunRecord } from '../store/store.js';
import { recordProblem } from '../store/row-shapes.js';
import type { RunState } from './contract.js';

/**
 * The record as the store handed it, checked for the shape every read
 * relies on (the SQLite store checks the same at read; the memory store
 * keeps what it is given): status, seq, times, snapshot, the pending
 * item's node. `runId` is the run it was read for.
 */
export function storedRecord(rec: RunRecord, runId: string, storeFile?: string): RunRecord {
  const problem = recordProblem(rec, runId);
  if (problem !== undefined) throw damagedRun(runId, problem, storeFile);
  return rec;
}

/** `storeFile`: where the record is kept, named when it is damaged. */
export function stateOf(rec: RunRecord, storeFile?: string): RunState {
  const broken = contractProblem(rec);
  if (broken !== undefined) throw damagedRecord(rec, broken, storeFile);
  switch (rec.status) {
    case 'waiting':
      return { runId: rec.runId, seq: rec.seq, status: 'waiting', pending: rec.pending! };
    case 'completed':
      return { runId: rec.runId, seq: rec.seq, status: 'completed', endNodeId: rec.endNodeId!, output: rec.output!, ...(rec.outcome !== undefined ? { outcome: rec.outcome } : {}) };
    default:
      return { runId: rec.runId, seq: rec.seq, status: 'failed', error: rec.error as NonNullable<RunRecord['error']> & { nodeId: string } };
  }
}

/**
 * How a record breaks the run contract of its status; undefined when it
 * keeps it. Read, that is a damaged store (stateOf); written by a host
 * (store-errors.ts), its mistake, refused before anything is written.
 */
export function contractProblem(rec: RunRecord): string | undefined {
  const status: string = rec.status;
  switch (rec.status) {
    case 'waiting': {
      // A host acts on the pending item: a record without a real one is a damaged store, not a state to hand on.
      if (rec.pending === null || typeof rec.pending !== 'object' || typeof (rec.pending as { kind?: unknown }).kind !== 'string') return 'is waiting without a pending item';
      // Seqs start at 1: an item at seq 0 could never be answered (every seq below 1 is E_SEQ).
      if (!Number.isInteger(rec.seq) || rec.seq < 1) return `is waiting at seq ${JSON.stringify(rec.seq)}, and seqs start at 1`;
      const missing = missingField(rec.pending);
      if (missing) return `has a ${rec.pending.kind} pending item ${missing}`;
      const wrong = optionalFieldProblem(rec.pending) ?? countProblem(rec.pending);
      return wrong ? `has a ${rec.pending.kind} pending item whose ${wrong}` : undefined;
    }
    case 'completed':
      // Every completed record carries its output ({} when finalOutput names nothing): a missing one is lost data, not "no output".
      if (rec.endNodeId === undefined) return 'completed without its end node (endNodeId)';
      if (typeof rec.endNodeId !== 'string') return `completed with "endNodeId" ${shown(rec.endNodeId)}, not a string`;
      if (rec.output === undefined) return 'completed without its output';
      if (rec.output === null || typeof rec.output !== 'object' || Array.isArray(rec.output)) return `completed with "output" ${shown(rec.output)}, not an object`;
      // The end node's outcome word: hosts route on it as text.
      if (rec.outcome !== undefined && typeof rec.outcome !== 'string') return `completed with "outcome" ${shown(rec.outcome)}, not a string`;
      return undefined;
    case 'failed': {
      // The run contract's failure is {code, message, nodeId}: every failure the engine records names the node it happened at.
      const error = rec.error;
      if (error === undefined) return 'failed without its error (no error code)';
      if (error === null || typeof error !== 'object' || Array.isArray(error)) return `failed with "error" ${shown(error)}, not an object`;
      const fields: ReadonlyArray<readonly [keyof typeof error, string]> = [['code', 'an error code'], ['message', 'its error message'], ['nodeId', 'the node it failed at (its error has no nodeId)']];
      for (const [key, what] of fields) {
        if (error[key] === undefined) return `failed without ${what}`;
        if (typeof error[key] !== 'string') return `failed with an error whose "${key}" is ${shown(error[key])}, not a string`;
      }
      // The optional parts hosts print as they are: text, and a position in whole numbers.
      for (const key of ['fix', 'file', 'pointer'] as const) {
        if (error[key] !== undefined && typeof error[key] !== 'string') return `failed with an error whose "${key}" is ${shown(error[key])}, not a string`;
      }
      for (const key of ['line', 'col'] as const) {
        if (error[key] !== undefined && !(Number.isInteger(error[key]) && (error[key] as number) >= 0)) return `failed with an error whose "${key}" is ${shown(error[key])}, not a whole number`;
      }
      return undefined;
    }
    default:
      // Never a state of undefined: a status the engine never writes is damage, as the SQLite store says at read.
      return `has status ${JSON.stringify(status)}, not waiting, completed or failed`;
  }
}

/** The fields of the run contract each kind of pending item must carry, as [name, type]. */
const CONTRACT: Readonly<Record<string, ReadonlyArray<readonly [string, 'string' | 'object' | 'integer' | 'array']>>> = {
  directive: [['nodeId', 'string'], ['directive', 'string'], ['completionCondition', 'string'], ['inputSchema', 'object'], ['attempt', 'integer'], ['maxRetries', 'integer']],
  review: [['nodeId', 'string'], ['prompt', 'string'], ['attempt', 'integer'], ['maxRetries', 'integer']],
  tool: [['nodeId', 'string'], ['tool', 'string'], ['args', 'object'], ['attempt', 'integer']],
};

const TYPE_NAMES = { string: 'a string', object: 'an object', integer: 'a whole number', array: 'a list' } as const;

/** How a pending item misses a contract field: `without its X`, or `whose "X" is V, not T`; undefined when it has them all. */
function missingField(pending: object): string | undefined {
  const item = pending as Record<string, unknown>;
  const fields = Object.hasOwn(CONTRACT, item.kind as string) ? CONTRACT[item.kind as string] : undefined;
  if (!fields) return `whose kind ${shown(item.kind)} is not directive, review or tool`;
  for (const [name, type] of fields) {
    const v = item[name];
    const ok = type === 'integer' ? Number.isInteger(v) : type === 'array' ? Array.isArray(v) : type === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : typeof v === type;
    if (!ok) return v === undefined ? `without its ${name}` : `whose "${name}" is ${shown(v)}, not ${TYPE_NAMES[type]}`;
  }
  return undefined;
}

/** Why an optional contract field of a pending item (`errors`, `deadline`) has the wrong type; undefined when none does. */
function optionalFieldProblem(pending: object): string | undefined {
  const item = pending as Record<string, unknown>;
  if (item.errors !== undefined && (!Array.isArray(item.errors) || !item.errors.every((e) => typeof e === 'string'))) return '"errors" is not a list of strings';
  if (item.deadline !== undefined && (typeof item.deadline !== 'string' || !Number.isFinite(Date.parse(item.deadline)))) return '"deadline" is no time';
  return undefined;
}

/**
 * Why a pending item's counts are impossible; undefined when they are not.
 * `attempt` counts this visit's answers from 1, `maxRetries` is how many
 * more it may take: an item at attempt 0 or with -1 retries was never issued.
 */
function countProblem(pending: object): string | undefined {
  const item = pending as Record<string, unknown>;
  if (typeof item.attempt === 'number' && item.attempt < 1) return `"attempt" is ${item.attempt}, not a count from 1`;
  if (typeof item.maxRetries === 'number' && (!Number.isInteger(item.maxRetries) || item.maxRetries < 0)) return `"maxRetries" is ${item.maxRetries}, not a count from 0`;
  return undefined;
}

/** A stored record the engine cannot use: E_STORE, with the store's repair. */
export function damagedRecord(rec: RunRecord, what: string, storeFile?: string): CountersignError {
  return damagedRun(rec.runId, what, storeFile);
}

/** The stored record of run `runId` is damaged (`what`): E_STORE naming the run, the store's file when it has one, and the repair. */
export function damagedRun(runId: string, what: string, storeFile?: string): CountersignError {
  return new CountersignError('E_STORE', `the stored record of run "${runId}"${storeFile ? ` in ${storeFile}` : ''} ${what}: the store is damaged`, {
    ...(storeFile ? { file: storeFile } : {}),
    // A store without a file (the memory store) has no backup to restore: the record was changed in place, outside the engine.
    fix: storeFile
      ? `restore ${storeFile} from a backup, or move the store aside and start the run again`
      : 'start the run again from its workflow file: this store\'s record of the run was changed outside the engine (never edit a record a store hands out; build a new one)',
  });
}
