/**
 * The Ongrid ReviewGate (seed 000) on the engine: a second signature on
 * every mutating tool call. Its decision logic is not code here: it is
 * workflows/ongrid-review-gate.json, run by the engine for each proposal,
 * with the reviewer persona driven through an agent adapter and every
 * proposal row written by the workflow's record nodes. Around that run the
 * gate does what must happen before a reviewer is spawned: the skip list
 * (§4.8), the force_approve_no_sop confirmation check (§4.6), and dedupe of
 * a rejected repeat (§4.5) — which only a user's confirmation answering a
 * rejection for a missing SOP reopens. It fails closed: a reviewer that crashes, goes
 * silent or replies with anything but "Decision: approve" rejects.
 */
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { CountersignError } from '../errors.js';
import type { JsonObject, Workflow } from '../format/model.js';
import type { Agent } from '../hosts/agent.js';
import type { ToolCallRecord } from '../hosts/tool-mediation.js';
import { reviewerTools } from './gate-tools.js';
import { keepingPlainText } from './reviewer-text.js';
import { createEngine } from '../run/engine.js';
import { loadValidWorkflow } from '../run/workflow-source.js';
import type { Store } from '../store/store.js';
import { createDedupe, rejectedForNoSop } from './dedupe.js';
import { attestGateRun } from './gate-runs.js';
import { loadGatePersonas, type PersonaOptions } from './gate-personas.js';
import { checkConfirmation, findConfirmation, proposalHash, proposalsByHash, writeProposal, type ConfirmationRow, type ProposalRow } from './ledger.js';
import { assertProposal, type Proposal } from './proposal.js';
import { reviewGateDecorator, type GateVerdict, type ReviewGate, type ReviewGateOptions } from './decorators/review-gate.js';
import type { Tool, ToolClass } from '../tools/tool.js';
import { effectiveTools, type CatalogTool } from './tool-filter.js';
import type { Persona } from './persona.js';

/** The gate's own ceiling for one review (A11). */
export const DefaultReviewerTimeout = 60_000;
/** Below this a reviewer has no room for its turns and tool round-trips (F11). */
export const MinReviewerTimeout = 30_000;
/**
 * The longest ceiling: the longest wait a Node timer can hold (2^31-1 ms,
 * about 24.8 days). The reviewer is waited for that long and no longer, so
 * a longer ceiling could never end as a timeout. It is well inside the
 * workflow schema's one-year limit on a node's timeoutMs.
 */
export const MaxReviewerTimeout = 2_147_483_647;
/** The prefix of the secret identity the gate's reviewer answers under. */
const GATE_ID = 'review-gate';

export interface GateConfig extends PersonaOptions {
  /** Holds the runs, the proposal rows, the confirmations and the dedupe ledger. */
  store: Store;
  /** The driver that runs a persona: an adapter (jsonl for a model CLI) or a library Agent. */
  reviewer: Agent;
  /** The gate workflow; the shipped workflows/ongrid-review-gate.json by default. */
  workflow?: string;
  /** The ceiling for one review; 60 000 by default, never under 30 000 (F10, F11). */
  timeoutMs?: number;
  /** Tool names exempted from review; each call writes a `skipped` row (A6, §4.8). */
  skip?: Iterable<string>;
  /** The host's tools: the reviewer may call those its persona allows (read only, B16). */
  tools?: readonly Tool[];
  dedupe?: { windowMs?: number; size?: number };
  now?: () => Date;
  /** Where the gate says what it ignored (an unconfirmed force_approve_no_sop); stderr by default. */
  log?: (message: string) => void;
}

/** A verdict with the row it wrote, and `pass` for a read call (no reviewer, no row). */
export interface GateResult extends Omit<GateVerdict, 'outcome'> {
  outcome: GateVerdict['outcome'] | 'pass';
  row: ProposalRow | null;
  /** The gate workflow's run, when one ran. */
  runId?: string;
}

export interface Gate {
  /** Reviews one proposal for a tool of the given class. */
  /**
   * `signal`: the host stopping the review (Ctrl-C): the reviewer is
   * stopped and the call fails closed, a rejected row saying so (no
   * decision of the reviewer's, so it never makes a retry a repeat).
   */
  review(proposal: Proposal, tool: { name: string; class: ToolClass }, opts?: { signal?: AbortSignal }): Promise<GateResult>;
  /** The decorator's decide function. */
  decide(proposal: Proposal, tool: Tool): Promise<GateVerdict>;
  readonly skip: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly personas: ReadonlySet<string>;
  /** Configuration warnings (F16: more than one persona in use). */
  readonly warnings: readonly string[];
}

