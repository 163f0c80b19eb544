/**
 * What the engine refuses, and how it says so: the reviewer a review
 * workflow needs, identities, seqs, unknown runs, and values that are not
 * plain JSON. Kept apart from engine.ts so the run's control flow reads on
 * its own.
 */
import { CountersignError } from '../errors.js';
import type { JsonValue, Workflow } from '../format/model.js';
import { jsonCopy as copyAsJson, type JsonCopy } from '../format/json-copy.js';
import { jsonProblem } from '../format/json-problem.js';
import { cutBelow, deeperThan } from '../format/depth.js';
import { MAX_ANSWER_DEPTH } from '../nodes/answer-guard.js';
import type { Agent } from '../hosts/agent.js';
import type { ToolCallRecord } from '../hosts/tool-mediation.js';
import { hasReviewNodes } from '../nodes/review-loops.js';
import type { RunRecord } from '../store/store.js';
import { isDirectory } from '../format/make-dirs.js';
import { existsSync } from 'node:fs';
import { shellWord } from '../format/shell-word.js';
import { resolve as resolvePath } from 'node:path';
import { DEFAULT_AGENT_ID, DEFAULT_REVIEWER_ID, type AdapterLabel, type RunOptions } from './driver.js';
import { ENGINE_ID } from '../nodes/tool.js';
import { checkOptionKeys, keysOf } from './option-keys.js';
import { said, shown } from '../format/said.js';
import { suggest } from '../format/suggest.js';
import type { Store } from '../store/store.js';
import { isClosedMemoryStore } from '../store/memory.js';
import type { ProgressEvent, RunResult } from './driver.js';
import type { RunFailure } from '../nodes/pending.js';

/** A workflow with review nodes needs a reviewer that is not the agent (seed 003, G1/G4). */
export function checkReviewer(workflow: Workflow, opts: { agent: Agent; reviewer?: Agent; as?: string; reviewerAs?: string }): void {
  if (!hasReviewNodes(workflow)) return;
  if (!opts.reviewer || typeof opts.reviewer.answer !== 'function') {
    throw new CountersignError('E_NO_REVIEWER', `workflow "${workflow.metadata.name}" has delegate-review nodes, and run was given no reviewer`, {
      fix: 'pass --reviewer <adapter> (library: { reviewer: agent }); the reviewer must be another agent than the one producing the work',
    });
  }
  const agentId = opts.as?.trim() || DEFAULT_AGENT_ID;
  const reviewerId = opts.reviewerAs?.trim() || DEFAULT_REVIEWER_ID;
  if (opts.reviewer === opts.agent || agentId === reviewerId) {
    throw new CountersignError('E_SELF_REVIEW', `the reviewer and the agent are the same identity ("${reviewerId}"): a review must come from someone other than the producer`, {
      fix: 'use a different --reviewer adapter, or give the two distinct identities with --agent-id / --reviewer-id',
    });
  }
}

/** The keys of run()'s labels, and of each label in it. */
export const LABELS_KEYS = keysOf<NonNullable<RunOptions['labels']>>({ agent: true, reviewer: true });
export const LABEL_KEYS = keysOf<AdapterLabel>({ name: true, silence: true });

/**
 * run()'s labels, checked before anything starts: a misspelt key would
 * otherwise be read as no label (the generic names), and a label without
 * its name or silence hint would put "undefined" in the run's messages.
 */
export function checkLabels(labels: unknown): void {
  if (labels === undefined) return;
  const fix = 'pass labels: { agent?: { name, silence }, reviewer?: { name, silence } } strings (name: how messages call it, e.g. "my-bot"; silence: what to check when it gives no answer), or leave labels out';
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) {
    throw new CountersignError('E_INPUT', `run()'s labels must be an object, got ${shown(labels)}`, { fix });
  }
  checkOptionKeys(labels, LABELS_KEYS, 'run()\'s labels');
  for (const role of LABELS_KEYS) {
    const label: unknown = (labels as Record<string, unknown>)[role];
    if (label === undefined) continue;
    if (label === null || typeof label !== 'object' || Array.isArray(label)) {
      throw new CountersignError('E_INPUT', `run()'s labels.${role} must be an object { name, silence }, got ${shown(label)}`, { fix });
    }
    checkOptionKeys(label, LABEL_KEYS, `run()'s labels.${role}`);
    for (const field of LABEL_KEYS) {
      const value: unknown = (label as Record<string, unknown>)[field];
      if (typeof value !== 'string' || value.trim() === '') {
        throw new CountersignError('E_INPUT', `run()'s labels.${role}.${field} must be a non-empty string, got ${shown(value)}`, { fix });
      }
    }
  }
}

