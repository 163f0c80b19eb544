/**
 * The tool chain a host hands `engine.run({toolChain})` so its agents may
 * call mutating tools with `$tool`: every write or destructive call is
 * second-signed by the gate workflow, and every call that runs leaves an
 * execution row in the same store as the proposal rows (A12–A14).
 *
 *   tenant_bind → review_gate → timeout → audit → inner
 *
 * The built-in gh tools keep their own 120 s ceiling: they talk to the
 * network, and cutting a comment at 15 s would leave "maybe posted".
 */
import { BUILTIN_TOOLS } from '../tools/builtin/index.js';
import { GH_TIMEOUT_MS } from '../tools/gh.js';
import type { ChainOptions } from './chain.js';
import { auditDecorator } from './decorators/audit.js';
import type { ReviewGate } from './decorators/review-gate.js';
import { tenantBindDecorator } from './decorators/tenant-bind.js';
import { timeoutDecorator, type TimeoutOptions } from './decorators/timeout.js';
import { reviewGate, type Gate, type ReviewGateConfig } from './gate.js';
import { writeExecution } from './ledger.js';

export interface GateToolChainConfig extends ReviewGateConfig {
  /** The inner call's ceiling; 15 s by default (A10), the gh built-ins 120 s. `timers` is for tests. */
  toolTimeout?: Pick<TimeoutOptions, 'ms' | 'perTool' | 'timers'>;
}

export type GateToolChain = ChainOptions & { reviewGate: ReviewGate & { gate: Gate } };

/** Builds the gate (E_GATE_CONFIG and persona errors surface here, before any run starts) and its chain. */
export function gateToolChain(config: GateToolChainConfig): GateToolChain {
  const gated = reviewGate(config);
  const builtinLimits = Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.name, GH_TIMEOUT_MS]));
  return {
    tenantBind: tenantBindDecorator(),
    reviewGate: gated,
    timeout: timeoutDecorator({
      ...(config.toolTimeout?.ms !== undefined ? { ms: config.toolTimeout.ms } : {}),
      perTool: { ...builtinLimits, ...(config.toolTimeout?.perTool ?? {}) },
      ...(config.toolTimeout?.timers ? { timers: config.toolTimeout.timers } : {}),
    }),
    audit: auditDecorator({ sink: { writeExecution: (row) => void writeExecution(config.store, row) } }),
  };
}
