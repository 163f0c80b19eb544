/**
 * What a drive takes and gives: run()'s options, its result, the progress
 * events it reports, and the defaults it applies.
 */
import type { JsonObject } from '../format/model.js';
import type { ToolRunner } from '../hosts/tool-mediation.js';
import type { RunFailure, RunState, RunStatus } from './contract.js';
import type { ChainOptions } from '../gate/chain.js';
import type { AgentToolsMaker } from './agent-tools.js';

export const DEFAULT_AGENT_TIMEOUT_MS = 600_000;
/** The identity review answers carry in a driven run unless `reviewerAs` names another. */
export const DEFAULT_REVIEWER_ID = 'reviewer';
/** The identity every other answer carries unless `as` names another. */
export const DEFAULT_AGENT_ID = 'local';
/** setTimeout's ceiling (~24.8 days); a longer wait would overflow into an immediate timeout. */
export const MAX_TIMER_MS = 2_147_483_647;

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

/** What to check of a silent agent, when no adapter label says it better. */
export const GENERIC_SILENCE = 'check that it answers each request it is given';

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
