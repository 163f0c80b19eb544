/**
 * One step of a run, as a pure function of the stored record: restore the
 * snapshot, apply an event with xstate's pure transition API, then settle
 * the result into the next record and its journal events. The engine runs
 * this inside a store transaction.
 */
import { contextFault } from './context-shape.js';
import { createActor, type AnyActorScope, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import { nodeType } from '../nodes/index.js';
import { ENGINE_ID } from '../nodes/tool.js';
import type { EntryCause, FinalType, RunContext, RunEnv, WaitingType } from '../nodes/node-type.js';
import { FAILED_STATE, type CompiledWorkflow, type MachineEvent, type MachineInput } from '../compile/machine.js';
import type { LedgerRow, RunRecord } from '../store/store.js';
import type { JournalEvent, Rejection } from './contract.js';
import { deepFreeze } from '../format/freeze.js';
import { loopFacts } from '../nodes/review-loops.js';
import { journalOf, type Actions } from './step-journal.js';
import { Runaway, repeatedEntry, runaway } from './runaway.js';
import { damagedRecord } from './state.js';
import { takenBack, withLaterStep } from './answer-undo.js';
import { restingContext, type StepTrail } from './resting.js';

export interface Settled {
  record: RunRecord;
  events: JournalEvent[];
  /** Ledger rows the step's `record` nodes wrote: stored in the same transaction. */
  rows: LedgerRow[];
  rejected?: Rejection;
}


/**
 * xstate's pure `transition()` builds a throwaway actor (and its initial
 * snapshot) on every call, which cost more than the step itself. This is
 * the same pure evaluation with one inert scope per machine: actions are
 * collected, never executed.
 */
interface PureScope {
  scope: AnyActorScope;
  sink: Actions[number][];
}
const scopes = new WeakMap<AnyStateMachine, PureScope>();

function pureScope(machine: AnyStateMachine): PureScope {
  let pure = scopes.get(machine);
  if (!pure) {
    const self = createActor(machine);
    const sink: Actions[number][] = [];
    const scope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => {},
      defer: () => {},
      emit: () => {},
      stopChild: () => {},
      actionExecutor: (action: Actions[number]) => sink.push(action),
    } as unknown as AnyActorScope;
    pure = { scope, sink };
    scopes.set(machine, pure);
  }
  return pure;
}

function pure(machine: AnyStateMachine, run: (scope: AnyActorScope) => AnyMachineSnapshot): [AnyMachineSnapshot, Actions] {
  const { scope, sink } = pureScope(machine);
  sink.length = 0;
  const snapshot = run(scope);
  return [snapshot, sink.splice(0)];
}

export function firstStep(compiled: CompiledWorkflow, base: RunRecord, input: MachineInput, now: Date, env: RunEnv): Settled {
  const { machine } = compiled;
  const trail: StepTrail = { routes: [] };
  return guarded(base, now, () => restingContext(compiled, enterNodes(compiled, env, pure(machine, (scope) => machine.getInitialSnapshot(scope, input)), trail), trail), compiled);
}

export function nextStep(compiled: CompiledWorkflow, rec: RunRecord, event: MachineEvent, now: Date, env: RunEnv): Settled {
  const settled = stepOnce(compiled, rec, event, now, env);
  return event.type === 'TIMEOUT' ? settled : firedIfIssuedLate(compiled, rec, settled, now, env);
}

/**
 * A node asked again behind tool nodes keeps its visit's deadline (settle),
 * and the tools may have run past it. Such an item is never handed out
 * already late, to be answered in vain: the deadline fires in this same
 * step, as the next step or status would fire it (the node's `timeout`
 * route, or E_TIMEOUT). The item was never issued, so its issued event goes
 * and the firing is journaled under the seq this step was at; a waiting
 * node the timeout route leads to takes the next seq.
 */
