/**
 * What a node type is: its connections, what it declares and reads (for
 * the validator's dataflow check), its own static checks, and its runtime
 * step. One file per node type implements this; `index.ts` registers them.
 * The published JSON Schema (schemas/workflow.schema.json) describes the
 * same fields for editors.
 */
import type { Tool } from '../tools/tool.js';
import type { JsonObject, JsonValue, Workflow, WorkflowNode } from '../format/model.js';
import type { RecentAnswers } from '../format/node-answers.js';
import type { Pending, RunFailure } from './pending.js';

/** How the interpreter treats the node. */
export type NodeKind = 'start' | 'waiting' | 'transient' | 'final';

/** A validator finding before line:col are attached. */
export interface Finding {
  code: string;
  message: string;
  /** JSON pointer of the most specific offending key or value. */
  pointer: string;
  severity: 'error' | 'warning';
  /** When the finding points into a string (a template), the offset of the offending text inside it. */
  offset?: number;
  /** The finding is about the key at `pointer` (e.g. a misspelt keyword), so it is located at the key. */
  key?: boolean;
  /**
   * A schema finding about a value of the right type that breaks a limit (a
   * range, a length, a pattern): the node's shape is still sound, so its
   * own checks run too and report alongside it.
   */
  valueOnly?: boolean;
  /** A schema finding that a field is missing from the object at `pointer`: it says nothing about what the object does hold. */
  missingField?: boolean;
  /**
   * A field a `required` list misses: the list (its schema path), how the
   * object and the field are said. Fields one list misses in one object are
   * said as one finding.
   */
  required?: { at: string; subject: string; hint: string };
  /** What a misspelt name was most likely meant to be (its did-you-mean): a name it stands for is not missing too. */
  meant?: string;
  /** A number, boolean or null found where text was wanted, as the message names it: a YAML file adds how it was written (1.0, ~). */
  scalarSaid?: string;
  /** The pattern that text must then fit (quoting `version: 1.0` gives "1.0", which major.minor.patch still refuses). */
  scalarPattern?: string;
  /** The texts that field takes, when it takes only some (a type name): quoting `5` gives "5", which is none of them. */
  scalarAllowed?: string[];
  /** The required connections an E_MISSING_CONNECTION names. */
  missing?: readonly string[];
}

/** A variable the node reads: a template variable or a condition contextPath. */
export interface VariableRead {
  /** The path as written: `name`, `node-id.field`, `a.b[0]`, `items[idx]`. */
  path: string;
  /** Pointer of the string holding it. */
  pointer: string;
  /** Offset of the path inside that string (templates and expressions). */
  offset?: number;
  /** Read as a list ({{#each}}): the declared type must allow an array. */
  list?: true;
  /** A template read inside {{#each}}: an unknown bare name there may be a field of the current item. */
  inEach?: true;
}

/** Names a node makes readable. */
export interface Declarations {
  /** Fields readable as `node-id.field`. */
  local: string[];
  /** Bare global names the node type itself declares (e.g. delegate-review's `issues_count`). */
  globals: string[];
}

export interface StaticContext {
  workflow: Workflow;
  /** `/nodes/<i>` */
  pointer: string;
  /** Globals declared by the registry, initialData and node types. */
  globals: ReadonlySet<string>;
  /** The tools `tool` nodes may name: the built-ins, plus a library host's own. */
  tools?: ReadonlyMap<string, Pick<Tool, 'argProblems'>>;
  /** Whether the workflow's toolModules are among `tools` (validate alone never loads them). */
  modulesLoaded?: boolean;
}

/** What a delegate-review node keeps between visits (in the run's context, so it survives restarts). */
export interface ReviewState {
  /** Reviews of this node accepted so far in this run. */
  accepted: number;
  /** Identities whose accepted answers produced or fixed the artifacts under review. */
  authors: string[];
  /** Artifact hash at the last accepted review (to spot an unchanged iteration). */
  acceptedHash?: string;
  /** Whether the report now in place was accepted: false after a visit that ended without an accepted review. */
  reportAccepted?: boolean;
  /**
   * The last accepted report's findings and text digest, so `.prev` holds
   * them even if a fix step edits the file. Engine bookkeeping: never
   * rendered into a directive, never in the journal (G14).
   */
  acceptedReport?: { digest: string; issues: string[]; format: 'json' | 'markdown'; path?: string };
  /** Every report path this run has issued this review at (a templated path may name several, and come back to one). */
  slots?: string[];
  /** The run's count of review visits when this node's current visit was issued: the latest visit at a shared report path decides what lies there. */
  visitOrder?: number;
  /** The review currently issued: resolved absolute paths and the artifact hash when it was issued. */
  visit?: { artifacts: string[]; context: string[]; report: string; hash: string; roots?: string[] };
}

