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
import { vouchedMutate } from '../store/vouched.js';
import { jsonProblem } from '../format/json-problem.js';
import { CountersignError, isCountersignError, thrownMessage } from '../errors.js';
import type { JsonObject, JsonValue } from '../format/model.js';
import type { CompiledWorkflow } from '../compile/machine.js';
import type { RunEnv } from '../nodes/node-type.js';
import { ENGINE_ID, type ToolOutcome } from '../nodes/tool.js';
import { MAX_ANSWER_BYTES } from '../nodes/answer-schema.js';
import { MAX_ANSWER_DEPTH } from '../nodes/answer-guard.js';
import { deeperThan } from '../format/depth.js';
import type { LedgerRow, RunRecord, Store } from '../store/store.js';
import { accessDenial } from '../tools/access.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { JournalEvent, ToolPending } from './contract.js';
import { nextStep } from './step.js';
import { Runaway, runaway } from './runaway.js';

/** A claim not renewed for this long is taken as interrupted (its process is gone). */
export const TOOL_LEASE_MS = 10 * 60_000;
/**
 * What a claimed tool node's pending item says about its call: when it was
 * claimed, when its process last reported, when the claim expires. Said
 * wherever the node is shown, also by a process that cannot run the tool
 * itself, since the call may already have taken effect.
 */
export function claimNote(pending: Pick<ToolPending, 'tool' | 'startedAt' | 'aliveAt'>): string | undefined {
  const expires = claimExpiresAt(pending);
  if (!pending.startedAt || !expires) return undefined;
  return `${pending.tool} was claimed at ${pending.startedAt}${pending.aliveAt ? ` (its process last reported at ${pending.aliveAt})` : ''} and may already have taken effect: it is still running, or its process was stopped; the claim expires at ${expires}, and then the node fails with E_TOOL_INTERRUPTED (a call that may have taken effect is never re-run)`;
}

/** When a claimed tool node's claim lapses, unless its process reports again; undefined when unclaimed. */
export function claimExpiresAt(pending: Pick<ToolPending, 'startedAt' | 'aliveAt'>): string | undefined {
  const alive = pending.aliveAt ?? pending.startedAt;
  return alive ? new Date(Date.parse(alive) + TOOL_LEASE_MS).toISOString() : undefined;
}

/** How often a running tool's process renews its claim: well inside the lease. */
export const TOOL_HEARTBEAT_MS = 60_000;
/** Bounds one engine call's chain of tool nodes, as transient hops are bounded. */
const MAX_TOOL_STEPS = 1000;

export interface ToolStepDeps {
  store: Store;
  now: () => Date;
  /** The tools this run may use (its workflow's modules included). */
  catalogOf(rec: RunRecord): ToolCatalog;
  compiledFor(rec: RunRecord): CompiledWorkflow;
  envOf(rec: RunRecord): RunEnv;
  /** How often a running tool renews its claim; TOOL_HEARTBEAT_MS by default. */
  heartbeatMs?: number;
}

type Claim =
  | { kind: 'none' }
  | { kind: 'again' }
  | { kind: 'run'; seq: number; pending: ToolPending; workspace: string };

