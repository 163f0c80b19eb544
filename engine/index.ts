/**
 * countersign's library API. Everything a host needs is exported here by
 * name; deeper paths are internal.
 */
export { CountersignError, isCountersignError } from './errors.js';
export type { ErrorJSON, ErrorLocation } from './errors.js';
export { CODES, WARNING_CODES } from './codes.js';
export type { ErrorCode } from './codes.js';

export type * from './format/model.js';
export { parseSource, readSource } from './format/source.js';
export type { SourceDocument } from './format/source.js';
export { validateDocument, validateFile, validateWorkflow } from './validate/index.js';
export type { ValidationReport } from './validate/index.js';

export { createEngine } from './run/engine.js';
export type { Engine, EngineOptions, StartOptions, SubmitOptions } from './run/engine.js';
export type { RunOptions, RunResult, ProgressEvent } from './run/driver.js';
export type * from './run/contract.js';
export type { WorkflowSource } from './run/workflow-source.js';

export type { Store, RunRecord } from './store/store.js';
export { createMemoryStore } from './store/memory.js';
export { createSqliteStore } from './store/sqlite.js';
export { openStore } from './store/open.js';

export { readReport } from './review/report.js';
export type { Report, ReportFormat } from './review/report.js';
export { reviewPrompt } from './review/prompt.js';
export { ISSUES_ANSWER_SCHEMA } from './nodes/delegate-review.js';

export type { Agent, AnswerOptions } from './hosts/agent.js';
export { createAgent } from './hosts/adapters.js';
export { createScriptedAgent } from './hosts/scripted.js';

import { readSource } from './format/source.js';
/** Reads and parses a workflow file (JSON or YAML) with positions; validate it with `validateDocument`. */
export const loadWorkflow = readSource;
