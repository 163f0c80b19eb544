/**
 * Driving a run with an Agent: hand each pending item to the agent, submit
 * its answer, repeat until the run completes, fails or must stop. Adapter
 * faults (crash, bad output, silence) never route the workflow: the run
 * stays waiting and can be resumed.
 */
import { tooManyToolCalls, toolSession, unfinishedCalls, type ToolCallRecord, type ToolRunner, type ToolSession } from '../hosts/tool-mediation.js';
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import type { Agent } from '../hosts/agent.js';
import type { AgentRequest, RunFailure, RunState, RunStatus } from './contract.js';
import type { Engine } from './engine.js';
import type { ChainOptions } from '../gate/chain.js';
import type { AgentToolsMaker } from './agent-tools.js';
import { claimExpiresAt, claimNote } from './tool-steps.js';
import { journalProgress } from './progress-journal.js';
import { guardProgress, type ProgressGuard } from './progress-guard.js';
import { answerHint } from './step-hint.js';
import type { Pending } from '../nodes/pending.js';
import { isBlank } from '../nodes/answer-guard.js';

export const DEFAULT_AGENT_TIMEOUT_MS = 600_000;
/** The identity review answers carry in a driven run unless `reviewerAs` names another. */
export const DEFAULT_REVIEWER_ID = 'reviewer';
/** The identity every other answer carries unless `as` names another. */
export const DEFAULT_AGENT_ID = 'local';
/** setTimeout's ceiling (~24.8 days); a longer wait would overflow into an immediate timeout. */
const MAX_TIMER_MS = 2_147_483_647;

export type ProgressEvent =
  /** The drive began on run `runId` (started by this run(), or resumed): first of all, before any tool node runs. */
  | { type: 'driving'; runId: string }
  | { type: 'pending'; state: Extract<RunState, { status: 'waiting' }> }
  /**
   * The answer to `nodeId` was judged: `verdict` says how, with the errors of
   * a rejection (or the message of a declared `$error`), and `via`/`to` name
   * the route a rejected or declared-failed answer took out of the node.
   * `replayed`: the item had already been answered elsewhere; `late`: its deadline fired first; `discarded`: one of the engine's
   * tools failed while the agent worked, so the answer was not taken (the node's error route, or the run failed). Either way this answer was not used.
   */
  | {
      type: 'answered'; state: RunState; nodeId: string; verdict?: 'accepted' | 'rejected' | 'error' | 'discarded' | 'replayed' | 'late'; errors?: string[]; via?: string; to?: string;
      /** Rejected behind tool nodes that ran past the node's deadline: it fired instead of asking again, and the `timeout` event that follows says where the run went. */
      deadlineFired?: true;
    }
  /** A tool node the engine ran on the way to the next item. */
  | { type: 'tool'; nodeId: string; tool: string; ok: boolean; code?: string; message?: string }
  /** The run passed a condition or expression node: `via` is the connection it took (a condition's `true`/`false`). */
  | { type: 'route'; from: string; to: string; via: string; kind: 'condition' | 'expression' }
  /** A review refused on entry (nothing to review, unchanged with no fix answer before it, …) and the run went on by its `via` route to `to`. */
  | { type: 'refused'; nodeId: string; code: string; message: string; via: string; to: string }
  /** The node's deadline passed before an answer: `to` is where its `timeout` route led (none when the run failed). */
  | { type: 'timeout'; nodeId: string; state: RunState; to?: string }
  | { type: 'stopped'; error: RunFailure };

/** How an adapter is named in driver messages, and what to check when it stays silent. */
export interface AdapterLabel {
  /** e.g. `the reviewer (--reviewer exec:node rev.mjs)` */
  name: string;
  /** e.g. `check that the command prints its answer and exits` */
  silence: string;
}

