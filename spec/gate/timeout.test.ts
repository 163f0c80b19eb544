import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOOL_TIMEOUT_MS, timeoutDecorator } from '../../engine/gate/decorators/timeout.js';
import { chain } from '../../engine/gate/chain.js';
import { rejection } from '../helpers/errors.js';
import type { CountersignError } from '../../engine/errors.js';
import type { GateVerdict } from '../../engine/gate/decorators/review-gate.js';
import { FakeClock } from './fake-clock.js';
import { ARGS, CTX, fullChain, memorySink, spyTool } from './fixtures.js';
import { auditDecorator } from '../../engine/gate/decorators/audit.js';
import { metricDecorator } from '../../engine/gate/decorators/metric.js';

const Timeout = suite('gate/timeout: the inner tool\'s 15 s limit');

/** Starts a call and tracks how it ends without awaiting it. */
function track<T>(p: Promise<T>): { state: () => 'pending' | 'ok' | 'failed'; error: () => CountersignError | undefined; value: () => T | undefined } {
  let state: 'pending' | 'ok' | 'failed' = 'pending';
  let error: CountersignError | undefined;
  let value: T | undefined;
  p.then((v) => { state = 'ok'; value = v; }, (e) => { state = 'failed'; error = e; });
  return { state: () => state, error: () => error, value: () => value };
}

/** A gate whose review takes `ms` on the clock before approving. */
const slowReview = (clock: FakeClock, ms: number) => async (): Promise<GateVerdict> => {
  await clock.sleep(ms);
  return { outcome: 'approved', proposalId: 'p-slow' };
};

Timeout('A10: the default limit is 15 000 ms and it is armed on the inner call only, after the review', async () => {
  assert.is(DEFAULT_TOOL_TIMEOUT_MS, 15_000);
  const clock = new FakeClock();
  const f = fullChain(spyTool('write').tool, slowReview(clock, 20_000), { clock });
  const call = track(f.chained.run(ARGS, CTX));
  await clock.advance(0);
  assert.equal(clock.armed, [20_000], 'during the review no tool limit is armed');
  await clock.advance(20_000);
  assert.is(call.state(), 'ok');
  assert.equal(clock.armed, [20_000, 15_000], 'the 15 s limit is armed once the inner call starts');
});

Timeout('A9: a 20 s review succeeds, and the inner tool is still cut at 15 s after it starts', async () => {
  const clock = new FakeClock();
  const { tool, calls } = spyTool('write', { body: () => clock.sleep(30_000).then(() => 'done') });
  const f = fullChain(tool, slowReview(clock, 20_000), { clock });
  const call = track(f.chained.run(ARGS, CTX));

  await clock.advance(20_000);
  assert.is(calls.length, 1, 'the review outlived 15 s and approved; the inner tool started');
  await clock.advance(14_999);
  assert.is(call.state(), 'pending', 'at 14.999 s into the inner call nothing is cut yet');
  await clock.advance(1);
  assert.is(call.state(), 'failed');
  assert.is(call.error()!.code, 'E_TOOL_TIMEOUT');
  assert.is(call.error()!.message, 'tool "host_restart_service" did not finish within 15s and was told to stop');
});

Timeout('A9, A10: a 20 s review followed by a 10 s inner call succeeds: 30 s in all, but only the inner 10 s count against the limit', async () => {
  const clock = new FakeClock();
  const { tool } = spyTool('write', { body: () => clock.sleep(10_000).then(() => 'restarted') });
  const f = fullChain(tool, slowReview(clock, 20_000), { clock });
  const call = track(f.chained.run(ARGS, CTX));
  await clock.advance(30_000);
  assert.is(call.state(), 'ok');
  assert.is(call.value(), 'restarted');
});

Timeout('E_TOOL_TIMEOUT aborts the signal the inner tool received; the audit row and the metric record the stop (E_TOOL_TIMEOUT), with how the tool ended', async () => {
  const clock = new FakeClock();
  let signal: AbortSignal | undefined;
  const { tool } = spyTool('read', {
    body: (_args, ctx) => new Promise((_resolve, reject) => {
      signal = ctx.signal;
      ctx.signal!.addEventListener('abort', () => reject(new Error('aborted by signal')));
    }),
  });
  const f = fullChain(tool, { outcome: 'approved' }, { clock });
  const call = track(f.chained.run(ARGS, CTX));
  await clock.advance(15_000);
  assert.is(call.error()!.code, 'E_TOOL_TIMEOUT');
  assert.ok(signal!.aborted);
  assert.is((signal!.reason as CountersignError).code, 'E_TOOL_TIMEOUT');
  // The stop is what ended the call (E_TOOL_TIMEOUT, for audit and metric alike), with the tool's own words kept.
  assert.equal(f.sink.rows.map((r) => [r.ok, r.error]), [[false, 'tool "query_promql" did not finish within 15s and was told to stop (the tool ended: aborted by signal)']]);
  assert.equal(f.metric.snapshot().query_promql.failures, { E_TOOL_TIMEOUT: 1 });
});

