/**
 * The example's simulated clock. Everything that reads time — the gate, the
 * audit decorator, the rate limit, the fleet's audit history and the read
 * tools the reviewer calls — reads this clock, so the 5-minute and
 * 10-minute rules and the gate's 60 s ceiling are exercised without waiting
 * for real time to pass. It moves only when the host moves it.
 */

/** When the simulated day starts; the fleet's history is dated before it. */
export const SIMULATION_START = Date.parse('2026-07-24T09:00:00.000Z');

export interface SimClock {
  /** Epoch milliseconds. */
  ms(): number;
  now(): Date;
  iso(): string;
  advance(ms: number): void;
  /**
   * Simulated model time charged for each reviewer turn (a look-up it makes):
   * 0 for a prompt reviewer; the timeout scenario raises it past the ceiling.
   */
  reviewerTurnMs: number;
}

export function createSimClock(start: number = SIMULATION_START): SimClock {
  let t = start;
  return {
    ms: () => t,
    now: () => new Date(t),
    iso: () => new Date(t).toISOString(),
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the simulated clock only moves forward, not by ${ms} ms`);
      t += ms;
    },
    reviewerTurnMs: 0,
  };
}

/** `d` minutes before the simulation starts, as ISO-8601 (for seeding history). */
export function minutesBeforeStart(d: number): string {
  return new Date(SIMULATION_START - d * 60_000).toISOString();
}
