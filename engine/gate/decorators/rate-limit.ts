/**
 * ratelimit: a token bucket per operator and tool. It sits inside audit, so
 * a refused call is still on the execution record, and inside the review
 * gate, so a refused call has already been reviewed: the limit protects the
 * systems the tools act on, not the reviewer (dedupe protects the reviewer).
 */
import { CountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import type { ToolDecorator } from '../chain.js';

export interface BucketLimit {
  /** Most calls in a burst. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
}

export const DEFAULT_RATE_LIMIT: Readonly<BucketLimit> = Object.freeze({ capacity: 10, refillPerSecond: 1 });

export interface RateLimitOptions extends Partial<BucketLimit> {
  /** Per-tool limits by tool name. */
  perTool?: Record<string, Partial<BucketLimit>>;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

// Buckets that have refilled completely carry no state worth keeping; past
// this many they are dropped, so a long-lived host does not grow per operator.
const PRUNE_ABOVE = 10_000;

/** The rate-limit decorator, with the number of buckets it holds (for a host's memory metrics). */
export interface RateLimitDecorator extends ToolDecorator {
  bucketCount(): number;
}

export function rateLimitDecorator(options: RateLimitOptions = {}): RateLimitDecorator {
  if (options === null || typeof options !== 'object' || (options.perTool !== undefined && (options.perTool === null || typeof options.perTool !== 'object' || Array.isArray(options.perTool))) || (options.now !== undefined && typeof options.now !== 'function')) {
    throw new CountersignError('E_CHAIN_INVALID', `rateLimitDecorator: options must be an object, with perTool an object of limits by tool name and now (if given) a function, got ${said(options)}`, {
      fix: 'pass { capacity?, refillPerSecond?, perTool?: { <tool>: { capacity?, refillPerSecond? } } }, or nothing for the defaults',
    });
  }
  const base = checkLimit({ ...DEFAULT_RATE_LIMIT, ...pick(options) }, 'rateLimitDecorator', pick(options));
  const perTool = new Map(Object.entries(options.perTool ?? {})
    .map(([name, l]) => [name, checkLimit({ ...base, ...pick(l) }, `rateLimitDecorator perTool.${name}`, l)]));
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();

  const refill = (b: Bucket, limit: BucketLimit, t: number): void => {
    // A wall clock stepped back (NTP, a host's own now) adds nothing and takes
    // no tokens away; the bucket goes on from the new reading, so it refills
    // as time passes from there (not only once the clock regains the old one).
    if (t <= b.at) {
      b.at = t;
      return;
    }
    b.tokens = Math.min(limit.capacity, b.tokens + ((t - b.at) / 1000) * limit.refillPerSecond);
    b.at = t;
  };
  const prune = (t: number): void => {
    for (const [key, b] of buckets) {
      const limit = perTool.get(key.slice(key.lastIndexOf('\u0000') + 1)) ?? base;
      refill(b, limit, t);
      if (b.tokens >= limit.capacity) buckets.delete(key);
    }
  };

  return {
    bucketCount: () => buckets.size,
    position: 'ratelimit',
    namedTools: Object.freeze([...perTool.keys()]),
    wrap: (next, tool) => {
      const limit = perTool.get(tool.name) ?? base;
      return async (call) => {
        // The operator tenant_bind bound; in a chain without it, the caller's
        // user id (what tenant_bind would bind), so one caller's calls never
        // use up another's bucket.
        const operator = call.operator ?? (typeof call.ctx?.userId === 'string' ? call.ctx.userId.trim() : '');
        const key = `${operator}\u0000${tool.name}`;
        const t = now();
        let bucket = buckets.get(key);
        if (!bucket) {
          if (buckets.size >= PRUNE_ABOVE) prune(t);
          bucket = { tokens: limit.capacity, at: t };
          buckets.set(key, bucket);
        }
        refill(bucket, limit, t);
        if (bucket.tokens < 1) {
          const retryAfterMs = Math.ceil(((1 - bucket.tokens) / limit.refillPerSecond) * 1000);
          throw new CountersignError('E_RATE_LIMITED',
            `tool "${tool.name}" is rate-limited for ${operator === '' ? 'calls that name no operator (no tenant_bind, no ctx.userId)' : `operator "${operator}"`}: at most ${limit.capacity} calls in a burst, `
            + `${limit.refillPerSecond} per second after that`, {
              fix: `wait ${Math.ceil(retryAfterMs / 1000)}s before calling ${tool.name} again; the call did not run`,
              data: { tool: tool.name, operator, retryAfterMs },
            });
        }
        bucket.tokens -= 1;
        return next(call);
      };
    },
  };
}

function pick(l: Partial<BucketLimit> | null): Partial<BucketLimit> {
  const out: Partial<BucketLimit> = {};
  // A perTool entry that is no object (null, a number, a list) is checked as the bad limit it is.
  if (l === null || typeof l !== 'object' || Array.isArray(l)) return { capacity: Number.NaN };
  if (l.capacity !== undefined) out.capacity = l.capacity;
  if (l.refillPerSecond !== undefined) out.refillPerSecond = l.refillPerSecond;
  return out;
}

/** `given` is what the caller wrote, named in the message (a perTool entry of 5, not the merged limits). */
function checkLimit(l: BucketLimit, where: string, given: unknown): BucketLimit {
  const positive = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (!positive(l.capacity) || !Number.isInteger(l.capacity) || !positive(l.refillPerSecond)) {
    throw new CountersignError('E_CHAIN_INVALID',
      `${where}: capacity must be a positive integer and refillPerSecond a positive number, got ${said(given)}`, {
        fix: `leave them out for ${DEFAULT_RATE_LIMIT.capacity} calls per burst and ${DEFAULT_RATE_LIMIT.refillPerSecond} per second`,
      });
  }
  return Object.freeze({ capacity: l.capacity, refillPerSecond: l.refillPerSecond });
}