/**
 * run()'s first argument when it resumes: an object naming a run id (or a
 * key spelt close to runId, in an object that is no workflow) is meant as
 * `{runId}`, and takes nothing else; never read as a workflow and reported
 * as one missing its metadata. Returns whether `source` is a resume source.
 */
export function resumeSource(source: unknown, optionKeys: readonly string[]): source is { runId: unknown } {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return false;
  const keys = Object.keys(source);
  const shape = 'run({ runId }, { agent, … }) resumes a run: its first argument takes only runId';
  if (!Object.hasOwn(source, 'runId')) {
    // A loaded document, or anything with a workflow's own keys, is a workflow source.
    if ('locate' in source || keys.includes('metadata') || keys.includes('nodes')) return false;
    const misspelt = keys.find((k) => suggest(k, ['runId']) === 'runId');
    if (misspelt === undefined) return false;
    throw new CountersignError('E_INPUT', `run()'s first argument has ${said(misspelt)} — did you mean "runId"? ${shape}`, {
      fix: 'rename it to "runId": run({ runId: "<id>" }, { agent }) (`countersign runs` lists run ids)',
    });
  }
  const extra = keys.filter((k) => k !== 'runId');
  if (extra.length === 0) return true;
  const options = extra.filter((k) => optionKeys.includes(k));
  const others = extra.filter((k) => !optionKeys.includes(k));
  const id = (source as { runId?: unknown }).runId;
  throw new CountersignError('E_INPUT', `${shape}, and this one also has ${extra.map((k) => said(k)).join(', ')}`, {
    fix: [
      `pass { runId } alone: run({ runId: ${typeof id === 'string' ? JSON.stringify(id) : '"<id>"'} }, { agent, … })`,
      ...(options.length > 0 ? [`${options.join(', ')} ${options.length > 1 ? 'go' : 'goes'} in run()'s options (the second argument)`] : []),
      ...(others.length > 0 ? [`remove ${others.join(', ')} (a resumed run continues at the item it waits for)`] : []),
    ].join('; '),
  });
}

/**
 * A run's working directory, stored absolute (a run may be resumed from
 * anywhere). A given one must exist: review paths resolve and agents start
 * in it, and the engine would otherwise create it on a review's first entry.
 */
export function workspaceOf(given: unknown): string {
  if (given === undefined) return process.cwd();
  if (typeof given !== 'string' || given.trim() === '') {
    throw new CountersignError('E_INPUT', `the workspace must be a directory path, got ${said(given) ?? typeof given}`, {
      fix: 'pass { workspace: "/path/to/dir" } naming an existing directory, or leave it out to use the current directory',
    });
  }
  const dir = resolvePath(given);
  if (!isDirectory(dir)) {
    // A path that is a file cannot be created as a directory: the fix says to pass another one.
    const file = existsSync(dir);
    throw new CountersignError('E_INPUT', `workspace ${dir} is not an existing directory${file ? ': it is a file' : ''}`, {
      fix: `${file ? 'pass a directory instead (or move the file aside and create the directory)' : 'create it first, or pass an existing directory'} (relative paths resolve against ${process.cwd()}); leave it out to use the current directory`,
    });
  }
  return dir;
}