export interface RunOptions {
  /** The agent's identity (`userId`) on every answer it gives; `local` by default. */
  as?: string;
  /** The reviewer's identity on every review answer; `reviewer` by default. */
  reviewerAs?: string;
  /** Stop (resumable) after this many submitted answers. */
  maxSteps?: number;
  agentTimeoutMs?: number;
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Stops the drive when aborted (Ctrl-C): the agent's wait ends at once and
   * the drive returns the still-waiting run with E_INTERRUPTED, resumable.
   */
  signal?: AbortSignal;
  /**
   * Tools the host lends its agents with `$tool`: a directive is offered
   * them beside the engine's own (the workflow's access map decides), an
   * issues review all of them, a decision review only its persona's.
   */
  tools?: ToolRunner;
  /**
   * The decorators (chain()) the engine's tools run through when an agent
   * calls them with `$tool`. With a `reviewGate`, write and destructive tools
   * are callable and each call is second-signed; without one they are refused
   * (E_GATE_REQUIRED). `tenantBind` defaults to the answering identity.
   */
  toolChain?: ChainOptions;
  /** How to name the agent and the reviewer in messages (the CLI passes its flags); generic names otherwise. */
  labels?: { agent?: AdapterLabel; reviewer?: AdapterLabel };
}

const GENERIC_SILENCE = 'check that it answers each request it is given';

export interface RunResult {
  runId: string;
  status: RunStatus;
  steps: number;
  endNodeId?: string;
  /** The end node's `outcome` word, when it has one (e.g. pr-review.json's not_verified). */
  outcome?: string;
  output?: JsonObject;
  /** The run's failure, or why driving stopped while the run still waits. */
  error?: RunFailure;
  /** True when the run still waits (max-steps or an adapter fault): resume it later. */
  stopped?: boolean;
  /**
   * Set when a close() failed after the drive (the run's result above stands): one
   * line per failed close, saying whose (`the agent's close() failed: <message>`,
   * `the reviewer's …`, ` (no message)` when it said nothing), joined by "; ". Never blank.
   */
  closeError?: string;
  /**
   * Set when the `onProgress` callback threw after the run had ended, or on
   * the `stopped` event of a stop of its own (the result above stands, as
   * stored): E_PROGRESS_FAILED naming the run and the event. A throw while
   * the run still waits is the stop itself (`error`, resumable).
   */
  progressError?: RunFailure;
}

/** How many drives are using each agent right now: it is closed when the last of them ends. */
const drivesUsing = new WeakMap<Agent, number>();

/**
 * Drives the run, then closes its agent and reviewer (`close()`: the jsonl
 * agent's stdin, exec agents' leftover processes, the interactive prompt's
 * terminal) — §6: stdin is closed when the run stops, for a library host as
 * for `countersign run`. An agent another drive is still using (one agent
 * shared by concurrent runs) is closed when that drive ends instead. A
 * closed createAgent() agent starts afresh at its next request, so the same
 * agent may serve a later run (a resume).
 */
export async function driveRun(
  engine: Engine,
  first: RunState,
  opts: RunOptions & { agent: Agent; reviewer?: Agent },
  now: () => Date,
  /** The engine's tools for one directive and its answering identity. */
  agentTools?: AgentToolsMaker,
  /**
   * The journal index progress reports from: 0 for a run this drive started
   * (what it passed before its first item is shown too), the journal's length
   * before a resumed run was read (a deadline that fired then is shown).
   */
  journalFrom = 0,
  /** Whether the workflow has nodes an agent answers: the resume hints name --agent only then. */
  asksAgents = true,
  /** Brings `first` to where the drive starts (a new run's first tool nodes), inside the drive: a store failure there is a stop like any other. */
  ready?: (first: RunState) => Promise<RunState>,
): Promise<RunResult> {
  // Each agent under the role its close() failure is reported by (one object serving both roles is "the agent").
  const roles = new Map<Agent, string>();
  for (const [agent, role] of [[opts.agent, 'the agent'], [opts.reviewer, 'the reviewer']] as const) if (agent !== undefined && !roles.has(agent)) roles.set(agent, role);
  for (const agent of roles.keys()) drivesUsing.set(agent, (drivesUsing.get(agent) ?? 0) + 1);
  let result: RunResult;
  // The host's callback never throws into the drive: its failure stops the drive, said in the result (progress-guard.ts).
  const guard = opts.onProgress ? guardProgress(opts.onProgress, first.runId) : undefined;
  const guarded = guard ? { ...opts, onProgress: guard.emit } : opts;
  try {
    guarded.onProgress?.({ type: 'driving', runId: first.runId });
    result = await drive(engine, first, guarded, now, agentTools, journalFrom, asksAgents, ready, guard);
    if (guard?.failed && !guard.stopped) {
      result = { ...result, progressError: guard.besideResult(result.stopped ? `still waiting, stopped with ${result.error?.code}` : result.status) };
    }
  } catch (e) {
    // The drive's own failure is what the caller must see, not a close that failed after it.
    await releaseAgents(roles);
    throw e;
  }
  // The run ended as `result` says (it is stored so): a close that fails now
  // must not take that away from the caller, who would lose the runId and
  // output. Said beside the result instead — every close that failed.
  const closeFailures = await releaseAgents(roles);
  return closeFailures.length > 0 ? { ...result, closeError: closeFailures.join('; ') } : result;
}