Timeout('the caller\'s own abort signal reaches the inner tool through the timeout decorator', async () => {
  const clock = new FakeClock();
  const controller = new AbortController();
  const { tool } = spyTool('read', {
    body: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal!.addEventListener('abort', () => reject(new Error('cancelled')))),
  });
  const f = fullChain(tool, { outcome: 'approved' }, { clock });
  const call = track(f.chained.run(ARGS, { ...CTX, signal: controller.signal }));
  await clock.advance(1_000);
  controller.abort();
  await clock.advance(0);
  assert.is(call.state(), 'failed');
  // Typed, for the caller, the record and the counts alike, with the tool's own words kept on the record.
  assert.is((call.error() as unknown as CountersignError).code, 'E_TOOL_CANCELLED');
  assert.equal(f.sink.rows.map((r) => [r.ok, r.error]), [[false, 'the call to tool "query_promql" was cancelled (its signal was aborted: This operation was aborted) (the tool ended: cancelled)']]);
  assert.equal(f.metric.snapshot().query_promql.failures, { E_TOOL_CANCELLED: 1 });
});

Timeout('a caller\'s cancel of a tool that ignores its signal is E_TOOL_CANCELLED within the stop\'s grace, never a DOMException nor a later E_TOOL_TIMEOUT, with or without audit and metric inside', async () => {
  const never = () => spyTool('read', { body: () => new Promise(() => undefined) }).tool;
  for (const inside of [{}, { audit: auditDecorator({ sink: memorySink() }), metric: metricDecorator() }]) {
    const controller = new AbortController();
    const started = Date.now();
    const call = chain(never(), { timeout: timeoutDecorator({ ms: 10_000 }), ...inside }).run(ARGS, { ...CTX, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const e = await rejection(call);
    assert.is(e.code, 'E_TOOL_CANCELLED', Object.keys(inside).join(',') || 'timeout alone');
    assert.ok(Date.now() - started < 5_000, 'told within the grace, not at the 10 s limit');
  }
  // audit alone (no timeout): the caller's cancel is typed too.
  const sink = memorySink();
  const controller = new AbortController();
  const call = chain(never(), { audit: auditDecorator({ sink }) }).run(ARGS, { ...CTX, signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  assert.is((await rejection(call)).code, 'E_TOOL_CANCELLED');
  assert.equal(sink.rows.map((r) => r.ok), [false]);
});

Timeout('A10: a tool that ignores its signal and returns after the limit (within the grace) gives the caller E_TOOL_TIMEOUT, never the late result, with timeout alone in the chain', async () => {
  const { tool } = spyTool('read', { body: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 150)) });
  const chained = chain(tool, { timeout: timeoutDecorator({ ms: 50 }) });
  const e = await rejection(chained.run(ARGS, CTX));
  assert.is(e.code, 'E_TOOL_TIMEOUT');
  assert.match(e.message, 'did not finish within 0.05s');
});

Timeout('r85: ms: null is refused with E_CHAIN_INVALID naming null, as null for a perTool limit is: never the 15 s default; only ms left out (or undefined) is the default', () => {
  for (const options of [{ ms: null }, { perTool: { slow: null } }]) {
    let e: CountersignError | undefined;
    try {
      timeoutDecorator(options as never);
    } catch (err) {
      e = err as CountersignError;
    }
    assert.is(e?.code, 'E_CHAIN_INVALID', JSON.stringify(options));
    assert.match(e!.message, `${'ms' in options ? 'ms' : 'perTool.slow'} must be a positive number of milliseconds`);
    assert.match(e!.message, 'got null');
    assert.match(e!.fix ?? '', 'leave it out for the default');
  }
  assert.is(timeoutDecorator({ ms: undefined }).position, 'timeout');
  assert.is(timeoutDecorator({}).position, 'timeout');
});

Timeout.run();