/** run()'s limits, checked before anything starts: a bad one would otherwise mean no limit, or an instant stop. */
export function checkRunLimits(opts: { maxSteps?: unknown; agentTimeoutMs?: unknown }): void {
  const bad = (name: string, what: string, value: unknown) =>
    new CountersignError('E_INPUT', `run() option ${name} must be ${what}, got ${typeof value === 'number' ? String(value) : said(value) ?? typeof value}`, {
      fix: `pass ${name} as ${what}, or leave it out (${name === 'maxSteps' ? 'no step limit' : 'the 600 s default'})`,
    });
  const { maxSteps, agentTimeoutMs } = opts;
  if (maxSteps !== undefined && (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps <= 0)) throw bad('maxSteps', 'a positive whole number of steps', maxSteps);
  if (agentTimeoutMs !== undefined && (typeof agentTimeoutMs !== 'number' || !Number.isFinite(agentTimeoutMs) || agentTimeoutMs <= 0)) {
    throw bad('agentTimeoutMs', 'a positive number of milliseconds', agentTimeoutMs);
  }
}

/** What a resumed run cannot be given: it keeps the input and the working directory it started with. */
export function checkResume(rec: RunRecord, opts: { input?: unknown; workspace?: unknown }): void {
  if (opts.input !== undefined) {
    throw new CountersignError('E_INPUT', `run ${rec.runId} keeps the input it started with; a new input cannot change it`, {
      fix: 'leave out input when resuming (start a new run for other input)',
    });
  }
  if (opts.workspace !== undefined && (typeof opts.workspace !== 'string' || resolvePath(opts.workspace) !== rec.workspace)) {
    throw new CountersignError('E_INPUT', `run ${rec.runId} works in ${rec.workspace}; the workspace ${said(opts.workspace)} cannot move it`, {
      fix: 'leave out workspace when resuming',
    });
  }
}

/** A run is resumed in the directory it started in: agents are started there, so it must still exist. */
export function workspaceStillThere(rec: Pick<RunRecord, 'runId' | 'workspace'>): void {
  if (!isDirectory(rec.workspace)) {
    throw new CountersignError('E_FILE_NOT_FOUND', `run ${rec.runId} works in ${rec.workspace}, which no longer exists (or is not a directory)`, {
      file: rec.workspace,
      fix: `restore or recreate ${rec.workspace} (its review paths and the agents' work are there), then resume the run`,
    });
  }
}

/** Why an answer to an overdue item was not applied. */
export function lateAnswer(rec: RunRecord): { code: string; errors: string[] } {
  return {
    code: 'E_TIMEOUT',
    errors: [`the answer came after node "${rec.pending?.nodeId ?? '?'}"'s deadline (${rec.deadline}) and was not applied: the deadline fired first`],
  };
}

/**
 * The engine submits its tool nodes' outcomes as ENGINE_ID; a host that
 * answered as it would have an agent's answer journaled as the engine's,
 * and keep the run's {{userId}} at whoever answered before.
 */
export function refuseEngineIdentity(id: string | undefined, what: string): void {
  if (id === undefined || id.trim().toLowerCase() !== ENGINE_ID) return;
  throw new CountersignError('E_IDENTITY_RESERVED', `the ${what} identity "${id.trim()}" is the engine's own, under which it records its tool nodes' outcomes`, {
    fix: 'answer as yourself or your agent (any other identity), or leave the identity out',
  });
}

export function identityRequired(rec: RunRecord): CountersignError {
  const nodeId = rec.pending!.nodeId;
  return new CountersignError('E_IDENTITY_REQUIRED', `node "${nodeId}" is part of a review loop, and the answer names no identity`, {
    nodeId,
    fix: `answer with --as <identity> (library: { as }); the reviewer must be another identity than whoever produced or fixed the artifacts`,
  });
}

/** A run id is a non-empty string, whichever store is used (SQLite would take ['x'] for "x", and throw on an object). */
export function checkRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string' || runId.trim() === '') {
    throw new CountersignError('E_INPUT', `a run id is a non-empty string, got ${shown(runId)}`, {
      fix: 'pass the runId of a run state (`countersign runs` lists them)',
    });
  }
}

const RUN_STATUSES = ['waiting', 'completed', 'failed'];

