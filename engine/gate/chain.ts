/**
 * The tool decorator chain (A8):
 *
 *   tenant_bind → review_gate → timeout → audit → ratelimit → metric → inner
 *
 * The order is fixed here, not by the caller, because each position carries
 * a guarantee:
 * - review_gate inside tenant_bind: the proposal's `operator` is the bound
 *   user id, never something the caller typed (A15).
 * - review_gate outside timeout: the review has its own 60 s ceiling; the
 *   inner tool's 15 s limit must not cut a review short (A9, A10).
 * - review_gate outside audit: a rejected call never executed, so it leaves
 *   no execution row; the gate writes the proposal row instead (A12–A14).
 * - audit outside ratelimit and metric: every attempt that got past the
 *   gate is recorded, including one the rate limit refused.
 *
 * A `write` or `destructive` tool without a review gate is refused at
 * construction (A5). Exempting one is done on the gate itself (its `skip`),
 * so the exemption is configuration the gate sees, and every skipped call
 * still writes a `skipped` row (A6).
 */
import { CountersignError } from '../errors.js';
import { shown } from '../format/said.js';
import { cancelled } from './decorators/until-stopped.js';
import type { JsonObject } from '../format/model.js';
import { asTool, describeArgProblem, isGated, isTool, jsonArgProblem, TOOL_CLASSES, type Tool, type ToolCallContext, type ToolRunContext } from '../tools/tool.js';

/** The chain, outermost first, as data (A8). `inner` is the wrapped tool. */
export const CHAIN_ORDER = Object.freeze(['tenant_bind', 'review_gate', 'timeout', 'audit', 'ratelimit', 'metric', 'inner'] as const);

export type ChainPosition = Exclude<(typeof CHAIN_ORDER)[number], 'inner'>;

/** One call as it travels down the chain. Decorators pass a copy on, adding what they established. */
export interface ToolCall {
  /** The wrapped (inner) tool. */
  readonly tool: Tool;
  /** Arguments that already satisfy the tool's inputSchema. */
  readonly args: JsonObject;
  readonly ctx: ToolCallContext;
  /** Set by tenant_bind: the operator's user id resolved from `ctx`. */
  readonly operator?: string;
  /** Set by review_gate: the ledger row that approved or skipped the call. */
  readonly proposalId?: string;
  /**
   * The inner tool's own run, once it started, shared by every decorator's
   * view of the call: a call stopped from outside whose tool ignores the
   * stop may still finish, and audit records that it took effect.
   */
  readonly ran?: InnerRun;
}

/** The inner tool's run as the chain started it; `settled` once it ended, however. */
export interface InnerRun {
  promise?: Promise<unknown>;
  settled: boolean;
}

/** The rest of the chain below a decorator. */
export type ToolInvoke = (call: ToolCall) => Promise<unknown>;

/**
 * A decorator claims one position. `wrap` is called once per chained tool,
 * at construction, and returns the function that handles each call.
 */
export interface ToolDecorator {
  readonly position: ChainPosition;
  wrap(next: ToolInvoke, tool: Tool): ToolInvoke;
  /**
   * Tools the decorator's options single out by name (`perTool` keys, a
   * gate's `skip` list). A decorator may wrap the tools of many chains, so
   * `chain()` cannot tell a misspelt name; a run given the decorator
   * checks them against its own tools (E_CHAIN_INVALID).
   */
  readonly namedTools?: readonly string[];
}

/** A review gate decorator also declares which tools it exempts (they still write a `skipped` row). */
export interface ReviewGateDecorator extends ToolDecorator {
  readonly position: 'review_gate';
  readonly skip: ReadonlySet<string>;
}

export interface ChainOptions {
  tenantBind?: ToolDecorator;
  reviewGate?: ReviewGateDecorator;
  timeout?: ToolDecorator;
  audit?: ToolDecorator;
  rateLimit?: ToolDecorator;
  metric?: ToolDecorator;
}

const OPTION_POSITION: Record<keyof ChainOptions, ChainPosition> = {
  tenantBind: 'tenant_bind',
  reviewGate: 'review_gate',
  timeout: 'timeout',
  audit: 'audit',
  rateLimit: 'ratelimit',
  metric: 'metric',
};

