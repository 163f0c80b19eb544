import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chain } from '../../engine/gate/chain.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { auditDecorator } from '../../engine/gate/decorators/audit.js';
import { rateLimitDecorator, DEFAULT_RATE_LIMIT } from '../../engine/gate/decorators/rate-limit.js';
import { metricDecorator } from '../../engine/gate/decorators/metric.js';
import { timeoutDecorator } from '../../engine/gate/decorators/timeout.js';
import { reviewGateDecorator } from '../../engine/gate/decorators/review-gate.js';
import { CountersignError } from '../../engine/errors.js';
import type { GateVerdict } from '../../engine/gate/decorators/review-gate.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { FakeClock } from './fake-clock.js';
import { ARGS, CTX, fullChain, memorySink, scriptedGate, spyTool } from './fixtures.js';

const Bind = suite('gate/tenant-bind: who is calling');

Bind('A15: a call without an operator user id fails with E_OPERATOR_REQUIRED: no default operator, no review, nothing runs', async () => {
  for (const ctx of [{}, { userId: '' }, { userId: '   ' }, { tenantId: 't1' }]) {
    const { tool, calls } = spyTool('write');
    const f = fullChain(tool, { outcome: 'approved' });
    const e = await rejection(f.chained.run(ARGS, ctx));
    assert.is(e.code, 'E_OPERATOR_REQUIRED');
    assert.match(e.fix!, 'ctx.userId');
    assert.is(f.decide.proposals.length, 0);
    assert.is(calls.length, 0);
    assert.equal(f.sink.rows, []);
  }
  // A user id that is there but no string is said as what it is, never as missing.
  const { tool, calls } = spyTool('write');
  const f = fullChain(tool, { outcome: 'approved' });
  const e = await rejection(f.chained.run(ARGS, { userId: 42 } as never));
  assert.is(e.code, 'E_OPERATOR_REQUIRED');
  assert.match(e.message, 'ctx.userId is a number (42), not a user id string');
  assert.match(e.fix!, 'as a string in ctx.userId');
  assert.is(calls.length, 0);
});

Bind('A15: a resolver maps the call context to the operator; an unresolved context is refused', async () => {
  const { tool, calls } = spyTool('read');
  const sessions: Record<string, string> = { s1: 'user_42' };
  const chained = chain(tool, { tenantBind: tenantBindDecorator({ resolve: async (ctx) => sessions[ctx.tenantId ?? ''] }) });
  await chained.run(ARGS, { tenantId: 's1' });
  assert.is(calls[0].ctx.operator, 'user_42');
  assert.is((await rejection(chained.run(ARGS, { tenantId: 's2', userId: 'user_42' }))).code, 'E_OPERATOR_REQUIRED');
});

Bind('A15: a resolve that throws (the host\'s session lookup is down) is E_OPERATOR_REQUIRED saying so: typed, nothing reviewed, nothing run', async () => {
  const { tool, calls } = spyTool('write');
  const decide = scriptedGate({ outcome: 'approved' });
  const sink = memorySink();
  const chained = chain(tool, {
    tenantBind: tenantBindDecorator({ resolve: () => { throw new Error('session db down'); } }),
    reviewGate: reviewGateDecorator({ decide: decide.decide }),
    audit: auditDecorator({ sink }),
  });
  const e = await rejection(chained.run(ARGS, CTX));
  assert.is(e.code, 'E_OPERATOR_REQUIRED');
  assert.match(e.message, 'resolve failed to name its operator: session db down');
  assert.match(e.fix!, 'nothing ran');
  assert.is(decide.proposals.length, 0);
  assert.equal(sink.rows, []);
  assert.is(calls.length, 0);
});

Bind.run();

const Audit = suite('gate/audit: execution rows');

Audit('A14, F8: a read tool is audited with proposal_id null; it had no review', async () => {
  const f = fullChain(spyTool('read').tool, { outcome: 'rejected' });
  await f.chained.run(ARGS, CTX);
  assert.equal(f.sink.rows.map((r) => [r.tool, r.proposal_id, r.ok]), [['query_promql', null, true]]);
  assert.is(f.decide.proposals.length, 0);
});