function firedIfIssuedLate(compiled: CompiledWorkflow, rec: RunRecord, s: Settled, now: Date, env: RunEnv): Settled {
  const r = s.record;
  if (r.status !== 'waiting' || r.pending === undefined || r.pending.kind === 'tool' || r.deadline === undefined || r.seq === rec.seq) return s;
  if (now.getTime() < Date.parse(r.deadline)) return s;
  const unissued: RunRecord = { ...r, seq: rec.seq };
  const fired = stepOnce(compiled, unissued, { type: 'TIMEOUT' }, now, env);
  const before = s.events
    .filter((e) => !(e.seq === r.seq && (e.type === 'directive.issued' || e.type === 'review.issued')))
    .map((e) => (e.seq === r.seq ? { ...e, seq: rec.seq } : e));
  return { record: fired.record, events: [...before, ...fired.events], rows: [...s.rows, ...fired.rows] };
}

function stepOnce(compiled: CompiledWorkflow, rec: RunRecord, event: MachineEvent, now: Date, env: RunEnv): Settled {
  const snapshot = restore(compiled, rec, env.storeFile);
  const { machine } = compiled;
  const observed = event.type === 'SUBMIT' || event.type === 'TIMEOUT' ? observe(compiled, snapshot, env) : undefined;
  let ev: MachineEvent = observed === undefined ? event : ({ ...event, observed } as MachineEvent);
  // The answered item's deadline travels with the answer (into leadIn): re-asked behind tool nodes, the visit keeps it.
  if (ev.type === 'SUBMIT' && rec.deadline !== undefined && ev.userId !== ENGINE_ID) ev = { ...ev, deadline: rec.deadline };
  // Behind a tool node, the entry routes taken since the run last rested at a node someone answers (resting.ts).
  const byEngine = ev.type === 'SUBMIT' && ev.userId === ENGINE_ID;
  const trail: StepTrail = { routes: [], ...(ev.type === 'SUBMIT' ? (byEngine ? { toolOutcomeAt: snapshot } : { answeredAt: snapshot }) : {}) };
  const carried = byEngine ? (snapshot.context as RunContext).rerouted : undefined;
  if (carried !== undefined) trail.carried = carried;
  return guarded(rec, now, () => restingContext(compiled, enterNodes(compiled, env, pure(machine, (scope) => machine.transition(snapshot, ev, scope)), trail, { snapshot, event: ev }), trail), compiled);
}

/** What the waiting node's `observe` reads from files before an answer is judged (review reports, hashes). */
function observe(compiled: CompiledWorkflow, snapshot: AnyMachineSnapshot, env: RunEnv) {
  const node = compiled.byId.get(snapshot.value as string);
  const type = node && (nodeType(node.type) as WaitingType | undefined);
  return node && type?.kind === 'waiting' && type.observe ? type.observe(node, snapshot.context as RunContext, compiled.workflow, env) : undefined;
}

/** Bounds the entry work of one step, like xstate's own runaway guard bounds transient hops. */
const MAX_ENTRIES_PER_STEP = 1000;

/**
 * Runs the entry work of each waiting node the step lands on (delegate-
 * review resolves paths, moves the report aside, hashes artifacts) and
 * feeds its outcome back as an ENTER event, until the run rests in a node
 * whose entry is done, or ends. An entry may veto the answer that led to
 * it: the step is then recomputed from the original snapshot with that
 * answer rejected.
 */
