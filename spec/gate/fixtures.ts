/** Tools, a scripted gate and an in-memory audit sink for the chain suites. */
import { defineTool, type BlastRadius, type Tool, type ToolClass, type ToolRunContext } from '../../engine/tools/tool.js';
import { chain, type ChainedTool } from '../../engine/gate/chain.js';
import type { JsonObject } from '../../engine/format/model.js';
import type { Proposal } from '../../engine/gate/proposal.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { reviewGateDecorator, type GateVerdict, type ReviewGate, } from '../../engine/gate/decorators/review-gate.js';
import { timeoutDecorator } from '../../engine/gate/decorators/timeout.js';
import { auditDecorator, type ExecutionRow } from '../../engine/gate/decorators/audit.js';
import { rateLimitDecorator } from '../../engine/gate/decorators/rate-limit.js';
import { metricDecorator, type MetricDecorator } from '../../engine/gate/decorators/metric.js';
import { FakeClock } from './fake-clock.js';

export const RESTART_SCHEMA: JsonObject = {
  type: 'object',
  properties: { device_id: { type: 'integer' }, service: { type: 'string', minLength: 1 } },
  required: ['device_id', 'service'],
  additionalProperties: false,
};

export interface SpyTool {
  tool: Tool;
  calls: { args: JsonObject; ctx: ToolRunContext }[];
}

/** A tool that records its calls and returns a fresh result object (or runs `body`). */
export function spyTool(
  cls: ToolClass,
  options: { name?: string; blastRadius?: BlastRadius; body?: (args: JsonObject, ctx: ToolRunContext) => unknown } = {},
): SpyTool {
  const calls: SpyTool['calls'] = [];
  const tool = defineTool({
    name: options.name ?? { read: 'query_promql', write: 'host_restart_service', destructive: 'kill_process' }[cls],
    class: cls,
    ...(options.blastRadius ? { blastRadius: options.blastRadius } : {}),
    inputSchema: RESTART_SCHEMA,
    run: (args, ctx) => {
      calls.push({ args, ctx });
      return options.body ? options.body(args, ctx) : { restarted: args.service, on: args.device_id };
    },
  });
  return { tool, calls };
}

export interface ScriptedGate {
  decide: (proposal: Proposal, tool: Tool) => Promise<GateVerdict>;
  proposals: Proposal[];
}

/** A gate whose verdict is fixed (or computed); it records every proposal it is asked about. */
export function scriptedGate(verdict: GateVerdict | ((p: Proposal) => GateVerdict | Promise<GateVerdict>)): ScriptedGate {
  const proposals: Proposal[] = [];
  return {
    proposals,
    decide: async (proposal) => {
      proposals.push(proposal);
      const v = typeof verdict === 'function' ? await verdict(proposal) : verdict;
      // A real gate's decide records the proposal and names its row; one that names none is refused (tested on its own).
      return v && (v.outcome === 'approved' || v.outcome === 'skipped') ? { proposalId: `prop-${proposals.length}`, ...v } : v;
    },
  };
}

export function memorySink(): { rows: ExecutionRow[]; writeExecution(row: ExecutionRow): void } {
  const rows: ExecutionRow[] = [];
  return { rows, writeExecution: (row) => void rows.push(row) };
}

export interface FullChain {
  chained: ChainedTool;
  gate: ReviewGate;
  decide: ScriptedGate;
  sink: ReturnType<typeof memorySink>;
  metric: MetricDecorator;
  clock: FakeClock;
}

/** The library chain with every decorator, on a fake clock. */
export function fullChain(
  tool: Tool,
  verdict: Parameters<typeof scriptedGate>[0],
  options: { skip?: string[]; clock?: FakeClock } = {},
): FullChain {
  const clock = options.clock ?? new FakeClock();
  const decide = scriptedGate(verdict);
  const sink = memorySink();
  const gate = reviewGateDecorator({ decide: decide.decide, skip: options.skip });
  const metric = metricDecorator({ now: clock.now });
  let n = 0;
  const chained = chain(tool, {
    tenantBind: tenantBindDecorator(),
    reviewGate: gate,
    timeout: timeoutDecorator({ timers: clock.timers }),
    audit: auditDecorator({ sink, now: clock.now, newId: () => `exec-${++n}` }),
    rateLimit: rateLimitDecorator({ now: clock.now }),
    metric,
  });
  return { chained, gate, decide, sink, metric, clock };
}

export const ARGS = { device_id: 7, service: 'nginx' };
export const CTX = { userId: 'user_42', reason: 'User reported 502; nginx error log shows OOM', contextSummary: 'nginx on node-01 returns 502' };