/**
 * Closes each agent no other drive is using any more, every one of them
 * whatever another's close() does (throws at once or rejects), and waits
 * for them all: a jsonl reviewer's process must be gone when run() returns.
 * Returns one line per close that failed, never blank.
 */
/**
 * Closes the agents a run() was handed when it fails before any drive began
 * (a drive closes its own), unless another drive still uses one. What a
 * close says is not told: the run()'s own error is.
 */
export async function closeIdle(agents: ReadonlyArray<unknown>): Promise<void> {
  const idle = new Set<Agent>();
  for (const agent of agents) {
    if (agent !== null && typeof agent === 'object' && typeof (agent as Agent).close === 'function' && !drivesUsing.has(agent as Agent)) idle.add(agent as Agent);
  }
  await Promise.all([...idle].map((agent) => Promise.resolve().then(() => agent.close!()).catch(() => undefined)));
}

async function releaseAgents(roles: Map<Agent, string>): Promise<string[]> {
  const idle = [...roles].filter(([agent]) => {
    const left = (drivesUsing.get(agent) ?? 1) - 1;
    if (left > 0) drivesUsing.set(agent, left);
    else drivesUsing.delete(agent);
    return left <= 0;
  });
  const closing = idle.map(async ([agent, role]) => {
    try {
      if (typeof agent.close === 'function') await agent.close();
      return undefined;
    } catch (e) {
      return `${role}'s close() failed${describeFailure(e)}`;
    }
  });
  return (await Promise.all(closing)).filter((line): line is string => line !== undefined);
}

/** ": <message>" for a failure that says something; " (no message)" for one that says nothing visible ("", a bare throw). */
function describeFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : e === undefined ? '' : String(e);
  return isBlank(message) ? ' (no message)' : `: ${message}`;
}