Audit('E3: an approved call whose inner tool throws writes one row with ok false and the error message, and the error reaches the caller', async () => {
  const { tool } = spyTool('write', { body: () => { throw new Error('systemctl: unit nginx not found'); } });
  const f = fullChain(tool, { outcome: 'approved', proposalId: 'p1' });
  const e = await f.chained.run(ARGS, CTX).catch((err: Error) => err);
  assert.is((e as Error).message, 'systemctl: unit nginx not found');
  assert.equal(f.sink.rows.map((r) => [r.proposal_id, r.ok, r.error]), [['p1', false, 'systemctl: unit nginx not found']]);
});

Audit('the execution row has the ledger\'s JSON types and the time the call ended', async () => {
  const clock = new FakeClock();
  const sink = memorySink();
  const { tool } = spyTool('read', { body: () => clock.sleep(2_500).then(() => 'ok') });
  const chained = chain(tool, { audit: auditDecorator({ sink, now: clock.now }) });
  const done = chained.run(ARGS, CTX);
  await clock.advance(2_500);
  await done;
  const [row] = sink.rows;
  assert.is(row.at, '2026-01-01T00:00:02.500Z');
  assert.match(row.id, /^[0-9a-f-]{36}$/);
  assert.equal(Object.keys(row), ['id', 'at', 'proposal_id', 'tool', 'args', 'ok', 'error']);
  assert.equal([row.proposal_id, row.ok, row.error], [null, true, null]);
});

Audit('a sink that fails after the tool ran gives E_STORE that says the call took effect', async () => {
  const { tool, calls } = spyTool('read');
  const sink = { writeExecution: () => { throw new Error('database is locked'); } };
  const e = await rejection(chain(tool, { audit: auditDecorator({ sink }) }).run(ARGS, CTX));
  assert.is(e.code, 'E_STORE');
  assert.match(e.message, 'ran, but its execution row could not be written: database is locked');
  assert.is(calls.length, 1);
  thrownWithCode(() => auditDecorator({} as never), 'E_CHAIN_INVALID');
});

Audit('A10, E3: a call the timeout stops is recorded (ok false, E_TOOL_TIMEOUT) when the limit passes, even if the tool ignores its signal and never settles', async () => {
  let started = 0;
  const { tool } = spyTool('write', { body: () => { started++; return new Promise(() => undefined); } });
  const clock = new FakeClock();
  const f = fullChain(tool, { outcome: 'approved', proposalId: 'p9' }, { clock });
  const running = rejection(f.chained.run(ARGS, CTX));
  await clock.advance(15_000);
  const e = await running;
  assert.is(e.code, 'E_TOOL_TIMEOUT');
  assert.is(started, 1, 'the call had started');
  assert.equal(f.sink.rows.map((r) => [r.proposal_id, r.ok]), [['p9', false]]);
  assert.match(f.sink.rows[0].error ?? '', 'did not finish within 15s');
});

Audit('A10, E3: a stopped call whose tool ignores the stop and finishes later took effect: a second row says so (ok true, "finished after the call was stopped"), never only "not ok"', async () => {
  let finish: (v: unknown) => void = () => undefined;
  const { tool } = spyTool('write', { body: () => new Promise((resolve) => (finish = resolve)) });
  const clock = new FakeClock();
  const f = fullChain(tool, { outcome: 'approved', proposalId: 'p7' }, { clock });
  const running = rejection(f.chained.run(ARGS, CTX));
  await clock.advance(15_000);
  assert.is((await running).code, 'E_TOOL_TIMEOUT');
  assert.equal(f.sink.rows.map((r) => r.ok), [false]);
  finish({ restarted: 'nginx' });
  await new Promise((r) => setImmediate(r));
  assert.equal(f.sink.rows.map((r) => [r.proposal_id, r.ok]), [['p7', false], ['p7', true]]);
  assert.match(f.sink.rows[1].error ?? '', 'finished after the call was stopped (');
  assert.match(f.sink.rows[1].error ?? '', 'did not finish within 15s');
  assert.match(f.sink.rows[1].error ?? '', 'it took effect');
});

Audit('a chained tool called with a context that is no object is E_INPUT, never a TypeError; a rate limit given as a list is E_CHAIN_INVALID, never the default', async () => {
  const f = fullChain(spyTool('write').tool, { outcome: 'approved', proposalId: 'p1' });
  for (const ctx of [null, 'user_42', []]) {
    const e = await rejection(f.chained.run(ARGS, ctx as never));
    assert.is(e.code, 'E_INPUT', String(ctx));
    assert.match(e.message, 'not an object');
  }
  assert.equal(f.sink.rows, []);
  thrownWithCode(() => rateLimitDecorator({ perTool: { q: [] } } as never), 'E_CHAIN_INVALID');
});