/** Runs every tool node the run reaches, until it rests elsewhere (or another process holds a claim). */
export async function advanceTools(deps: ToolStepDeps, runId: string): Promise<void> {
  for (let i = 0; i < MAX_TOOL_STEPS; i++) {
    // The engine's own step (vouched.ts): a claim on an older engine's tool item is written as it always was.
    const claim = deps.store.update<Claim>(runId, vouchedMutate((rec) => claimTool(deps, rec)));
    if (claim.kind === 'none') return;
    if (claim.kind === 'again') continue;
    // A tool may run longer than the lease: its process renews the claim while it runs.
    const heartbeat = setInterval(() => renew(deps, runId, claim.seq), deps.heartbeatMs ?? TOOL_HEARTBEAT_MS);
    heartbeat.unref();
    let outcome: ToolOutcome;
    try {
      outcome = await runTool(deps.catalogOf(deps.store.get(runId)!), claim.pending, claim.workspace);
    } finally {
      clearInterval(heartbeat);
    }
    deps.store.update(runId, vouchedMutate((rec) => {
      if (rec.status !== 'waiting' || rec.seq !== claim.seq || rec.pending?.kind !== 'tool') {
        // Resolved meanwhile (the claim was taken as interrupted): the run has
        // moved on, but what the tool did is still put on record.
        const at = deps.now().toISOString();
        const late: JournalEvent = { seq: claim.seq, at, type: 'tool.late', nodeId: claim.pending.nodeId, tool: claim.pending.tool, ok: outcome.ok, ...(outcome.ok ? {} : { code: outcome.code }) };
        return { record: rec, events: [late], result: undefined };
      }
      return { ...apply(deps, rec, outcome), result: undefined };
    }));
  }
  // Still at a tool node after the bound: the tools keep routing into one
  // another (a loop through tool and transient nodes, which validation now
  // refuses, in a run stored before it did; a loop through a review's entry
  // stops at its first repeated entry, see runaway.ts). The run fails, so no
  // later call runs the loop again.
  deps.store.update(runId, vouchedMutate((rec) => {
    if (rec.status !== 'waiting' || rec.pending?.kind !== 'tool') return { result: undefined };
    const { nodeId, tool } = rec.pending;
    const message = `the engine ran ${MAX_TOOL_STEPS} tool nodes in one call without the run resting at a waiting node or an end; the last was node "${nodeId}" (tool "${tool}")`;
    return { ...runaway(rec, deps.now().toISOString(), nodeId, new Runaway(message, nodeId, [])), result: undefined };
  }));
}