function enterNodes(
  compiled: CompiledWorkflow,
  env: RunEnv,
  first: [AnyMachineSnapshot, Actions],
  trail: StepTrail,
  submitted?: { snapshot: AnyMachineSnapshot; event: MachineEvent },
): [AnyMachineSnapshot, Actions] {
  const { machine } = compiled;
  let [snap, actions] = first;
  // Most steps rest at a node without entry work: nothing below is allocated for them.
  if (!needsEntry(compiled, snap)) return first;
  let all = [...actions];
  let cause = causeOf(compiled, submitted, all, snap.context as RunContext);
  // Where each node's first entry ended in `all`, and why its last entry routed on: what a runaway reports.
  const firstEntry = new Map<string, number>();
  let lastRoute = '';
  let lastOutcome: { via: string; code: string } | undefined;
  for (let entries = 0; snap.status === 'active'; entries++) {
    if (entries >= MAX_ENTRIES_PER_STEP) {
      const id = snap.value as string;
      throw new Runaway(
        `node "${id}" kept routing on entry without the run resting anywhere (${MAX_ENTRIES_PER_STEP} entries in one step)${lastRoute ? `; its last entry: ${lastRoute}` : ''}`,
        id,
        all.slice(0, firstEntry.get(id) ?? all.length),
        lastOutcome && `route node "${id}"'s "${lastOutcome.via}" connection somewhere other than back to it${lastOutcome.code === 'E_MAX_ITERATIONS' ? ', or raise its maxIterations' : ''}, so that entering it again can come to rest; then start a new run`,
      );
    }
    const ctx = snap.context as RunContext;
    const node = compiled.byId.get(snap.value as string);
    const type = node && (nodeType(node.type) as WaitingType);
    if (!node || type?.kind !== 'waiting' || !type.enter || ctx.entered === node.id) break;
    const outcome = type.enter(node, ctx, compiled.workflow, env, cause);
    if (outcome.kind === 'route') {
      lastRoute = `${outcome.code}: ${outcome.message} (route "${outcome.via}")`;
      lastOutcome = { via: outcome.via, code: outcome.code };
      // Back through tool nodes, entered again the same way: the tools would only run again.
      const repeated = repeatedEntry(trail.carried, node.id, outcome, all);
      if (repeated) throw repeated;
      trail.routes.push({ nodeId: node.id, via: outcome.via, code: outcome.code });
    }
    if (outcome.kind === 'veto') {
      if (!submitted || !cause) throw new Error(`node "${node.id}" vetoed an answer, but no answer led to it`);
      if (cause.earlier) {
        // Accepted in an earlier step, and tool nodes ran since: what they did
        // stays (journaled, their results kept). The answer is rejected now,
        // at its node, which asks again under its maxRetries as if it had
        // been rejected when given (its attempt counts on from that one).
        // Its own values go back too (the globals its step wrote, its node's answer): a rejected answer changes none.
        // Its identity too: it is no author of what it did not change, nor the run's user.
        // And what the transient nodes it led through did, this step's too (an expression after the last tool).
        const lead = ctx.leadIn?.nodeId === cause.nodeId ? ctx.leadIn : undefined;
        const undo = lead?.before && withLaterStep(lead.before, submitted.snapshot.context as RunContext, ctx);
        const back = compiled.machine.resolveState({
          value: cause.nodeId,
          context: { ...ctx, ...(lead && undo ? takenBack(ctx, lead, undo) : {}), attempt: cause.earlier.attempt - 1, errors: undefined, stayed: undefined, entered: undefined, leadIn: undefined },
        });
        const event: MachineEvent = { type: 'SUBMIT', answer: cause.answer, bytes: 0, userId: cause.earlier.userId, veto: { code: outcome.code, errors: outcome.errors } };
        [snap, actions] = pure(machine, (scope) => machine.transition(back, event, scope));
        all.push(...actions);
        cause = undefined;
        continue;
      }
      const event = { ...(submitted.event as Extract<MachineEvent, { type: 'SUBMIT' }>), veto: { code: outcome.code, errors: outcome.errors } };
      [snap, actions] = pure(machine, (scope) => machine.transition(submitted.snapshot, event, scope));
      all = [...actions];
      cause = undefined;
      continue;
    }
    cause = undefined;
    [snap, actions] = pure(machine, (scope) => machine.transition(snap, { type: 'ENTER', outcome }, scope));
    all.push(...actions);
    if (!firstEntry.has(node.id)) firstEntry.set(node.id, all.length);
  }
  return [snap, all];
}

