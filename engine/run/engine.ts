/**
 * The engine: starts runs, takes answers, reports status and journals.
 * It never calls a model; a host drives it (the CLI, an MCP server, an
 * embedding, or `run` with an Agent). Every step is one store transaction.
 */
import { vouchCreate, vouchedMutate } from '../store/vouched.js';
import type { ToolCallRecord, ToolRunner } from '../hosts/tool-mediation.js';
import { randomUUID } from 'node:crypto';
import { CountersignError, isCountersignError } from '../errors.js';
import { createdButStopped } from './created-stop.js';
import type { JsonObject, Workflow } from '../format/model.js';
import { compileWorkflow, type CompiledWorkflow } from '../compile/machine.js';
import type { LedgerRow, Store, RunRecord } from '../store/store.js';
import type { Agent } from '../hosts/agent.js';
import type { JournalEvent, RunState, RunSummary, RunStatus } from './contract.js';
import { hashWorkflow } from './hash.js';
import { answerCopy, checkLabels, checkResume, checkReviewer, resumeSource, checkRunId, checkRunLimits, checkRunsFilter, lateAnswer, workspaceOf, workspaceStillThere, identityRequired, refuseEngineIdentity, inputCopy, jsonCopy, notFound, startCommand, seqError, toolCallsOf, toolFailureOf, lostWithClosedStore, progressOnLostRuns } from './engine-checks.js';
import { damagedRun, stateOf, storedRecord } from './state.js';
import { servedState as servedAgainst, usableRecord, waitsAtItsNode as waitsAgainst } from './served-record.js';
import { listedProblem } from '../store/row-shapes.js';
import { duplicateRun } from '../store/store-errors.js';
import { checkedCopy } from './stored-workflow.js';
import { firstStep, nextStep } from './step.js';
import { retriesSpentOf, vetoedBehindTools } from './step-journal.js';
import type { ValidWorkflow, WorkflowSource } from './workflow-source.js';
import { closeIdle, driveRun, type RunOptions, type RunResult } from './driver.js';
import { engineTools } from './engine-tools.js';
import type { RunEnv } from '../nodes/node-type.js';
import { loopFacts } from '../nodes/review-loops.js';
import { answeredNodeIds, asksAgents } from '../nodes/index.js';
import { claimNote } from './tool-steps.js';
import type { Tool, ToolSpec } from '../tools/tool.js';
import { checkToolList } from '../tools/catalog.js';
import { checkOptionKeys, keysOf, refuseExtraArguments } from './option-keys.js';
import { said, shown } from '../format/said.js';
import type { Pending } from '../nodes/pending.js';

export type { EngineOptions, StartOptions, SubmitOptions, TraceOptions, RunsFilter, RecordToolCallsOptions, RunCallOptions, RunInfo, Engine } from './engine-api.js';
import { RECORD_TOOL_CALLS_KEYS, RUN_OPTION_KEYS, START_OPTION_KEYS, SUBMIT_OPTION_KEYS, TOOL_FAILURE_KEYS, TRACE_OPTION_KEYS, RUNS_FILTER_KEYS, type Engine, type EngineOptions, type StartOptions, type RunInfo } from './engine-api.js';
import { engineSettings, identityOption, optionsObject } from './engine-options.js';

