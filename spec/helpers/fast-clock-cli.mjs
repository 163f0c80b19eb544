/**
 * Runs the CLI from source on a fast clock, for tests of time limits that
 * are too long to wait out (the review gate's 30 s floor): `Date` and
 * `setTimeout`/`setInterval` in this process run FACTOR times faster than
 * the wall clock, consistently, so a 30 s ceiling passes in 30 s / FACTOR
 * and every deadline the engine stores agrees with the timers that fire it.
 * Child processes (a reviewer) keep the real clock.
 *
 *   node --import tsx spec/helpers/fast-clock-cli.mjs <factor> <countersign args…>
 */
const factor = Number(process.argv[2]);
if (!(factor >= 1)) throw new Error('usage: fast-clock-cli.mjs <factor ≥ 1> <countersign args…>');

const RealDate = Date;
const start = RealDate.now();
const origin = performance.now();
const fastNow = () => Math.floor(start + (performance.now() - origin) * factor);

class FastDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(fastNow());
    else super(...args);
  }
  static now() {
    return fastNow();
  }
}
globalThis.Date = FastDate;

const realSetTimeout = globalThis.setTimeout;
const realSetInterval = globalThis.setInterval;
globalThis.setTimeout = (fn, ms = 0, ...args) => realSetTimeout(fn, Math.ceil(Number(ms) / factor), ...args);
globalThis.setInterval = (fn, ms = 0, ...args) => realSetInterval(fn, Math.ceil(Number(ms) / factor), ...args);

const { main } = await import('../../engine/cli/main.ts');
process.exitCode = await main(process.argv.slice(3));