/** Whether the run rests at a waiting node whose entry work (WaitingType.enter) has not run for this visit. */
function needsEntry(compiled: CompiledWorkflow, snap: AnyMachineSnapshot): boolean {
  if (snap.status !== 'active') return false;
  const node = compiled.byId.get(snap.value as string);
  const type = node && (nodeType(node.type) as WaitingType);
  return node !== undefined && type?.kind === 'waiting' && type.enter !== undefined && (snap.context as RunContext).entered !== node.id;
}

/**
 * The agent answer that brought the run to its next node: this step's
 * accepted answer, or, when that was the engine's own tool outcome, the
 * agent answer before the tool nodes (`ctx.leadIn`, accepted earlier).
 * None when a failure route lies between them (README delegate-review
 * step 1: "a timeout, error or other route on the way"), and none from a
 * review's answer (a review reached from a review is one no answer led to).
 */
function causeOf(compiled: CompiledWorkflow, submitted: { event: MachineEvent; snapshot: AnyMachineSnapshot } | undefined, actions: Actions, ctx: RunContext): EntryCause | undefined {
  if (!submitted || submitted.event.type !== 'SUBMIT') return undefined;
  const nodeId = submitted.snapshot.value as string;
  // A node with entry work (a review) only judges: its answer did no work a
  // later review could find missing or unchanged, and asking it again cannot
  // change that (the same rule as RunContext.leadIn, decisions.ts leadInOf).
  const answered = compiled.byId.get(nodeId);
  if (answered && (nodeType(answered.type) as WaitingType).enter !== undefined) return undefined;
  const events = actions.flatMap((a) => (a.type === 'journal' ? (a.params as { events: JsonObject[] }).events : []));
  const accepted = events.findIndex((e) => e.type === 'answer.accepted' && e.nodeId === nodeId);
  if (accepted < 0) return undefined;
  // A failure on the way (an expression's `error` route) is a way on that no answer leads through.
  if (events.some((e, i) => i > accepted && e.type === 'route' && e.via === 'error')) return undefined;
  if (submitted.event.userId !== ENGINE_ID) return { nodeId, answer: submitted.event.answer };
  const lead = ctx.leadIn;
  if (lead === undefined) return undefined;
  return { nodeId: lead.nodeId, answer: lead.unchangedReason !== undefined ? { unchanged_reason: lead.unchangedReason } : {}, earlier: { attempt: lead.attempt, userId: lead.userId } };
}

/**
 * The machine snapshot behind the last stored snapshot object of recent
 * runs: a store that hands back the record it was given (memory, or SQLite
 * while no other process wrote the run) skips rebuilding the state.
 */
const restored = new Map<string, { stored: object; snapshot: AnyMachineSnapshot }>();
const RESTORED_RUNS = 1024;

/** Whether `rec`'s snapshot is one this engine wrote, or restored and checked, already: its item need not be checked again. */
export function engineKnows(rec: RunRecord): boolean {
  return restored.get(rec.runId)?.stored === rec.snapshot;
}

function rememberSnapshot(runId: string, stored: object, snapshot: AnyMachineSnapshot): void {
  restored.delete(runId);
  if (restored.size >= RESTORED_RUNS) restored.delete(restored.keys().next().value as string);
  restored.set(runId, { stored, snapshot });
}

function restore(compiled: CompiledWorkflow, rec: RunRecord, storeFile: string | undefined): AnyMachineSnapshot {
  const hit = restored.get(rec.runId);
  if (hit && hit.stored === rec.snapshot && hit.snapshot.machine === compiled.machine) return hit.snapshot;
  const value = rec.snapshot.value;
  if (typeof value !== 'string' || !compiled.byId.has(value)) {
    // The stored workflow is the run's own copy (its hash checked): a state it lacks is a damaged record.
    throw damagedRecord(rec, `rests at node ${JSON.stringify(value)}, which its stored workflow does not have`, storeFile);
  }
  // A waiting run waits at a node that waits (an answer, a tool): never at an end or a condition, where an answer would be dropped.
  if (rec.status === 'waiting' && nodeType(compiled.byId.get(value)!.type)?.kind !== 'waiting') {
    throw damagedRecord(rec, `waits at node ${JSON.stringify(value)}, a ${compiled.byId.get(value)!.type} node, which never waits`, storeFile);
  }
  const context = rec.snapshot.context;
  if (context === null || typeof context !== 'object' || Array.isArray(context)) throw damagedRecord(rec, 'has a snapshot without its context', storeFile);
  const fault = contextFault(context as Record<string, unknown>);
  if (fault) throw damagedRecord(rec, `has a snapshot whose context ${fault}`, storeFile);
  return compiled.machine.resolveState({ value, context: context as unknown as RunContext });
}