Audit('A10, E3 (real timers): the caller hears E_TOOL_TIMEOUT only once the stopped call is on the record and in the counts; a row that cannot be written is E_STORE, never lost', async () => {
  const never = () => spyTool('read', { body: () => new Promise(() => undefined) }).tool;
  const sink = memorySink();
  const metric = metricDecorator();
  const e = await rejection(chain(never(), { timeout: timeoutDecorator({ ms: 50 }), audit: auditDecorator({ sink }), metric }).run(ARGS, CTX));
  assert.is(e.code, 'E_TOOL_TIMEOUT');
  assert.equal(sink.rows.map((r) => r.ok), [false], 'the row exists when the caller is told');
  const counts = metric.snapshot().query_promql;
  assert.equal([counts.calls, counts.ok, counts.failed, counts.failures], [1, 0, 1, { E_TOOL_TIMEOUT: 1 }]);
  const broken = { writeExecution: () => { throw new Error('disk full'); } };
  const lost = await rejection(chain(never(), { timeout: timeoutDecorator({ ms: 50 }), audit: auditDecorator({ sink: broken }) }).run(ARGS, CTX));
  assert.is(lost.code, 'E_STORE');
  assert.match(lost.message, 'its execution row could not be written: disk full');
  // Said truthfully: the call failed (its own code is named and kept), never "it took effect".
  assert.match(lost.message, 'failed with E_TOOL_TIMEOUT');
  assert.equal((lost.data as { failure: { code: string } }).failure.code, 'E_TOOL_TIMEOUT');
  assert.not.match(lost.fix ?? '', 'took effect');
  // A sink slower than the stop's 1 s grace is waited for: its failure is still E_STORE, its row still there when the caller is told.
  const slowBroken = { writeExecution: () => new Promise<void>((_, reject) => setTimeout(() => reject(new Error('disk full, late')), 1_300)) };
  const lateLost = await rejection(chain(never(), { timeout: timeoutDecorator({ ms: 50 }), audit: auditDecorator({ sink: slowBroken }) }).run(ARGS, CTX));
  assert.is(lateLost.code, 'E_STORE');
  assert.match(lateLost.message, 'disk full, late');
  const slowRows: unknown[] = [];
  const slow = { writeExecution: (row: unknown) => new Promise<void>((resolve) => setTimeout(() => { slowRows.push(row); resolve(); }, 1_300)) };
  assert.is((await rejection(chain(never(), { timeout: timeoutDecorator({ ms: 50 }), audit: auditDecorator({ sink: slow }) }).run(ARGS, CTX))).code, 'E_TOOL_TIMEOUT');
  assert.is(slowRows.length, 1, 'the row was written before the caller was told');
  // With nothing inside to record it, a tool that ignores its signal still times out (after a short grace).
  assert.is((await rejection(chain(never(), { timeout: timeoutDecorator({ ms: 50 }) }).run(ARGS, CTX))).code, 'E_TOOL_TIMEOUT');
});

Audit('A10, E3: a tool that honours the stop by returning what it managed is recorded as the caller hears it: ok false, E_TOOL_TIMEOUT, a failure in the counts', async () => {
  const partial = spyTool('write', { body: (_args, ctx) => new Promise((resolve) => ctx.signal!.addEventListener('abort', () => resolve({ partial: true }))) }).tool;
  const sink = memorySink();
  const metric = metricDecorator();
  const chained = chain(partial, {
    tenantBind: tenantBindDecorator(),
    reviewGate: reviewGateDecorator({ decide: async () => ({ outcome: 'approved', proposalId: 'p1' }) }),
    timeout: timeoutDecorator({ ms: 50 }),
    audit: auditDecorator({ sink }),
    metric,
  });
  const e = await rejection(chained.run(ARGS, CTX));
  assert.is(e.code, 'E_TOOL_TIMEOUT');
  assert.equal(sink.rows.map((r) => [r.proposal_id, r.ok]), [['p1', false]]);
  assert.match(sink.rows[0].error ?? '', 'did not finish within 0.05s');
  assert.match(sink.rows[0].error ?? '', 'returned a result after it was told to stop');
  const counts = Object.values(metric.snapshot())[0];
  assert.equal([counts.calls, counts.ok, counts.failed, counts.failures], [1, 0, 1, { E_TOOL_TIMEOUT: 1 }]);
});

