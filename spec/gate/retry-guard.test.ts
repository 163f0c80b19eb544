/**
 * What the coordinator is told after a failed review (E8, E9, E12): the
 * error says to report to the user and not to retry, for a timeout as for a
 * rejection — the seed's retry guard on the coordinator's side.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rejection } from '../helpers/errors.js';
import { ARGS, CTX, fullChain, spyTool } from './fixtures.js';

const Guard = suite('gate: retry guard in the errors');

Guard('E12: ErrReviewTimeout tells the coordinator to report the timeout to the user and not to retry the call', async () => {
  const f = fullChain(spyTool('write').tool, { outcome: 'timeout', proposalId: 'p-t' });
  const e = await rejection(f.chained.run(ARGS, CTX));
  assert.is(e.code, 'ErrReviewTimeout');
  assert.match(e.fix ?? '', /tell the user the review timed out/);
  assert.match(e.fix ?? '', /do not retry the same call/);
});

Guard('E8 E9: ErrReviewRejected tells the coordinator to explain the reason and not to retry', async () => {
  const f = fullChain(spyTool('write').tool, { outcome: 'rejected', reason: 'no SOP for action host_restart_service', proposalId: 'p-r' });
  const e = await rejection(f.chained.run(ARGS, CTX));
  assert.is(e.message, 'review rejected: no SOP for action host_restart_service');
  assert.match(e.fix ?? '', /explain the reason to the user; do not retry the same call/);
});

Guard.run();
