/**
 * The Ongrid agent host: the seed's tool bag, with every mutating tool
 * behind the fixed decorator chain
 *
 *   tenant_bind → review_gate → timeout → audit → ratelimit → metric → tool
 *
 * and the review gate running workflows/ongrid-review-gate.json with the
 * rule-based reviewer (reviewer.mjs) as a `jsonl` command. Proposal rows,
 * execution rows and confirmations share one countersign store; the fleet
 * is a second SQLite file. Both live in the run's temp folder.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  auditDecorator,
  CountersignError,
  chain,
  createAgent,
  createSqliteStore,
  defineTool,
  metricDecorator,
  rateLimitDecorator,
  refuseReviewerSpawn,
  reviewGate,
  tenantBindDecorator,
  timeoutDecorator,
  writeExecution,
  type Agent,
  type AgentRequest,
  type Gate,
  type PendingReview,
  type Store,
  type Tool,
  type ToolCallContext,
} from '../../engine/index.js';
import { createSimClock, type SimClock } from './clock.js';
import { openFleet, type Fleet } from './fleet.js';
import { readTools } from './read-tools.js';
import { writeTools } from './write-tools.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REVIEWER_SCRIPT = fileURLToPath(new URL('./reviewer.mjs', import.meta.url));

/** What the reviewer process was asked, as the host saw it: one per reviewer run. */
export interface ReviewerRun {
  persona: { name: string; model: string; max_turns: number; tools: string[] };
  action: string;
}

/** What the host observed while the last call was in flight. */
export interface CallTrace {
  pending: PendingReview[];
  reviewerRuns: ReviewerRun[];
  /** The reviewer's `$tool` look-ups, in order, as the gate ran them. */
  lookups: Array<{ name: string; args: unknown }>;
  /** What the gate said it ignored (an unconfirmed force_approve_no_sop). */
  gateLog: string[];
}

export interface OngridHost {
  readonly clock: SimClock;
  readonly fleet: Fleet;
  readonly store: Store;
  readonly gate: Gate;
  /** The tool bag by name: read tools as defined, mutating ones chained. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** One tool call as the coordinator makes it; `trace` collects what happened around it. */
  call(name: string, args: unknown, ctx: ToolCallContext): Promise<unknown>;
  /** Starts a fresh trace and returns it. */
  startTrace(): CallTrace;
  reviewerRuns(): number;
  metrics(): ReturnType<ReturnType<typeof metricDecorator>['snapshot']>;
  close(): Promise<void>;
}

/** The shipped rule-based reviewer, as a `jsonl` adapter spec. */
export const RULE_BASED_REVIEWER = `jsonl:${shellQuote(process.execPath)} ${shellQuote(REVIEWER_SCRIPT)}`;

export interface HostOptions {
  /** The reviewer adapter (`jsonl:<command>` for a model CLI); the rule-based reviewer by default. */
  reviewer?: string;
}

export function createOngridHost(dir: string, options: HostOptions = {}): OngridHost {
  // A real reviewer thinks in real seconds: the clock runs with them (the default reviewer answers at once, on a still clock).
  const clock = createSimClock(undefined, { realTime: options.reviewer !== undefined });
  const fleet = openFleet(join(dir, 'fleet.db'), clock);
  const store = createSqliteStore(join(dir, 'store'));
  let trace: CallTrace = newTrace();
  let runs = 0;

  // The reviewer is an external process (jsonl by default); the host counts
  // its runs (A7) and notes what each was asked (B7, B10).
  const jsonl = createAgent(options.reviewer ?? RULE_BASED_REVIEWER, { cwd: ROOT, flag: '--reviewer' });
  const reviewer: Agent = {
    answer(request: AgentRequest, answerOptions) {
      runs++;
      if (request.kind === 'review' && request.contract === 'decision') {
        trace.reviewerRuns.push({ persona: request.persona, action: String(request.proposal.action) });
      }
      return jsonl.answer(request, answerOptions);
    },
    close: () => jsonl.close?.() ?? Promise.resolve(),
  };

  const reads = readTools(fleet, clock);
  const gated = reviewGate({
    store,
    reviewer,
    tools: reads.map((t) => asReviewerLookup(t, clock, (name, args) => trace.lookups.push({ name, args }))),
    now: () => clock.now(),
    log: (m) => trace.gateLog.push(m),
    onPending: (review) => trace.pending.push(review),
  });

  const decorators = {
    // An operator the host does not know gets no operator: the call fails closed.
    tenantBind: tenantBindDecorator({ resolve: (ctx) => (ctx.userId && fleet.operatorRole(ctx.userId) ? ctx.userId : undefined) }),
    reviewGate: gated,
    timeout: timeoutDecorator(),
    audit: auditDecorator({ sink: { writeExecution: (row) => void writeExecution(store, row) }, now: () => clock.ms() }),
    rateLimit: rateLimitDecorator({ now: () => clock.ms() }),
    metric: metricDecorator(),
  };
  const tools = new Map<string, Tool>();
  for (const t of reads) tools.set(t.name, t);
  for (const t of writeTools(fleet, clock, gated.gate)) {
    const chained = chain(t, decorators);
    tools.set(t.name, t.name === 'AgentTool' ? refusingReviewerSpawn(chained, gated.gate) : chained);
  }

  return {
    clock,
    fleet,
    store,
    gate: gated.gate,
    tools,
    call(name, args, ctx) {
      const tool = tools.get(name);
      if (!tool) {
        return Promise.reject(new CountersignError('E_TOOL_DENIED', `the Ongrid host has no tool "${name}"`, {
          fix: `call one of ${[...tools.keys()].join(', ')}`,
        }));
      }
      return tool.run(args, ctx);
    },
    startTrace: () => (trace = newTrace()),
    reviewerRuns: () => runs,
    metrics: () => decorators.metric.snapshot(),
    async close() {
      await reviewer.close?.();
      store.close();
      fleet.close();
    },
  };
}

function newTrace(): CallTrace {
  return { pending: [], reviewerRuns: [], lookups: [], gateLog: [] };
}

/**
 * A read tool as the reviewer calls it through the gate's `$tool`
 * mediation: the same tool, observed, with the reviewer's model time for the
 * turn charged to the simulated clock before the look-up is answered.
 */
function asReviewerLookup(tool: Tool, clock: SimClock, observe: (name: string, args: unknown) => void): Tool {
  return defineTool({
    name: tool.name,
    class: tool.class,
    // The reviewer's toolSpecs carry it: a model reads what each look-up is for.
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    run: (args, ctx) => {
      clock.advance(clock.reviewerTurnMs);
      observe(tool.name, args);
      return tool.run(args, ctx);
    },
  });
}

/**
 * The host's own spawner check (A2, A3): an AgentTool call naming a reviewer
 * persona is refused before the chain, so it costs no review and leaves no
 * row; any other persona goes through the gate like every write.
 */
function refusingReviewerSpawn(chained: Tool, gate: Gate): Tool {
  return {
    ...chained,
    run(args, ctx) {
      const checked = chained.checkArgs(args) as { persona: string };
      try {
        refuseReviewerSpawn(checked.persona, gate);
      } catch (e) {
        return Promise.reject(e);
      }
      return chained.run(checked, ctx);
    },
  };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
