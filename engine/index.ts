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
export type { ValidationReport, ValidateOptions } from './validate/index.js';

export { createEngine } from './run/engine.js';
export { useValidatorCache } from './nodes/answer-schema.js';
export type { ValidatorCache } from './nodes/validator-cache.js';
export type { Engine, EngineOptions, RunInfo, StartOptions, SubmitOptions } from './run/engine.js';
export type { RunOptions, RunResult, ProgressEvent } from './run/driver.js';
export type * from './run/contract.js';
export type { WorkflowSource } from './run/workflow-source.js';

export type { Store, RunRecord, LedgerRow, LedgerQuery, Mutation } from './store/store.js';
export { createMemoryStore } from './store/memory.js';
export { createSqliteStore } from './store/sqlite.js';
export { openStore, type StoreLocation } from './store/open.js';
// The hash a store keeps a workflow copy under (putWorkflow refuses any other): for a host that writes a store itself.
export { hashWorkflow } from './run/hash.js';

export { readReport } from './review/report.js';
export type { Report, ReportFormat } from './review/report.js';
export { reviewPrompt } from './review/prompt.js';
export { ISSUES_ANSWER_SCHEMA } from './nodes/delegate-review.js';

export { parseDecision } from './review/decision.js';
export type { ParsedDecision } from './review/decision.js';
export { DECISION_ANSWER_SCHEMA } from './nodes/review-decision.js';

export type { Agent, AnswerOptions } from './hosts/agent.js';
export type { ToolRunner, ToolCallRecord, ToolSession, ToolCallMeta, ToolRefusal, ToolSpecView } from './hosts/tool-mediation.js';
export { createAgent } from './hosts/adapters.js';
export { answersTaken, createScriptedAgent, type ScriptedOptions } from './hosts/scripted.js';

// The review gate (seed 000): tools, the decorator chain, the gate, personas and the ledger.
export { defineTool } from './tools/tool.js';
export { BUILTIN_TOOLS, postReview, postDocsReview, prStatus } from './tools/builtin/index.js';
export type { PostCommentArgs, PostedComment } from './tools/builtin/index.js';
export { formatCodeReview, formatDocsReview, REVIEW_VERDICTS, DOCS_VERDICTS } from './tools/review-format.js';
export type { ReviewVerdict, DocsVerdict } from './tools/review-format.js';
export { readPrStatus, formatPrStatus } from './tools/status-reader.js';
export type { PrStatus } from './tools/status-reader.js';
export { accessDenial } from './tools/access.js';
export type { Tool, ToolSpec, ToolClass, ToolCallContext, ToolRunContext, ArgProblem } from './tools/tool.js';
export { chain, CHAIN_ORDER } from './gate/chain.js';
export type { ChainOptions, ChainedTool, ToolDecorator } from './gate/chain.js';
export { tenantBindDecorator } from './gate/decorators/tenant-bind.js';
export { timeoutDecorator, DEFAULT_TOOL_TIMEOUT_MS } from './gate/decorators/timeout.js';
export { auditDecorator } from './gate/decorators/audit.js';
export { rateLimitDecorator, type RateLimitDecorator } from './gate/decorators/rate-limit.js';
export { metricDecorator } from './gate/decorators/metric.js';
export { reviewGateDecorator } from './gate/decorators/review-gate.js';
export type { GateVerdict, GateOutcome, DecideFn, PendingReview } from './gate/decorators/review-gate.js';
export { reviewGate, createGate, refuseReviewerSpawn, DefaultReviewerTimeout, MinReviewerTimeout, MaxReviewerTimeout, shippedGateWorkflow } from './gate/gate.js';
export type { Gate, GateConfig, GateResult, ReviewGateConfig } from './gate/gate.js';
export { gateToolChain } from './gate/gate-chain.js';
export type { GateToolChain, GateToolChainConfig } from './gate/gate-chain.js';
export { loadPersona, parsePersona, DefaultReviewerAgent } from './gate/persona.js';
export type { Persona } from './gate/persona.js';
export { lintPersona, validatePersonaFile } from './gate/persona-lint.js';
export { matchesToolPattern, effectiveTools, toolDenial } from './gate/tool-filter.js';
export type { ToolPolicy, CatalogTool } from './gate/tool-filter.js';
export { validateProposal, assertProposal } from './gate/proposal.js';
export type { Proposal, BlastRadius } from './gate/proposal.js';
export {
  PROPOSALS_TABLE,
  EXECUTIONS_TABLE,
  CONFIRMATIONS_TABLE,
  proposalHash,
  writeProposal,
  writeExecution,
  listProposals,
  listExecutions,
  recordConfirmation,
  checkConfirmation,
} from './gate/ledger.js';
export type { ProposalRow, ExecutionRow, ConfirmationRow } from './gate/ledger.js';
export { createDedupe } from './gate/dedupe.js';

import { readSource } from './format/source.js';
/** Reads and parses a workflow file (JSON or YAML) with positions; validate it with `validateDocument`. */
export const loadWorkflow = readSource;