/** runs()'s filter: an unknown status would otherwise answer "no such runs". */
export function checkRunsFilter<F extends { status?: unknown } | undefined>(filter: F): F {
  // A filter that is no object ('completed' for { status: 'completed' }) would list every run without a word.
  if (filter !== undefined && (filter === null || typeof filter !== 'object' || Array.isArray(filter))) {
    throw new CountersignError('E_INPUT', `runs() takes a filter object, got ${shown(filter)}`, {
      fix: `pass { status: ${typeof filter === 'string' ? JSON.stringify(filter) : '"waiting"'} }, or leave the filter out`,
    });
  }
  if (filter !== undefined && filter.status !== undefined && !RUN_STATUSES.includes(filter.status as string)) {
    throw new CountersignError('E_INPUT', `runs() status ${said(filter.status) ?? String(filter.status)} is not a run status`, {
      fix: `filter by one of ${RUN_STATUSES.join(', ')}, or leave status out`,
    });
  }
  return filter;
}

export function seqError(runId: string, seq: number, rec: RunRecord | undefined, workflow?: { toolModules?: unknown; requiredInputs?: unknown }): CountersignError {
  if (!Number.isInteger(seq)) {
    // Named as given, never by its typeof ("a object" for null): the quotes of "2" already say it is text.
    const given: unknown = seq;
    const number = typeof given === 'string' && /^\s*\d+\s*$/.test(given) ? String(Number(given)) : undefined;
    return new CountersignError('E_SEQ', `seq ${said(given)} is not a whole number, so it names no item of run ${runId}`, {
      fix: number !== undefined
        ? `pass seq as the number ${number}, not the string ${said(given)}`
        : 'pass the seq of a pending state (a whole number from 1), or leave it out to answer the item pending now',
    });
  }
  const current = rec ? `run ${runId} is ${rec.status === 'waiting' ? '' : `${rec.status} `}at seq ${rec.seq}; ` : '';
  // Below 1 no seq is ever issued: said so, never "has not been issued" as if it might be later.
  if (seq < 1) {
    return new CountersignError('E_SEQ', `${current}seq ${seq} names no item: seqs start at 1`, {
      // Only an item the run really issued is offered (the engine refuses a waiting record below seq 1 as damaged before it gets here).
      fix: rec?.status === 'waiting' && rec.seq >= 1 ? `answer seq ${rec.seq} (the pending item), or omit --seq` : 'pass the seq of a pending state (a whole number from 1)',
    });
  }
  const fix = !rec
    ? 'pass the seq of a pending state (a whole number from 1)'
    : rec.status === 'waiting' && rec.pending?.kind === 'tool'
      ? `the run is at tool node "${rec.pending.nodeId}", which the engine runs itself (nothing to answer): check it with \`countersign status ${runId}\``
    : rec.status === 'waiting'
      ? `answer seq ${rec.seq} (the pending item), or omit --seq`
      : `the run is ${rec.status} and takes no more answers; start a new run with \`${startCommand(rec, workflow)}\``;
  return new CountersignError('E_SEQ', `${current}seq ${said(seq)} has not been issued`, { fix });
}

/** The command that starts the run's workflow again: from the file it was started from, when it has one. */
export function startCommand(rec: RunRecord, workflow?: { toolModules?: unknown; requiredInputs?: unknown }): string {
  // As it must be run: with the flag its tool modules need, and the inputs it requires (the run's own are not repeated here).
  const modules = Array.isArray(workflow?.toolModules) && workflow.toolModules.length > 0 ? ' --allow-tool-modules' : '';
  const required = Array.isArray(workflow?.requiredInputs) && workflow.requiredInputs.length > 0
    ? ` --input '${JSON.stringify(Object.fromEntries((workflow.requiredInputs as unknown[]).map((n) => [String(n), '…']))).replace(/'/g, "'\\''")}'`
    : '';
  return `countersign start ${rec.file ? shellWord(rec.file) : '<workflow file>'}${modules}${required}`;
}

export function notFound(runId: string, location?: string): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}" in the store${location ? ` ${location}` : ''}`, {
    // A store without a location (the memory store, a host's own) is not one `countersign runs` can open.
    fix: location ? 'list its runs with `countersign runs`; a run started with another --store or COUNTERSIGN_STORE is in that store' : 'list the runs this store holds with engine.runs(); `countersign runs` opens a SQLite store, and cannot see one kept in memory',
  });
}

