/**
 * timeout: a ceiling on the inner call only (A10). It sits inside the review
 * gate, so a review has its own, longer budget and a slow reviewer is never
 * cut at the tool's limit (A9). When the limit passes, the call fails with
 * E_TOOL_TIMEOUT and the signal handed down the chain is aborted, so a tool
 * that honours `ctx.signal` stops; the audit decorator below still records
 * how the inner call ended.
 */
import { CountersignError, isCountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import type { ToolDecorator } from '../chain.js';
import { stopReason, stopRecordings } from './until-stopped.js';

/** The inner tool's ceiling (A10). */
export const DEFAULT_TOOL_TIMEOUT_MS = 15_000;

/** Timer functions, injectable so tests can run on a fake clock. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface TimeoutOptions {
  /** Milliseconds; default 15 000. */
  ms?: number;
  /** Per-tool limits by tool name, for tools that are legitimately slower. */
  perTool?: Record<string, number>;
  timers?: Timers;
}

export function timeoutDecorator(options: TimeoutOptions = {}): ToolDecorator {
  const perToolBad = options !== null && typeof options === 'object' && options.perTool !== undefined && (options.perTool === null || typeof options.perTool !== 'object' || Array.isArray(options.perTool));
  if (options === null || typeof options !== 'object' || perToolBad) {
    throw new CountersignError('E_CHAIN_INVALID', `timeoutDecorator: options must be an object, with perTool an object of milliseconds by tool name, got ${perToolBad ? `perTool ${said(options.perTool)}` : said(options)}`, {
      fix: 'pass { ms?, perTool?: { <tool>: ms } }, or nothing for the 15 s default',
    });
  }
  // Only ms left out is the default: null is a value of the wrong type, as for every other decorator limit.
  const defaultMs = options.ms === undefined ? DEFAULT_TOOL_TIMEOUT_MS : checkMs(options.ms, 'ms');
  const perTool = new Map(Object.entries(options.perTool ?? {}).map(([name, ms]) => [name, checkMs(ms, `perTool.${name}`)]));
  const given = options.timers as Partial<Record<'setTimeout' | 'clearTimeout', unknown>> | undefined;
  if (given !== undefined && (given === null || typeof given !== 'object' || typeof given.setTimeout !== 'function' || typeof given.clearTimeout !== 'function')) {
    throw new CountersignError('E_CHAIN_INVALID', 'timeoutDecorator: timers, if given, must have setTimeout and clearTimeout functions', {
      fix: 'leave timers out for the real ones (tests pass a fake clock\'s)',
    });
  }
  const timers = options.timers ?? realTimers;
  return {
    position: 'timeout',
    namedTools: Object.freeze([...perTool.keys()]),
    wrap: (next, tool) => {
      const ms = perTool.get(tool.name) ?? defaultMs;
      return (call) => new Promise((resolve, reject) => {
        const controller = new AbortController();
        const outer = call.ctx.signal;

        let settled = false;
        let expired: CountersignError | undefined;
        let grace: ReturnType<typeof setTimeout> | undefined;
        let handle: unknown;
        const finish = (): boolean => {
          if (settled) return false;
          settled = true;
          timers.clearTimeout(handle);
          if (grace !== undefined) clearTimeout(grace);
          outer?.removeEventListener('abort', forwardAbort);
          return true;
        };
        // The limit passing, or the caller cancelling: the inner call is told
        // to stop, and the caller hears why (typed) once it is recorded.
        const stopWith = (reason: CountersignError): void => {
          if (settled || expired) return;
          expired = reason;
          controller.abort(reason);
          // The decorators inside (audit, metric) record the stop before the
          // caller hears of it; the wait is bounded, as a chain without them
          // around a tool that ignores its signal would never settle. A row
          // still being written is waited for (its failure is E_STORE, which
          // the caller must hear): the bound is on the tool, not the sink.
          grace = setTimeout(() => {
            const writing = stopRecordings(controller.signal);
            if (writing.length === 0) {
              if (finish()) reject(reason);
              return;
            }
            void Promise.all(writing).then(() => setImmediate(() => { if (finish()) reject(reason); }));
          }, STOP_GRACE_MS);
        };
        const forwardAbort = (): void => stopWith(stopReason(outer!, tool.name));
        handle = timers.setTimeout(() => {
          stopWith(new CountersignError('E_TOOL_TIMEOUT', `tool "${tool.name}" did not finish within ${ms / 1000}s and was told to stop`, {
            fix: 'the tool may still have taken effect: check its state before calling it again; '
              + 'raise the limit with timeoutDecorator({perTool}) only if the tool is legitimately slow',
            data: { tool: tool.name, timeoutMs: ms },
          }));
        }, ms);
        // Aborted already: the chain refuses to start the tool (E_TOOL_CANCELLED, before it started).
        if (outer?.aborted) controller.abort(outer.reason);
        else outer?.addEventListener('abort', forwardAbort, { once: true });

        let inner: Promise<unknown>;
        try {
          inner = next({ ...call, ctx: { ...call.ctx, signal: controller.signal } });
        } catch (err) {
          inner = Promise.reject(err);
        }
        // After the limit the caller is told E_TOOL_TIMEOUT, whatever the inner
        // call did since, unless recording it failed (E_STORE: the call
        // started and is not on the record, which the caller must know).
        inner.then(
          (value) => { if (finish()) (expired ? reject(expired) : resolve(value)); },
          (err) => { if (finish()) reject(expired && !(isCountersignError(err) && err.code === 'E_STORE') ? expired : err); },
        );
      });
    },
  };
}

/** How long a stopped call's inner decorators have to record it before the caller is told anyway. */
const STOP_GRACE_MS = 1_000;

/** Node's timers hold at most this (about 24.8 days); a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

function checkMs(ms: unknown, what: string): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
    throw new CountersignError('E_CHAIN_INVALID', `timeoutDecorator: ${what} must be a positive number of milliseconds up to ${MAX_TIMER_MS} (about 24.8 days, the longest timer Node keeps), got ${said(ms)}`, {
      fix: `leave it out for the default ${DEFAULT_TOOL_TIMEOUT_MS} ms, or pass a positive number no larger than ${MAX_TIMER_MS}`,
    });
  }
  return ms;
}