export function createEngine(options: EngineOptions): Engine {
  const { store, now, newRunId } = engineSettings(options, [...arguments].slice(1));
  const tools = engineTools({ store, now, ...(options.tools ? { tools: options.tools } : {}), allowToolModules: options.allowToolModules === true, ...(options.toolHeartbeatMs !== undefined ? { toolHeartbeatMs: options.toolHeartbeatMs } : {}), compiledFor, envOf, mustGet });
  /** Runs the tool nodes the run has reached, then reads its state (with `held` when this process could not run one). */
  const settled = async (runId: string): Promise<RunState> => {
    const held = await tools.settle(runId);
    const state = stateOf(mustGet(runId), store.file);
    return held && state.status === 'waiting' && state.pending.kind === 'tool' ? { ...state, held } : state;
  };
  const workflows = new Map<string, Workflow>();

  function compiledFor(rec: RunRecord): CompiledWorkflow {
    let wf = workflows.get(rec.workflowHash);
    if (!wf) {
      wf = checkedCopy(store.getWorkflow(rec.workflowHash, rec.runId), rec.workflowHash, store.file, rec.runId);
      workflows.set(rec.workflowHash, wf);
    }
    return compileWorkflow(wf, rec.workflowHash);
  }

  function envOf(rec: RunRecord): RunEnv {
    return { workspace: rec.workspace, skip: store.location ? [store.location] : [], ...(store.file ? { storeFile: store.file } : {}) };
  }

  /** The run's record, checked for the shape every read relies on, whichever store keeps it (E_STORE when damaged). */
  function mustGet(runId: string): RunRecord {
    const rec = store.get(runId);
    if (!rec) throw notFound(runId, store.location);
    return storedRecord(rec, runId, store.file);
  }

  /** The record a step reads inside its transaction: refused (E_STORE) as status() refuses it, before anything fires or is answered. */
  const usable = (rec: RunRecord, runId: string): RunRecord => usableRecord(rec, runId, compiledFor, store.file);

  /** The seq of the item pending at `time`: the last journaled event's by then (1 when none is that old). */
  function seqAt(runId: string, time: Date): number {
    let seq = 1;
    for (const e of store.events(runId)) {
      if (Date.parse(e.at) > time.getTime()) break;
      if (typeof e.seq === 'number' && e.seq > seq) seq = e.seq;
    }
    return seq;
  }

  /** Fires an overdue deadline (the `timeout` route or E_TIMEOUT) inside a transaction. */
  function fireDeadline(runId: string): RunState {
    return store.update(runId, vouchedMutate((current) => {
      // Another process may have written the run since status() read it: checked again, before the deadline fires.
      const rec = usable(current, runId);
      if (rec.status !== 'waiting' || !rec.deadline || now() < new Date(rec.deadline)) return { result: stateOf(rec, store.file) };
      const s = nextStep(compiledFor(rec), rec, { type: 'TIMEOUT' }, now(), envOf(rec));
      return { record: s.record, events: s.events, rows: s.rows, result: stateOf(s.record, store.file) };
    }));
  }

  /**
   * The state of a stored record as status() and info() serve it: a damaged
   * record (a pending item missing its contract fields, a node its workflow
   * lacks or that never waits) is E_STORE naming the run and the database,
   * never handed to a host half-empty.
   */
  const servedState = (rec: RunRecord): RunState => servedAgainst(rec, compiledFor, store.file);
  /** A waiting record's pending item is its node's, of the kind that node issues, over a context a step can read: else E_STORE. */
  const waitsAtItsNode = (rec: RunRecord): void => waitsAgainst(rec, compiledFor, store.file);

  function startLoaded(loaded: ValidWorkflow, opts: StartOptions): RunState {
    return startRecord(loaded, opts).state;
  }

  /** Starts a run: its first state, and the record it was stored with. */
  function startRecord(loaded: ValidWorkflow, opts: StartOptions): { state: RunState; record: RunRecord } {
    // The run owns a copy: the caller may edit or reuse its object afterwards.
    const workflow = jsonCopy(loaded.workflow, 'E_INPUT').value as unknown as Workflow;
    const file = loaded.file;
    const hash = hashWorkflow(workflow);
    workflows.set(hash, workflow);
    const compiled = compileWorkflow(workflow, hash);
    const runId = newRunId();
    // Every other entry point takes only a non-empty string: a run stored under anything else could never be reached again.
    if (typeof runId !== 'string' || runId.trim() === '') {
      throw new CountersignError('E_INPUT', `newRunId gave ${said(runId) ?? String(runId)}, and a run id is a non-empty string: no run was stored`, {
        fix: 'make newRunId return a non-empty string (the default is crypto.randomUUID())',
      });
    }
    const at = now();
    identityOption(opts.as, 'start');
    if (opts.as !== undefined && opts.as.trim() === '') {
      throw new CountersignError('E_IDENTITY_REQUIRED', `the starting identity ${said(opts.as)} is blank`, {
        fix: 'pass a non-empty identity with --as <identity> (library: { as }), or leave it out',
      });
    }
    refuseEngineIdentity(opts.as, 'starting');
    const userId = opts.as?.trim() || 'local';
    const base: RunRecord = {
      runId,
      workflow: workflow.metadata.name,
      workflowHash: hash,
      ...(file ? { file } : {}),
      workspace: workspaceOf(opts.workspace),
      status: 'waiting',
      snapshot: {},
      seq: 0,
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
    };
    // null is no object of variables, never "left out" (only undefined is).
    const given: unknown = opts.input === undefined ? {} : opts.input;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      throw new CountersignError('E_INPUT', `the start input must be a JSON object of variables, got ${Array.isArray(given) ? 'an array' : shown(given)}`, {
        fix: 'pass an object naming declared variables, e.g. {"topic": "tests"}',
      });
    }
    const input = inputCopy(given).value as JsonObject;
    const meta = { executionId: runId, workflowId: workflow.id ?? workflow.metadata.name, userId };
    // The input is judged before the store is first touched: a refused input (E_INPUT) opens no store, so a
    // mistyped --store leaves nothing behind.
    const context = compiled.initialContext(meta, input);
    // Refused before the first step: it moves the review files of the run's id in the workspace (a review
    // reached at once), and those are the stored run's. store.create refuses the id too, should another process take it meanwhile.
    if (store.get(runId) !== undefined) throw duplicateRun(runId, store.file);
    const settled = firstStep(compiled, base, { context }, at, envOf(base));
    // At the start node, as every event names the node it happened at.
    const startNodeId = workflow.nodes.find((n) => n.type === 'start')!.id;
    const started: JournalEvent = { seq: 0, at: base.createdAt, type: 'run.started', nodeId: startNodeId, workflow: base.workflow, workflowHash: hash, userId };
    store.putWorkflow(hash, workflow);
    const firstEvents = [started, ...settled.events];
    vouchCreate(settled.record, firstEvents);
    store.create(settled.record, firstEvents, settled.rows);
    return { state: stateOf(settled.record, store.file), record: settled.record };
  }

  const engine: Engine = {
    async start(source, opts = {}) {
      refuseExtraArguments('start()', 'a workflow and one options object', [...arguments].slice(2), 'put every option in the one object: start(source, { input?, as?, workspace? })');
      optionsObject(opts, 'start');
      checkOptionKeys(opts, START_OPTION_KEYS, 'start()');
      const state = startLoaded(await tools.load(source), opts);
      if (state.status !== 'waiting' || state.pending.kind !== 'tool') return state;
      return settled(state.runId).catch((e: unknown) => {
        // The run exists by now: a store failure running its first tool nodes says which run, and how to go on with it.
        throw isCountersignError(e) && e.code === 'E_STORE' ? createdButStopped(e, state) : e;
      });
    },

    async submit(runId, answer, opts = {}) {
      refuseExtraArguments('submit()', 'a run id, an answer and one options object', [...arguments].slice(3), 'put every option in the one object: submit(runId, answer, { seq?, as? })');
      checkRunId(runId);
      optionsObject(opts, 'submit');
      // The run first: an unknown run is E_RUN_NOT_FOUND whatever else is wrong with the call.
      const before = mustGet(runId);
      checkOptionKeys(opts, SUBMIT_OPTION_KEYS, 'submit()');
      const { value: copy, bytes } = answerCopy(answer, { runId, ...(before.status === 'waiting' && before.pending ? { nodeId: before.pending.nodeId, seq: before.seq } : {}) });
      identityOption(opts.as, 'submit');
      if (opts.as !== undefined && opts.as.trim() === '') {
        throw new CountersignError('E_IDENTITY_REQUIRED', `the answering identity ${said(opts.as)} is blank`, {
          fix: 'pass a non-empty identity with --as <identity> (library: { as })',
        });
      }
      refuseEngineIdentity(opts.as, 'answering');
      // Identities compare exactly, so stray whitespace must not make "alice " someone else.
      const userId = opts.as?.trim() ?? 'local';
      if (opts.seq !== undefined && !Number.isInteger(opts.seq)) throw seqError(runId, opts.seq, undefined);
      // Any toolCalls given are checked (E_INPUT): a value that is no list would otherwise leave the calls off the record without a word.
      const toolCalls = opts.toolCalls === undefined ? [] : toolCallsOf(opts.toolCalls);
      // So is a toolFailure: one of the wrong type would discard the answer for a failure that names nothing.
      const toolFailure = opts.toolFailure === undefined ? undefined : toolFailureOf(opts.toolFailure, TOOL_FAILURE_KEYS);
      // Without a seq the answer is for the item pending now: pinned, so two
      // submits racing for one item never both advance the run (the later
      // one is a replay) and an answer never lands on a later item.
      // Pinned at the call, not at this read: another process may have moved the run on in between.
      // A stored time ahead of this clock says the clocks disagree (another
      // host's, or this one stepped back): no judging by them, the item pending now is answered.
      if (opts.madeAt !== undefined && !(opts.madeAt instanceof Date && Number.isFinite(opts.madeAt.getTime()))) {
        throw new CountersignError('E_INPUT', `madeAt must be a valid Date (when the answer was made), got ${opts.madeAt instanceof Date ? 'an invalid Date' : said(opts.madeAt) ?? String(opts.madeAt)}`, {
          fix: 'pass { madeAt: new Date(…) } with a valid time, or { seq } (the seq of the item answered), or neither',
        });
      }
      const storedAt = Date.parse(before.updatedAt);
      const movedOnSinceCall = opts.seq === undefined && opts.madeAt !== undefined && storedAt > opts.madeAt.getTime() && storedAt <= now().getTime();
      // Pinned to the item pending when the answer was made: the seq of the
      // last event journaled by then (the run may have moved several items since).
      // An ended run moved on since the call too: the answer raced the one that ended it, and lost (a replay, as with a seq).
      const seq = opts.seq ?? (movedOnSinceCall && before.seq >= 1 ? seqAt(runId, opts.madeAt!) : before.status === 'waiting' ? before.seq : undefined);
      // A run whose workflow brings toolModules needs them before an answer
      // is stored: refused here (E_TOOL_MODULE_BLOCKED), nothing changes.
      if (before.status === 'waiting') await tools.ensureModules(before);
      // Errors found after an overdue deadline fired must not roll that back:
      // they are returned from the transaction and thrown after it commits.
      // The node answered and the item the step issued: a review behind the tool nodes it leads to may still refuse that answer.
      let answered: { nodeId: string; seq: number } | undefined;
      const outcome = store.update<RunState | CountersignError>(runId, vouchedMutate((stored) => {
        // A record status() would refuse is refused here too, before a deadline fires or an answer is taken: a damaged run is never advanced.
        const rec = usable(stored, runId);
        const at = now();
        let current = rec;
        const events: JournalEvent[] = [];
        const rows: LedgerRow[] = [];
        // The first step after a deadline fires it, whatever it carries.
        const overdue = rec.status === 'waiting' && rec.deadline !== undefined && at >= new Date(rec.deadline);
        if (overdue) {
          const fired = nextStep(compiledFor(rec), rec, { type: 'TIMEOUT' }, at, envOf(rec));
          current = fired.record;
          events.push(...fired.events);
          rows.push(...fired.rows);
        }
        const write = (result: RunState | CountersignError) => (overdue ? { record: current, events, rows, result } : { result });
        if (seq !== undefined) {
          const answerable = rec.status === 'waiting' ? rec.seq : 0;
          // Never issued: ahead of the run, or below 1. Said against the run as it is now.
          if (seq > rec.seq || seq < 1) return write(seqError(runId, seq, current, compiledFor(rec).workflow));
          if (seq < answerable || rec.status !== 'waiting') return write({ ...stateOf(current, store.file), replayed: true as const });
        }
        // The answer was meant for the item whose deadline passed: it is dropped, and the caller told so.
        if (overdue) return write({ ...stateOf(current, store.file), late: lateAnswer(rec) });
        if (rec.status !== 'waiting') {
          return write(new CountersignError('E_RUN_NOT_WAITING', `run ${runId} is ${rec.status} and takes no more answers`, {
            fix: `start a new run with \`${startCommand(rec, compiledFor(rec).workflow)}\``,
          }));
        }
        if (rec.pending?.kind === 'tool') {
          const flag = compiledFor(rec).workflow.toolModules?.length ? ' --allow-tool-modules' : '';
          return write(new CountersignError('E_TOOL_NODE', `run ${runId} is at tool node "${rec.pending.nodeId}", which the engine runs itself: it takes no answers`, {
            fix: `check the run with \`countersign status ${runId}${flag}\`; it moves on when the tool ${rec.pending.tool} has run`,
          }));
        }
        const compiled = compiledFor(rec);
        if (opts.as === undefined && loopFacts(compiled.workflow).members.has(rec.pending!.nodeId)) {
          return write(identityRequired(rec));
        }
        const submitted = { type: 'SUBMIT' as const, answer: copy, bytes, userId, ...(toolCalls.length ? { toolCalls } : {}), ...(toolFailure ? { toolFailure } : {}) };
        const s = nextStep(compiled, rec, submitted, at, envOf(rec));
        answered = { nodeId: rec.pending!.nodeId, seq: s.record.seq };
        const state = stateOf(s.record, store.file);
        const spent = s.rejected ? undefined : retriesSpentOf(s.events, rec.pending!.nodeId);
        const result = s.rejected && state.status === 'waiting' ? { ...state, rejected: s.rejected } : spent ? { ...state, retriesSpent: spent } : state;
        return { record: s.record, events: s.events, rows: s.rows, result };
      }));
      if (outcome instanceof CountersignError) {
        // A deadline this call fired may have led to a tool node: run it, and say the seq against where the run then rests.
        if (outcome.code === 'E_SEQ' && seq !== undefined && mustGet(runId).pending?.kind === 'tool') {
          await settled(runId);
          throw seqError(runId, seq, mustGet(runId), compiledFor(mustGet(runId)).workflow);
        }
        throw outcome;
      }
      // A "replay" of an item nobody answered — its deadline fired first
      // (at a status, or another process) — is the late answer it is, never
      // taken for an answer already given.
      if (outcome.replayed && seq !== undefined) {
        const events = store.events(runId).filter((e) => e.seq === seq);
        const fired = events.find((e) => e.type === 'timeout');
        if (fired && !events.some((e) => e.type === 'answer.accepted')) {
          const { replayed: _replayed, ...unsettled } = outcome;
          // The timeout route may have led to a tool node: run it, as any step does.
          const state = unsettled.status === 'waiting' && unsettled.pending.kind === 'tool' ? await settled(runId) : unsettled;
          return { ...state, late: { code: 'E_TIMEOUT', errors: [`the answer came after node "${fired.nodeId ?? '?'}"'s deadline and was not applied: the deadline fired first`] } };
        }
      }
      if (outcome.status !== 'waiting' || outcome.pending.kind !== 'tool') return outcome;
      // A replay changes nothing, but a deadline the call fired may have led to a tool node: it runs, as at any step.
      if (outcome.replayed) return { ...(await settled(runId)), replayed: true as const };
      // What the step said of the answer (too late, retries spent) still holds once the tool nodes it led to have run.
      const after = await settled(runId);
      // An answer refused behind the tools (an unchanged fix re-asked) is said as a rejection, as if refused when given.
      const vetoed = answered && vetoedBehindTools(store.events(runId), answered.nodeId, answered.seq, userId, after);
      return { ...after, ...(outcome.late ? { late: outcome.late } : {}), ...(outcome.retriesSpent ? { retriesSpent: outcome.retriesSpent } : {}), ...vetoed };
    },

    async recordToolCalls(runId, opts) {
      refuseExtraArguments('recordToolCalls()', 'a run id and one options object', [...arguments].slice(2), 'put both in the one object: recordToolCalls(runId, { seq, toolCalls })');
      checkRunId(runId);
      optionsObject(opts, 'recordToolCalls', '{ seq: state.seq, toolCalls: [...] } (the seq of the item the calls were made for)');
      // The run first, as for submit: an unknown run (or a closed store) is said whatever else the call holds, an empty list too.
      const before = mustGet(runId);
      checkOptionKeys(opts, RECORD_TOOL_CALLS_KEYS, 'recordToolCalls()');
      const { seq, toolCalls } = opts;
      // A seq that is no whole number names no item: the calls would silently stay off the record.
      if (!Number.isInteger(seq)) {
        if (seq === undefined) throw new CountersignError('E_INPUT', 'recordToolCalls() needs the seq of the item the tool calls were made for', { fix: 'pass { seq: state.seq, toolCalls: [...] }' });
        throw new CountersignError('E_SEQ', seqError(runId, seq, undefined).message, { fix: 'pass the seq of the item the tool calls were made for (state.seq, a whole number from 1)' });
      }
      const calls = toolCallsOf(toolCalls);
      // A seq the run never issued (ahead of it, or below 1) is E_SEQ, as submit says; only a seq the run has moved past writes nothing.
      const unissued = (rec: RunRecord) => (seq > rec.seq || seq < 1
        ? new CountersignError('E_SEQ', seqError(runId, seq, rec).message, { fix: 'pass the seq of the item the tool calls were made for (state.seq), never one the run has not issued' })
        : undefined);
      if (calls.length === 0) {
        const refused = unissued(before);
        if (refused) throw refused;
        return;
      }
      const refused = store.update<CountersignError | undefined>(runId, vouchedMutate((stored) => {
        const rec = usable(stored, runId);
        const never = unissued(rec);
        if (never) return { result: never };
        if (rec.status !== 'waiting' || rec.seq !== seq) return { result: undefined };
        const at = now().toISOString();
        const nodeId = rec.pending!.nodeId;
        const events: JournalEvent[] = calls.map((c) => ({ seq, at, type: 'tool.called', nodeId, ...c }));
        return { record: rec, events, result: undefined };
      }));
      if (refused) throw refused;
    },

    async info(runId) {
      refuseExtraArguments('info()', 'a run id', [...arguments].slice(1), 'call info(runId) with the run id alone');
      checkRunId(runId);
      const rec = mustGet(runId);
      // The same checks as status(): a damaged record is E_STORE, never served with a pending item missing its directive or schema.
      const state = servedState(rec);
      return {
        runId: rec.runId,
        workflow: rec.workflow,
        ...(rec.file ? { file: rec.file } : {}),
        workspace: rec.workspace,
        nodeIds: compiledFor(rec).workflow.nodes.map((n) => n.id),
        answeredNodeIds: answeredNodeIds(compiledFor(rec).workflow.nodes),
        asksAgents: asksAgents(compiledFor(rec).workflow.nodes),
        toolModules: (compiledFor(rec).workflow.toolModules?.length ?? 0) > 0,
        status: rec.status,
        seq: rec.seq,
        ...(state.status === 'waiting' ? { pending: state.pending } : {}),
        createdAt: rec.createdAt,
        updatedAt: rec.updatedAt,
      };
    },

    async status(runId) {
      refuseExtraArguments('status()', 'a run id', [...arguments].slice(1), 'call status(runId) with the run id alone');
      checkRunId(runId);
      const rec = mustGet(runId);
      // A read never changes a run because of a damaged record (a tool item at a directive): E_STORE before a deadline fires or a tool runs.
      // A tool item is checked against its node only: settling it brings the record up to date (an old one may lack its attempt).
      const toolItem = rec.status === 'waiting' && rec.pending?.kind === 'tool';
      const served = toolItem ? waitsAtItsNode(rec) : servedState(rec);
      if (rec.status === 'waiting' && rec.deadline && now() >= new Date(rec.deadline)) {
        // The timeout route may lead to a tool node: run it, as any step does.
        const fired = fireDeadline(runId);
        return fired.status === 'waiting' && fired.pending.kind === 'tool' ? settled(runId) : fired;
      }
      // A tool node not yet run (or a claim whose process died) is settled here, so no run stays stuck.
      if (toolItem) return settled(runId);
      return served!;
    },

    async trace(runId, options) {
      refuseExtraArguments('trace()', 'a run id and one options object', [...arguments].slice(2), 'put the option in the one object: trace(runId, { from? })');
      checkRunId(runId);
      // A number for { from } would otherwise read the whole journal without a word.
      if (options !== undefined) optionsObject(options, 'trace', `{ from: ${typeof options === 'number' && Number.isSafeInteger(options) && options >= 0 ? options : 0} } (an event index), or leave it out for the whole journal`);
      if (options !== undefined) checkOptionKeys(options, TRACE_OPTION_KEYS, 'trace()');
      // Only a from left out reads the whole journal: null is no event index.
      const from: unknown = options?.from === undefined ? 0 : options.from;
      if (typeof from !== 'number' || !Number.isSafeInteger(from) || from < 0) {
        throw new CountersignError('E_INPUT', `trace from ${said(from)} is not an event index`, { fix: 'pass from as a whole number ≥ 0 (the number of events already read), or leave it out for the whole journal' });
      }
      mustGet(runId);
      const events = store.events(runId, from);
      // Past the end is no "nothing new yet" (that is from = the count read so far): said, so a reader in parts never waits on a wrong index.
      if (events.length === 0 && from > 0 && store.events(runId, from - 1).length === 0) {
        const total = store.events(runId, 0).length;
        throw new CountersignError('E_INPUT', `trace from ${from} is past the end of run ${runId}'s journal, which holds ${total} event(s)`, {
          fix: `pass from at most ${total}: from ${total} returns the events written after those (none yet), from 0 the whole journal`,
        });
      }
      return { runId, events };
    },

    async runs(filter) {
      refuseExtraArguments('runs()', 'one filter object', [...arguments].slice(1), 'put the filter in the one object: runs({ status? })');
      checkRunsFilter(filter);
      if (filter !== undefined) checkOptionKeys(filter, RUNS_FILTER_KEYS, 'runs()');
      const listed = store.list(filter);
      // Whichever store lists them: a run whose summary is no run's (a time that is no time) is E_STORE, as SQLite says.
      for (const summary of listed) {
        const problem = listedProblem(summary);
        if (problem !== undefined) throw damagedRun(String((summary as { runId?: unknown } | null)?.runId), problem, store.file);
      }
      return listed;
    },

    async run(source, opts) {
      refuseExtraArguments('run()', 'a workflow (or { runId }) and one options object', [...arguments].slice(2), 'put every option in the one object: run(source, { agent, reviewer?, maxSteps?, … })');
      // Set once the drive begins: from then on the drive closes the agents, however it ends.
      let driving = false;
      try {
        return await runUntilDriven(source, opts, () => {
          driving = true;
        });
      } catch (e) {
        // Failed before any drive began (bad options, a workflow that does not load, a store error on
        // starting): the agents it was handed are closed all the same, unless another run() still uses them.
        if (!driving) await closeIdle([opts?.agent, opts?.reviewer]);
        throw e;
      }
    },
  };

  /** run()'s work up to and including its drive; `entered` is called as the drive begins. */
  async function runUntilDriven(source: Parameters<Engine['run']>[0], opts: Parameters<Engine['run']>[1], entered: () => void): Promise<RunResult> {
    if (opts !== undefined) optionsObject(opts, 'run', '{ agent, … } (an agent is required)');
    if (opts !== undefined) checkOptionKeys(opts, RUN_OPTION_KEYS, 'run()');
    if (!opts?.agent || typeof opts.agent.answer !== 'function') {
      throw new CountersignError('E_ADAPTER', 'run() needs an agent: an object with an answer(request, options) method', {
        fix: 'pass { agent: { answer: async (item) => answerObject } }, or use start() and submit() to answer yourself',
      });
    }
    // A reviewer given is an agent, whether or not the workflow has review nodes: never ignored without a word.
    const reviewer: unknown = opts.reviewer;
    if (reviewer !== undefined && (reviewer === null || (typeof reviewer !== 'object' && typeof reviewer !== 'function') || typeof (reviewer as Agent).answer !== 'function')) {
      throw new CountersignError('E_INPUT', `run()'s reviewer must be an agent: an object with an answer(request, options) method, got ${reviewer === null ? 'null' : Array.isArray(reviewer) ? 'a list' : typeof reviewer === 'object' || typeof reviewer === 'function' ? `${typeof reviewer === 'object' ? 'an object' : 'a function'} without answer()` : said(reviewer) ?? typeof reviewer}`, {
        fix: 'pass reviewer: { answer: async (item) => answerObject } (another agent than the one producing the work), or leave it out for a workflow without review nodes',
      });
    }
    checkRunLimits(opts);
    // Refused before a run is stored: a wrong type here would otherwise throw halfway through, or be blamed on the agent.
    if (opts.onProgress !== undefined && typeof opts.onProgress !== 'function') {
      throw new CountersignError('E_INPUT', `run()'s onProgress must be a function, got ${shown(opts.onProgress)}`, { fix: 'pass onProgress: (event) => { … }, or leave it out' });
    }
    // What run() lends its agents: an object with names() and call() (a list of tools goes to createEngine).
    const lent: unknown = opts.tools;
    if (lent !== undefined && (lent === null || typeof lent !== 'object' || typeof (lent as ToolRunner).names !== 'function' || typeof (lent as ToolRunner).call !== 'function')) {
      throw new CountersignError('E_INPUT', `run()'s tools must be a tool runner: an object with names() and call(name, args, request), got ${Array.isArray(lent) ? 'a list' : lent === null ? 'null' : typeof lent === 'object' ? 'an object without them' : typeof lent === 'function' ? 'a function' : said(lent)}`, {
        fix: Array.isArray(lent) ? 'register a list of tools with createEngine({ tools }) (tool nodes and $tool calls can name them), or lend a runner { names, call } here' : 'pass tools: { names: () => [...], call: async (name, args, request) => result }, or leave it out',
      });
    }
    // An options object that is none would otherwise be read as no decorators (toolChain) or the generic names (labels), without a word.
    for (const name of ['toolChain', 'labels'] as const) {
      const given: unknown = opts[name];
      if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
        throw new CountersignError('E_INPUT', `run()'s ${name} must be an object, got ${given === null ? 'null' : Array.isArray(given) ? 'a list' : said(given) ?? typeof given}`, {
          fix: name === 'toolChain' ? 'pass toolChain: { reviewGate, … } (the decorators chain() takes), or leave it out' : 'pass labels: { agent?: { name, silence }, reviewer?: { name, silence } }, or leave it out',
        });
      }
    }
    checkLabels(opts.labels);
    if (opts.signal !== undefined && !(opts.signal instanceof AbortSignal)) {
      throw new CountersignError('E_INPUT', 'run()\'s signal must be an AbortSignal', { fix: 'pass signal: controller.signal (an AbortController\'s), or leave it out' });
    }
    // Refused before anything starts: a blank identity would fail the first answer of a half-started run.
    for (const [name, id] of [['as', opts.as], ['reviewerAs', opts.reviewerAs]] as const) {
      if (id !== undefined && typeof id !== 'string') {
        throw new CountersignError('E_INPUT', `run()'s ${name} must be a non-empty string (an identity), got ${id === null ? 'null' : typeof id === 'object' ? (Array.isArray(id) ? 'a list' : 'an object') : said(id) ?? typeof id}`, {
          fix: `pass ${name} as a non-empty string, or leave it out (${name === 'as' ? 'local' : 'reviewer'} by default)`,
        });
      }
      if (id !== undefined && id.trim() === '') {
        throw new CountersignError('E_IDENTITY_REQUIRED', `run() was given a blank ${name} identity`, { fix: `pass a non-empty ${name}, or leave it out` });
      }
      refuseEngineIdentity(id, `run() ${name}`);
    }
    // An object naming a run id is a resume source, {runId} alone: never read as a workflow missing its metadata.
    if (resumeSource(source, RUN_OPTION_KEYS)) {
      checkRunId((source as { runId: unknown }).runId);
      const rec = mustGet((source as { runId: string }).runId);
      checkResume(rec, opts);
      // Only a run with work left needs its workspace: an ended run is returned as it stands.
      if (rec.status === 'waiting') workspaceStillThere(rec);
      checkReviewer(compiledFor(rec).workflow, opts);
      const workflow = compiledFor(rec).workflow;
      // A run resumed in a new process offers its agents the same tools as when it started.
      await tools.ensureModules(rec).catch((e: unknown) => {
        // Refused its modules while another process's call may have taken effect: said, never as if nothing had started.
        const claimed = rec.pending?.kind === 'tool' ? claimNote(rec.pending) : undefined;
        if (!claimed || !isCountersignError(e)) throw e;
        throw new CountersignError(e.code, `${e.message}; meanwhile ${claimed}`, { ...(e.fix ? { fix: e.fix } : {}), ...(e.file ? { file: e.file } : {}), ...(e.pointer ? { pointer: e.pointer } : {}), nodeId: rec.pending!.nodeId, cause: e });
      });
      const bind = tools.forAgents(workflow, rec.file, opts);
      // Progress starts before the run is read: a deadline that fires on reading it is part of this drive.
      const journalFrom = store.eventCount(rec.runId);
      const state = await engine.status(rec.runId);
      const driveOptions = progressOnLostRuns(opts, rec.runId, store);
      const offered = bind({ workspace: rec.workspace, workflowName: rec.workflow });
      entered();
      return lostWithClosedStore(await driveRun(engine, state, driveOptions, now, offered, journalFrom, asksAgents(workflow.nodes)), store);
    }
    const loaded = await tools.load(source as WorkflowSource, opts.tools?.names());
    checkReviewer(loaded.workflow, opts);
    const bind = tools.forAgents(loaded.workflow, loaded.file, opts);
    const { state: first, record } = startRecord(loaded, opts);
    const offered = bind({ workspace: record.workspace, workflowName: record.workflow });
    // Its first tool nodes run inside the drive: a store failure there stops it with the run's id, resumable, as one later does.
    const ready = (state: RunState) => (state.status === 'waiting' && state.pending.kind === 'tool' ? settled(state.runId) : Promise.resolve(state));
    const driveOptions = progressOnLostRuns(opts, first.runId, store);
    entered();
    return lostWithClosedStore(await driveRun(engine, first, driveOptions, now, offered, 0, asksAgents(loaded.workflow.nodes), ready), store);
  }
  return engine;
}