/**
 * An answer as stored: a JSON copy. One nested too deep for JSON itself
 * (thousands of levels: JSON.parse reads it, JSON.stringify cannot write it)
 * is cut just below the depth limit instead, so the answer guard refuses it
 * as E_ANSWER_TOO_DEEP at the same pointer as any answer past the limit,
 * however deep it goes; a refused answer is never stored.
 */
export function answerCopy(answer: unknown, of?: { runId: string; nodeId?: string; seq?: number }): JsonCopy {
  const what = of ? `submit()'s answer for run ${of.runId}${of.nodeId ? ` (node "${of.nodeId}"${of.seq !== undefined ? `, seq ${of.seq}` : ''})` : ''}` : 'the answer';
  try {
    return jsonCopy(answer, 'E_INPUT', what, 'pass the answer as a plain JSON object of the fields its inputSchema asks for, e.g. { "summary": "…" } (or { "$error": "why" } to declare failure)');
  } catch (e) {
    if (!nestedTooDeep(e, answer)) throw e;
    return jsonCopy(cutBelow(answer as object, MAX_ANSWER_DEPTH + 1), 'E_INPUT', what);
  }
}

/**
 * Whether copying failed because `value` nests too deep for JSON itself (the
 * stack ran out), not because it is no JSON at all: a cycle, which also
 * looks endlessly deep, is E_INPUT as it is.
 */
function nestedTooDeep(e: unknown, value: unknown): boolean {
  if (!(e instanceof CountersignError) || !(e.cause instanceof RangeError)) return false;
  return value !== null && typeof value === 'object' && deeperThan(value, MAX_ANSWER_DEPTH) !== undefined;
}

/** A start input as stored; one nested too deep for JSON is E_INPUT naming where, with a fix. */
export function inputCopy(input: unknown): JsonCopy {
  try {
    return jsonCopy(input, 'E_INPUT', 'the start input', 'pass the start input as a plain JSON object of variables, e.g. { "topic": "…" }');
  } catch (e) {
    const at = nestedTooDeep(e, input) ? deeperThan(input, MAX_ANSWER_DEPTH) : undefined;
    if (at === undefined) throw e;
    throw new CountersignError('E_INPUT', `the start input nests too deep to be read as JSON: ${at || '(root)'} is more than ${MAX_ANSWER_DEPTH} levels down`, {
      fix: 'flatten the input: give each variable a value of the type its variableRegistry entry declares',
    });
  }
}

/** Answers and inputs are stored as JSON: copying as JSON also detaches them from the caller. */
export function jsonCopy(value: unknown, code: string, what = 'the value', missingFix = 'pass a JSON value'): JsonCopy {
  if (value === undefined) throw new CountersignError(code, `${what} was not given (undefined)`, { fix: missingFix });
  // Checked before the copy, so each value JSON would refuse or change is named at its pointer as given
  // (a BigInt is 5n, never JSON.stringify's bare TypeError; a symbol or function as the whole value is named at (root)).
  // A Date, Error, RegExp or class instance too: JSON would store it as a string or {}, never as given.
  const problem = jsonProblem(value, { plainObjectsOnly: true });
  if (problem) {
    throw new CountersignError(code, `${what} is not plain JSON: ${problem.pointer || '(root)'} ${problem.message}`, {
      pointer: problem.pointer,
      fix: 'pass plain JSON data: strings, finite numbers, booleans, null, lists and plain objects (no NaN, BigInts, functions, symbols, Maps, Dates, Errors, class instances or undefined list members)',
    });
  }
  let copy: JsonCopy | undefined;
  try {
    copy = copyAsJson(value);
  } catch (e) {
    // Left after the check above: a cycle, a getter that throws, or nesting too deep for JSON itself.
    const tooDeep = e instanceof RangeError;
    throw new CountersignError(code, `the value cannot be serialised as JSON: ${(e as Error).message}`, {
      cause: e,
      fix: tooDeep
        ? 'the value nests far too deep (answers may nest 64 levels); send a flatter object, and keep large structures in files'
        : 'pass plain JSON data: no cycles, BigInts or functions',
    });
  }
  if (copy === undefined) throw new CountersignError(code, 'the value is not JSON', { fix: 'pass a JSON object' });
  return copy;
}

