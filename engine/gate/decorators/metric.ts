/**
 * metric: in-memory counts and durations per tool. It is the innermost
 * decorator, so a duration is the inner tool's own time, without the review
 * or the rate limit, and only calls that reached the tool are counted.
 */
import { CountersignError, isCountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import type { ToolDecorator } from '../chain.js';
import { untilStopped } from './until-stopped.js';

export interface ToolMetrics {
  calls: number;
  ok: number;
  failed: number;
  /** Failures by error code; errors that are not CountersignErrors count as `error`. */
  failures: Record<string, number>;
  totalMs: number;
  maxMs: number;
}

export interface MetricDecorator extends ToolDecorator {
  /** A copy of the counts so far, by tool name. */
  snapshot(): Record<string, ToolMetrics>;
}

export interface MetricOptions {
  /** Milliseconds from any origin; injectable for tests. */
  now?: () => number;
}

export function metricDecorator(options: MetricOptions = {}): MetricDecorator {
  if (options === null || typeof options !== 'object' || (options.now !== undefined && typeof options.now !== 'function')) {
    throw new CountersignError('E_CHAIN_INVALID', `metricDecorator: options must be an object whose now, if given, is a function returning milliseconds, got ${options === null || typeof options !== 'object' ? said(options) : `now ${said(options.now)}`}`, {
      fix: 'pass { now?: () => performance.now() }, or nothing',
    });
  }
  const now = options.now ?? (() => performance.now());
  const byTool = new Map<string, ToolMetrics>();
  const entry = (name: string): ToolMetrics => {
    let m = byTool.get(name);
    if (!m) byTool.set(name, (m = { calls: 0, ok: 0, failed: 0, failures: {}, totalMs: 0, maxMs: 0 }));
    return m;
  };
  return {
    position: 'metric',
    snapshot: () => Object.fromEntries([...byTool].map(([name, m]) => [name, { ...m, failures: { ...m.failures } }])),
    wrap: (next, tool) => async (call) => {
      const m = entry(tool.name);
      m.calls++;
      const started = now();
      const record = (): void => {
        const ms = now() - started;
        m.totalMs += ms;
        m.maxMs = Math.max(m.maxMs, ms);
      };
      try {
        // A call the timeout stops is a failure (E_TOOL_TIMEOUT), even if the tool never settles.
        const result = await untilStopped(next(call), call.ctx?.signal, tool.name);
        record();
        m.ok++;
        return result;
      } catch (err) {
        record();
        m.failed++;
        const code = isCountersignError(err) ? err.code : 'error';
        m.failures[code] = (m.failures[code] ?? 0) + 1;
        throw err;
      }
    },
  };
}