async function drive(
  engine: Engine,
  first: RunState,
  opts: RunOptions & { agent: Agent; reviewer?: Agent },
  now: () => Date,
  agentTools: AgentToolsMaker | undefined,
  journalFrom: number,
  asksAgents: boolean,
  ready: ((first: RunState) => Promise<RunState>) | undefined,
  guard?: ProgressGuard,
): Promise<RunResult> {
  const agentArg = asksAgents ? ' --agent <adapter>' : '';
  const resumeArgs = () => `${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''}`;
  let state = first;
  let steps = 0;
  const journal = opts.onProgress ? journalProgress(engine, state.runId, journalFrom, opts.onProgress) : undefined;
  try {
    // A callback that threw on `driving` runs no tool node: the run waits where it was started.
    if (ready && !guard?.failed) state = await ready(state);
    await journal?.report(state);
    const maxSteps = opts.maxSteps ?? Infinity;
    const agentTimeoutMs = opts.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
    while (state.status === 'waiting') {
      if (guard?.failed) return stop(state, steps, guard.stopError(state, resumeArgs()), opts);
      if (opts.signal?.aborted) return stop(state, steps, interrupted(state.runId, state.pending, undefined, opts, agentArg, state.seq), opts);
      if (steps >= maxSteps) {
        return stop(state, steps, {
          code: 'E_MAX_STEPS',
          message: `stopped after ${steps} step(s) (--max-steps, library: maxSteps); the run still waits`,
          nodeId: state.pending.nodeId,
          fix: `continue with countersign run --resume ${state.runId}${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''}${asksAgents ? `, or ${answerHint(state.runId, state.seq, state.pending)}` : ''} (library: engine.run({ runId }, { agent }), or submit())`,
        }, opts);
      }
      opts.onProgress?.({ type: 'pending', state });
      // No agent is asked for an item the host could not be shown.
      if (guard?.failed) return stop(state, steps, guard.stopError(state, resumeArgs()), opts);
      const { pending } = state;
      if (pending.kind === 'tool') {
        // This process could not run the tool node: say why (a tool or module it lacks).
        if (state.held) {
          const claimed = claimNote(pending);
          return stop(state, steps, { ...state.held, ...(claimed ? { message: `${state.held.message}; meanwhile ${claimed}` } : {}), nodeId: pending.nodeId }, opts);
        }
        // Otherwise another process holds the claim, or held it and stopped.
        const alive = pending.aliveAt ?? pending.startedAt;
        const expires = claimExpiresAt(pending);
        return stop(state, steps, {
          code: 'E_TOOL_RUNNING',
          message: `tool "${pending.tool}" of node "${pending.nodeId}" was claimed by a process${pending.startedAt ? ` at ${pending.startedAt}` : ''}${alive ? ` that last reported at ${alive}` : ''}: it is still running, or that process was stopped (Ctrl-C) while the tool ran`,
          nodeId: pending.nodeId,
          fix: `if it runs, wait for it; if it was stopped, the node fails with E_TOOL_INTERRUPTED once the claim expires${expires ? ` at ${expires}` : ''} (the call may have taken effect, so it is never re-run). Then continue with countersign run --resume ${state.runId}${agentArg}`,
        }, opts);
      }
      // Review items go to the reviewer, under its own identity (seed 003: never the producer).
      const isReview = pending.kind === 'review';
      const toReviewer = isReview && opts.reviewer !== undefined;
      const agent = toReviewer ? opts.reviewer! : opts.agent;
      // A silent reviewer must not be reported as "the agent": the user would fix the wrong process.
      const label = (toReviewer ? opts.labels?.reviewer : opts.labels?.agent) ?? { name: toReviewer ? 'the reviewer' : 'the agent', silence: GENERIC_SILENCE };
      const as = isReview ? (opts.reviewerAs ?? DEFAULT_REVIEWER_ID) : (opts.as ?? DEFAULT_AGENT_ID);
      const deadlineAt = pending.deadline ? new Date(pending.deadline).getTime() : undefined;
      const untilDeadline = deadlineAt !== undefined ? deadlineAt - now().getTime() : Infinity;
      const waitMs = Math.max(0, Math.min(agentTimeoutMs, untilDeadline, MAX_TIMER_MS));
      // The wait ends at the node's deadline, not at the agent timeout: when it runs out, the node timed out.
      const endsAtDeadline = untilDeadline <= Math.min(agentTimeoutMs, MAX_TIMER_MS);
      let answer: unknown;
      let toolCalls: ToolCallRecord[] = [];
      let toolFailure: { tool: string; code: string; message: string; fix?: string } | undefined;
      let session: ToolSession | undefined;
      try {
        const base: AgentRequest = { ...pending, runId: state.runId, seq: state.seq };
        // Reviews keep seed 003's information boundary: only the host's tools, by the same access map
        // (a decision review: its persona's).
        const engineLends = agentTools !== undefined && (base.kind === 'directive' || base.contract === 'issues');
        const offered = agentTools && agent.callsTools !== false && (base.kind === 'directive' || base.contract === 'issues') ? agentTools(base, as) : undefined;
        const request = offered && offered.specs.length > 0 ? ({ ...base, toolSpecs: offered.specs } as AgentRequest) : base;
        toolCalls = [];
        const calls = toolCalls;
        // An agent that says it calls no tools is lent none: never the host's runner unfiltered (no access map, no gate, no schema).
        session = toolSession(request, offered ? offered.runner : engineLends ? undefined : opts.tools, (call) => calls.push(call), offered?.refusal);
        answer = await askWithin(agent, label, request, waitMs, session, opts.signal);
        session.closed ??= 'it answered';
        // Past the tool-call limit the agent was looping: a fault of the agent (the run stops, waiting), as for a jsonl agent, whatever it answered.
        if (session.overCalled) throw tooManyToolCalls(pending.nodeId);
        // Calls the agent started and did not wait for are on the record too
        // (their outcome, once they end within a second, or E_TOOL_UNFINISHED).
        calls.push(...(await unfinishedCalls(session)));
        // An agent that spent its last turn on a tool call gets no say: fail closed.
        if (session.exhausted) answer = { $error: `E_MAX_TURNS: the agent used its max_turns (${session.maxTurns}) on tool calls; its answer is not taken` };
        // One of the engine's tools failed while the agent worked: the step
        // fails loudly (its error route, or the run), never worked around (ADR-019).
        const broke = offered ? calls.find((c): c is ToolCallRecord & { name: string } => !c.ok && c.code === 'E_TOOL_FAILED' && c.name !== undefined && offered.isEngineTool(c.name)) : undefined;
        if (broke) toolFailure = { tool: broke.name, code: 'E_TOOL_FAILED', message: broke.message ?? 'no message', ...(broke.fix ? { fix: broke.fix } : {}) };
        if (answer === undefined) {
          throw new CountersignError('E_AGENT_OUTPUT', `${label.name} gave no answer for node "${pending.nodeId}" (undefined)`, {
            nodeId: pending.nodeId,
            fix: 'return the answer object, or {"$error": "why"} to declare failure',
          });
        }
      } catch (e) {
        if (session) session.closed ??= `the wait ended: ${isCountersignError(e) ? e.code : 'a failure'}`;
        // Tools that ran before the agent failed stay on record, whatever happens
        // next; so do calls still running (they may yet take effect).
        const unfinished = await unfinishedCalls(session);
        if (toolCalls.length > 0 || unfinished.length > 0) await engine.recordToolCalls(state.runId, { seq: state.seq, toolCalls: [...toolCalls, ...unfinished] });
        if (opts.signal?.aborted) return stop(state, steps, interrupted(state.runId, pending, label, opts, agentArg, state.seq), opts);
        // A timer may fire a millisecond before the clock reaches the deadline it
        // was set for; the node's timeout must not turn into an adapter fault by that.
        if (deadlineAt !== undefined && endsAtDeadline && isWaitTimeout(e)) await clockPast(deadlineAt, now);
        if (deadlineAt !== undefined && now().getTime() >= deadlineAt) {
          // The node's own deadline passed: that is the workflow's timeout, not an adapter fault.
          // The agent was asked all the same: a step, so --max-steps bounds a timeout route that loops.
          steps++;
          state = await engine.status(state.runId);
          await journal?.report(state);
          continue;
        }
        return stop(state, steps, resumable(agentFault(e, pending.nodeId), state.runId, `${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''}`), opts);
      }
      try {
        state = await engine.submit(state.runId, toolFailure ? {} : answer, { seq: state.seq, as, ...(toolCalls.length > 0 ? { toolCalls } : {}), ...(toolFailure ? { toolFailure } : {}) });
      } catch (e) {
        // An answer that is not JSON at all (a function, a BigInt, a cycle) is the agent's fault.
        if (!isCountersignError(e) || e.code !== 'E_INPUT') throw e;
        return stop(state, steps, { code: 'E_AGENT_OUTPUT', message: `the agent's answer for node "${pending.nodeId}" is not JSON: ${e.message}`, nodeId: pending.nodeId, fix: 'answer with a plain JSON object' }, opts);
      }
      if (('replayed' in state && state.replayed) || ('late' in state && state.late)) {
        // Someone else (a `countersign step`, another host) answered this item
        // first, or the node's deadline fired before the answer landed: this
        // answer was not used, but the agent was asked (a step all the same).
        steps++;
        await journal?.report(state, pending.nodeId, 'late' in state && state.late ? 'late' : 'replayed');
        continue;
      }
      steps++;
      // The answer's fate (accepted, rejected, declared failed) and the nodes it led through, in order.
      await journal?.report(state, pending.nodeId);
      if (state.status === 'waiting' && state.rejected?.code === 'E_REVIEWER_IDENTITY') {
        // A review pinned to another identity (the review gate's reviewer) costs no attempt: asking again would loop forever.
        return stop(state, steps, {
          code: 'E_REVIEWER_IDENTITY',
          message: `"${as}" is not the reviewer review "${pending.nodeId}" was issued to: its persona pins the one identity that may answer it`,
          nodeId: pending.nodeId,
          fix: `this run's review belongs to the review gate that started it; ${answerHint(state.runId, state.seq, state.pending)}`,
        }, opts);
      }
      if (state.status === 'waiting' && state.rejected?.code === 'E_SELF_REVIEW') {
        // Costs no attempt, so asking the same identity again would loop forever.
        return stop(state, steps, {
          code: 'E_SELF_REVIEW',
          message: `"${as}" produced or fixed the artifacts of review "${pending.nodeId}" and cannot review them`,
          nodeId: pending.nodeId,
          fix: `resume with a reviewer identity that did not work on the artifacts: countersign run --resume ${state.runId} --agent <adapter> --reviewer <adapter> --reviewer-id <id>`,
        }, opts);
      }
    }
    if (state.status === 'completed') {
      return { runId: state.runId, status: 'completed', steps, endNodeId: state.endNodeId, ...(state.outcome ? { outcome: state.outcome } : {}), output: state.output };
    }
    return { runId: state.runId, status: 'failed', steps, error: state.error };
  } catch (e) {
    // The run exists by now: a store that cannot be written (or read) stops the drive
    // with its id, resumable, never an error that loses it (whose "retry" would start another run).
    if (isCountersignError(e) && e.code === 'E_STORE') return stop(state, steps, storeFault(e, state, `${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''}`), opts);
    throw e;
  }
}