/** A chained tool is a tool: same metadata, and `run` validates, then goes down the chain. */
export interface ChainedTool<A extends JsonObject = JsonObject, R = unknown> extends Tool<A, R> {
  /** The positions this chain holds, outermost first (a subset of CHAIN_ORDER, always in its order). */
  readonly positions: readonly ChainPosition[];
}

export function chain<A extends JsonObject, R>(given: Tool<A, R>, options: ChainOptions): ChainedTool<A, R> {
  // A class typo ("Write") or none at all must not read as "not gated".
  const inner = (given !== null && typeof given === 'object' && (TOOL_CLASSES as readonly unknown[]).includes((given as { class?: unknown }).class) && !isTool(given)
    // A plain spec {name, class, inputSchema, run} is defined here, as createEngine({tools}) does: checked now, never a TypeError at its first call.
    ? asTool(given) as unknown as Tool<A, R>
    : given);
  if (inner === null || typeof inner !== 'object' || !(TOOL_CLASSES as readonly unknown[]).includes(inner.class)) {
    const named = inner !== null && typeof inner === 'object' && typeof inner.name === 'string' ? `tool "${inner.name}"` : 'the tool';
    throw new CountersignError('E_TOOL_DEFINITION', `${named} has class ${JSON.stringify((inner as { class?: unknown } | null)?.class)}, not one of ${TOOL_CLASSES.join(', ')}`, {
      fix: 'build tools with defineTool({name, class: "read" | "write" | "destructive", …}); anything that changes state is write or destructive',
    });
  }
  const byPosition = placeDecorators(inner, options);
  requireGate(inner, byPosition);

  // The inner tool gets what the chain established; `run` validates again,
  // which costs microseconds and keeps the inner tool safe on its own.
  let invoke: ToolInvoke = (call) => {
    // Cancelled while queued by the rate limit or held by a decorator: the tool never starts.
    if (call.ctx.signal?.aborted) throw cancelled(inner.name, call.ctx.signal, 'before the tool started (nothing ran)');
    const ctx: ToolRunContext = { ...call.ctx, operator: call.operator, proposalId: call.proposalId };
    const running = inner.run(call.args, ctx);
    if (call.ran) {
      const ran = call.ran;
      ran.promise = running;
      void running.then(() => (ran.settled = true), () => (ran.settled = true));
    }
    return running;
  };
  const positions = CHAIN_ORDER.filter((p): p is ChainPosition => p !== 'inner' && byPosition.has(p));
  // A call cancelled before it gets past the gate (while tenant_bind resolves,
  // or while it is reviewed) stops there: no token, no execution row, no count.
  const checkpoint = (next: ToolInvoke): ToolInvoke => (call) => {
    const signal = call.ctx.signal;
    if (signal?.aborted) throw cancelled(inner.name, signal, inner.class === 'read' ? 'before the tool started (nothing ran)' : 'while it was reviewed (the review decided, but nothing ran)');
    return next(call);
  };
  let checked = false;
  for (const position of [...positions].reverse()) {
    if (!checked && (position === 'review_gate' || position === 'tenant_bind')) {
      invoke = checkpoint(invoke);
      checked = true;
    }
    invoke = byPosition.get(position)!.wrap(invoke, inner);
  }
  const outermost = invoke;

  const chained: ChainedTool<A, R> = {
    name: inner.name,
    class: inner.class,
    ...(inner.blastRadius !== undefined ? { blastRadius: inner.blastRadius } : {}),
    ...(inner.description !== undefined ? { description: inner.description } : {}),
    inputSchema: inner.inputSchema,
    positions: Object.freeze(positions),
    checkArgs: (args: unknown) => inner.checkArgs(args),
    // The chain adds no rules of its own: the inner tool's problems are the whole answer.
    argProblems: (args: unknown) => inner.argProblems(args),
    async run(args: unknown, ctx: ToolCallContext = {}): Promise<R> {
      // A context that is no object (null, a string) would fail deep inside the chain as a TypeError.
      if (ctx === null || typeof ctx !== 'object' || Array.isArray(ctx)) {
        throw new CountersignError('E_INPUT', `tool "${inner.name}" was called with a context that is ${shown(ctx)}, not an object`, {
          fix: 'call run(args, { userId, signal? }), or run(args) for none; the tool did not run and no ledger row was written',
        });
      }
      // Already cancelled: no review, no row, no run.
      if (ctx.signal?.aborted) throw cancelled(inner.name, ctx.signal, 'before it was reviewed: the tool did not run and no ledger row was written');
      // First, before tenant_bind, a proposal, a row or a token is spent (§4.13);
      // checkArgs includes the tool's own rules, e.g. the review body rule (§4.14).
      // One private copy is checked, reviewed, audited and run: a caller that
      // edits its object while the review is pending changes nothing approved.
      // Not plain JSON data (a function, undefined, a Date: structuredClone
      // would keep some, change others): the tool's own check names it, as
      // it would unchained.
      const odd = jsonArgProblem(args);
      let copy: unknown;
      try {
        if (odd) throw odd;
        copy = structuredClone(args);
      } catch {
        inner.checkArgs(args);
        const where = odd ? ` (${describeArgProblem(odd)})` : '';
        throw new CountersignError('E_TOOL_ARGS', `tool "${inner.name}" was called with arguments that are not plain JSON data${where}`, { ...(odd ? { pointer: odd.pointer } : {}), fix: `call ${inner.name} again with plain JSON arguments; the tool did not run and no ledger row was written` });
      }
      const checked = inner.checkArgs(copy);
      return (await outermost({ tool: inner, args: checked, ctx, ran: { settled: false } })) as R;
    },
  };
  return Object.freeze(chained);
}