function guarded(rec: RunRecord, now: Date, apply: () => [AnyMachineSnapshot, Actions], compiled: CompiledWorkflow): Settled {
  let result: [AnyMachineSnapshot, Actions];
  try {
    result = apply();
  } catch (e) {
    if (e instanceof CountersignError) throw e;
    if (e instanceof Runaway) return runaway(rec, isoTime(now), startedAt(rec, compiled), e);
    const message = (e as Error).message ?? String(e);
    if (!/Infinite loop detected/.test(message)) throw e;
    return runaway(rec, isoTime(now), startedAt(rec, compiled));
  }
  const [snapshot] = result;
  if (snapshot.status === 'error') {
    // xstate records errors thrown while creating the context (e.g. a bad
    // start input) on the snapshot instead of throwing them.
    const error = (snapshot as { error?: unknown }).error;
    if (error instanceof CountersignError) throw error;
    if (error instanceof Error && /Infinite loop detected/.test(error.message)) return runaway(rec, isoTime(now), startedAt(rec, compiled));
    throw error instanceof Error ? error : new Error(String(error));
  }
  return settle(compiled, rec, snapshot, result[1], now);
}

/** The node a step began at: the pending item's, or on a run's first step its start node. */
function startedAt(rec: RunRecord, compiled: CompiledWorkflow): string | undefined {
  return rec.pending?.nodeId ?? compiled.workflow.nodes.find((n) => n.type === 'start')?.id;
}

/**
 * `Date#toISOString` costs half a microsecond, and steps come many to a
 * millisecond: the text of the last millisecond seen is reused.
 */
let lastIso = { ms: NaN, text: '' };
function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastIso.ms) lastIso = { ms, text: date.toISOString() };
  return lastIso.text;
}