Audit('a call whose signal is aborted before it starts, or while it is reviewed, never runs: E_TOOL_CANCELLED, no review for the first, no execution row for either', async () => {
  const reviews: string[] = [];
  const { tool, calls } = spyTool('write');
  const sink = memorySink();
  const chainWith = (decide: () => Promise<GateVerdict>) => chain(tool, {
    tenantBind: tenantBindDecorator(),
    reviewGate: reviewGateDecorator({ decide: async () => { reviews.push('review'); return decide(); } }),
    timeout: timeoutDecorator({ ms: 5_000 }),
    audit: auditDecorator({ sink }),
  });
  const before = new AbortController();
  before.abort();
  const early = await rejection(chainWith(async () => ({ outcome: 'approved', proposalId: 'p1' })).run(ARGS, { ...CTX, signal: before.signal }));
  assert.equal([early.code, reviews.length], ['E_TOOL_CANCELLED', 0]);
  const during = new AbortController();
  const late = await rejection(chainWith(async () => { during.abort(); return { outcome: 'approved', proposalId: 'p2' }; }).run(ARGS, { ...CTX, signal: during.signal }));
  assert.equal([late.code, reviews.length], ['E_TOOL_CANCELLED', 1]);
  assert.match(late.message, 'while it was reviewed (the review decided, but nothing ran)');
  assert.equal([calls.length, sink.rows.length], [0, 0], 'the tool never ran; no execution row');
});

Audit.run();

const Rate = suite('gate/rate-limit: a token bucket per operator and tool');

Rate('a burst past capacity is refused with E_RATE_LIMITED, per operator and tool, and tokens come back with time', async () => {
  const clock = new FakeClock();
  const { tool, calls } = spyTool('read');
  const chained = chain(tool, {
    tenantBind: tenantBindDecorator(),
    rateLimit: rateLimitDecorator({ capacity: 2, refillPerSecond: 0.5, now: clock.now }),
  });
  await chained.run(ARGS, { userId: 'a' });
  await chained.run(ARGS, { userId: 'a' });
  const e = await rejection(chained.run(ARGS, { userId: 'a' }));
  assert.is(e.code, 'E_RATE_LIMITED');
  assert.match(e.message, 'for operator "a"');
  assert.equal((e.data as { retryAfterMs: number }).retryAfterMs, 2_000);
  await chained.run(ARGS, { userId: 'b' });
  assert.is(calls.length, 3, 'another operator has a bucket of its own');
  await clock.advance(1_999);
  assert.is((await rejection(chained.run(ARGS, { userId: 'a' }))).code, 'E_RATE_LIMITED');
  await clock.advance(1);
  await chained.run(ARGS, { userId: 'a' });
  assert.is(calls.length, 4);
});

Rate('without tenant_bind the bucket is still per caller (ctx.userId), never one bucket shared by everyone; a call naming nobody is said so', async () => {
  const { tool, calls } = spyTool('read');
  const chained = chain(tool, { rateLimit: rateLimitDecorator({ capacity: 1 }) });
  await chained.run(ARGS, { userId: 'alice' });
  await chained.run(ARGS, { userId: 'bob' });
  assert.is(calls.length, 2, 'bob is not refused for alice\'s call');
  assert.match((await rejection(chained.run(ARGS, { userId: 'alice' }))).message, 'for operator "alice"');
  await chained.run(ARGS, {});
  assert.match((await rejection(chained.run(ARGS, {}))).message, 'for calls that name no operator');
});

Rate('the bucket is the operator tenant_bind bound (a host\'s own resolve), not ctx.userId; a clock stepped back takes no tokens away', async () => {
  let t = 1_000_000;
  const { tool, calls } = spyTool('read');
  const chained = chain(tool, {
    tenantBind: tenantBindDecorator({ resolve: (ctx) => (ctx as { session?: string }).session }),
    rateLimit: rateLimitDecorator({ capacity: 1, refillPerSecond: 1, now: () => t }),
  });
  // One operator (the session), two user ids: one bucket.
  await chained.run(ARGS, { userId: 'x', session: 'ops-team' } as never);
  assert.match((await rejection(chained.run(ARGS, { userId: 'y', session: 'ops-team' } as never))).message, 'for operator "ops-team"');
  await chained.run(ARGS, { userId: 'x', session: 'other' } as never);
  assert.is(calls.length, 2);
  // The clock steps back an hour: no refill, and no debt either; forward a second again and there is a token.
  t -= 3_600_000;
  const back = await rejection(chained.run(ARGS, { userId: 'x', session: 'ops-team' } as never));
  assert.ok((back.data as { retryAfterMs: number }).retryAfterMs <= 1_000, `asked to wait ${(back.data as { retryAfterMs: number }).retryAfterMs} ms`);
  // A second after the step back (not an hour and a second): the token is back, as the refusal said.
  t += 1_000;
  await chained.run(ARGS, { userId: 'x', session: 'ops-team' } as never);
  assert.is(calls.length, 3);
});