function placeDecorators(inner: Tool, options: ChainOptions): Map<ChainPosition, ToolDecorator> {
  const invalid = (message: string, fix: string): never => {
    throw new CountersignError('E_CHAIN_INVALID', `chain for tool "${inner.name}": ${message}`, { fix });
  };
  const known = Object.keys(OPTION_POSITION).join(', ');
  if (options === null || typeof options !== 'object') invalid('options must be an object', `pass {${known}}`);
  const byPosition = new Map<ChainPosition, ToolDecorator>();
  for (const [key, decorator] of Object.entries(options)) {
    if (!Object.hasOwn(OPTION_POSITION, key)) {
      // A misspelt key would silently drop a decorator (e.g. rate limiting).
      invalid(`unknown option "${key}"`, `the options are ${known}`);
    }
    if (decorator === undefined) continue;
    const position = OPTION_POSITION[key as keyof ChainOptions];
    if (decorator === null || typeof decorator !== 'object' || typeof decorator.wrap !== 'function') {
      invalid(`option "${key}" is not a decorator`, `pass the ${position} decorator, or leave "${key}" out`);
    }
    if (decorator.position !== position) {
      invalid(`option "${key}" holds the ${String(decorator.position)} decorator, which belongs in another position`,
        `pass a ${position} decorator as "${key}"; the chain order is ${CHAIN_ORDER.join(' → ')}`);
    }
    byPosition.set(position, decorator);
  }
  return byPosition;
}

function requireGate(inner: Tool, byPosition: Map<ChainPosition, ToolDecorator>): void {
  // A gate without tenant_bind is a misconfiguration whatever the tool's
  // class: it would have no bound operator for any proposal it writes.
  if (byPosition.has('review_gate') && !byPosition.has('tenant_bind')) {
    throw new CountersignError('E_CHAIN_INVALID',
      `chain for tool "${inner.name}": a review gate needs tenant_bind, which supplies the proposal's operator (A15)`, {
        fix: 'pass tenantBind: tenantBindDecorator() alongside reviewGate',
      });
  }
  if (!isGated(inner)) return;
  if (!byPosition.has('review_gate')) {
    throw new CountersignError('E_GATE_REQUIRED',
      `tool "${inner.name}" has class ${inner.class} and no review gate: every write or destructive tool is second-signed`, {
        fix: `pass reviewGate to chain(); to exempt "${inner.name}" deliberately, name it in the gate's skip list `
          + `(skip: ["${inner.name}"]) so each skipped call is still recorded`,
      });
  }
}