export function createGate(config: GateConfig): Gate {
  const timeoutMs = config.timeoutMs ?? DefaultReviewerTimeout;
  if (!Number.isInteger(timeoutMs) || timeoutMs < MinReviewerTimeout || timeoutMs > MaxReviewerTimeout) {
    const high = Number.isInteger(timeoutMs) && timeoutMs > MaxReviewerTimeout;
    throw new CountersignError('E_GATE_CONFIG', `the review gate's timeoutMs is ${String(timeoutMs)}; it must be a whole number of milliseconds from ${MinReviewerTimeout} to ${MaxReviewerTimeout} (about 24.8 days)`, {
      fix: high
        ? `lower timeoutMs to at most ${MaxReviewerTimeout}, or leave it out for the 60 s default`
        : 'leave timeoutMs out for the 60 s default, or raise it: a reviewer needs room for 5 turns and its tool calls (F11)',
    });
  }
  if (!config.store || !config.reviewer || typeof config.reviewer.answer !== 'function') {
    throw new CountersignError('E_GATE_CONFIG', 'the review gate needs a store and a reviewer agent', {
      fix: 'pass { store, reviewer } (the reviewer is the adapter that runs the persona)',
    });
  }
  const personas = loadGatePersonas(config);
  const workflow = gateWorkflow(config.workflow ?? shippedGateWorkflow(), timeoutMs);
  const now = config.now ?? (() => new Date());
  const log = config.log ?? ((m: string) => process.stderr.write(`countersign gate: ${m}\n`));
  // Every run this gate starts is recorded before it exists, so its proposal
  // rows read back as the gate's; a hand run of the same workflow's do not.
  const engine = createEngine({ store: config.store, now, newRunId: () => attestGateRun(config.store, now()) });
  const dedupe = createDedupe({ store: config.store, ...config.dedupe, now: () => now().getTime() });
  const skip: ReadonlySet<string> = new Set(config.skip ?? []);
  const catalog = config.tools ?? [];
  const runnerFor = reviewerTools(catalog);
  const reviewer = keepingPlainText(config.reviewer);

  async function review(given: Proposal, tool: { name: string; class: ToolClass }, opts: { signal?: AbortSignal } = {}): Promise<GateResult> {
    let proposal = assertProposal(given);
    // One operator, one identity, as tenant_bind and confirm have it: "user_42 " must not
    // hash apart from "user_42" (a rejected call would slip past the dedupe, and no confirmation would match).
    if (proposal.operator !== proposal.operator.trim()) proposal = { ...proposal, operator: proposal.operator.trim() };
    // The reviewer judges the proposal's action, the gate hashes and records
    // the tool: they must be the same tool, or a harmless action could be
    // approved for a destructive one.
    if (proposal.action !== tool.name) {
      throw new CountersignError('E_PROPOSAL', `the proposal's action "${proposal.action}" is not the gated tool "${tool.name}"`, {
        pointer: '/action',
        fix: 'set action to the name of the tool being called: a proposal asks to run exactly the tool it names',
      });
    }
    const persona = personas.forTool(tool.name);
    const hash = proposalHash(proposal.operator, tool.name, proposal.target as JsonObject);
    const row = (fields: Partial<ProposalRow>): ProposalRow =>
      writeProposal(config.store, { ...rowBase(proposal, tool.name, hash, persona), ...fields } as ProposalRow, now());
    if (tool.class !== 'read' && skip.has(tool.name)) {
      const skipped = row({ status: 'skipped', reason: proposal.reason });
      return { outcome: 'skipped', proposalId: skipped.id, row: skipped };
    }
    let confirmation: ConfirmationRow | undefined;
    // A read call is never reviewed: the flag has nothing to ignore there, and nothing is said about it.
    if (proposal.force_approve_no_sop === true && tool.class !== 'read') {
      const check = checkConfirmation(config.store, proposal.confirmation_id, { operator: proposal.operator, action: proposal.action, target: proposal.target as JsonObject }, now());
      if (check.ok) confirmation = findConfirmation(config.store, proposal.confirmation_id!);
      else {
        log(`force_approve_no_sop on ${tool.name} for ${proposal.operator} is ignored: ${check.why}`);
      }
    }
    // The row names a confirmation only when the review was given under it.
    if (!confirmation && (proposal.force_approve_no_sop !== undefined || proposal.confirmation_id !== undefined)) {
      const { force_approve_no_sop: _flag, confirmation_id: _id, ...rest } = proposal;
      proposal = rest as Proposal;
    }
    if (tool.class !== 'read') {
      const earlier = dedupe.repeatOf(hash, { fromLedger: confirmation !== undefined });
      if (earlier && !confirmationReopens(config.store, confirmation, earlier)) {
        const repeat = row({ status: 'rejected', reason: earlier.reason, missing_gates: earlier.missing_gates, deduped: true });
        return { outcome: 'rejected', reason: earlier.reason, proposalId: repeat.id, row: repeat };
      }
    }
    // The review takes an answer only from this identity: a secret of this
    // call, so no one else with the store (countersign step, an MCP client)
    // can answer — and approve — the review in the reviewer's place.
    const answerer = `${GATE_ID}:${randomBytes(16).toString('hex')}`;
    const input = {
      tool: tool.name,
      tool_class: tool.class,
      proposal: proposal as unknown as JsonObject,
      proposal_hash: hash,
      persona: { ...personas.inputFor(persona, catalog), answerer_sha256: sha256(answerer) } as unknown as JsonObject,
    };
    const ran: ToolCallRecord[] = [];
    const result = await engine.run(workflow, { agent: reviewer, as: persona.name, reviewerAs: answerer, input, tools: runnerFor(ran), agentTimeoutMs: timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
    // The reviewer crashed or its process failed: fail closed through the
    // workflow itself, so its record node writes the rejected row. Tools it
    // ran before failing are journaled once: by the driver when they went
    // through $tool mediation, else (a library reviewer calling the runner
    // directly) with this answer.
    let state = await engine.status(result.runId);
    if (state.status === 'waiting') {
      const seq = state.seq;
      const journaled = (await engine.trace(result.runId)).events.some((e) => e.type === 'tool.called' && e.seq === seq);
      const toolCalls = ran.length > 0 && !journaled ? { toolCalls: ran } : {};
      // Interrupted by the host: said as such (the gate ends the run here, it does not wait on).
      const why = result.error?.code === 'E_INTERRUPTED' ? 'the review was interrupted before the reviewer replied' : result.error?.message ?? 'the reviewer stopped without a reply';
      state = await engine.submit(result.runId, { $error: why }, { seq, as: answerer, ...toolCalls });
    }
    if (state.status !== 'completed' || !state.outcome) {
      throw new CountersignError('E_GATE_WORKFLOW', `the gate workflow ended ${state.status === 'failed' ? `failed (${state.error.code}: ${state.error.message})` : 'without an outcome'}`, {
        fix: 'the gate workflow must end at an end node with an outcome (approved, rejected, timeout or pass); check it with countersign validate',
      });
    }
    const outcome = state.outcome as GateResult['outcome'];
    const rowId = Object.entries(state.output).find(([k]) => k.endsWith('.rowId'))?.[1];
    const written = typeof rowId === 'string' ? (proposalsByHash(config.store, hash).find((r) => r.id === rowId) ?? null) : null;
    if (outcome === 'pass') return { outcome, row: null, runId: result.runId };
    if (!written) {
      throw new CountersignError('E_GATE_WORKFLOW', `the gate workflow ended at "${outcome}" without recording a proposal row`, {
        fix: 'every outcome but pass must pass through a record node writing chat_mutating_proposals',
      });
    }
    // A rejection is remembered; an approval supersedes one remembered for the same call.
    dedupe.remember(written);
    const verdict: GateResult = { outcome, proposalId: written.id, row: written, runId: result.runId };
    if (outcome === 'rejected') verdict.reason = written.reason;
    if (outcome === 'timeout') verdict.timeoutMs = timeoutMs;
    return verdict;
  }

  return {
    review,
    decide: async (proposal, tool) => {
      const { row: _row, runId: _run, ...verdict } = await review(proposal, tool);
      return verdict as GateVerdict;
    },
    skip,
    timeoutMs,
    personas: personas.names,
    warnings: [...personas.warnings, ...toolWarnings(personas.all, catalog)],
  };
}

/**
 * A persona that lists tools the gate provides none of: its prompt names
 * them, yet the reviewer is told it may call none, and a persona whose
 * gates need look-ups rejects every call. Said when the gate is built (the
 * CLI's `gate` has no tools to lend; a library host passes them).
 */
function toolWarnings(personas: readonly Persona[], catalog: readonly CatalogTool[]): string[] {
  return personas
    .filter((p) => p.tools.length > 0 && effectiveTools(p, catalog).length === 0)
    .map((p) => `persona "${p.name}" lists tools (${p.tools.join(', ')}) but this gate provides none of them: its reviewer is told it may call no tool, and must decide from the proposal alone; pass the host's read tools as createGate({ tools }) (countersign gate has none to lend)`);
}

/**
 * A user's confirmation is new information only for a rejection that was
 * for a missing SOP and that the confirmation postdates: such a repeat is
 * reviewed afresh (§4.5, §4.6). Any other rejection stays a repeat for its
 * whole window, and one confirmation reopens a rejection at most once (the
 * fresh review's own rejection is newer than the confirmation).
 */
/**
 * A confirmation reopens a rejection for a missing SOP recorded before it,
 * once: a review it reopened that decided (approved, or rejected with the
 * reviewer's reply) used it up. One that decided nothing (the reviewer
 * crashed, timed out) did not.
 */
function confirmationReopens(store: Store, confirmation: ConfirmationRow | undefined, earlier: ProposalRow): boolean {
  if (confirmation === undefined || !rejectedForNoSop(earlier) || Date.parse(confirmation.at) < Date.parse(earlier.at)) return false;
  const decided = (r: ProposalRow) => r.status === 'approved' || (r.status === 'rejected' && typeof r.decision_text === 'string' && r.decision_text.trim() !== '');
  return !proposalsByHash(store, earlier.proposal_hash as string).some((r) => r.confirmation_id === confirmation.id && r.by_gate !== false && r.deduped !== true && decided(r));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function rowBase(p: Proposal, tool: string, hash: string, persona: { name: string; model: string }): Omit<ProposalRow, 'id' | 'at' | 'status'> {
  return {
    operator: p.operator,
    tool,
    action: p.action,
    target: p.target as JsonObject,
    reason: p.reason,
    proposal_reason: p.reason,
    blast_radius: p.blast_radius,
    context_summary: p.context_summary,
    decision_text: null,
    sop_id: null,
    rollback: null,
    missing_gates: null,
    deduped: false,
    proposal_hash: hash,
    persona: persona.name,
    model: persona.model,
    // Rows written here are no review given under a confirmation, and hold no reviewer text.
    confirmation_id: null,
    reviewer_output: null,
  };
}

/** The shipped gate workflow, from the source tree or a bundle in dist/. */
export function shippedGateWorkflow(): string {
  const candidates = ['../../workflows/ongrid-review-gate.json', '../workflows/ongrid-review-gate.json'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}

/** The workflow file, validated, with the gate's ceiling on its decision reviews. */
function gateWorkflow(path: string, timeoutMs: number): Workflow {
  const { workflow } = loadValidWorkflow(path);
  const nodes = workflow.nodes.map((n) => (n.type === 'delegate-review' && n.contract === 'decision' ? { ...n, timeoutMs } : n));
  return { ...workflow, nodes };
}

export interface ReviewGateConfig extends GateConfig {
  /** A review started: the caller can show "review pending" (B9). */
  onPending?: ReviewGateOptions['onPending'];
  onSettled?: ReviewGateOptions['onSettled'];
}

/**
 * The review_gate decorator for `chain()`, backed by the gate workflow:
 * `chain(tool, { tenantBind, reviewGate: reviewGate({store, reviewer}), … })`.
 * Construction fails for a missing or untrusted persona and a ceiling under
 * 30 s; `gate.warnings` says when more than one persona is in use.
 */
export function reviewGate(config: ReviewGateConfig): ReviewGate & { gate: Gate } {
  const gate = createGate(config);
  const decorator = reviewGateDecorator({
    decide: gate.decide,
    skip: gate.skip,
    reviewTimeoutMs: gate.timeoutMs,
    ...(config.onPending ? { onPending: config.onPending } : {}),
    ...(config.onSettled ? { onSettled: config.onSettled } : {}),
    ...(config.log ? { log: config.log } : {}),
  });
  // personaFor names tools too: a misspelt key would leave that tool with the default reviewer.
  const namedTools = Object.freeze([...new Set([...(decorator.namedTools ?? []), ...Object.keys(config.personaFor ?? {})])]);
  return Object.assign(decorator, { gate, namedTools });
}

/**
 * Only the gate spawns a reviewer persona (A2, A3): a host's own spawner
 * (an AgentTool, a coordinator's catalog) calls this before starting any
 * persona, and a reviewer persona name is refused.
 */
export function refuseReviewerSpawn(persona: string, gate: Pick<Gate, 'personas'>): void {
  if (gate.personas.has(persona)) {
    throw new CountersignError('E_PERSONA_RESERVED', `persona "${persona}" is a review gate reviewer: only the gate may spawn it`, {
      fix: 'call the mutating tool itself; the review gate spawns its reviewer for that call',
    });
  }
}
