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

/**
 * `realTime`: the clock also runs with real time, from `start`. For a real
 * reviewer (`--reviewer`), whose thinking takes real seconds: the gate's
 * 60 s ceiling is then 60 real seconds, and a reviewer that stays silent
 * times out at it rather than waiting on a clock that never moves.
 */
export function createSimClock(start: number = SIMULATION_START, options: { realTime?: boolean } = {}): SimClock {
  let t = start;
  const realStart = Date.now();
  const ms = options.realTime ? () => t + (Date.now() - realStart) : () => t;
  return {
    ms,
    now: () => new Date(ms()),
    iso: () => new Date(ms()).toISOString(),
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