function claimTool(deps: ToolStepDeps, rec: RunRecord): { record?: RunRecord; events?: JournalEvent[]; rows?: LedgerRow[]; result: Claim } {
  if (rec.status !== 'waiting' || rec.pending?.kind !== 'tool') return { result: { kind: 'none' } };
  const pending = rec.pending;
  const at = deps.now();
  if (pending.startedAt) {
    const alive = pending.aliveAt ?? pending.startedAt;
    if (at.getTime() - Date.parse(alive) < TOOL_LEASE_MS) return { result: { kind: 'none' } };
    const failure = fail('E_TOOL_INTERRUPTED', `tool "${pending.tool}" started at ${pending.startedAt} and its process last reported at ${alive}, more than ${TOOL_LEASE_MS / 60_000} minutes ago (it stopped): it may or may not have taken effect, so it is not run again — check by hand`);
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
  if (pending.unset && pending.unset.length > 0) {
    // A gap in a rendered argument is never sent: "Findings:\n" with the findings missing still fits a schema.
    return fail('E_TOOL_ARGS', `the args of node "${pending.nodeId}" read unset variable(s) ${pending.unset.map((u) => `{{${u}}}`).join(', ')}: tool "${pending.tool}" is not run with a gap in its arguments`,
      'give those variables a value before this node (the start input, a registry default or an earlier answer), or correct the node\'s args; the tool did not run');
  }
  try {
    tool.checkArgs(pending.args);
  } catch (e) {
    if (isCountersignError(e) && e.code === 'E_TOOL_ARGS') return argsRefused(e, pending);
    // The tool's own check broke (a defect of the tool): the node fails
    // loudly rather than leaving the run stuck at a claim it cannot make.
    const message = e instanceof Error ? e.message : String(e);
    return fail(isCountersignError(e) ? e.code : 'E_TOOL_DEFINITION', `tool "${pending.tool}" could not check the arguments of node "${pending.nodeId}": ${message}; the tool did not run`, 'fix the tool\'s argument check (its inputSchema or refineArgs)');
  }
  return undefined;
}

/** Bad arguments at a tool node, said for the workflow's author (the tool's own fix is for a caller). */
function argsRefused(e: CountersignError, pending: ToolPending): ToolOutcome {
  const problems = (e.data as { errors?: string[] } | undefined)?.errors ?? [e.message];
  return fail(
    e.code,
    `tool "${pending.tool}" refused the arguments of node "${pending.nodeId}": ${problems.join('; ')}`,
    'correct the node\'s args (or the answers they are rendered from) to fit the tool\'s inputSchema; the tool did not run',
  );
}

/** Renews a running claim (`aliveAt`), so a long tool is not taken for a dead one. */
function renew(deps: ToolStepDeps, runId: string, seq: number): void {
  try {
    deps.store.update(runId, vouchedMutate((rec) => {
      if (rec.status !== 'waiting' || rec.seq !== seq || rec.pending?.kind !== 'tool' || !rec.pending.startedAt) return { result: undefined };
      const aliveAt = deps.now().toISOString();
      return { record: { ...rec, pending: { ...rec.pending, aliveAt } }, result: undefined };
    }));
  } catch {
    // A busy or closed store misses one beat; the lease allows for several.
  }
}

/**
 * Runs the tool. Whatever it throws is E_TOOL_FAILED (the issue's one code
 * for a tool that failed), with its own code and message kept in the
 * message and its fix in the fix: a code such as E_TOOL_ARGS would claim
 * the tool never started. A result must be JSON within the answer limits,
 * since it is stored as the node's answer.
 */
async function runTool(catalog: ToolCatalog, pending: ToolPending, workspace: string): Promise<ToolOutcome> {
  const tool = catalog.get(pending.tool)!;
  let result: unknown;
  try {
    result = await tool.run(pending.args as JsonObject, { workspace, userId: pending.userId ?? ENGINE_ID });
  } catch (e) {
    const message = thrownMessage(e);
    if (isCountersignError(e)) return fail('E_TOOL_FAILED', e.code === 'E_TOOL_FAILED' ? message : `tool "${pending.tool}" failed: ${e.code}: ${message}`, e.fix);
    return fail('E_TOOL_FAILED', `tool "${pending.tool}" failed: ${message}`);
  }
  return resultOutcome(pending.tool, result);
}

/**
 * Why a tool's result cannot be kept as JSON unchanged (JSON.stringify drops
 * functions and undefined members, turns NaN into null and a Map or Set
 * into {}), or undefined when it can. Shared by tool nodes and `$tool`
 * calls: a result is refused, never stored or handed on changed.
 */
export function notJsonResult(result: unknown): string | undefined {
  const problem = jsonProblem(result, { undefinedMembers: 'refused', plainObjectsOnly: true });
  return problem ? `holds a value JSON cannot keep at ${problem.pointer || '(root)'}: it ${problem.message}` : undefined;
}

function resultOutcome(tool: string, result: unknown): ToolOutcome {
  const ran = `tool "${tool}" ran (it may have taken effect), but`;
  let text: string | undefined;
  try {
    if (result === undefined) return fail('E_TOOL_FAILED', `${ran} it returned nothing (undefined)`, 'return the result as JSON data from the tool (null when there is nothing to say)');
    text = JSON.stringify(result);
  } catch (e) {
    return fail('E_TOOL_FAILED', `${ran} its result cannot be stored as JSON: ${(e as Error).message}`, 'return plain JSON data from the tool: no cycles, BigInts or functions');
  }
  if (text === undefined) return fail('E_TOOL_FAILED', `${ran} its result (a ${typeof result}) is not JSON`, 'return plain JSON data from the tool');
  const odd = notJsonResult(result);
  if (odd !== undefined) return fail('E_TOOL_FAILED', `${ran} its result ${odd}`, 'return plain JSON data from the tool: no functions, undefined, NaN, Infinity, BigInts, Maps, Sets, Dates or other class instances (convert them: date.toISOString()), or cycles');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_ANSWER_BYTES) {
    return fail('E_TOOL_FAILED', `${ran} its result is ${bytes} bytes; a node's stored answer may hold ${MAX_ANSWER_BYTES}`, 'return a smaller result: keep large content in files and return their paths');
  }
  const value = JSON.parse(text) as JsonValue;
  const deep = deeperThan(value, MAX_ANSWER_DEPTH);
  if (deep) return fail('E_TOOL_FAILED', `${ran} its result nests deeper than ${MAX_ANSWER_DEPTH} levels (at ${deep})`, 'return a flatter result');
  return { ok: true, result: value };
}

function apply(deps: ToolStepDeps, rec: RunRecord, outcome: ToolOutcome): { record: RunRecord; events: JournalEvent[]; rows: LedgerRow[] } {
  const answer = outcome as unknown as JsonValue;
  const s = nextStep(deps.compiledFor(rec), rec, { type: 'SUBMIT', answer, bytes: JSON.stringify(answer).length, userId: ENGINE_ID }, deps.now(), deps.envOf(rec));
  return { record: s.record, events: s.events, rows: s.rows };
}

function fail(code: string, message: string, fix?: string): ToolOutcome {
  return { ok: false, code, message, ...(fix ? { fix } : {}) };
}