Rate('per-tool limits apply to their tool only; defaults are 10 per burst and 1 per second', async () => {
  assert.equal({ ...DEFAULT_RATE_LIMIT }, { capacity: 10, refillPerSecond: 1 });
  const clock = new FakeClock();
  const limiter = rateLimitDecorator({ perTool: { kill_process: { capacity: 1 } }, now: clock.now });
  const read = chain(spyTool('read').tool, { rateLimit: limiter });
  const kill = chain(spyTool('read', { name: 'kill_process' }).tool, { rateLimit: limiter });
  for (let i = 0; i < 10; i++) await read.run(ARGS, CTX);
  assert.is((await rejection(read.run(ARGS, CTX))).code, 'E_RATE_LIMITED');
  await kill.run(ARGS, CTX);
  assert.is((await rejection(kill.run(ARGS, CTX))).code, 'E_RATE_LIMITED');
});

Rate('a refused call is still on the execution record (audit sits outside ratelimit) and never reaches metric or the tool', async () => {
  const sink = memorySink();
  const metric = metricDecorator();
  const { tool, calls } = spyTool('read');
  const chained = chain(tool, { audit: auditDecorator({ sink }), rateLimit: rateLimitDecorator({ capacity: 1 }), metric });
  await chained.run(ARGS, CTX);
  await rejection(chained.run(ARGS, CTX));
  assert.is(calls.length, 1);
  assert.equal(sink.rows.map((r) => r.ok), [true, false]);
  assert.match(sink.rows[1].error!, 'rate-limited');
  assert.is(metric.snapshot().query_promql.calls, 1);
});

Rate('a long-lived host does not grow a bucket per operator forever: full buckets are dropped past 10,000, a drained one keeps limiting', async () => {
  let t = 1_000_000;
  const limiter = rateLimitDecorator({ capacity: 1, refillPerSecond: 1, perTool: { deploy: { refillPerSecond: 0.001 } }, now: () => t });
  const read = chain(spyTool('read').tool, { rateLimit: limiter });
  const deploy = chain(spyTool('read', { name: 'deploy' }).tool, { rateLimit: limiter });
  await deploy.run(ARGS, { userId: 'drained' });
  for (let i = 1; i < 10_000; i++) await read.run(ARGS, { userId: `op-${i}` });
  assert.is(limiter.bucketCount(), 10_000);
  // A minute later every read bucket has refilled; deploy's (one token in 1,000 s) has not.
  t += 60_000;
  // The next new operator finds the map full: the refilled buckets go, the drained one stays and still refuses.
  await read.run(ARGS, { userId: 'newcomer' });
  assert.is(limiter.bucketCount(), 2);
  assert.is((await rejection(deploy.run(ARGS, { userId: 'drained' }))).code, 'E_RATE_LIMITED');
});

Rate('bad limits are refused at construction with E_CHAIN_INVALID', () => {
  for (const bad of [{ capacity: 0 }, { capacity: 1.5 }, { refillPerSecond: -1 }, { perTool: { x: { refillPerSecond: 0 } } }, null, { perTool: null }, { perTool: { x: null } }, { perTool: 5 }] as never[]) {
    thrownWithCode(() => rateLimitDecorator(bad), 'E_CHAIN_INVALID');
  }
  for (const bad of [0, -5, Number.NaN]) thrownWithCode(() => timeoutDecorator({ ms: bad }), 'E_CHAIN_INVALID');
  // Node keeps a timer of at most 2^31 - 1 ms; a longer one would fire at once, a false E_TOOL_TIMEOUT.
  const tooLong = thrownWithCode(() => timeoutDecorator({ ms: 3_000_000_000 }), 'E_CHAIN_INVALID');
  assert.match(tooLong.message, 'up to 2147483647');
  thrownWithCode(() => timeoutDecorator({ perTool: { slow: 2_147_483_648 } } as never), 'E_CHAIN_INVALID');
  timeoutDecorator({ ms: 2_147_483_647 });
  thrownWithCode(() => reviewGateDecorator({} as never), 'E_CHAIN_INVALID');
});