function stop(state: RunState, steps: number, error: RunFailure, opts: RunOptions): RunResult {
  opts.onProgress?.({ type: 'stopped', error });
  return { runId: state.runId, status: state.status, steps, error, stopped: true };
}

/**
 * A store failure mid-drive as a stop: the store's message and what to do
 * about the store, then how to go on with this run — resumed, never the
 * command run again (`resumeArgs`: the adapters a resume needs).
 */
function storeFault(e: CountersignError, state: RunState, resumeArgs: string): RunFailure {
  const where = { ...(e.file ? { file: e.file } : {}) };
  if (state.status !== 'waiting') {
    // The run had ended by then (only reading its progress failed): nothing is left to resume.
    return { code: 'E_STORE', message: `${e.message}; run ${state.runId} had ${state.status === 'completed' ? 'completed' : 'failed'}`, ...where, fix: `${e.fix ?? 'check the store'}; then see the run with countersign status ${state.runId}` };
  }
  // SQLite's busy timeout ran out: the store itself is fine, and is written again once the other process lets go.
  const busy = String((e.cause as { code?: unknown } | undefined)?.code ?? '').startsWith('SQLITE_BUSY');
  const first = busy ? 'another process held the store\'s write lock for over 5 s: once it lets go,' : `${e.fix ?? 'make the store writable again'}; then`;
  return {
    code: 'E_STORE',
    message: `${e.message}; run ${state.runId} still waits at node "${state.pending.nodeId}", where the store last recorded it`,
    nodeId: state.pending.nodeId,
    ...where,
    fix: `${first} continue this run with countersign run --resume ${state.runId}${resumeArgs} (library: engine.run({ runId }, …)); an answer the store did not record is asked for again. Running the workflow file again would start another run and leave this one waiting`,
  };
}