function settle(compiled: CompiledWorkflow, rec: RunRecord, snap: AnyMachineSnapshot, actions: Actions, now: Date): Settled {
  const at = isoTime(now);
  const ctx = snap.context as RunContext;
  const value = snap.value as string;
  const rows: LedgerRow[] = [];
  const { events, rejected } = journalOf(actions, rec, at, rows);
  const snapshot = { value, context: ctx as unknown as JsonObject };
  rememberSnapshot(rec.runId, snapshot, snap);
  // Built field by field: object spreads with extra keys were a tenth of a step.
  const base: RunRecord = {
    runId: rec.runId,
    workflow: rec.workflow,
    workflowHash: rec.workflowHash,
    workspace: rec.workspace,
    status: rec.status,
    snapshot,
    seq: rec.seq,
    createdAt: rec.createdAt,
    updatedAt: at,
  };
  if (rec.file !== undefined) base.file = rec.file;

  if (value === FAILED_STATE) {
    // A failure names the node it happened at (the run contract's error.nodeId): without a recorded cause, the node the step began at.
    const error = ctx.failure ?? { code: 'E_INTERNAL', message: 'the run failed without a recorded cause', nodeId: startedAt(rec, compiled)! };
    events.push({ seq: rec.seq, at, type: 'run.failed', nodeId: error.nodeId, code: error.code, message: error.message });
    return { record: { ...base, status: 'failed', error: deepFreeze({ ...error }) }, events, rows };
  }
  const node = compiled.byId.get(value)!;
  const type = nodeType(node.type)!;
  if (type.kind === 'final') {
    const output = (type as FinalType).output(node as never, ctx, compiled.workflow);
    const outcome = (node as { outcome?: string }).outcome;
    if (outcome !== undefined) events.push({ seq: rec.seq, at, type: 'gate.outcome', nodeId: node.id, outcome });
    events.push({ seq: rec.seq, at, type: 'run.completed', nodeId: node.id, endNodeId: node.id });
    const completed: RunRecord = { ...base, status: 'completed', endNodeId: node.id, output: deepFreeze(output) };
    if (outcome !== undefined) completed.outcome = outcome;
    return { record: completed, events, rows };
  }
  // A free rejection (an answer from the wrong identity, costing no attempt)
  // changes nothing for whoever is really answering: the same item stays
  // out under the same seq and deadline, so their answer still counts.
  if (rejected && ctx.stayed && rec.status === 'waiting' && rec.pending && value === rec.pending.nodeId && ctx.attempt + 1 === rec.pending.attempt) {
    // Its time too: the item was issued when it was, so a submit pinned to it (madeAt) still answers it.
    const kept: RunRecord = { ...base, status: 'waiting', seq: rec.seq, pending: rec.pending, updatedAt: rec.updatedAt };
    if (rec.deadline !== undefined) kept.deadline = rec.deadline;
    (type as WaitingType).afterRejected?.(node, ctx, rejected.code);
    return { record: kept, events, rows, rejected };
  }
  // Waiting: issue the next pending item under a new seq.
  const seq = rec.seq + 1;
  const { pending, unset } = (type as WaitingType).pending(node, ctx, compiled.workflow);
  if (pending.kind === 'directive' && loopFacts(compiled.workflow).members.has(node.id)) pending.requiresIdentity = true;
  let deadline: string | undefined;
  const timeoutMs = (node as { timeoutMs?: number }).timeoutMs;
  if (timeoutMs !== undefined) {
    // A retry keeps the visit's deadline (also when re-asked behind tool nodes: the answer's leadIn has it, and
    // when the tools ran past it, nextStep fires it rather than issuing the item late); a new visit starts a new one.
    const lead = rejected ? (rec.snapshot.context as unknown as RunContext | undefined)?.leadIn : undefined;
    const visit = rec.pending?.nodeId === node.id ? rec.deadline : lead?.nodeId === node.id ? lead.deadline : undefined;
    deadline = ctx.attempt > 0 && visit ? visit : new Date(now.getTime() + timeoutMs).toISOString();
    pending.deadline = deadline;
  }
  if (unset.length > 0) events.push({ seq, at, type: 'variable.unset', nodeId: node.id, names: [...new Set(unset)] });
  // A tool node is issued to nobody: the engine journals tool.started when it claims the call.
  if (pending.kind !== 'tool') {
    const issued: JournalEvent = pending.kind === 'directive'
      ? { seq, at, type: 'directive.issued', nodeId: node.id, attempt: pending.attempt }
      : pending.contract === 'issues'
        ? { seq, at, type: 'review.issued', nodeId: node.id, iteration: pending.iteration, attempt: pending.attempt, report: pending.report }
        : { seq, at, type: 'review.issued', nodeId: node.id, contract: 'decision', persona: pending.persona.name, attempt: pending.attempt };
    if (deadline !== undefined) issued.deadline = deadline;
    events.push(issued);
  }
  // Hosts receive these objects (run states): read-only, see freeze.ts.
  deepFreeze(pending);
  const record = base;
  record.status = 'waiting';
  record.seq = seq;
  record.pending = pending;
  if (deadline !== undefined) record.deadline = deadline;
  // A rejected answer keeps the run at its node with the errors set; a
  // re-entry (a retry route back to the same node) clears them.
  const stayed = rejected && ctx.stayed && value === rec.pending?.nodeId ? rejected : undefined;
  if (stayed) (type as WaitingType).afterRejected?.(node, ctx, stayed.code);
  return { record, events, rows, rejected: stayed };
}
