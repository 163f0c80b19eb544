/** Errors both shipped stores raise, worded once, and the checks of their methods' arguments. */
import { isAbsolute } from 'node:path';
import { CountersignError } from '../errors.js';
import { said, shown } from '../format/said.js';
import type { RunStatus } from '../run/contract.js';
import { checkOptionKeys } from '../run/option-keys.js';
import type { JournalEvent } from '../run/contract.js';
import { eventProblem, isCanonicalTime, isPlainObject, kindOf, pendingFieldProblem, recordProblem, unknownPendingKey, unknownRecordKey } from './row-shapes.js';
import { contextFault } from '../run/context-shape.js';
import { jsonProblem } from '../format/json-problem.js';
import { takeVouched } from './vouched.js';
import { deepFreeze } from '../format/freeze.js';
import { suggest } from '../format/suggest.js';
import { contractProblem } from '../run/state.js';
import type { LedgerRow, Mutation, RunRecord } from './store.js';

/** `inMemory`: the store is the memory store, which no command can list: its own list() can. */
export function runNotFound(runId: string, inMemory = false): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}" in the store`, {
    fix: inMemory ? IN_MEMORY_RUNS : 'list runs with `countersign runs`',
  });
}

/** How to list an in-memory store's runs: `countersign runs` opens a SQLite store, never it. */
export const IN_MEMORY_RUNS = 'list the runs this store holds with engine.runs() (store.list()); an in-memory store holds only the runs this process started, and `countersign runs` cannot see them';

/**
 * The workflow copy a run was started with is gone (a row deleted by hand,
 * a record naming a hash no copy has): the store is damaged, said as a
 * damaged copy is (stored-workflow.ts), naming the run and the database file.
 */
export function workflowNotFound(hash: string, runId?: string, file?: string): CountersignError {
  // Asked for by hash alone, no run names it: a hash this store never held is the caller's, not damage to restore from a backup.
  if (runId === undefined) {
    return new CountersignError('E_INPUT', `getWorkflow(): ${file ?? 'the store'} holds no workflow copy ${hash}`, {
      fix: 'pass the workflowHash a run record names (get(runId).workflowHash), or store the copy first with putWorkflow(hashWorkflow(workflow), workflow)',
    });
  }
  return new CountersignError('E_STORE', `${runId ? `run ${runId}: ` : ''}the workflow copy ${hash}${runId ? ' it was started with' : ''} is missing from ${file ?? 'the store'}: the store is damaged`, {
    ...(file ? { file } : {}),
    fix: file
      ? `restore ${file} from a backup, or move the store aside and start the run again from its workflow file`
      : 'start the run again from its workflow file: this store no longer holds the copy the run was started with',
  });
}

/** A run id already taken, named with the database file when the store has one (as its other E_STORE errors are). */
export function duplicateRun(runId: string, file?: string): CountersignError {
  return new CountersignError('E_STORE', `a run "${runId}" already exists in ${file ?? 'the store'}`, {
    ...(file ? { file } : {}),
    fix: `give each run a new id (createEngine's newRunId must return an id no run in ${file ?? 'the store'} has); the run already there is kept as it was`,
  });
}

export function unknownWorkflowHash(runId: string, hash: string, file?: string): CountersignError {
  return new CountersignError('E_STORE', `run "${runId}" names workflow hash ${hash}, which ${file ?? 'the store'} does not hold`, {
    ...(file ? { file } : {}),
    fix: 'store the workflow copy with putWorkflow before creating the run',
  });
}

/** events(runId, from): an index from 0, or E_INPUT naming the value given (the stores would each read a bad one differently). */
export function checkEventIndex(from: unknown): void {
  if (!Number.isSafeInteger(from) || (from as number) < 0) {
    throw new CountersignError('E_INPUT', `events(runId, from): ${said(from)} is not an index into a journal`, {
      fix: 'pass a whole number from 0 (the index of the first event to read), or leave it out to read the whole journal',
    });
  }
}

/*
 * The arguments of a Store's own methods, checked alike in both stores: both
 * are library API, and a wrong value is E_INPUT naming it as given, never a
 * bare TypeError (SQLite on a symbol or an object), a number read as its
 * text (5n as run "5") or a silent empty answer (a status no run has).
 */

/** A run id: a non-empty string, as every engine entry point takes it. */
export function checkStoreRunId(runId: unknown, call: string): asserts runId is string {
  if (typeof runId !== 'string' || runId.trim() === '') {
    throw new CountersignError('E_INPUT', `${call}(): a run id is a non-empty string, got ${shown(runId)}`, {
      fix: 'pass the runId of a stored run (list() gives them)',
    });
  }
}

