/**
 * How a drive stops without routing the workflow: an adapter fault, a store
 * fault or the host's interrupt, each a RunFailure whose fix says how to go
 * on with the run, which still waits (resumed, never started again).
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { Agent } from '../hosts/agent.js';
import type { RunFailure, RunState } from './contract.js';
import type { Pending } from '../nodes/pending.js';
import { answerHint } from './step-hint.js';
import { isBlank } from '../nodes/answer-guard.js';
import type { AdapterLabel, RunOptions, RunResult } from './drive-types.js';

/** ": <message>" for a failure that says something; " (no message)" for one that says nothing visible ("", a bare throw). */
export function describeFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : e === undefined ? '' : String(e);
  return isBlank(message) ? ' (no message)' : `: ${message}`;
}

export function stop(state: RunState, steps: number, error: RunFailure, opts: RunOptions): RunResult {
  opts.onProgress?.({ type: 'stopped', error });
  return { runId: state.runId, status: state.status, steps, error, stopped: true };
}

/**
 * A store failure mid-drive as a stop: the store's message and what to do
 * about the store, then how to go on with this run — resumed, never the
 * command run again (`resumeArgs`: the adapters a resume needs).
 */
export function storeFault(e: CountersignError, state: RunState, resumeArgs: string): RunFailure {
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
export function resumable(fault: RunFailure, runId: string, resumeArgs: string): RunFailure {
  if (fault.fix?.includes('--resume')) return fault;
  const resume = `continue it with countersign run --resume ${runId}${resumeArgs} (library: engine.run({ runId }, …))`;
  // A fix that says already that the run waits is not told so twice.
  const then = /still wait/.test(fault.fix ?? '') ? resume : `the run still waits at node "${fault.nodeId}": ${resume}`;
  return { ...fault, fix: fault.fix ? `${fault.fix}; then ${then}` : then };
}

/** An agent's failure as a resumable stop: typed when the agent typed it, E_AGENT_CRASHED otherwise. */
export function agentFault(e: unknown, nodeId: string): RunFailure {
  // Where the fault is (a script's entry: its file, pointer and line:col) travels with it, as every error's does.
  if (isCountersignError(e)) return { code: e.code, message: e.message, nodeId, ...(e.fix ? { fix: e.fix } : {}), ...(e.file ? { file: e.file } : {}), ...(e.pointer !== undefined ? { pointer: e.pointer } : {}), ...(e.line !== undefined ? { line: e.line, col: e.col ?? 1 } : {}) };
  return {
    code: 'E_AGENT_CRASHED',
    message: `the agent failed on node "${nodeId}"${describeFailure(e)}`,
    nodeId,
    fix: 'fix the agent, then resume the run (engine.run({ runId }) or countersign run --resume); the run is still waiting',
  };
}

/** The drive stopped by its host (opts.signal): the run still waits where it was. */
export function interrupted(runId: string, pending: Pending, label: AdapterLabel | undefined, opts: { reviewer?: Agent }, agentArg: string, seq: number): RunFailure {
  return {
    code: 'E_INTERRUPTED',
    message: `interrupted${label ? ` while waiting for ${label.name}` : ''} at node "${pending.nodeId}"; the run still waits there`,
    nodeId: pending.nodeId,
    fix: `resume it with countersign run --resume ${runId}${agentArg}${opts.reviewer ? ' --reviewer <adapter>' : ''} (library: engine.run({ runId }, …))${agentArg ? `, or ${answerHint(runId, seq, pending)}` : ''}`,
  };
}
