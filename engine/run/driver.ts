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
import { DEFAULT_AGENT_ID, DEFAULT_AGENT_TIMEOUT_MS, DEFAULT_REVIEWER_ID, GENERIC_SILENCE, MAX_TIMER_MS, type AdapterLabel, type ProgressEvent, type RunOptions, type RunResult } from './drive-types.js';
import { agentFault, describeFailure, interrupted, resumable, stop, storeFault } from './drive-faults.js';
import { askWithin, clockPast, isWaitTimeout } from './agent-wait.js';

export { DEFAULT_AGENT_ID, DEFAULT_AGENT_TIMEOUT_MS, DEFAULT_REVIEWER_ID } from './drive-types.js';
export type { AdapterLabel, ProgressEvent, RunOptions, RunResult } from './drive-types.js';



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
        // As a jsonl or exec agent's line: an answer is an object (or null); anything else breaks the protocol and spends no
        // attempt. A decision review's reply is judged by its own contract (plain text kept as reviewer_output, a reject).
        if (answer !== null && (typeof answer !== 'object' || Array.isArray(answer)) && !(pending.kind === 'review' && pending.contract === 'decision')) {
          throw new CountersignError('E_AGENT_OUTPUT', `${label.name} answered node "${pending.nodeId}" with ${Array.isArray(answer) ? 'a list' : `a ${typeof answer}`}, not an answer object`, {
            nodeId: pending.nodeId,
            fix: 'return the answer as an object ({"field": "value"}), null for a node that takes no fields, or {"$error": "why"} to declare failure',
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
