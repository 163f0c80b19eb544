/**
 * The MCP tools as data: name, description for the model, and the plain
 * JSON Schema (draft-07) of the arguments. The server publishes exactly
 * these schemas in `tools/list` and validates every call against the same
 * objects, so what a client is told and what it is held to never differ.
 * They use only keywords that draft-07 and 2020-12 read alike, and carry no
 * `$schema`: some model APIs refuse tool schemas that name a dialect.
 */

export type ToolName = 'list_workflows' | 'validate' | 'start' | 'step' | 'status' | 'runs' | 'trace';

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties: false; [key: string]: unknown };
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
}

/**
 * An identity (`as`) holds a non-space character: identities compare
 * exactly, so a blank one would name nobody. A blank `as` is refused with
 * E_IDENTITY_REQUIRED on every tool (arguments.ts), as the engine refuses it.
 */
export const NOT_BLANK = '\\S';

const RUN_ID = { type: 'string', minLength: 1, description: 'The run id that `start` returned (also listed by `runs`).' } as const;

const WORKFLOW = {
  type: 'string',
  minLength: 1,
  description:
    'A workflow file path (relative to the server\'s working directory, or absolute as `list_workflows` gives it) or a workflow name in the server\'s workflow folders: a file name ("bugfix.yaml"), a file stem ("bugfix") or a metadata.name. A name found in several folders resolves to the first.',
} as const;

function tool(def: Omit<ToolDefinition, 'inputSchema'> & { properties: Record<string, object>; required?: string[] }): ToolDefinition {
  const { properties, required, ...rest } = def;
  return {
    ...rest,
    inputSchema: {
      type: 'object',
      properties,
      ...(required ? { required } : {}),
      additionalProperties: false,
    },
  };
}

export const TOOLS: readonly ToolDefinition[] = [
  tool({
    name: 'list_workflows',
    title: 'List workflows',
    description: 'Lists the workflows this server can start by name: {workflows: [{name, path, description, version}]}.',
    properties: {},
    annotations: { readOnlyHint: true, openWorldHint: false },
  }),
  tool({
    name: 'validate',
    title: 'Validate a workflow',
    description:
      'Checks a workflow file without running it and returns every finding with its code, JSON pointer, line and column (the same as `countersign validate --json`).',
    properties: { workflow: WORKFLOW },
    required: ['workflow'],
    annotations: { readOnlyHint: true, openWorldHint: false },
  }),
  tool({
    name: 'start',
    title: 'Start a run',
    description:
      'Starts a run of a workflow and returns its state: usually the first pending item, with the runId and the seq to answer with `step`.',
    properties: {
      workflow: WORKFLOW,
      input: {
        type: 'object',
        description: 'Values for the workflow\'s variableRegistry, e.g. {"artifact_path": "docs/api.md"}. Omit to use the defaults.',
      },
      as: {
        type: 'string',
        pattern: NOT_BLANK,
        description: 'Who starts the run (recorded as the run\'s userId); "local" when omitted. Not blank: leave it out instead (E_IDENTITY_REQUIRED).',
      },
      workspace: {
        type: 'string',
        minLength: 1,
        description:
          'The run\'s working directory (review paths resolve inside it); an existing directory, relative to the server\'s working directory. Defaults to the server\'s workspace.',
      },
    },
    required: ['workflow'],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }),
  tool({
    name: 'step',
    title: 'Answer the pending item',
    description:
      'Answers the run\'s pending item and returns the new state. Always pass the seq the last state gave: with it, repeating a call (a retry after a timeout) changes nothing and returns the current state with replayed: true; without it, every call answers whatever item is pending then, so a repeat can use up an attempt or answer the next item. A rejected answer is a normal result: the state shows the errors and the attempt; fix the answer and call step again with the new seq. An answer that arrives after the item\'s deadline is not taken: the text says so and gives the state the deadline left.',
    properties: {
      runId: RUN_ID,
      answer: {
        type: 'object',
        description:
          'The answer: one JSON object (never null) that satisfies the pending item\'s answer schema (a review answers {"issues_count": N}); an item that asks for no fields (answer schema "maxProperties": 0) is answered with {}. Declare failure with {"$error": "why"}.',
      },
      seq: {
        type: 'integer',
        description:
          'The seq of the item being answered, as the last state gave it. Always pass it. A lower (already answered) seq changes nothing and returns the current state with replayed: true; a seq never issued is E_SEQ.',
      },
      as: {
        type: 'string',
        pattern: NOT_BLANK,
        description:
          'Who answers (recorded as userId). Required in a review loop (E_IDENTITY_REQUIRED otherwise): the producer and the reviewer must be different identities. Not blank (E_IDENTITY_REQUIRED).',
      },
    },
    required: ['runId', 'answer'],
    // Not idempotent: seq is optional, and a repeated call without it answers again.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }),
  tool({
    name: 'status',
    title: 'Run status',
    description: 'Returns a run\'s current state: the pending item and its seq, the output, or the failure. Use it to pick up a run after losing context.',
    properties: { runId: RUN_ID },
    required: ['runId'],
    // Not read-only: an overdue deadline fires on status, as it would on the next step; that only appends to the journal.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  }),
  tool({
    name: 'runs',
    title: 'List runs',
    description: 'Lists the runs in the store, newest first: {runs: [{runId, workflow, status, createdAt, updatedAt}]}.',
    properties: {
      status: { type: 'string', enum: ['waiting', 'completed', 'failed'], description: 'Only runs with this status.' },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }),
  tool({
    name: 'trace',
    title: 'Run journal',
    description: 'Returns a run\'s append-only journal: {runId, events: [{seq, at, type, nodeId, …}]}. A long journal is read in parts with from.',
    properties: {
      runId: RUN_ID,
      from: {
        type: 'integer',
        minimum: 0,
        description: 'Return the events from this index on (0 is the first event): to read a journal too large for one result in parts, or to follow a run as it grows.',
      },
    },
    required: ['runId'],
    annotations: { readOnlyHint: true, openWorldHint: false },
  }),
];