/** The live state a runtime step sees. Values are never mutated in place. */
export interface RunContext {
  /** Globals. */
  vars: Record<string, JsonValue>;
  /** Node-local answers, by node id: read them with nodeAnswer (format/node-answers.ts). */
  nodes: Record<string, JsonObject>;
  /** The latest answers, as [nodeId, answer] pairs not yet folded into `nodes`. */
  recent?: RecentAnswers<JsonObject>;
  meta: { executionId: string; workflowId: string; userId: string };
  /** Answers to the current visit of the waiting node, so far. */
  attempt: number;
  /** `pointer: message` lines of the last rejected answer of this visit. */
  errors?: string[];
  /** Set once when the run fails. */
  failure?: RunFailure;
  /** Set when the last answer was rejected and the run stayed at its node; cleared on (re-)entry. */
  stayed?: true;
  /** The waiting node whose entry work (see WaitingType.enter) is done for this visit. */
  entered?: string;
  /** delegate-review state by node id. */
  reviews?: Record<string, ReviewState>;
  /**
   * The last agent answer accepted (at a node without entry work), while
   * the run has moved on from it only through the engine's own tool
   * outcomes and transient nodes: what led into the node the run reaches
   * behind tool nodes (a fix step → a formatter tool → the review). Any
   * other way on (a timeout, a refusal, an error route, a tool node's
   * error route) clears it.
   */
  leadIn?: LeadIn;
  /**
   * Waiting nodes whose entry routed the run on while it has since rested
   * only at tool nodes (`tools`): entering one of them again by the same
   * route, with the same code, would only repeat the tools' side effects
   * (E_RUNAWAY). Set by the step that rests at a tool node; any other rest
   * clears it.
   */
  rerouted?: Rerouted;
}

/** RunContext.rerouted: the entry routes taken since the run last rested at a node someone answers, and the tool nodes run since. */
export interface Rerouted {
  routes: Array<{ nodeId: string; via: string; code: string }>;
  tools: string[];
}

/** The answer that led on, kept across tool nodes (RunContext.leadIn). */
export interface LeadIn {
  nodeId: string;
  /** The attempt it was accepted as: re-asked, the node counts on from it (its maxRetries). */
  attempt: number;
  userId: string;
  /** Its non-blank `unchanged_reason`, the one field a later review's entry reads. */
  unchangedReason?: string;
  /** Its item's deadline: re-asked behind tool nodes, the node keeps its visit's deadline. */
  deadline?: string;
  /**
   * What its step wrote over, set once the run rests at a tool node: a
   * refusal behind the tools takes the answer back (run/answer-undo.ts).
   */
  before?: AnswerUndo;
}

/** The values an answer's step replaced: the globals it changed (`unset`: had none) and its node's earlier answer (absent: none). */
export interface AnswerUndo {
  vars: Record<string, JsonValue>;
  unset?: string[];
  answer?: JsonObject;
  /** The reviews whose artifacts the answer made its identity an author of (it was none before). */
  authored?: string[];
  /** The run's user before the answer made its identity the run's user (absent: it already was). */
  userId?: string;
}

/** What a transient node decided. */
export interface TransientOutcome {
  /** The connection to follow. */
  via: string;
  /** Globals to set. */
  vars?: Record<string, JsonValue>;
  /** Node-local fields (`node-id.field`), replacing the node's earlier ones. */
  local?: JsonObject;
  /** Journal event for this step, without seq/at/nodeId. */
  event: { type: string; [k: string]: JsonValue | undefined };
  /** Declared variables its templates read that were unset (rendered empty): journaled as variable.unset first. */
  unset?: string[];
  /** When set, the step failed: follow `via` if the node has it, else fail the run with this code. */
  error?: { code: string; message: string; fix?: string };
}

/** An answer as submitted: a JSON copy, its serialised size, and who gave it. */
export interface Submission {
  answer: JsonValue;
  bytes: number;
  userId: string;
  /** What the node's `observe` read from outside the run (files) just before this answer was judged. */
  observed?: JsonValue;
  /** Set when entering the next node refused this (otherwise valid) answer, e.g. an unchanged artifact. */
  veto?: { code: string; errors: string[] };
  /** Tools the agent called through the host before answering (journaled as `tool.called`). */
  toolCalls?: Array<{ name?: string; ok: boolean; code?: string; message?: string }>;
  /**
   * One of the engine's tools, called by the agent, failed: the step fails
   * loudly with this (its error route, or the run), whatever the answer.
   */
  toolFailure?: { tool: string; code: string; message: string; fix?: string };
  /** The deadline of the item answered (its visit's): kept in leadIn, so a re-ask behind tool nodes keeps it. */
  deadline?: string;
}

/** What a waiting node made of an answer. */
export type AnswerOutcome =
  | {
      kind: 'accepted';
      local: JsonObject;
      vars: Record<string, JsonValue>;
      /** The connection to follow; `success` by default. */
      via?: string;
      /** Journal events after answer.accepted. */
      events?: JsonObject[];
      /** Further context updates (node-type state). */
      assign?: Partial<RunContext>;
    }
  | {
      kind: 'rejected';
      code: string;
      errors: string[];
      /** Uses up no attempt (a wrong identity, not a wrong answer). */
      free?: boolean;
      /** Not re-asked: journaled, then the node takes `error` or the run fails with `code`. */
      final?: boolean;
      /** The journal event to write instead of answer.rejected (a tool node's tool.failed). */
      journalAs?: JsonObject;
      /** For a final rejection: how to repair it (reaches the run's failure, `error.fix`). */
      fix?: string;
    }
  | { kind: 'declared-error'; message: string };

