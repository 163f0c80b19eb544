/**
 * The engine's library API: the Engine a host holds, what each call takes
 * and gives, and the option keys each call checks (misspelt keys are
 * refused, never ignored). The engine itself is engine.ts.
 */
import type { ToolCallRecord } from '../hosts/tool-mediation.js';
import type { JsonObject } from '../format/model.js';
import type { Store } from '../store/store.js';
import type { Agent } from '../hosts/agent.js';
import type { JournalEvent, RunState, RunSummary, RunStatus } from './contract.js';
import type { WorkflowSource } from './workflow-source.js';
import type { RunOptions, RunResult } from './driver.js';
import type { Tool, ToolSpec } from '../tools/tool.js';
import { keysOf } from './option-keys.js';
import type { Pending } from '../nodes/pending.js';

export interface EngineOptions {
  store: Store;
  /** Injected for tests and replays; defaults to the wall clock. */
  now?: () => Date;
  newRunId?: () => string;
  /** Tools `tool` nodes may run, besides the built-ins (post_review, post_docs_review, pr_status). */
  tools?: ReadonlyArray<Tool | ToolSpec>;
  /** Load a workflow's `toolModules` (runs their code); refused with E_TOOL_MODULE_BLOCKED otherwise. */
  allowToolModules?: boolean;
  /** How often a running tool node renews its claim (60 000 ms); a claim not renewed for 10 minutes is E_TOOL_INTERRUPTED. */
  toolHeartbeatMs?: number;
}

export const ENGINE_OPTION_KEYS = keysOf<EngineOptions>({ store: true, now: true, newRunId: true, tools: true, allowToolModules: true, toolHeartbeatMs: true });

export interface StartOptions {
  input?: JsonObject;
  /** The starting identity (`userId`); `local` by default. */
  as?: string;
  /** The run's working directory; the process cwd by default. */
  workspace?: string;
}

export const START_OPTION_KEYS = keysOf<StartOptions>({ input: true, as: true, workspace: true });

export interface SubmitOptions {
  /** The seq being answered; lower replays, higher is E_SEQ. */
  seq?: number;
  /** The answering identity (`userId`). */
  as?: string;
  /** Tool calls the agent made through the host before this answer: journaled as `tool.called`. */
  toolCalls?: ToolCallRecord[];
  /** Set by a driven run: one of the engine's tools the agent called failed, so the step fails (E_TOOL_FAILED). */
  toolFailure?: { tool: string; code: string; message: string; fix?: string };
  /**
   * When the caller made the call (the CLI: once the answer was read). A
   * submit without `seq` answers the item pending at that moment: an item
   * issued after it (another process answered first) is not the one the
   * caller meant, so the call replays instead of answering it.
   */
  madeAt?: Date;
}

export const SUBMIT_OPTION_KEYS = keysOf<SubmitOptions>({ seq: true, as: true, toolCalls: true, toolFailure: true, madeAt: true });
export const TOOL_FAILURE_KEYS = keysOf<NonNullable<SubmitOptions['toolFailure']>>({ tool: true, code: true, message: true, fix: true });

/** trace()'s options. */
export interface TraceOptions {
  /** An event index (0 the first): only the events from there on. */
  from?: number;
}

export const TRACE_OPTION_KEYS = keysOf<TraceOptions>({ from: true });

/** runs()'s filter. */
export interface RunsFilter {
  status?: RunStatus;
}

export const RUNS_FILTER_KEYS = keysOf<RunsFilter>({ status: true });

/** recordToolCalls()'s options: both are required. */
export interface RecordToolCallsOptions {
  /** The seq of the item the calls were made for. */
  seq: number;
  toolCalls: ToolCallRecord[];
}

export const RECORD_TOOL_CALLS_KEYS = keysOf<RecordToolCallsOptions>({ seq: true, toolCalls: true });

/** run()'s options: the drive's (RunOptions), a new run's (StartOptions), and who answers. */
export type RunCallOptions = RunOptions & StartOptions & { agent: Agent; reviewer?: Agent };

export const RUN_OPTION_KEYS = keysOf<RunCallOptions>({
  agent: true, reviewer: true, as: true, reviewerAs: true, input: true, workspace: true, maxSteps: true, agentTimeoutMs: true,
  onProgress: true, signal: true, tools: true, toolChain: true, labels: true,
});

export interface RunInfo {
  runId: string;
  workflow: string;
  file?: string;
  workspace: string;
  /** The node ids of the workflow copy the run keeps. */
  nodeIds: string[];
  /** Those of nodes an agent or reviewer answers (directives, reviews): what a script's keys may name. */
  answeredNodeIds: string[];
  /** Whether that workflow asks an agent anything (a node that waits for an answer): a run of tool nodes only needs none. */
  asksAgents: boolean;
  /** Whether that workflow names toolModules: a CLI command on the run then needs --allow-tool-modules. */
  toolModules: boolean;
  status: RunStatus;
  seq: number;
  /** The item a waiting run waits for, as stored (read only: a deadline that has passed is not fired, as status() would). */
  pending?: Pending;
  createdAt: string;
  updatedAt: string;
}

export interface Engine {
  start(source: WorkflowSource, options?: StartOptions): Promise<RunState>;
  submit(runId: string, answer: unknown, options?: SubmitOptions): Promise<RunState>;
  status(runId: string): Promise<RunState>;
  /** The run's journal; `from` (an event index, 0 the first) returns only the events from there on, to follow a run as it grows. */
  trace(runId: string, options?: TraceOptions): Promise<{ runId: string; events: JournalEvent[] }>;
  /** What the store records about a run besides its state: its workflow file and working directory. */
  info(runId: string): Promise<RunInfo>;
  /**
   * Journals tool calls an agent made for the item at `seq` when no answer
   * followed (it crashed or timed out): what the tools did stays on record.
   * Nothing is written when the run has moved past that seq.
   */
  recordToolCalls(runId: string, options: RecordToolCallsOptions): Promise<void>;
  runs(filter?: RunsFilter): Promise<RunSummary[]>;
  /**
   * Drives a run with `agent`; review items go to `reviewer`, which a
   * workflow with delegate-review nodes requires (E_NO_REVIEWER) and which
   * must be another identity than the agent (E_SELF_REVIEW).
   */
  run(source: WorkflowSource | { runId: string }, options: RunCallOptions): Promise<RunResult>;
}