/**
 * An adapter fault's fix, followed by how to go on with this run: the run
 * still waits, and the document a host reads (--json) has no other line
 * that says so. A fix that already names the resume is left as it is.
 */
function resumable(fault: RunFailure, runId: string, resumeArgs: string): RunFailure {
  if (fault.fix?.includes('--resume')) return fault;
  const resume = `continue it with countersign run --resume ${runId}${resumeArgs} (library: engine.run({ runId }, …))`;
  // A fix that says already that the run waits is not told so twice.
  const then = /still wait/.test(fault.fix ?? '') ? resume : `the run still waits at node "${fault.nodeId}": ${resume}`;
  return { ...fault, fix: fault.fix ? `${fault.fix}; then ${then}` : then };
}

/** An agent's failure as a resumable stop: typed when the agent typed it, E_AGENT_CRASHED otherwise. */
function agentFault(e: unknown, nodeId: string): RunFailure {
  // Where the fault is (a script's entry: its file, pointer and line:col) travels with it, as every error's does.
  if (isCountersignError(e)) return { code: e.code, message: e.message, nodeId, ...(e.fix ? { fix: e.fix } : {}), ...(e.file ? { file: e.file } : {}), ...(e.pointer !== undefined ? { pointer: e.pointer } : {}), ...(e.line !== undefined ? { line: e.line, col: e.col ?? 1 } : {}) };
  return {
    code: 'E_AGENT_CRASHED',
    message: `the agent failed on node "${nodeId}"${describeFailure(e)}`,
    nodeId,
    fix: 'fix the agent, then resume the run (engine.run({ runId }) or countersign run --resume); the run is still waiting',
  };
}