/** Where a run's files are: review paths resolve against the workspace; hashing skips `skip`. */
export interface RunEnv {
  /** Absolute. */
  workspace: string;
  /** Absolute paths artifact hashing never reads (the store directory). */
  skip: readonly string[];
  /** The file the store keeps runs in, if one: an error about a damaged record names it. */
  storeFile?: string;
}

/**
 * The agent answer that led the run into a node: accepted in the same step
 * just before, or (`earlier`) in an earlier step, with only tool nodes run
 * since (their outcomes are the engine's, no agent's answer).
 */
export interface EntryCause {
  nodeId: string;
  answer: JsonValue;
  /** Set when the answer was accepted in an earlier step: vetoed, its node is asked again after what the tools did. */
  earlier?: { attempt: number; userId: string };
}

/** The result of a waiting node's entry work. */
export type EnterOutcome =
  /** Wait here: apply `assign`, journal `events`, issue the pending item. */
  | { kind: 'ready'; assign: Partial<RunContext>; events: JsonObject[] }
  /** Leave at once by `via`, or fail the run with `code` when the node lacks that connection. */
  | { kind: 'route'; via: string; code: string; message: string; fix?: string; events: JsonObject[]; assign?: Partial<RunContext> }
  /** Refuse the answer in `cause` instead: its node stays waiting and re-asks. */
  | { kind: 'veto'; code: string; errors: string[] };

export interface Connections {
  required: readonly string[];
  optional: readonly string[];
}

export interface NodeType<N extends WorkflowNode = WorkflowNode> {
  type: N['type'];
  kind: NodeKind;
  connections: Connections;
  /** The connections of this node when they depend on its fields (delegate-review's contract). */
  connectionsOf?(node: N): Connections;
  declares(node: N): Declarations;
  reads(node: N, pointer: string): VariableRead[];
  /** Node-specific checks (syntax, schema compilation, condition shape). */
  check(node: N, ctx: StaticContext): Finding[];
  /**
   * Wording checks that read single strings and tolerate any shape: they
   * run even when the schema check found the node malformed, so one pass
   * reports everything.
   */
  lint?(raw: Record<string, unknown>, pointer: string): Finding[];
}

export interface StartType extends NodeType<Extract<WorkflowNode, { type: 'start' }>> {
  kind: 'start';
  /** Globals at the start: registry defaults, then initialData values, then the start input. */
  seed(node: Extract<WorkflowNode, { type: 'start' }>, workflow: Workflow, input: JsonObject): Record<string, JsonValue>;
}

export interface FinalType extends NodeType<Extract<WorkflowNode, { type: 'end' }>> {
  kind: 'final';
  output(node: Extract<WorkflowNode, { type: 'end' }>, ctx: RunContext, workflow: Workflow): JsonObject;
}

export interface TransientType<N extends WorkflowNode = WorkflowNode> extends NodeType<N> {
  kind: 'transient';
  step(node: N, ctx: RunContext, workflow: Workflow): TransientOutcome;
}

export interface WaitingType<N extends WorkflowNode = WorkflowNode> extends NodeType<N> {
  kind: 'waiting';
  /**
   * The engine answers this node itself (a tool) instead of waiting for an
   * agent: a loop through such nodes and transient ones never rests.
   */
  answeredByEngine?: true;
  maxRetries(node: N): number;
  /** The pending item for this visit (rendered now); `unset` lists declared variables that rendered empty. */
  pending(node: N, ctx: RunContext, workflow: Workflow): { pending: Pending; unset: string[] };
  answer(node: N, ctx: RunContext, submission: Submission, workflow: Workflow): AnswerOutcome;
  /**
   * Work done once when a visit begins, outside the machine (it may touch
   * files): checks, moving files aside, taking hashes. Its outcome is fed
   * back to the machine as an ENTER event.
   */
  enter?(node: N, ctx: RunContext, workflow: Workflow, env: RunEnv, cause: EntryCause | undefined): EnterOutcome;
  /** Runs after an answer was rejected and the node stays waiting (e.g. to set a refused file aside). */
  afterRejected?(node: N, ctx: RunContext, code: string): void;
  /** Reads what `answer` needs from outside the run (files), just before an answer is judged. */
  observe?(node: N, ctx: RunContext, workflow: Workflow, env: RunEnv): JsonValue;
  /** Judges the visit when its deadline passes with no accepted answer (given what `observe` read); a refusal takes `error`. */
  onTimeout?(node: N, ctx: RunContext, observed: JsonValue | undefined): { code: string; errors: string[]; fix?: string } | undefined;
  /** The route and code when the last retry was rejected; `maxRetriesExceeded` / E_MAX_RETRIES by default. */
  onMaxRetries?(node: N, last: { code: string }): { via: string; code: string };
}
