/**
 * Every stable error code, declared as data. A code is part of the public
 * contract: tests, hosts and CI scripts match on it. Add codes; never rename.
 */
export const CODES = Object.freeze({
  // Loading
  E_FILE_NOT_FOUND: 'the workflow (or input/answer, or pr-status --comments) file, or the workspace of a waiting run being resumed, does not exist or cannot be read',
  E_PARSE: 'the file is not well-formed JSON or YAML',
  // Schema of the workflow document
  E_SCHEMA: 'the document violates schemas/workflow.schema.json (wrong type, missing field, bad value)',
  E_UNKNOWN_KEY: 'a key that the format does not define',
  E_UNKNOWN_NODE_TYPE: 'a node type countersign does not know',
  E_NODE_ID: 'a node id outside [A-Za-z0-9_-]+',
  // Structure and graph
  E_DUPLICATE_ID: 'two nodes share one id',
  E_START_COUNT: 'a workflow needs exactly one start node',
  E_NO_END: 'a workflow needs at least one end node',
  E_DANGLING_CONNECTION: 'a connection names a node that does not exist',
  E_MISSING_CONNECTION: 'a connection the node type requires is absent',
  E_UNKNOWN_CONNECTION: 'a connection name the node type does not define',
  E_UNREACHABLE: '(warning) no path from start reaches this node',
  E_TIMEOUT_ROUTE_UNUSED: '(warning) a "timeout" connection on a node without timeoutMs: no deadline is set, so the route is never taken',
  E_TRANSIENT_CYCLE: 'a cycle with no node that waits for an agent (only start, condition, expression and tool nodes) would spin forever',
  E_TOO_MANY_NODES: 'more nodes than the documented limit',
  // Schemas, syntax, dataflow
  E_INPUT_SCHEMA: 'an effective inputSchema does not compile under ajv',
  E_VARIABLE_SCHEMA: 'a variableRegistry entry is not a valid JSON Schema property',
  E_VARIABLE_VALUE: 'a registry default or a start node\'s initialData value does not fit its variable\'s schema (a start input with it would be refused)',
  E_GLOBAL_INPUT_UNDECLARED: 'globalInputs names a variable missing from variableRegistry',
  E_REQUIRED_INPUT_DEFAULT: '(warning) a required input has a default or start value that is never used',
  E_ACCESS_ROLE_UNUSED: '(warning) an access role that no node takes (no agent or reviewer names it): most likely misspelt, with a did-you-mean',
  E_REQUIRED_INPUT_UNDECLARED: 'requiredInputs names a variable that is neither in variableRegistry nor in the start node\'s initialData',
  E_EXPRESSION_SYNTAX: 'an expression does not parse',
  E_EXPRESSION_TARGET: 'an expression assigns to something that is not a declared global (registry or initialData)',
  E_TEMPLATE_SYNTAX: 'a template block is malformed (unclosed or mismatched {{#…}}), or a {{variable}} path in a template is (a.., a[)',
  E_EACH_ITEM_FIELD: '(warning) a bare name inside {{#each}} that no variable has: read from the current item\'s field, as Moira does, which declarations cannot check (write {{this.field}} to say so)',
  E_EACH_NOT_LIST: '{{#each x}} over a variable the workflow declares with a type that is never a list (a registry entry or node-id.field of type object, string, …): the loop body would never run (it renders nothing, or its {{else}} branch)',
  E_CONDITION: 'a condition has the wrong shape, or a contextPath (or JSON Logic var) is not a valid path; at run time, a condition that cannot be evaluated on the run\'s values',
  E_CONDITION_OPERAND_TYPE: '(warning) a condition operand that, by its literal value or the type the workflow declares for it, can never satisfy its operator (contains on a number, gt on a word, eq of an integer with a text): the result is fixed',
  E_UNDECLARED_VARIABLE: 'a template variable or contextPath resolves to nothing',
  E_FINAL_OUTPUT_UNRESOLVED: '(warning) a finalOutput name resolves to nothing and is left out of output',
  E_FINAL_OUTPUT_PATH: 'a finalOutput entry is not a variable path (name, node-id.field, a[0]): it can never name a value',
  E_VARIABLE_NEVER_WRITTEN: '(warning) a registry variable with no default that nothing writes, or whose only writes read it first (n = n + 1)',
  // Runs
  E_WORKFLOW_INVALID: 'the workflow has validation errors and cannot start',
  E_RUN_NOT_FOUND: 'no run with that id in the store',
  E_RUN_NOT_WAITING: 'the run is completed or failed and takes no more answers',
  E_SEQ: 'the answer (or recordToolCalls) names a seq the run has not issued',
  E_ANSWER_INVALID: 'the answer does not satisfy the node inputSchema',
  E_ANSWER_TOO_LARGE: 'the answer exceeds the documented size limit',
  E_ANSWER_TOO_DEEP: 'the answer nests deeper than the documented limit',
  E_RESERVED_NAME: 'a node id, variable name, record field or answer field (inputSchema property) that cannot hold a value: __proto__, or a built-in name (executionId, workflowId, userId)',
  E_VARIABLE_NAME: 'a variableRegistry or initialData name outside [A-Za-z0-9_-]+, or digits alone (a dot splits a path, digits alone read as a number): nothing could read it',
  E_ANSWER_RESERVED_KEY: 'the answer uses a $-key the protocol does not define',
  E_MAX_RETRIES: 'the node received maxRetries+1 invalid answers and has no maxRetriesExceeded route; its fix follows the last rejection\'s code (the inputSchema, the reserved $ keys, the report\'s count, the unchanged artifacts)',
  E_AGENT_ERROR: 'the agent declared failure with {"$error": …} and the node has no error route',
  E_EXPRESSION: 'an expression failed at run time and the node has no error route',
  E_TIMEOUT: 'the node deadline passed and it has no timeout route',
  E_RUNAWAY: 'a step never came to rest: transient nodes transitioned more than the runaway limit, a review\'s entry kept routing (by error or unchanged) back to it 1000 times, or once more after coming back to it through tool nodes with no answer on the way (the tools are not run again), or one call ran 1000 tool nodes; the run fails, the error names the node and the last entry\'s cause (its fix, for a review\'s entry, the connection to route elsewhere), and the journal keeps the step\'s answer and routes',
  E_STORE: 'the store could not read or write a run, or a row of it is damaged (a record, a missing or altered workflow copy, a summary that disagrees with its record): named with the run and countersign.db',
  // The ledger (audit trail) and review proposals
  E_LEDGER_TABLE: 'a ledger table name outside [a-z][a-z0-9_]*',
  E_LEDGER_ROW: 'a ledger row is malformed (no id, a non-canonical time, a body JSON cannot keep, a field of the review gate\'s tables that lacks the table\'s type, a review_gate_runs, user_confirmations or tool_executions row from a run) or reuses an id; nothing of its batch was written. From a record node: validate names the field, and at run time the run fails and no row is written',
  E_LEDGER_QUERY: 'a ledger query\'s since is not an ISO-8601 time (or names a date or time that does not exist, such as 2026-02-30), its limit is not a positive whole number, its key is not a string, or an audit --status is not approved, rejected, timeout or skipped',
  E_PROPOSAL: 'a review proposal does not satisfy schemas/proposal.schema.json (missing or unknown key, wrong type, blast_radius outside its enum), or its action is not the tool being gated, or an agent\'s $tool call of a gated tool gives no reason',
  E_DEDUPE_CONFIG: 'the review dedupe was given a window or LRU size that is not a positive whole number, or a window longer than ten years',
  // Independent review (delegate-review)
  E_PATH_OUTSIDE_WORKSPACE: 'a review path (artifact, context or report) resolves outside the run\'s workspace',
  E_PATH_EMPTY: 'a review path rendered empty (an unset variable in its template)',
  E_PATH_INVALID: 'a review path holds a line break or another control character',
  E_REPORT_PATH: 'the report path is unusable: it is an artifact, a context path, a file of the run store, a directory, or its directory cannot be created',
  E_MAX_ITERATIONS: 'a review node that has accepted maxIterations reviews in this run was entered again; its fix: raise maxIterations, or route the work elsewhere after the last review, and start a new run',
  E_CRITERION_TEMPLATE: '(warning) a review criterion holds {{…}}: criteria are literal and never rendered (write \\{{ for literal braces)',
  E_REPORT_MISSING: 'the review answer came back but the report file does not exist',
  E_REPORT_FORMAT: 'the report file does not parse or is not a flat list of strings (tiers, objects, nesting)',
  E_REPORT_MISMATCH: 'the answer\'s issues_count differs from the number of issues in the report file',
  E_SELF_REVIEW: 'the reviewer identity (or role) also produced or fixed the artifacts under review',
  E_IDENTITY_RESERVED: 'an identity given to start, answer or run (--as, --reviewer-id, the MCP "as" argument) is the engine\'s own, countersign-engine, under which it records tool outcomes',
  E_IDENTITY_REQUIRED: 'an answer in a review loop was given without an identity (--as, or the MCP "as" argument; blank counts as none)',
  E_NO_REVIEWER: 'run on a workflow with review-loop nodes (delegate-review, issues contract) was given no --reviewer',
  E_REVIEWER_MODIFIED: 'the artifacts changed while the review was pending: the reviewer must diagnose, never fix',
  E_UNCHANGED_ARTIFACT: 'a fix came back to the review (directly, or through tool nodes) with the artifacts unchanged and no unchanged_reason: the fix node is asked again',
  E_ARTIFACT_MISSING: 'a review was due, but an artifact or context path does not exist: the answer that led there is rejected (else — no answer led there, or a tool node ran on the way — the node takes error, or the run fails)',
  E_BIASED_REVIEW: 'review criteria or reviewer wording presupposes a positive result',
  E_SEVERITY_TIER: 'review criteria or reviewer wording introduces severity tiers',
  E_REVIEW_LOOP: 'a review node\'s fix step does not lead back to the same review node',
  E_REVIEW_UNROUTED: 'no condition on the review\'s issues_count is reachable from the review node',
  E_REVIEW_REENTRY: 'a review\'s exhausted route leads back to it (never issued again), or its unchanged route returns to it with no step answered in between',
  E_UNCHANGED_REASON_UNDECLARED: '(warning) a fix node in a review loop does not declare unchanged_reason in its inputSchema (behind a tool node: the step whose answer leads to the tool)',
  // Adapters (infrastructure faults: the run stays waiting)
  E_AGENT_CRASHED: 'the agent process exited or failed to start (a working directory removed since the agent was created is named), or the interactive prompt\'s input ended before an answer was complete',
  E_AGENT_OUTPUT: 'the agent wrote something that is not one JSON object, or one JSON cannot keep as written (a key repeated in one object, an integer past ±2^53)',
  E_AGENT_TIMEOUT: "the agent was silent past --agent-timeout (resumable, exit 3); a node deadline reached first is the node's own timeout instead: its timeout route, or E_TIMEOUT",
  E_AGENT_SCRIPT_EXHAUSTED: 'the scripted agent has no answer left for this node',
  E_MAX_STEPS: 'run --max-steps was reached while the run still waits (resumable)',
  E_PROGRESS_FAILED: "library run()'s onProgress callback threw: the drive stopped and run() returned the run as stored, still waiting (resumable) with this as its error, or ended with this in progressError",
  E_INTERRUPTED: "a command was ended by Ctrl-C, SIGTERM or SIGHUP (library: run()'s signal), said with where its run stands; a driven run still waits there, resumable; exits 130, 143 or 129",
  E_ADAPTER: 'an adapter spec (--agent, --reviewer, --gate-reviewer) names no known adapter or lacks its argument (exec: with no command), or library run() was given no agent (the CLI\'s run without --agent is E_USAGE)',
  // Personas (agents/<name>.md)
  E_PERSONA: 'a persona file has no YAML frontmatter, or its frontmatter violates schemas/persona.schema.json (missing field, wrong type, bad value)',
  E_PERSONA_NAME: 'a persona\'s name differs from its file name (agents/<name>.md) or from the name the gate was configured with',
  E_PERSONA_DENY: 'a persona\'s disallowed_tools does not deny (by name or by a pattern such as *) a tool every reviewer must deny: *_skill, run_shell, execute_skill, host_restart_service, kill_process',
  E_PERSONA_PERMISSION: 'a reviewer persona\'s permission_mode is not read-only',
  E_PERSONA_BODY: 'a persona has no body after its frontmatter: the body is the reviewer\'s prompt',
  E_PERSONA_MAX_TURNS: 'a persona has no max_turns',
  E_PERSONA_TOOL_DENIED: '(warning) a persona lists a tool in tools that its disallowed_tools removes',
  E_NODE_ID_DIGITS: '(warning) a node id of digits alone: allowed, but node-id.field would read as a number, so its answers cannot be read',
  // CLI
  E_USAGE: 'the command line is wrong (or was given in a current directory that has since been removed), or an MCP client called a tool that does not exist',
  E_OUTPUT: 'the CLI could not write its result to stdout (a full disk, an I/O error; a reader that went away is not one): said on stderr, the exit status the command\'s own',
  E_INTERNAL: 'a countersign bug: an unexpected exception (please report it)',
  E_BUILD: 'the countersign source itself does not compile or load (a file under engine/ was edited into an error); the message names the file, line and column',
  E_INSTALL: 'the countersign command cannot run: a dependency it needs is not installed or is damaged (esbuild, tsx, or a package the source imports) (exit 2; fix: npm ci in the package)',
  E_INPUT: 'the --input / --response value is not valid JSON, or JSON that would not be kept as written (a key repeated in one object, an integer past ±2^53) (an --input that is valid JSON but no object is named by where it came from — the file, standard input or the argument — and what it holds) (or, from the library, not plain JSON: NaN, a function, a Map, a Date or other class instance, undefined in a list), a run id is not a non-empty string, a runs() status is unknown, the start input does not fit the registry or leaves out one of requiredInputs, an MCP tool\'s arguments do not fit its input schema, the pr-status comments are not a JSON array of strings, a library start()/run() workspace or createAgent() cwd is not an existing directory (an empty cwd included), run() resuming a run is given a new input or workspace, or a resume source other than {runId} alone, run()\'s maxSteps/agentTimeoutMs is not a positive number, or a library call\'s options, tools, toolCalls (each record\'s fields too), toolFailure, labels, toolHeartbeatMs or answersTaken events are not of the type it takes, or name an option or field it does not take; or a scripted agent\'s script is no map of node ids to lists of answers, or names a node that takes no answers',
  E_RESULT_TOO_LARGE: 'an MCP tool result is larger than one stdio message may be (10 MiB): it was not sent, though the call took effect',
  // Tools and the decorator chain (review gate)
  E_TOOL_DEFINITION: 'defineTool was given a malformed tool: a bad name, class or blastRadius, no run function, or an inputSchema that is not an object schema or does not compile; or chain() was given a tool whose class is not read, write or destructive; or createEngine({ tools }) got something that is not a tool; or two tools (built-in, host, module, lent) share a name (a module\'s clash names its file and /toolModules/<i>); or a tool\'s own argument check (refineArgs) threw',
  E_TOOL_ARGS: 'a tool was called with arguments that do not fit its inputSchema or its own rules (post_review\'s body); the tool did not start (a tool node\'s refusal is journaled as tool.failed; validate checks literal arguments)',
  E_CHAIN_INVALID: 'a tool chain or decorator is configured wrong: an unknown option, a decorator in another\'s position, a review gate without tenant_bind, or a bad limit',
  E_GATE_REQUIRED: 'a write or destructive tool was chained without a review gate (exempt it through the gate\'s skip list instead), or an agent asked for one with $tool in a run that has no review gate (a $toolError; nothing ran)',
  E_OPERATOR_REQUIRED: 'a tool call carries no operator user id for tenant_bind to bind; nothing ran',
  E_TOOL_TIMEOUT: 'the inner tool did not finish within its timeout (15 s by default) and was told to stop; it may still have taken effect',
  E_RATE_LIMITED: 'the operator called this tool more often than its token bucket allows; the call did not run',
  ErrReviewRejected: 'the review gate rejected the call, or failed closed; the tool did not run (message: review rejected: <reason>)',
  ErrReviewTimeout: 'the review did not finish within the gate\'s ceiling (60 s by default); the tool did not run',
  // Decision reviews and tool calls by agents
  E_REVIEWER_IDENTITY: 'an answer to the review gate\'s decision review came from an identity other than the reviewer the gate spawned (e.g. countersign step on the gate\'s run); refused at no cost, and the review still waits for its reviewer (a driving run stops there, exit 3, rather than ask the same identity again)',
  E_DECISION_INPUT: 'a decision review has no usable persona or proposal in the run\'s context; it takes its error route (the gate records a rejected row)',
  E_TOOL_DENIED: '(a $toolError) the agent asked for a tool outside its effective list; it did not run, and the message still counts as a turn',
  E_TOOL_SESSION_OVER: 'an in-process agent called a lent tool after the run stopped waiting for its answer (it answered, timed out, crashed or was interrupted): the tool did not run',
  E_TOOL_STOPPED: '(a $toolError) one of the engine\'s tools failed earlier in this item, so no further tool runs in it (no retry, no other path); the step fails with E_TOOL_FAILED',
  E_TOOL_REQUEST: '(a $toolError) a $tool line is not {"name": "<tool>", "args": {…}}',
  E_TOOL_FAILED: 'a tool failed: it threw an error without a countersign code, or could not do its work (no usable workspace; a process it runs, such as gh, could not start or exited non-zero); the tool\'s own message is kept (to an agent\'s $tool call it comes back as a $toolError)',
  E_GATE_CONFIG: 'the review gate is configured wrong: a timeoutMs (--timeout-ms) outside 30 000 to 2 147 483 647, duplicate tool names in its tools, or no store or reviewer',
  E_GATE_WORKFLOW: 'the gate workflow ended without an outcome, or without recording the proposal row its outcome needs',
  E_PERSONA_RESERVED: 'something other than the review gate tried to spawn a reviewer persona (only the gate may)',
  E_MAX_TURNS: 'a reviewer used its last turn (max_turns) on a tool call, so no reply could follow: it was cut off and the review is a reject',
  E_TOOL_CANCELLED: 'a chained tool call whose signal was aborted: before its tool started (before the review, or while it was reviewed: nothing ran), or while it ran (the tool sees ctx.signal abort and may have taken effect; timeout, audit and metric record it as this code)',
  E_TOOL_UNFINISHED: 'a tool call an agent made was still running when the wait for the agent ended (a timeout, Ctrl-C, a crash): journaled as tool.called with this code, since it may yet take effect',
  // Tool nodes (ADR-019)
  E_TOOL_NODE: 'an answer was submitted to a tool node: the engine runs tool nodes itself and they take no answers',
  E_TOOL_UNKNOWN: 'a tool node, or an access pattern, names no registered tool (a warning while the workflow\'s toolModules are not loaded); at run time: the process has no such tool, so the run is left waiting at the node for a host that has it',
  E_TOOL_ACCESS: 'the workflow\'s access map does not let this node\'s agent role use the tool (validate flags it on a tool node; the run refuses it; a directive\'s $tool request gets it as a $toolError)',
  E_TOOL_INTERRUPTED: 'a tool node\'s call started but its process stopped before it reported back: it may have taken effect, so it is not run again',
  E_TOOL_MODULE_BLOCKED: 'a workflow names toolModules and the host did not allow loading them (--allow-tool-modules); nothing ran',
  E_TOOL_MODULE: 'a tool module does not exist (validate checks the file), could not be loaded, or exports no tools array',
  E_TOOL_RUNNING: 'run stopped driving because another process is running one of the run\'s tool nodes',
} as const);