Rate('A8: every decorator refuses options it cannot use when the chain is built (E_CHAIN_INVALID with the fix), never as a TypeError or at every call', () => {
  const resolve = thrownWithCode(() => tenantBindDecorator({ resolve: 'session' } as never), 'E_CHAIN_INVALID');
  assert.match(resolve.message, 'resolve, if given, is a function');
  assert.match(resolve.message, 'resolve "session"');
  const perTool = thrownWithCode(() => timeoutDecorator({ perTool: 'slow' } as never), 'E_CHAIN_INVALID');
  assert.match(perTool.message, 'perTool "slow"');
  assert.not.match(perTool.message, 'perTool.0');
  for (const make of [tenantBindDecorator, timeoutDecorator, metricDecorator] as Array<(o: never) => unknown>) {
    const e = thrownWithCode(() => make(null as never), 'E_CHAIN_INVALID');
    assert.ok(e.fix, e.message);
  }
  thrownWithCode(() => metricDecorator({ now: 5 } as never), 'E_CHAIN_INVALID');
  thrownWithCode(() => timeoutDecorator({ perTool: [1] } as never), 'E_CHAIN_INVALID');
});

Rate('A8: audit, rate-limit, timeout and review-gate refuse options they cannot use when made: a now or newId that is no function, timers without their functions, a skip that is no list of names, a perTool list', () => {
  thrownWithCode(() => auditDecorator({ sink: memorySink(), now: 5 } as never), 'E_CHAIN_INVALID');
  thrownWithCode(() => auditDecorator({ sink: memorySink(), newId: 'x' } as never), 'E_CHAIN_INVALID');
  thrownWithCode(() => rateLimitDecorator({ now: 'soon' } as never), 'E_CHAIN_INVALID');
  thrownWithCode(() => rateLimitDecorator({ perTool: [] } as never), 'E_CHAIN_INVALID');
  thrownWithCode(() => timeoutDecorator({ timers: {} } as never), 'E_CHAIN_INVALID');
  const skip = thrownWithCode(() => reviewGateDecorator({ decide: async () => ({ outcome: 'approved', proposalId: 'p' }), skip: 'wr' } as never), 'E_CHAIN_INVALID');
  assert.match(skip.message, 'skip must be a list of tool names, got "wr"');
  thrownWithCode(() => reviewGateDecorator({ decide: async () => ({ outcome: 'approved', proposalId: 'p' }), skip: 5 } as never), 'E_CHAIN_INVALID');
});

Rate('chain() takes a plain tool spec {name, class, inputSchema, run} as createEngine does: defined then (its arguments checked), never a TypeError at the first call', async () => {
  const ran: unknown[] = [];
  const spec = { name: 'query_promql', class: 'read' as const, inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, run: (args: unknown) => { ran.push(args); return { ok: true }; } };
  const chained = chain(spec as never, { tenantBind: tenantBindDecorator() });
  assert.equal(await chained.run({ q: 'up' }, CTX), { ok: true });
  assert.is((await rejection(chained.run({}, CTX))).code, 'E_TOOL_ARGS');
  assert.equal(ran, [{ q: 'up' }]);
});

Rate.run();

const Metric = suite('gate/metric: counts and durations');

Metric('calls, outcomes by code and the inner duration are counted per tool', async () => {
  const clock = new FakeClock();
  const metric = metricDecorator({ now: clock.now });
  let n = 0;
  const { tool } = spyTool('read', {
    body: async () => {
      n++;
      await clock.sleep(n * 100);
      if (n === 2) throw new CountersignError('E_TOOL_TIMEOUT', 'slow');
      if (n === 3) throw new Error('plain');
      return 'ok';
    },
  });
  const chained = chain(tool, { metric });
  for (let i = 0; i < 3; i++) {
    const p = chained.run(ARGS, CTX).catch(() => undefined);
    await clock.advance(1_000);
    await p;
  }
  assert.equal(metric.snapshot(), {
    query_promql: { calls: 3, ok: 1, failed: 2, failures: { E_TOOL_TIMEOUT: 1, error: 1 }, totalMs: 600, maxMs: 300 },
  });
  const snap = metric.snapshot();
  snap.query_promql.failures.E_TOOL_TIMEOUT = 99;
  assert.is(metric.snapshot().query_promql.failures.E_TOOL_TIMEOUT, 1, 'a snapshot is a copy');
});

Metric.run();
