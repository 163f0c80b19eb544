/**
 * Which visit decides what lies at a report path two review nodes share
 * (G8): the run's last one there, and for runs stored before visits were
 * ordered, the asking node's own.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { firstVisitAt, lastVisitAt, nextVisitOrder } from '../../engine/nodes/review-state.js';
import type { ReviewState, RunContext } from '../../engine/nodes/node-type.js';

const REPORT = '/ws/review.json';
const at = (report: string, extra: Partial<ReviewState> = {}): ReviewState =>
  ({ accepted: 1, authors: [], visit: { artifacts: [], context: [], report, hash: 'h' }, ...extra });
const ctx = (reviews: Record<string, ReviewState>) => ({ reviews }) as unknown as RunContext;

const State = suite('review state: the last visit at a shared report path');

State('G8: the visit with the highest order decides, whichever node made it; a state before ordering counts as the oldest', () => {
  const first = at(REPORT, { visitOrder: 1, reportAccepted: true });
  const second = at(REPORT, { visitOrder: 2, reportAccepted: false });
  assert.is(lastVisitAt(ctx({ r1: second, r2: first }), REPORT, 'r2'), second);
  const legacy = at(REPORT, { reportAccepted: true });
  assert.is(lastVisitAt(ctx({ r1: legacy, r2: first }), REPORT, 'r1'), first, 'an ordered visit is newer than one stored before ordering');
  assert.is(lastVisitAt(ctx({ r1: at('/ws/other.json', { visitOrder: 9 }) }), REPORT, 'r1'), undefined, 'no visit there now');
});

State('G8: runs stored before visits were ordered: on a tie the asking node\'s own state decides, as it did before shared paths were tracked', () => {
  const mine = at(REPORT, { reportAccepted: false });
  const theirs = at(REPORT, { reportAccepted: true });
  assert.is(lastVisitAt(ctx({ r1: theirs, r2: mine }), REPORT, 'r2'), mine);
  assert.is(lastVisitAt(ctx({ r1: theirs, r2: mine }), REPORT, 'r1'), theirs);
});

State('a visit issued now is ordered after every earlier one; a path any node has held is not a first visit', () => {
  assert.is(nextVisitOrder(ctx({})), 1);
  assert.is(nextVisitOrder(ctx({ r1: at(REPORT, { visitOrder: 4 }), r2: at(REPORT) })), 5);
  assert.is(firstVisitAt(ctx({ r1: at('/ws/a.json', { slots: ['/ws/a.json', REPORT] }) }), REPORT), false);
  assert.is(firstVisitAt(ctx({ r1: at('/ws/a.json') }), REPORT), true);
});

State.run();
