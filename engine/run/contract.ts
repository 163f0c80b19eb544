/**
 * The run contract: one JSON shape for the CLI (`--json`), the library API
 * and every agent adapter. Changing a field here is a breaking change.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import type { Pending, RunFailure, ToolPending } from '../nodes/pending.js';

export type { DirectivePending, ReviewPending, PersonaSummary, DecisionPending, ToolPending, Pending, RunFailure } from '../nodes/pending.js';
/** Set on the state `submit` returns when the answer just given was rejected. */
export interface Rejection {
  code: string;
  errors: string[];
}

/**
 * Set on the state `submit` returns when the answer just given was rejected
 * and its node had no retries left, so the run took the node's
 * `maxRetriesExceeded` (or `error`) route instead of asking again.
 */
export interface RetriesSpent extends Rejection {
  nodeId: string;
  via: string;
  to: string;
}

interface StateBase {
  runId: string;
  seq: number;
  retriesSpent?: RetriesSpent;
  /** True when the submit named an already answered seq: nothing changed. */
  replayed?: true;
  /**
   * Set on the state `submit` returns when its answer came after the
   * node's deadline: the answer was not applied, the deadline fired first
   * (the `timeout` route, or the run failed with E_TIMEOUT).
   */
  late?: Rejection;
}

export interface WaitingState extends StateBase {
  status: 'waiting';
  pending: Pending;
  rejected?: Rejection;
  /**
   * Why this process did not run the tool node the run waits at: its tool
   * is not registered here (E_TOOL_UNKNOWN), or the workflow's toolModules
   * may not or could not be loaded (E_TOOL_MODULE_BLOCKED, E_TOOL_MODULE,
   * E_TOOL_DEFINITION). The run is unchanged; a process that can run the
   * tool continues it.
   */
  held?: { code: string; message: string; fix?: string };
}

export interface CompletedState extends StateBase {
  status: 'completed';
  endNodeId: string;
  output: JsonObject;
  /** The end node's `outcome` word, when it has one (the review gate's approved/rejected/timeout). */
  outcome?: string;
}

export interface FailedState extends StateBase {
  status: 'failed';
  /** Always names the node the run failed at; a stored failure without its code, message or nodeId is a damaged store (E_STORE). */
  error: RunFailure & { nodeId: string };
}

export type RunState = WaitingState | CompletedState | FailedState;
export type RunStatus = RunState['status'];

/** One journal entry. Event-specific fields sit at the top level. */
export interface JournalEvent {
  seq: number;
  at: string;
  type: string;
  nodeId?: string;
  [field: string]: JsonValue | undefined;
}

/** How a tool an agent may call is described to it (an item's `toolSpecs`). */
export interface ToolSpecView {
  name: string;
  class?: 'read' | 'write' | 'destructive';
  description?: string;
  /** The argument schema, when the tool declares one (host-lent tools may not). */
  inputSchema?: JsonObject;
}

/**
 * The request an adapter receives: any pending item but a tool node's (the
 * engine runs those itself), with runId and seq on top. In a driven run
 * (`engine.run`, `countersign run`) a directive also carries `toolSpecs` —
 * the tools it may call with `$tool` — when there are any.
 */
export type AgentRequest = Exclude<Pending, ToolPending> & { runId: string; seq: number; toolSpecs?: ToolSpecView[] };

export interface RunSummary {
  runId: string;
  workflow: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
}
