/**
 * Every stable error code, declared as data. A code is part of the public
 * contract: tests, hosts and CI scripts match on it. Add codes; never rename.
 */
export const CODES = {
  // Loading
  E_FILE_NOT_FOUND: 'the workflow (or input/answer) file does not exist or cannot be read',
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
  E_TRANSIENT_CYCLE: 'a cycle of non-waiting nodes would spin forever',
  E_TOO_MANY_NODES: 'more nodes than the documented limit',
  // Schemas, syntax, dataflow
  E_INPUT_SCHEMA: 'an effective inputSchema does not compile under ajv',
  E_VARIABLE_SCHEMA: 'a variableRegistry entry is not a valid JSON Schema property',
  E_GLOBAL_INPUT_UNDECLARED: 'globalInputs names a variable missing from variableRegistry',
  E_EXPRESSION_SYNTAX: 'an expression does not parse',
  E_EXPRESSION_TARGET: 'an expression assigns to something that is not a declared global (registry or initialData)',
  E_TEMPLATE_SYNTAX: 'a template block is malformed (unclosed or mismatched {{#…}})',
  E_CONDITION: 'a condition has the wrong shape',
  E_UNDECLARED_VARIABLE: 'a template variable or contextPath resolves to nothing',
  E_FINAL_OUTPUT_UNRESOLVED: '(warning) a finalOutput name resolves to nothing and is left out of output',
  E_VARIABLE_NEVER_WRITTEN: '(warning) a registry variable with no default that nothing writes',
  // Runs
  E_WORKFLOW_INVALID: 'the workflow has validation errors and cannot start',
  E_RUN_NOT_FOUND: 'no run with that id in the store',
  E_RUN_NOT_WAITING: 'the run is completed or failed and takes no more answers',
  E_SEQ: 'the answer names a seq the run has not issued',
  E_ANSWER_INVALID: 'the answer does not satisfy the node inputSchema',
  E_ANSWER_TOO_LARGE: 'the answer exceeds the documented size limit',
  E_ANSWER_TOO_DEEP: 'the answer nests deeper than the documented limit',
  E_RESERVED_NAME: 'a node id or variable name that cannot hold a value: __proto__, or a built-in name (executionId, workflowId, userId)',
  E_ANSWER_RESERVED_KEY: 'the answer uses a $-key the protocol does not define',
  E_MAX_RETRIES: 'the node received maxRetries+1 invalid answers and has no maxRetriesExceeded route',
  E_AGENT_ERROR: 'the agent declared failure with {"$error": …} and the node has no error route',
  E_EXPRESSION: 'an expression failed at run time and the node has no error route',
  E_TIMEOUT: 'the node deadline passed and it has no timeout route',
  E_RUNAWAY: 'transient nodes transitioned more than the runaway limit without waiting',
  E_WORKFLOW_CHANGED: 'the stored snapshot does not fit the stored workflow copy',
  E_STORE: 'the store could not read or write a run',
  // Independent review (delegate-review)
  E_PATH_OUTSIDE_WORKSPACE: 'a review path (artifact, context or report) resolves outside the run\'s workspace',
  E_PATH_EMPTY: 'a review path rendered empty (an unset variable in its template)',
  E_PATH_INVALID: 'a review path holds a line break or another control character',
  E_REPORT_PATH: 'the report path is unusable: it is an artifact, a directory, or its directory cannot be created',
  E_MAX_ITERATIONS: 'a review node that has accepted maxIterations reviews in this run was entered again',
  E_CRITERION_TEMPLATE: '(warning) a review criterion holds {{…}}: criteria are literal and never rendered (write \\{{ for literal braces)',
  E_REPORT_MISSING: 'the review answer came back but the report file does not exist',
  E_REPORT_FORMAT: 'the report file does not parse or is not a flat list of strings (tiers, objects, nesting)',
  E_REPORT_MISMATCH: 'the answer\'s issues_count differs from the number of issues in the report file',
  E_SELF_REVIEW: 'the reviewer identity (or role) also produced or fixed the artifacts under review',
  E_IDENTITY_REQUIRED: 'an answer in a review loop was given without an identity (--as, or the MCP "as" argument; blank counts as none)',
  E_NO_REVIEWER: 'run on a workflow with review nodes was given no --reviewer',
  E_REVIEWER_MODIFIED: 'the artifacts changed while the review was pending: the reviewer must diagnose, never fix',
  E_UNCHANGED_ARTIFACT: 'a fix came back to the review with the artifacts unchanged and no unchanged_reason',
  E_BIASED_REVIEW: 'review criteria or reviewer wording presupposes a positive result',
  E_SEVERITY_TIER: 'review criteria or reviewer wording introduces severity tiers',
  E_REVIEW_LOOP: 'a review node\'s fix step does not lead back to the same review node',
  E_REVIEW_UNROUTED: 'no condition on the review\'s issues_count is reachable from the review node',
  E_UNCHANGED_REASON_UNDECLARED: '(warning) a fix node in a review loop does not declare unchanged_reason in its inputSchema',
  // Adapters (infrastructure faults: the run stays waiting)
  E_AGENT_CRASHED: 'the agent process exited or failed to start',
  E_AGENT_OUTPUT: 'the agent wrote something that is not one JSON object',
  E_AGENT_TIMEOUT: 'the agent was silent past --agent-timeout or the node deadline',
  E_AGENT_SCRIPT_EXHAUSTED: 'the scripted agent has no answer left for this node',
  E_MAX_STEPS: 'run --max-steps was reached while the run still waits (resumable)',
  E_ADAPTER: 'the --agent value names no known adapter',
  // CLI
  E_USAGE: 'the command line is wrong, or an MCP client called a tool that does not exist',
  E_INTERNAL: 'a countersign bug: an unexpected exception (please report it)',
  E_INPUT: 'the --input / --response value is not valid JSON, the start input does not fit the registry, or an MCP tool\'s arguments do not fit its input schema',
  E_RESULT_TOO_LARGE: 'an MCP tool result is larger than one stdio message may be (10 MiB): it was not sent, though the call took effect',
} as const;

export type ErrorCode = keyof typeof CODES;

export const WARNING_CODES: ReadonlySet<string> = new Set([
  'E_UNREACHABLE',
  'E_FINAL_OUTPUT_UNRESOLVED',
  'E_VARIABLE_NEVER_WRITTEN',
  'E_UNCHANGED_REASON_UNDECLARED',
  'E_CRITERION_TEMPLATE',
]);
