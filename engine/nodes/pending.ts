/**
 * What a run waits for, and why it failed: the pending items the node
 * types issue and the failure they report. Part of the run contract
 * (run/contract.ts re-exports them); kept here, beside the node types that
 * build them, so nodes never reach up into run/.
 */
import type { JsonObject } from '../format/model.js';

/** A directive waiting for an agent's structured answer. */
export interface DirectivePending {
  kind: 'directive';
  nodeId: string;
  /** The rendered directive, with the workflow's systemReminder appended. */
  directive: string;
  completionCondition: string;
  /** The effective schema the answer must satisfy. */
  inputSchema: JsonObject;
  /** Answers to this visit of the node so far + 1 (starts at 1). */
  attempt: number;
  maxRetries: number;
  /** The lines for the previous rejected answer (`pointer: message` from the schema, or what a review it led to refused), then the node's retryMessage. */
  errors?: string[];
  /** ISO-8601 absolute deadline when the node has timeoutMs. */
  deadline?: string;
  /** The role label from the node's `agent` field. */
  agent?: string;
  /**
   * The node produces or fixes what a delegate-review reviews: the answer
   * must name who gives it (`--as`), so the review can refuse that identity.
   */
  requiresIdentity?: true;
}

/**
 * An independent review waiting for a reviewer (delegate-review). It holds
 * only what the reviewer needs (seed 003's information boundary): the
 * fixed prompt, absolute paths, the criteria. No producer narrative and
 * no systemReminder. The reviewer writes every finding to `report` and
 * answers `{issues_count}`.
 */
export interface ReviewPending {
  kind: 'review';
  /** The answer contract: `{issues_count}` matching the report's flat `issues` list. */
  contract: 'issues';
  nodeId: string;
  /** The reviewing role label. */
  reviewer: string;
  /** The fixed review prompt (role line, READ/CHECK/VERIFY/RETURN, paths, criteria, contract). */
  prompt: string;
  /** Absolute paths under review. */
  artifacts: string[];
  criteria: string[];
  /** Absolute paths the reviewer may study. */
  context: string[];
  /** Absolute path of the one report file the reviewer overwrites. */
  report: string;
  /** Which review of this node this is (accepted reviews so far + 1). */
  iteration: number;
  /** Answers to this review so far + 1 (starts at 1). */
  attempt: number;
  maxRetries: number;
  /** The schema the answer must satisfy: `{issues_count: integer ≥ 0}`. */
  inputSchema: JsonObject;
  errors?: string[];
  deadline?: string;
}

/** What a decision review tells the host about the persona to run. */
export interface PersonaSummary {
  name: string;
  /** The model the persona declares; hosts pass it to their driver as is (no fallback). */
  model: string;
  /** Messages the reviewer may send: each `$tool` line and the final reply count as one. */
  max_turns: number;
  /** The effective tools: the only ones the engine runs for this reviewer. */
  tools: string[];
}

/**
 * A reviewer persona judging one proposal (delegate-review with
 * `contract: "decision"`, e.g. the review gate). The reviewer answers
 * `{"reply": "<final text>"}`; the engine parses the first line into
 * approve or reject. The reply is taken as it is: there are no retries.
 */
export interface DecisionPending {
  kind: 'review';
  contract: 'decision';
  nodeId: string;
  persona: PersonaSummary;
  /** The persona body, its critical_reminder and the proposal (with its blast radius). */
  prompt: string;
  /** The proposal under review. */
  proposal: JsonObject;
  /** What each of `persona.tools` takes, so a model-backed reviewer can describe them to its model. */
  toolSpecs?: Array<{ name: string; description?: string; inputSchema: JsonObject }>;
  attempt: number;
  /** Always 0: the reply is taken as it is. */
  maxRetries: 0;
  /** Never set: with no retries there is no earlier rejected answer. */
  errors?: undefined;
  /** The schema of the answer: `{reply: string}`. */
  inputSchema: JsonObject;
  /** Only the identity the host pinned (persona.answerer_sha256, the review gate's reviewer) may answer. */
  answererPinned?: true;
  deadline?: string;
}

/**
 * A `tool` node the engine runs itself (ADR-019): hosts never answer it.
 * A run rests here only while the tool runs, or when a process stopped
 * mid-call (`startedAt` set): then the outcome is unknown and the next
 * engine call fails the node loudly with E_TOOL_INTERRUPTED.
 */
export interface ToolPending {
  kind: 'tool';
  nodeId: string;
  tool: string;
  /** The rendered arguments, checked against the tool's inputSchema before it starts. */
  args: JsonObject;
  agent?: string;
  attempt: number;
  maxRetries: 0;
  /** When the engine claimed the call; set means it may have taken effect. */
  startedAt?: string;
  /** When the running call's process last renewed its claim (every minute). */
  aliveAt?: string;
  /** The run's user when the node was reached: the tool's `ctx.userId`. */
  userId?: string;
  /** Templates in `args` that read unset variables: the call is refused (E_TOOL_ARGS), never run with a gap. */
  unset?: string[];
  errors?: undefined;
  deadline?: undefined;
}

export type Pending = DirectivePending | ReviewPending | DecisionPending | ToolPending;

export interface RunFailure {
  code: string;
  message: string;
  nodeId?: string;
  /** How to fix it, when known (adapter faults carry one). */
  fix?: string;
  /** Where the fault is, when it is in a file (a scripted agent's entry): the file, the JSON pointer, line:col. */
  file?: string;
  pointer?: string;
  line?: number;
  col?: number;
}