/** The fields of a tool-call record: a field of any other name is refused, never dropped. */
export const TOOL_CALL_KEYS = keysOf<ToolCallRecord>({ name: true, ok: true, code: true, message: true, fix: true });

/**
 * Tool-call records as journaled: as the host gave them (name, ok, code,
 * message, fix; message and fix whole, on a successful call too), or not
 * at all. A field of the wrong type (`ok: "true"`, a number for `name`) or
 * of a name a record does not have (`tool` for `name`) is E_INPUT naming
 * it: the journal records what the host reported, never a call to `search`
 * turned into a nameless one (a malformed `$tool` line), nor a message cut.
 */
export function toolCallsOf(given: readonly ToolCallRecord[]): ToolCallRecord[] {
  if (!Array.isArray(given) || given.some((c) => c === null || typeof c !== 'object' || Array.isArray(c))) {
    throw new CountersignError('E_INPUT', 'toolCalls must be a list of tool-call records ({name?, ok, code?, message?, fix?})', {
      fix: 'pass toolCalls as an array of objects, one per tool call the agent made, or leave it out',
    });
  }
  // A hole (`[a, , b]`) is no record: said, never a TypeError deeper in.
  for (let i = 0; i < given.length; i++) {
    if (!(i in given)) throw new CountersignError('E_INPUT', `toolCalls[${i}] is a hole in the list (no record)`, { fix: 'pass one record per tool call, with no empty places in the list' });
  }
  // A record is plain data, journaled as given: a field on a prototype, a getter or a hidden field would be dropped without a word (a call to `search` turned nameless).
  given.forEach((c, i) => {
    if (Object.getOwnPropertySymbols(c).length > 0) {
      throw new CountersignError('E_INPUT', `toolCalls[${i}] has a symbol-keyed field, which no journal keeps`, { fix: 'pass each field under a string key (name, ok, code, message, fix)' });
    }
    const proto = Object.getPrototypeOf(c);
    if (proto !== Object.prototype && proto !== null) {
      const made = (c as object).constructor?.name;
      throw new CountersignError('E_INPUT', `toolCalls[${i}] is ${made && made !== 'Object' ? `a ${made}` : 'an object with a prototype'}, not a plain object: its fields would not all be journaled`, {
        fix: 'pass each tool-call record as a plain object literal ({ name, ok, code?, message?, fix? })',
      });
    }
    for (const key of Object.getOwnPropertyNames(c)) {
      const field = Object.getOwnPropertyDescriptor(c, key)!;
      if (!field.enumerable || field.get !== undefined || field.set !== undefined) {
        throw new CountersignError('E_INPUT', `toolCalls[${i}].${key} is ${field.enumerable ? 'a getter' : 'a hidden (non-enumerable) field'}, not a plain value: it would not be journaled as given`, {
          fix: 'pass each field as a plain value in an object literal',
        });
      }
    }
  });
  const calls = given.map((c) => ({ ...c }) as ToolCallRecord);
  calls.forEach((c, i) => {
    for (const key of Object.keys(c)) {
      if (TOOL_CALL_KEYS.includes(key)) continue;
      // `tool` is what the host's own call said the name in ({tool, args}); anything else by spelling.
      const near = key === 'tool' || key === 'toolName' ? 'name' : suggest(key, TOOL_CALL_KEYS);
      throw new CountersignError('E_INPUT', `toolCalls[${i}] has no field ${said(key)}${near ? ` — did you mean "${near}"?` : ''}`, {
        fix: `${near ? `rename it to "${near}"` : 'remove it'}: a tool-call record takes ${TOOL_CALL_KEYS.join(', ')}, and is journaled as given or not at all`,
      });
    }
    const wrong = (field: string, what: string) => new CountersignError('E_INPUT', `toolCalls[${i}].${field} must be ${what}, got ${shown((c as unknown as Record<string, unknown>)[field])}`, {
      fix: field === 'ok' ? `pass ok: true for a call that succeeded, false for one that failed or was refused` : `pass ${field} as ${what}, or leave it out`,
    });
    if (typeof c.ok !== 'boolean') throw wrong('ok', 'true or false');
    if (c.name !== undefined && (typeof c.name !== 'string' || c.name === '')) throw wrong('name', 'the tool\'s name (a non-empty string)');
    for (const field of ['code', 'message', 'fix'] as const) {
      if (c[field] !== undefined && typeof c[field] !== 'string') throw wrong(field, 'a string');
    }
  });
  return calls.map((c) => ({
    ...(c.name !== undefined ? { name: c.name } : {}),
    ok: c.ok,
    ...(typeof c.code === 'string' ? { code: c.code } : {}),
    ...(typeof c.message === 'string' ? { message: c.message } : {}),
    ...(typeof c.fix === 'string' ? { fix: c.fix } : {}),
  }));
}

