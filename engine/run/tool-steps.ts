/**
 * Running `tool` nodes (ADR-019). A step is one synchronous store
 * transaction, and a tool is an async side effect, so a tool node runs in
 * three moves: claim it in a transaction (journal `tool.started`, mark the
 * pending item `startedAt`), run the tool outside any transaction, then
 * apply the outcome as the engine's own answer in a second transaction —
 * only if the run is still at that claim. A claim that outlives its lease
 * (the process died mid-call) is never re-run silently: the call may have
 * taken effect, so the node fails loudly with E_TOOL_INTERRUPTED.
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonObject, JsonValue, WorkflowNode } from '../format/model.js';
import type { CompiledWorkflow } from '../compile/machine.js';
import type { RunEnv } from '../nodes/node-type.js';
import { ENGINE_ID, type ToolOutcome } from '../nodes/tool.js';
import type { LedgerRow, RunRecord, Store } from '../store/store.js';
import { accessDenial } from '../tools/access.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { JournalEvent, ToolPending } from './contract.js';
import { nextStep } from './step.js';

/** A claimed call older than this is taken as interrupted (its process is gone). */
export const TOOL_LEASE_MS = 10 * 60_000;
/** Bounds one engine call's chain of tool nodes, as transient hops are bounded. */
const MAX_TOOL_STEPS = 1000;

export interface ToolStepDeps {
  store: Store;
  now: () => Date;
  /** The tools this run may use (its workflow's modules included). */
  catalogOf(rec: RunRecord): ToolCatalog;
  compiledFor(rec: RunRecord): CompiledWorkflow;
  envOf(rec: RunRecord): RunEnv;
}

type Claim =
  | { kind: 'none' }
  | { kind: 'again' }
  | { kind: 'run'; seq: number; pending: ToolPending; workspace: string };

/** Runs every tool node the run reaches, until it rests elsewhere (or another process holds a claim). */
export async function advanceTools(deps: ToolStepDeps, runId: string): Promise<void> {
  for (let i = 0; i < MAX_TOOL_STEPS; i++) {
    const claim = deps.store.update<Claim>(runId, (rec) => claimTool(deps, rec));
    if (claim.kind === 'none') return;
    if (claim.kind === 'again') continue;
    const outcome = await runTool(deps.catalogOf(deps.store.get(runId)!), claim.pending, claim.workspace);
    deps.store.update(runId, (rec) => {
      // Resolved meanwhile (an interrupted claim failed by another process): the outcome is dropped.
      if (rec.status !== 'waiting' || rec.seq !== claim.seq || rec.pending?.kind !== 'tool') return { result: undefined };
      return { ...apply(deps, rec, outcome), result: undefined };
    });
  }
  throw new CountersignError('E_RUNAWAY', `run ${runId} ran ${MAX_TOOL_STEPS} tool nodes in one call without resting`, {
    fix: 'a loop of tool nodes needs a waiting node or an end on its way',
  });
}

function claimTool(deps: ToolStepDeps, rec: RunRecord): { record?: RunRecord; events?: JournalEvent[]; rows?: LedgerRow[]; result: Claim } {
  if (rec.status !== 'waiting' || rec.pending?.kind !== 'tool') return { result: { kind: 'none' } };
  const pending = rec.pending;
  const at = deps.now();
  if (pending.startedAt) {
    if (at.getTime() - Date.parse(pending.startedAt) < TOOL_LEASE_MS) return { result: { kind: 'none' } };
    const failure = fail('E_TOOL_INTERRUPTED', `tool "${pending.tool}" started at ${pending.startedAt} and never reported back (its process stopped): it may or may not have taken effect, so it is not run again — check by hand`);
    return { ...apply(deps, rec, failure), result: { kind: 'again' } };
  }
  const refused = precheck(deps, rec, pending);
  if (refused) return { ...apply(deps, rec, refused), result: { kind: 'again' } };
  const startedAt = at.toISOString();
  const record: RunRecord = { ...rec, pending: { ...pending, startedAt }, updatedAt: startedAt };
  const events: JournalEvent[] = [{ seq: rec.seq, at: startedAt, type: 'tool.started', nodeId: pending.nodeId, tool: pending.tool }];
  return { record, events, result: { kind: 'run', seq: rec.seq, pending, workspace: rec.workspace } };
}