export type ErrorCode = keyof typeof CODES;

/**
 * A set no host can change: the exported lists are the engine's own. Not a
 * Set underneath (Set.prototype.add.call would reach a Set's entries
 * whatever its own methods say): the entries live in a private field.
 */
class ReadOnlySet<T> implements ReadonlySet<T> {
  readonly #items: Set<T>;
  constructor(values: Iterable<T>) {
    this.#items = new Set(values);
    Object.freeze(this);
  }
  get size(): number {
    return this.#items.size;
  }
  has(value: T): boolean {
    return this.#items.has(value);
  }
  forEach(callback: (value: T, key: T, set: ReadonlySet<T>) => void, thisArg?: unknown): void {
    for (const v of this.#items) callback.call(thisArg, v, v, this);
  }
  entries(): SetIterator<[T, T]> {
    return this.#items.entries();
  }
  keys(): SetIterator<T> {
    return this.#items.keys();
  }
  values(): SetIterator<T> {
    return this.#items.values();
  }
  [Symbol.iterator](): SetIterator<T> {
    return this.#items.values();
  }
}

export const WARNING_CODES: ReadonlySet<string> = new ReadOnlySet([
  'E_UNREACHABLE',
  'E_TIMEOUT_ROUTE_UNUSED',
  'E_EACH_ITEM_FIELD',
  'E_FINAL_OUTPUT_UNRESOLVED',
  'E_VARIABLE_NEVER_WRITTEN',
  'E_REQUIRED_INPUT_DEFAULT',
  'E_ACCESS_ROLE_UNUSED',
  'E_UNCHANGED_REASON_UNDECLARED',
  'E_CRITERION_TEMPLATE',
  'E_PERSONA_TOOL_DENIED',
  'E_NODE_ID_DIGITS',
]);