/**
 * submit()'s toolFailure, checked before anything is stored: {tool, code,
 * message} strings and an optional fix. One of another type would discard
 * the answer for a failure journaled as "undefined".
 */
export function toolFailureOf(given: unknown, keys: readonly string[]): { tool: string; code: string; message: string; fix?: string } {
  const fix = 'pass toolFailure as { tool, code, message } strings (and fix?), or leave it out (run() sets it when one of the engine\'s tools failed)';
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new CountersignError('E_INPUT', `submit()'s toolFailure must be an object { tool, code, message, fix? }, got ${shown(given)}`, { fix });
  }
  checkOptionKeys(given, keys, 'submit()\'s toolFailure');
  // Read once: what is checked is what is journaled.
  const f = { ...(given as Record<string, unknown>) };
  for (const field of ['tool', 'code', 'message', 'fix']) {
    if ((field !== 'fix' || f[field] !== undefined) && (typeof f[field] !== 'string' || (field !== 'message' && field !== 'fix' && (f[field] as string).trim() === ''))) {
      throw new CountersignError('E_INPUT', `submit()'s toolFailure.${field} must be ${field === 'message' || field === 'fix' ? 'a string' : 'a non-empty string'}, got ${shown(f[field])}`, { fix });
    }
  }
  return {
    tool: f.tool as string,
    code: f.code as string,
    // Kept whole, as a tool-call record is: never cut without a word.
    message: f.message as string,
    ...(typeof f.fix === 'string' ? { fix: f.fix } : {}),
  };
}

/**
 * A drive stopped by its in-memory store being closed: the store dropped
 * everything it held, so the run is lost. The driver's stop says how to
 * resume a run the store still holds; here no resume can work (nor does
 * the CLI ever see an in-memory store), so the fix is to start again.
 */
export function lostWithClosedStore(result: RunResult, store: Store): RunResult {
  if (!result.stopped || !result.error || !lostByClose(result.error, store)) return result;
  return { ...result, error: lostRunError(result.runId, result.error) };
}

/**
 * The options of a drive on `store`, whose `stopped` progress event says
 * the same as its result (lostWithClosedStore): a listener is never told
 * to resume a run the closed memory store took with it.
 */
export function progressOnLostRuns<O extends { onProgress?: (event: ProgressEvent) => void }>(opts: O, runId: string, store: Store): O {
  const listener = opts.onProgress;
  if (!listener) return opts;
  return {
    ...opts,
    onProgress: (event: ProgressEvent) => listener(event.type === 'stopped' && lostByClose(event.error, store) ? { ...event, error: lostRunError(runId, event.error) } : event),
  };
}

function lostByClose(error: RunFailure, store: Store): boolean {
  return error.code === 'E_STORE' && isClosedMemoryStore(store);
}

function lostRunError(runId: string, failure: RunFailure): RunFailure {
  const { fix: _resume, ...error } = failure;
  return {
    ...error,
    message: `the in-memory store was closed while run ${runId} was driven, and what it held is gone: run ${runId} is lost${error.nodeId ? ` (it was at node "${error.nodeId}")` : ''}`,
    fix: 'keep the store open while its engine is in use (close it last); to go on, start the run again from its workflow on a new store: createEngine({ store: createMemoryStore() }).run(workflow, { agent })',
  };
}