/** A workflow copy's hash: a non-empty string (the sha256 a run record names). */
export function checkWorkflowHash(hash: unknown, call: string): asserts hash is string {
  if (typeof hash !== 'string' || hash.trim() === '') {
    throw new CountersignError('E_INPUT', `${call}(): a workflow hash is a non-empty string, got ${shown(hash)}`, {
      fix: 'pass the workflowHash a run record names (the hash its workflow copy is stored under)',
    });
  }
}

/**
 * getWorkflow(hash) asked by a caller, not for a run: every copy is stored
 * under its sha256 (putWorkflow refuses any other), so anything else names
 * none — the caller's mistake, never damage to restore from a backup.
 */
export function checkAskedHash(hash: string, runId: string | undefined): void {
  if (runId === undefined && !SHA256_HEX.test(hash)) {
    throw new CountersignError('E_INPUT', `getWorkflow(): ${shown(hash)} is no workflow hash (a workflow copy is stored under its sha256, 64 lowercase hex digits)`, {
      fix: 'pass the workflowHash a run record names (get(runId).workflowHash), or hashWorkflow(workflow) for a copy you stored',
    });
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

const RUN_STATUSES: readonly string[] = ['waiting', 'completed', 'failed'];

/** list()'s filter: an object, whose status (when given) is a run status; the status to filter by, or undefined for every run. */
export function listedStatus(filter: unknown): RunStatus | undefined {
  if (filter === undefined) return undefined;
  // A Map (or a class instance) has no own keys: it would be read as no filter, listing every run.
  if (!isPlainObject(filter)) {
    throw new CountersignError('E_INPUT', `list() takes a filter object ({ status }), got ${filter !== null && typeof filter === 'object' && !Array.isArray(filter) ? kindOf(filter) : shown(filter)}`, {
      fix: `pass { status: ${typeof filter === 'string' && RUN_STATUSES.includes(filter) ? JSON.stringify(filter) : '"waiting"'} }, or leave the filter out`,
    });
  }
  // A misspelt key ({ stat }) would otherwise list every run as if no filter were given.
  checkOptionKeys(filter as object, ['status'], 'list()');
  const status: unknown = (filter as { status?: unknown }).status;
  if (status === undefined) return undefined;
  if (typeof status !== 'string' || !RUN_STATUSES.includes(status)) {
    throw new CountersignError('E_INPUT', `list() status ${said(status)} is not a run status (waiting, completed or failed)`, {
      fix: `filter by one of ${RUN_STATUSES.join(', ')}, or leave status out`,
    });
  }
  return status as RunStatus;
}

const MUTATION_KEYS: readonly string[] = ['record', 'events', 'rows', 'result'];

/**
 * The first value in `value` JSON would not keep as given (NaN, a Map, a
 * Date, undefined in a list…), said with its pointer: the memory store
 * would keep it as it is and SQLite as JSON changed it, so the two stores
 * would read back different things.
 */
export function notKept(value: unknown): string | undefined {
  const problem = jsonProblem(value, { plainObjectsOnly: true });
  return problem ? `holds a value JSON would not keep as given: ${problem.pointer || '(root)'} ${problem.message}` : undefined;
}

/** update()'s mutate: the function that decides the step. */
export function checkMutate(mutate: unknown): void {
  if (typeof mutate !== 'function') {
    throw new CountersignError('E_INPUT', `update(): mutate is a function (current record → { record?, events?, rows?, result }), got ${shown(mutate)}`, {
      fix: 'pass mutate: (current) => ({ record, events, result }); leave record out to write nothing',
    });
  }
}

/**
 * What mutate returned: a { record?, events?, rows?, result } object, whose
 * record (when given) is one the store would read back as run `runId`'s.
 * Checked before anything is written: a record the store would later call
 * damaged (no status, another run's id) is the caller's mistake, not store
 * damage to restore from a backup, and a Promise (an async mutate) would
 * otherwise be read as "write nothing".
 */
export function checkMutation<T>(value: unknown, runId: string, current: RunRecord): Mutation<T> {
  if (value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') {
    throw new CountersignError('E_INPUT', `update() of run "${runId}": mutate returned a Promise, and a store step is synchronous`, {
      fix: 'make mutate a plain (not async) function returning { record?, events?, rows?, result }: the store writes inside one transaction, which cannot wait',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CountersignError('E_INPUT', `update() of run "${runId}": mutate returned ${said(value)}, not { record?, events?, rows?, result }`, {
      fix: 'return { result } to write nothing, or { record, events, result } to write a step',
    });
  }
  // A misspelt key ({ recrod }) would otherwise be read as "write nothing".
  for (const key of Object.keys(value)) {
    if (MUTATION_KEYS.includes(key)) continue;
    const near = suggest(key, MUTATION_KEYS);
    throw new CountersignError('E_INPUT', `update() of run "${runId}": mutate returned the key ${JSON.stringify(key)}, which a store step does not take${near ? ` — did you mean "${near}"?` : ''}`, {
      fix: `${near ? `rename it to "${near}"` : 'remove it'}: mutate returns { record?, events?, rows?, result }; nothing was written`,
    });
  }
  const { record, events, rows } = value as Mutation<T>;
  const trusted = takeVouched(record, Array.isArray(events) ? events : undefined) && (events === undefined || Array.isArray(events));
  if (record !== undefined) {
    checkStoredRecord(record, runId, `update() of run "${runId}"`, trusted);
    // Fixed when the run was created: the workflow copy it runs (another hash would be a copy it was never
    // started with, or none), its name (runs list it by the name its copy and run.started give), and when it was created.
    for (const field of ['workflowHash', 'workflow', 'createdAt'] as const) {
      if (record[field] !== current[field]) {
        throw new CountersignError('E_INPUT', `update() of run "${runId}": the record changes ${field} from ${said(current[field])} to ${said(record[field])}, which a run keeps from its creation`, {
          fix: `keep ${field} as the current record has it (mutate receives it); nothing was written`,
        });
      }
    }
  }
  for (const [name, list] of [['events', events], ['rows', rows]] as const) {
    if (list !== undefined && !Array.isArray(list)) {
      throw new CountersignError('E_INPUT', `update() of run "${runId}": mutate returned ${name} ${shown(list)}, not a list`, {
        fix: `return ${name} as a list, or leave it out to append none`,
      });
    }
  }
  // A host's seq moves as the engine's does: never back (an answered item would be asked again), and forward only
  // with the journal event that issues the item at that seq (else answers would be taken at a seq never issued).
  if (record !== undefined && !trusted && record.seq !== current.seq) {
    const issued = Array.isArray(events) ? events.some((e) => (e as { seq?: unknown } | null)?.seq === record.seq) : false;
    if (record.seq < current.seq || !issued) {
      throw new CountersignError('E_INPUT', `update() of run "${runId}": the record moves seq from ${current.seq} to ${said(record.seq)}${record.seq < current.seq ? ', back to an item already issued' : ' with no journal event at that seq (the one that issues its item)'}`, {
        fix: `${record.seq < current.seq ? 'keep seq at ' + current.seq + ' or above' : `append the event that issues the item at seq ${record.seq} in the same update, or keep seq at ${current.seq}`}; nothing was written`,
      });
    }
  }
  const kept = record === undefined ? {} : { record: keptRecord(record, trusted) };
  if (events === undefined) return { ...(value as Mutation<T>), ...kept };
  return { ...(value as Mutation<T>), ...kept, events: storedEvents(events, `update() of run "${runId}"`, trusted) };
}

/**
 * What a store keeps of a record it is given, and hands out from get():
 * read-only, as SQLite's rows are, so a record changes only through
 * update(). A host's record is copied first (JSON, as SQLite stores it) and
 * frozen through, so the object the host keeps editing afterwards is not
 * the stored run. The engine's own record (vouched.ts) is kept as it is,
 * frozen at its top (its pending item the engine froze through): freezing
 * its snapshot too cost a third of a memory step (measured), and the engine
 * builds a new record every step, never editing one it wrote.
 */
function keptRecord(record: RunRecord, trusted: boolean): RunRecord {
  return trusted ? Object.freeze(record) : deepFreeze(JSON.parse(JSON.stringify(record)) as RunRecord);
}

/**
 * Journal events to append, checked as the store reads them back
 * (eventProblem): plain objects JSON keeps, with a string type and a
 * whole-number seq. Returns the JSON copies, which both stores keep, so a
 * wrong event is the caller's E_INPUT now, never "damaged store" later.
 */
export function storedEvents(events: readonly unknown[], call: string, trusted = false): JournalEvent[] {
  // A hole would be skipped by map and kept as a hole by one store, a TypeError in the other.
  for (let i = 0; i < events.length; i++) {
    if (!(i in events)) {
      throw new CountersignError('E_INPUT', `${call}: journal event ${i} is a hole in the list (no event)`, { fix: 'pass one event object per place in the list; nothing was written' });
    }
  }
  return events.map((event, i) => {
    // The engine's own events are JSON already, and its own (vouched.ts): only their shape is checked.
    if (trusted) {
      const why = eventProblem(event);
      if (why === undefined) return event as JournalEvent;
    }
    const refuse = (why: string) =>
      new CountersignError('E_INPUT', `${call}: journal event ${i} ${why}`, {
        fix: 'pass each journal event as a plain object of JSON values with a string type and a whole-number seq ({ seq, at, type, ... }); nothing was written',
      });
    let text: string | undefined;
    try {
      text = JSON.stringify(event);
    } catch {
      // A cycle or a BigInt: said() names it as written (its cycle as "(itself)").
      throw refuse(`holds a value JSON cannot keep: ${said(event)}`);
    }
    if (!isPlainObject(event)) throw refuse(`is ${typeof event === 'object' && event !== null ? kindOf(event) : said(event)}, not an event object`);
    const changed = notKept(event);
    if (changed !== undefined) throw refuse(changed);
    const copy: unknown = JSON.parse(text!);
    const why = eventProblem(copy);
    if (why !== undefined) throw refuse(`${why}, got ${said(event)}`);
    return copy as JournalEvent;
  });
}

/** A record to write as run `runId`'s: refused when the store would read it back as damaged (row-shapes.ts). */
function checkStoredRecord(record: unknown, runId: string, call: string, trusted: boolean): asserts record is RunRecord {
  const refuse = (why: string) =>
    new CountersignError('E_INPUT', `${call}: the record to store ${why}`, {
      fix: `pass a whole run record of run "${runId}" (runId, workflow, workflowHash, workspace, status, snapshot, seq, createdAt, updatedAt, and the pending item of a waiting run), of JSON values only; nothing was written`,
    });
  // The engine's own records are JSON already (vouched.ts): only their shape is checked.
  if (!trusted) {
    try {
      JSON.stringify(record);
    } catch {
      // A cycle or a BigInt: SQLite could not write it, and memory would keep what SQLite refuses.
      throw refuse(`holds a value JSON cannot keep: ${said(record)}`);
    }
    const changed = notKept(record);
    if (changed !== undefined) throw refuse(changed);
    const pending = isPlainObject(record) ? (record as { pending?: unknown }).pending : undefined;
    const unknown = isPlainObject(record) ? unknownRecordKey(record as Record<string, unknown>) ?? unknownPendingKey(pending) ?? pendingFieldProblem(pending) : undefined;
    if (unknown !== undefined) throw refuse(unknown);
  }
  // Plain objects of JSON values only by now (no field only inherited, which SQLite would drop): judged as stored.
  const why = recordProblem(record, runId);
  if (why !== undefined) throw refuse(why);
  // What every step of a waiting run reads of the snapshot's context: a record without it would be stored and then read as a damaged store.
  if (!trusted && (record as RunRecord).status === 'waiting') {
    const context = ((record as RunRecord).snapshot as { context?: unknown }).context;
    const fault = context === null || typeof context !== 'object' || Array.isArray(context) ? `is ${context === undefined ? 'missing' : shown(context)}, not an object` : contextFault(context as Record<string, unknown>);
    if (fault !== undefined) throw refuse(`has a snapshot whose context ${fault}`);
  }
  // Runs list newest first by these times' text, which is time order only in the one form the engine writes; a deadline
  // or a tool's claim in another form ("1" is 2001 to Date.parse) would fire, or expire, at a time no one meant.
  if (!trusted) {
    const rec = record as RunRecord;
    const item = (rec.pending ?? {}) as { deadline?: unknown; startedAt?: unknown; aliveAt?: unknown };
    const times: Array<[string, unknown]> = [['createdAt', rec.createdAt], ['updatedAt', rec.updatedAt], ['deadline', rec.deadline], ['pending.deadline', item.deadline], ['pending.startedAt', item.startedAt], ['pending.aliveAt', item.aliveAt]];
    for (const [field, time] of times) {
      if (time === undefined && field !== 'createdAt' && field !== 'updatedAt') continue;
      if (isCanonicalTime(time)) continue;
      const why = field.endsWith('edAt') && !field.startsWith('pending.') ? 'runs are listed newest first by its text' : 'another form may be read as another time ("1" is the year 2001)';
      throw new CountersignError('E_INPUT', `${call}: the record to store has the ${field} ${JSON.stringify(time)}, not a time in the one form run times take: UTC with milliseconds, as Date#toISOString() writes it (${why})`, {
        fix: `write it as new Date(ms).toISOString()${Number.isFinite(Date.parse(String(time))) ? `, here ${JSON.stringify(new Date(Date.parse(String(time))).toISOString())} if ${JSON.stringify(time)} meant that` : ''}; nothing was written`,
      });
    }
  }
  // Every resume runs in the workspace and hands it to agents as their cwd: an empty or relative one (which
  // directory it means depends on the process reading it) would be stored as a healthy run no later call can continue.
  const { workspace } = record as RunRecord;
  if (workspace.trim() === '' || !isAbsolute(workspace)) {
    throw new CountersignError('E_INPUT', `${call}: the record to store has the workspace ${JSON.stringify(workspace)}, which is no absolute path`, {
      fix: `store the run's working directory as an absolute path (path.resolve(${JSON.stringify(workspace || '.')}) gives the one it means from this process's current directory); nothing was written`,
    });
  }
  // The run contract of its status, as the engine reads it (state.ts): a host's record that breaks it is its
  // mistake now, never a damaged store later. The engine's own records keep it by construction (vouched.ts).
  if (!trusted) {
    const broken = contractProblem(withToolAttempt(record as RunRecord)) ?? deadlineMismatch(record as RunRecord);
    if (broken !== undefined) {
      throw new CountersignError('E_INPUT', `${call}: the record to store ${broken}, which breaks the run contract`, {
        fix: `${CONTRACT_FIX}; nothing was written`,
      });
    }
  }
}

/**
 * A waiting tool item an older engine stored without its attempt, and never
 * claimed (no startedAt), is still a run the engine steps (settling it
 * runs the tool and brings the item up to date), so a host copying such a
 * run is not refused for that alone. A claimed one the engine reads as
 * damaged, so it is refused here too.
 */
function withToolAttempt(record: RunRecord): RunRecord {
  const pending = record.pending as { kind?: unknown; attempt?: unknown; startedAt?: unknown } | undefined;
  if (record.status !== 'waiting' || pending?.kind !== 'tool' || pending.attempt !== undefined || pending.startedAt !== undefined) return record;
  return { ...record, pending: { ...pending, attempt: 1 } as RunRecord['pending'] };
}

/** What a record keeps, by status: the run contract (README: run contract). */
const CONTRACT_FIX = 'store a record that keeps the run contract of its status: a waiting run its pending item (kind, nodeId and that kind\'s fields: a directive\'s directive, completionCondition, inputSchema, attempt from 1 and maxRetries from 0) at seq 1 or later, a completed run its endNodeId and output object, a failed run its error { code, message, nodeId }';

/** create()'s record and first events: a record with its run id, and a list; what the store keeps of them. */
export function checkCreate(record: unknown, events: unknown, rows?: unknown): { record: RunRecord; events: JournalEvent[] } {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new CountersignError('E_INPUT', `create(): the record is a run record (an object), got ${shown(record)}`, {
      fix: 'pass the run record to store, with its runId, workflowHash, status, snapshot and seq',
    });
  }
  checkStoreRunId((record as { runId?: unknown }).runId, 'create');
  const trusted = takeVouched(record, Array.isArray(events) ? events : undefined);
  checkStoredRecord(record, (record as { runId: string }).runId, `create() of run "${(record as { runId: string }).runId}"`, trusted);
  if (!Array.isArray(events)) {
    throw new CountersignError('E_INPUT', `create(): the first events are a list of journal events, got ${shown(events)}`, {
      fix: 'pass the run\'s first journal events as a list ([] for none)',
    });
  }
  const runId = (record as { runId: string }).runId;
  // One row object instead of a list would otherwise be dropped without a word.
  if (rows !== undefined && !Array.isArray(rows)) {
    throw new CountersignError('E_INPUT', `create() of run "${runId}": the ledger rows are ${shown(rows)}, not a list`, {
      fix: 'pass the ledger rows as a list ([row]), or leave them out to append none; nothing was written',
    });
  }
  return { record: keptRecord(record as RunRecord, trusted), events: storedEvents(events, `create() of run "${runId}"`, trusted) };
}

/** The deadline that fires (the record's) and the one hosts are shown (the item's) are one: never an item showing a deadline that never fires. */
function deadlineMismatch(rec: RunRecord): string | undefined {
  // A tool item shows no deadline (the engine runs it); the run may still carry the visit's behind it.
  if (rec.status !== 'waiting' || !rec.pending || rec.pending.kind === 'tool' || rec.pending.deadline === rec.deadline) return undefined;
  return `has a pending item whose deadline ${JSON.stringify(rec.pending.deadline ?? null)} is not the run's deadline ${JSON.stringify(rec.deadline ?? null)} (the one that fires)`;
}
