/**
 * What `run` says when it is ended before its drive could stop: a second
 * signal, or the first one's few seconds spent while a tool node still ran
 * (a tool's work cannot be cut short) or an agent would not stop. The
 * process exits at once after this, so it is said here — where the run
 * stands and how to go on with it, the --json document included — never
 * an exit with nothing printed.
 */
import type { Engine } from '../../run/engine.js';
import { printJson, type Io } from '../io.js';
import { storeArg, withToolModules } from '../render.js';
import { claimExpiresAt } from '../../run/tool-steps.js';
import { ENGINE_ID } from '../../nodes/tool.js';

export interface ForcedStop {
  /** The run the drive was on, once known (its first progress event names it). */
  runId?: string;
  /** The journal's length when the drive began: what it did since is counted from the journal. */
  journalFrom?: Promise<number>;
  json: boolean;
  store?: string;
}

/** Journal events that are an item an agent or reviewer was asked and answered (or whose deadline passed): the drive's steps. */
const STEP_EVENTS: ReadonlySet<string> = new Set(['answer.accepted', 'answer.rejected', 'answer.error', 'answer.discarded', 'timeout']);

export async function reportForcedStop(io: Io, engine: Engine, stop: ForcedStop): Promise<void> {
  const info = stop.runId === undefined ? undefined : await engine.info(stop.runId).catch(() => undefined);
  // Counted from the journal: the answer being submitted when the process was ended (its tool nodes still running) is on record there.
  const from = (await stop.journalFrom) ?? 0;
  // The engine records each tool node it ran as an answer of its own (countersign-engine): no agent was asked.
  const steps = stop.runId === undefined ? 0 : await engine.trace(stop.runId).then((t) => t.events.slice(from).filter((e) => STEP_EVENTS.has(e.type) && e.userId !== ENGINE_ID).length, () => 0);
  const pending = info?.status === 'waiting' ? info.pending : undefined;
  const nodeId = pending?.nodeId;
  const resume = `countersign run --resume ${stop.runId}${storeArg(stop.store)}${info?.asksAgents === false ? '' : ' --agent <adapter>'}`;
  // A tool cut short may have taken effect: it is never run again; its node fails once the claim this process held expires.
  const expires = pending?.kind === 'tool' && pending.startedAt ? claimExpiresAt(pending) : undefined;
  const next = expires
    ? `tool "${pending!.kind === 'tool' ? pending!.tool : ''}" was cut short and may have taken effect, so it is never run again: once its claim expires at ${expires} node "${nodeId}" fails with E_TOOL_INTERRUPTED (taking its error route, if it has one); then continue with ${resume}`
    : `resume with ${resume}`;
  const ended = 'the process was ended before the drive could stop (a second signal, or a tool node or an agent still at work after 5 s)';
  const error: { code: string; message: string; nodeId?: string; fix: string } = stop.runId === undefined
    ? { code: 'E_INTERRUPTED', message: `interrupted: ${ended}, before a run was stored`, fix: 'run the command again' }
    : {
        code: 'E_INTERRUPTED',
        message: `interrupted: ${ended}; run ${stop.runId} ${info?.status === 'completed' ? 'had completed' : info?.status === 'failed' ? 'had failed' : `still waits${nodeId ? ` at node "${nodeId}"` : ''}`}`,
        ...(nodeId ? { nodeId } : {}),
        fix: info?.status !== undefined && info.status !== 'waiting'
          ? `see it with countersign status ${stop.runId}${storeArg(stop.store)}`
          : (info?.toolModules ? withToolModules : (t: string) => t)(next),
      };
  if (stop.json) printJson(io, { ...(stop.runId === undefined ? {} : { runId: stop.runId }), status: info?.status ?? 'waiting', steps, error, stopped: true });
  io.stderr.write(`countersign: ${error.code}: ${error.message}\n  fix: ${error.fix}\n`);
}
