/**
 * What a stored record must be, against its own workflow, before the
 * engine serves it (status, info) or steps it (submit, a deadline firing):
 * a waiting run rests at one of its workflow's waiting nodes with the item
 * that node issues, over a context a step can read and with an answer
 * schema that compiles; a completed run ended at an end node; a failed run
 * failed at a node of its workflow. Anything else is E_STORE naming the
 * run and the store, whichever store keeps it: never half-served, and
 * never answered or advanced by the next write.
 */
import type { CompiledWorkflow } from '../compile/machine.js';
import type { JsonObject, Workflow, WorkflowNode } from '../format/model.js';
import { answerValidator, effectiveSchema } from '../nodes/answer-schema.js';
import { ISSUES_ANSWER_SCHEMA } from '../nodes/delegate-review.js';
import { nodeType } from '../nodes/index.js';
import { DECISION_ANSWER_SCHEMA } from '../nodes/review-decision.js';
import type { RunRecord } from '../store/store.js';
import type { RunState } from './contract.js';
import { damagedRecord, stateOf, storedRecord } from './state.js';
import { contextFault } from './context-shape.js';
import { itemFault } from './item-fit.js';
import { engineKnows } from './step.js';
import type { RunContext } from '../nodes/index.js';

type CompiledFor = (rec: RunRecord) => CompiledWorkflow;

/** The state status() and info() serve: E_STORE for a record that breaks the run contract or its workflow. */
export function servedState(rec: RunRecord, compiledFor: CompiledFor, storeFile?: string): RunState {
  const state = stateOf(rec, storeFile);
  if (state.status === 'waiting') waitsAtItsNode(rec, compiledFor, storeFile);
  // A completed run ended at one of its workflow's end nodes: any other is no end it could have reached.
  if (state.status === 'completed' && compiledFor(rec).byId.get(state.endNodeId)?.type !== 'end') {
    throw damagedRecord(rec, `completed at node ${JSON.stringify(state.endNodeId)}, which is no end node of its stored workflow`, storeFile);
  }
  if (state.status === 'failed' && !compiledFor(rec).byId.has(state.error.nodeId)) {
    throw damagedRecord(rec, `failed at node ${JSON.stringify(state.error.nodeId)}, which its stored workflow does not have`, storeFile);
  }
  return state;
}

/**
 * The record of run `runId` as a step may use it: the store's shape, then
 * what status() checks. A tool item is checked against its node only:
 * settling it brings an old one up to date (it may lack its attempt).
 */
export function usableRecord(rec: RunRecord, runId: string, compiledFor: CompiledFor, storeFile?: string): RunRecord {
  storedRecord(rec, runId, storeFile);
  if (rec.status === 'waiting' && rec.pending?.kind === 'tool') waitsAtItsNode(rec, compiledFor, storeFile);
  else servedState(rec, compiledFor, storeFile);
  return rec;
}

/** A waiting record's pending item is its node's, of the kind that node issues, over a context a step can read: else E_STORE. */
export function waitsAtItsNode(rec: RunRecord, compiledFor: CompiledFor, storeFile?: string): void {
  if (rec.status !== 'waiting') return;
  if (typeof (rec.pending as { nodeId?: unknown } | null | undefined)?.nodeId !== 'string') stateOf(rec, storeFile);
  const pending = rec.pending!;
  const compiled = compiledFor(rec);
  // A waiting run is shown waiting only at a node its workflow has: never a pending item nobody can answer.
  const at = compiled.byId.get(pending.nodeId);
  if (!at) throw damagedRecord(rec, `waits at node ${JSON.stringify(pending.nodeId)}, which its stored workflow does not have`, storeFile);
  const type = nodeType(at.type);
  if (type?.kind !== 'waiting') throw damagedRecord(rec, `waits at node ${JSON.stringify(at.id)}, a ${at.type} node, which never waits`, storeFile);
  // A pending item of another kind than its node issues (a tool item at a directive) would be answered, or run, as what it is not.
  const issues = at.type === 'agent-directive' ? 'directive' : (type as { answeredByEngine?: true }).answeredByEngine ? 'tool' : 'review';
  if (pending.kind !== issues) throw damagedRecord(rec, `waits at node ${JSON.stringify(at.id)}, a ${at.type} node, with a ${pending.kind} pending item`, storeFile);
  const context = (rec.snapshot as { context?: unknown }).context as Record<string, unknown> | null | undefined;
  const fault = context === null || typeof context !== 'object' || Array.isArray(context) ? 'is missing' : contextFault(context);
  if (fault) throw damagedRecord(rec, `has a snapshot whose context ${fault}`, storeFile);
  // Hosts check answers against the item's schema: one that does not compile would leave them nothing to check with.
  const schema = (pending as { inputSchema?: unknown }).inputSchema;
  const broken = pending.kind !== 'tool' && schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schemaFault(schema as JsonObject, at, compiled.workflow) : undefined;
  if (broken) throw damagedRecord(rec, `has a ${pending.kind} pending item whose inputSchema does not compile (${broken})`, storeFile);
  // The item shown is the one the next answer is judged by (item-fit.ts); an item the engine wrote and read back itself is.
  if (!engineKnows(rec)) {
    // {{executionId}} is the run id: a context naming another run (a run copied under a new id) would render that one's.
    const executionId = (context as { meta: { executionId: string } }).meta.executionId;
    if (executionId !== rec.runId) throw damagedRecord(rec, `has a snapshot whose context names the run ${JSON.stringify(executionId)} (meta.executionId, what {{executionId}} reads)`, storeFile);
    const misfit = itemFault(pending, at, context as unknown as RunContext, compiled.workflow);
    if (misfit) throw damagedRecord(rec, misfit, storeFile);
  }
}

/** The JSON text of the schemas the engine issues, by object. */
const texts = new WeakMap<object, string>();
const textOf = (schema: object): string => {
  let text = texts.get(schema);
  if (text === undefined) texts.set(schema, (text = JSON.stringify(schema)));
  return text;
};

/**
 * Why a pending item's inputSchema does not compile; undefined when it
 * does. A schema the node issues compiled when its workflow was validated,
 * so it is recognised without compiling anything (a status never loads
 * ajv); any other (an older engine's, or a damaged one) is compiled.
 */
function schemaFault(schema: JsonObject, node: WorkflowNode, workflow: Workflow): string | undefined {
  const issued = [effectiveSchema((node as { inputSchema?: JsonObject }).inputSchema, workflow), ISSUES_ANSWER_SCHEMA, DECISION_ANSWER_SCHEMA];
  if (issued.includes(schema)) return undefined;
  const text = JSON.stringify(schema);
  if (issued.some((s) => textOf(s) === text)) return undefined;
  try {
    answerValidator(schema);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