/** The E_AGENT_TIMEOUT errors askWithin raised itself (not ones an adapter typed). */
const waitTimeouts = new WeakSet<object>();
const isWaitTimeout = (e: unknown): boolean => typeof e === 'object' && e !== null && waitTimeouts.has(e);

/** Waits (a few milliseconds at most, a bounded number of times) until `now()` reaches `at`. */
async function clockPast(at: number, now: () => Date): Promise<void> {
  for (let tries = 0; tries < 5; tries++) {
    const left = at - now().getTime();
    if (left < 0) return;
    await new Promise((done) => setTimeout(done, left + 1));
  }
}

/** A wait in seconds, as --agent-timeout takes it, to the millisecond; under one, in milliseconds (never "0 s"). */
const spoken = (ms: number) => (ms < 1 ? `${Number(ms.toPrecision(2))} ms` : `${Number((ms / 1000).toFixed(3))} s`);

/** The drive stopped by its host (opts.signal): the run still waits where it was. */
function interrupted(runId: string, pending: Pending, label: AdapterLabel | undefined, opts: { reviewer?: Agent }, agentArg: string, seq: number): RunFailure {
  return {
    code: 'E_INTERRUPTED',
    message: `interrupted${label ? ` while waiting for ${label.name}` : ''} at node "${pending.nodeId}"; the run still waits there`,
    nodeId: pending.nodeId,
    fix: `resume it with countersign run --resume ${runId}${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''} (library: engine.run({ runId }, …))${agentArg ? `, or ${answerHint(runId, seq, pending)}` : ''}`,
  };
}

/** Asks the agent, giving up with E_AGENT_TIMEOUT after `ms`, or at once when `interrupt` is aborted. */
async function askWithin(agent: Agent, label: AdapterLabel, request: Parameters<Agent['answer']>[0], ms: number, tools?: ToolSession, interrupt?: AbortSignal): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onInterrupt: (() => void) | undefined;
  // The adapter is told to stop (its process group is killed) and the race ends without its answer.
  const stopped = new Promise<never>((_, reject) => {
    onInterrupt = () => {
      reject(new CountersignError('E_INTERRUPTED', 'interrupted', { nodeId: request.nodeId }));
      controller.abort();
    };
    interrupt?.addEventListener('abort', onInterrupt, { once: true });
  });
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before aborting: an adapter that rejects on abort must not win the race with a vaguer error.
      const error = new CountersignError('E_AGENT_TIMEOUT', `${label.name} gave no answer for node "${request.nodeId}" within ${spoken(ms)}`, {
        nodeId: request.nodeId,
        fix: `raise --agent-timeout (library: agentTimeoutMs), or ${label.silence}`,
      });
      waitTimeouts.add(error);
      reject(error);
      controller.abort();
    }, ms);
  });
  try {
    return await Promise.race([agent.answer(request, { signal: controller.signal, timeoutMs: ms, ...(tools ? { tools } : {}) }), timeout, stopped]);
  } finally {
    clearTimeout(timer);
    interrupt?.removeEventListener('abort', onInterrupt!);
  }
}
