/**
 * The workflow model: what a JSON or YAML workflow file means once loaded.
 * Moira-format files are this model unchanged; fields beyond Moira's
 * (`timeoutMs`, `agent`, `jsonLogic`) are marked.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export interface WorkflowMetadata {
  name: string;
  version: string;
  description: string;
  author?: string;
  tags?: string[];
}

/** A registry entry is a JSON-Schema property; `type` and `description` are required. */
export interface VariableDecl extends JsonObject {
  type: JsonValue;
  description: string;
}

export interface Workflow {
  $schema?: string;
  id?: string;
  slug?: string;
  owner?: string;
  visibility?: string;
  metadata: WorkflowMetadata;
  variableRegistry?: Record<string, VariableDecl>;
  systemReminder?: string;
  /** Role → the tools (whole-name globs) it may use; a tool some role claims is denied to every other role. */
  access?: Record<string, string[]>;
  /** Modules (relative to the workflow file) that export extra tools; loaded only when the host allows it. */
  toolModules?: string[];
  /** Declared variables the start input must give (E_INPUT otherwise). */
  requiredInputs?: string[];
  nodes: WorkflowNode[];
}

export interface NodeBase {
  id: string;
  type: string;
  connections?: Record<string, string>;
}

export interface StartNode extends NodeBase {
  type: 'start';
  initialData?: { variables?: Record<string, { description?: string; value: JsonValue }> };
}

export interface EndNode extends NodeBase {
  type: 'end';
  finalOutput?: string[];
  /** A word hosts branch on (e.g. approved); journaled as `gate.outcome` and returned with the run. */
  outcome?: string;
}

/** An inputSchema as written: JSON Schema plus Moira's `globalInputs`. */
export interface InputSchema extends JsonObject {
}

export interface AgentDirectiveNode extends NodeBase {
  type: 'agent-directive';
  directive: string;
  completionCondition: string;
  inputSchema?: InputSchema;
  maxRetries?: number;
  retryMessage?: string;
  /** countersign extension: a relative deadline for each visit. */
  timeoutMs?: number;
  /** countersign extension: a role label (e.g. "reviewer"). */
  agent?: string;
}

export type Operand = JsonValue | { contextPath: string };

export type StructuredCondition =
  | { operator: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'; left: Operand; right: Operand }
  | { operator: 'exists'; left: Operand }
  | { operator: 'and' | 'or'; conditions: StructuredCondition[] }
  | { operator: 'not'; condition: StructuredCondition };

export type Condition = StructuredCondition | { jsonLogic: JsonValue };

export interface ConditionNode extends NodeBase {
  type: 'condition';
  condition: Condition;
}

export interface ExpressionNode extends NodeBase {
  type: 'expression';
  expressions: string[];
}

/**
 * countersign extension: an independent review through one report file
 * (seed 003's review→fix contract, enforced by the engine).
 */
export interface DelegateReviewNode extends NodeBase {
  type: 'delegate-review';
  /** The issues contract (the default): a report file and `{issues_count}`. */
  contract?: 'issues';
  /** The reviewing role label; "reviewer" by default. */
  reviewer?: string;
  /** Paths under review (files or directories), templated. */
  artifacts: string[];
  /** Success criteria, literal strings. */
  criteria: string[];
  /** Paths the reviewer may study, templated. */
  context?: string[];
  /** The one report file, templated; `.countersign/reviews/<runId>/<nodeId>.json` by default. */
  report?: string;
  /** The most reviews this node accepts per run; 5 by default. */
  maxIterations?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

/**
 * The decision contract: a reviewer persona judges one proposal and replies
 * in prose; the engine parses the reply's first line into approve/reject.
 */
export interface DecisionReviewNode extends NodeBase {
  type: 'delegate-review';
  contract: 'decision';
  /** The persona object ({name, model, max_turns, tools, body, critical_reminder}) in the context. */
  persona: { contextPath: string };
  /** The proposal object in the context. */
  proposal: { contextPath: string };
  timeoutMs?: number;
}

/** Runs one registered tool with schema-checked arguments; a failure is loud (ADR-019). */
export interface ToolNode extends NodeBase {
  type: 'tool';
  tool: string;
  /** Argument → a literal JSON value or a template; a string that is one whole `{{path}}` keeps the value's JSON type. */
  args?: Record<string, JsonValue>;
  /** The role the call is made as; the workflow's `access` map decides what it may use. */
  agent?: string;
}

/** Appends one row, built from its fields, to a named ledger table. */
export interface RecordNode extends NodeBase {
  type: 'record';
  table: string;
  /** Column → a literal JSON value, a template string, or `{contextPath}` (copied with its JSON type). */
  fields: Record<string, Operand>;
  /** Templated lookup key stored with the row (e.g. a dedupe hash). */
  key?: string;
}

export type WorkflowNode =
  | StartNode
  | EndNode
  | AgentDirectiveNode
  | ConditionNode
  | ExpressionNode
  | DelegateReviewNode
  | DecisionReviewNode
  | RecordNode
  | ToolNode;

/** Names every run can read without declaring them. */
export const BUILTIN_VARIABLES = ['executionId', 'workflowId', 'userId'] as const;

/** Node ids are path segments, so `.` and friends are excluded. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]+$/;
