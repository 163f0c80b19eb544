/**
 * A fake clock for the gate's time limits: `now()` for row times and rate
 * limits, `timers` for the timeout decorator, and `advance(ms)` that fires
 * due timers in time order, letting promise chains settle after each one.
 */
import type { Timers } from '../../engine/gate/decorators/timeout.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock {
  private t: number;
  private seq = 0;
  private queue: Pending[] = [];
  /** Every delay ever armed, in order, for asserting which limits exist. */
  readonly armed: number[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00.000Z')) {
    this.t = start;
  }

  now = (): number => this.t;

  sleep = (ms: number): Promise<void> => new Promise((resolve) => this.timers.setTimeout(resolve, ms));

  readonly timers: Timers = {
    setTimeout: (fn, ms) => {
      const entry: Pending = { at: this.t + ms, seq: this.seq++, fn };
      this.armed.push(ms);
      this.queue.push(entry);
      return entry;
    },
    clearTimeout: (handle) => {
      this.queue = this.queue.filter((p) => p !== handle);
    },
  };

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await settle();
    for (;;) {
      const due = this.queue.filter((p) => p.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.queue = this.queue.filter((p) => p !== due);
      this.t = due.at;
      due.fn();
      await settle();
    }
    this.t = target;
    await settle();
  }
}

/** Lets every queued promise continuation run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
