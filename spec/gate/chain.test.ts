import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chain, CHAIN_ORDER, type ChainOptions, type ChainPosition, type ReviewGateDecorator, type ToolDecorator } from '../../engine/gate/chain.js';
import { tenantBindDecorator } from '../../engine/gate/decorators/tenant-bind.js';
import { reviewGateDecorator } from '../../engine/gate/decorators/review-gate.js';
import { timeoutDecorator } from '../../engine/gate/decorators/timeout.js';
import { rejection, thrownWithCode } from '../helpers/errors.js';
import { ARGS, CTX, fullChain, scriptedGate, spyTool } from './fixtures.js';

const Chain = suite('gate/chain: the fixed decorator order');

function spies(log: string[]): Required<ChainOptions> {
  const spy = (position: ChainPosition): ToolDecorator => ({
    position,
    wrap: (next) => async (call) => {
      log.push(position);
      return next(position === 'tenant_bind' ? { ...call, operator: 'user_42' } : call);
    },
  });
  const reviewGate: ReviewGateDecorator = { ...spy('review_gate'), position: 'review_gate', skip: new Set() };
  return {
    metric: spy('metric'),
    audit: spy('audit'),
    reviewGate,
    rateLimit: spy('ratelimit'),
    timeout: spy('timeout'),
    tenantBind: spy('tenant_bind'),
  };
}

Chain('A8: the chain order is the JSON array tenant_bind → review_gate → timeout → audit → ratelimit → metric → inner', () => {
  assert.is(JSON.stringify(CHAIN_ORDER), '["tenant_bind","review_gate","timeout","audit","ratelimit","metric","inner"]');
});

Chain('A8: spy decorators run outermost to innermost in CHAIN_ORDER whatever order the options were passed in', async () => {
  const log: string[] = [];
  const { tool } = spyTool('write', { body: () => log.push('inner') });
  const options = spies(log);
  // Passed innermost-first and reversed again: the chain must ignore the caller's order.
  const reversed = Object.fromEntries(Object.entries(options).reverse()) as ChainOptions;
  for (const opts of [options, reversed]) {
    log.length = 0;
    const chained = chain(tool, opts);
    await chained.run(ARGS, CTX);
    assert.equal(log, [...CHAIN_ORDER]);
    assert.equal(chained.positions, CHAIN_ORDER.slice(0, -1));
  }
});

Chain('A8: a chain with some decorators left out keeps the others in order', async () => {
  const log: string[] = [];
  const { tool } = spyTool('read');
  const { metric, tenantBind, audit } = spies(log);
  const chained = chain(tool, { metric, audit, tenantBind });
  await chained.run(ARGS, CTX);
  assert.equal(log, ['tenant_bind', 'audit', 'metric']);
  assert.equal(chained.positions, ['tenant_bind', 'audit', 'metric']);
});

Chain('A8: a decorator in another decorator\'s slot, an unknown option or a non-decorator is refused with E_CHAIN_INVALID', () => {
  const log: string[] = [];
  const { tool } = spyTool('read');
  const { audit, metric } = spies(log);
  const e = thrownWithCode(() => chain(tool, { metric: audit }), 'E_CHAIN_INVALID');
  assert.match(e.message, 'holds the audit decorator');
  thrownWithCode(() => chain(tool, { rateLimiter: metric } as unknown as ChainOptions), 'E_CHAIN_INVALID');
  thrownWithCode(() => chain(tool, { metric: {} as ToolDecorator }), 'E_CHAIN_INVALID');
});

Chain('A4, A5: a write or destructive tool without a review gate is refused at construction with E_GATE_REQUIRED, and the fix names skip', () => {
  for (const cls of ['write', 'destructive'] as const) {
    const { tool } = spyTool(cls);
    const e = thrownWithCode(() => chain(tool, { tenantBind: tenantBindDecorator(), timeout: timeoutDecorator() }), 'E_GATE_REQUIRED');
    assert.match(e.message, `class ${cls}`);
    assert.match(e.fix!, `skip: ["${tool.name}"]`);
  }
});

Chain('A4, A17: a read tool needs no review gate', async () => {
  const { tool, calls } = spyTool('read');
  const chained = chain(tool, { tenantBind: tenantBindDecorator() });
  await chained.run(ARGS, CTX);
  assert.is(calls.length, 1);
});

Chain('A5, A6: a gate whose skip names the tool lets it be chained; each skipped call still goes through the gate, which records it', async () => {
  const { tool, calls } = spyTool('write');
  const f = fullChain(tool, { outcome: 'skipped', proposalId: 'prop-skip-1' }, { skip: ['host_restart_service'] });
  await f.chained.run(ARGS, CTX);
  assert.is(f.decide.proposals.length, 1, 'the gate is asked, so it can write the skipped row');
  assert.is(calls.length, 1);
  assert.is(f.sink.rows[0].proposal_id, 'prop-skip-1');
});

Chain('A15: a review gate without tenant_bind is refused at construction, whatever the tool\'s class: the operator must come from tenant_bind', () => {
  for (const cls of ['write', 'destructive', 'read'] as const) {
    const { tool } = spyTool(cls);
    const gate = reviewGateDecorator({ decide: scriptedGate({ outcome: 'approved' }).decide });
    const e = thrownWithCode(() => chain(tool, { reviewGate: gate }), 'E_CHAIN_INVALID');
    assert.match(e.message, 'tenant_bind');
  }
});

Chain('§4.13: bad arguments fail with E_TOOL_ARGS before any decorator runs: no tenant_bind, no proposal, no row, no token', async () => {
  const log: string[] = [];
  const { tool, calls } = spyTool('write');
  const e = await rejection(chain(tool, spies(log)).run({ device_id: 7 }, CTX));
  assert.is(e.code, 'E_TOOL_ARGS');
  assert.is(e.pointer, '');
  assert.equal(log, []);
  assert.is(calls.length, 0);

  const f = fullChain(spyTool('destructive').tool, { outcome: 'approved', proposalId: 'p1' });
  const e2 = await rejection(f.chained.run({ device_id: '7', service: 'nginx' }, {}));
  assert.is(e2.code, 'E_TOOL_ARGS', 'arguments are checked even before the missing operator');
  assert.is(e2.pointer, '/device_id');
  assert.is(f.decide.proposals.length, 0);
  assert.equal(f.gate.pending(), []);
  assert.equal(f.sink.rows, []);
  assert.equal(f.metric.snapshot(), {});
});

Chain('a chained tool is a tool with the inner tool\'s metadata, and the inner tool gets the bound operator and proposal id', async () => {
  const { tool, calls } = spyTool('write', { blastRadius: 'tenant_wide' });
  const f = fullChain(tool, { outcome: 'approved', proposalId: 'prop-9' });
  assert.is(f.chained.name, tool.name);
  assert.is(f.chained.class, 'write');
  assert.is(f.chained.blastRadius, 'tenant_wide');
  assert.is(f.chained.inputSchema, tool.inputSchema);
  await f.chained.run(ARGS, { ...CTX, userId: '  user_42  ' });
  assert.is(calls[0].ctx.operator, 'user_42');
  assert.is(calls[0].ctx.proposalId, 'prop-9');
});

Chain.run();