/**
 * What is refused before the tool starts: a role the access map denies,
 * arguments that fail the schema. A tool this process does not have is not
 * the run's fault (another host may register it): the run is left waiting,
 * unclaimed, and the caller gets E_TOOL_UNKNOWN.
 */
function precheck(deps: ToolStepDeps, rec: RunRecord, pending: ToolPending): ToolOutcome | undefined {
  const catalog = deps.catalogOf(rec);
  const tool = catalog.get(pending.tool);
  if (!tool) {
    throw new CountersignError('E_TOOL_UNKNOWN', `run ${rec.runId} waits at tool node "${pending.nodeId}", whose tool "${pending.tool}" is not registered in this process (known: ${[...catalog.keys()].join(', ') || 'none'}): the node was not run and waits`, {
      nodeId: pending.nodeId,
      fix: `continue the run from the host that registers "${pending.tool}" (its engine.status or run picks the node up), or register the tool here (createEngine({ tools }))`,
    });
  }
  const workflow = deps.compiledFor(rec).workflow;
  const denial = accessDenial(workflow.access, pending.agent, pending.tool);
  if (denial) return fail('E_TOOL_ACCESS', denial, 'give the node an agent role the workflow\'s access map allows for this tool, or change the map');
  try {
    tool.checkArgs(pending.args);
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    return argsRefused(e, workflow.nodes.find((n) => n.id === pending.nodeId), pending);
  }
  return undefined;
}

/** Bad arguments at a tool node, said for the workflow's author: which templates rendered empty, and what to change. */
function argsRefused(e: CountersignError, node: WorkflowNode | undefined, pending: ToolPending): ToolOutcome {
  const written = (node as { args?: JsonObject } | undefined)?.args ?? {};
  const empty = Object.entries(written)
    .filter(([k, v]) => typeof v === 'string' && v.includes('{{') && (pending.args[k] === null || pending.args[k] === ''))
    .map(([k, v]) => `/${k} comes from ${JSON.stringify(v)}, which rendered ${pending.args[k] === null ? 'null' : 'empty'} (unset)`);
  const problems = (e.data as { errors?: string[] } | undefined)?.errors ?? [e.message];
  return fail(
    e.code,
    `tool "${pending.tool}" refused the arguments of node "${pending.nodeId}": ${problems.join('; ')}${empty.length > 0 ? `; ${empty.join('; ')}` : ''}`,
    empty.length > 0
      ? 'give those variables a value before this node (the start input, a registry default or an earlier answer), or correct the node\'s args; the tool did not run'
      : 'correct the node\'s args (or the answers they are rendered from) to fit the tool\'s inputSchema; the tool did not run',
  );
}

async function runTool(catalog: ToolCatalog, pending: ToolPending, workspace: string): Promise<ToolOutcome> {
  const tool = catalog.get(pending.tool)!;
  try {
    const result = await tool.run(pending.args as JsonObject, { workspace, userId: pending.agent ?? ENGINE_ID });
    const json = result === undefined ? null : JSON.parse(JSON.stringify(result));
    return { ok: true, result: json as JsonValue };
  } catch (e) {
    if (isCountersignError(e)) return fail(e.code, e.message, e.fix);
    return fail('E_TOOL_FAILED', `tool "${pending.tool}" failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function apply(deps: ToolStepDeps, rec: RunRecord, outcome: ToolOutcome): { record: RunRecord; events: JournalEvent[]; rows: LedgerRow[] } {
  const answer = outcome as unknown as JsonValue;
  const s = nextStep(deps.compiledFor(rec), rec, { type: 'SUBMIT', answer, bytes: JSON.stringify(answer).length, userId: ENGINE_ID }, deps.now(), deps.envOf(rec));
  return { record: s.record, events: s.events, rows: s.rows };
}

function fail(code: string, message: string, fix?: string): ToolOutcome {
  return { ok: false, code, message, ...(fix ? { fix } : {}) };
}
