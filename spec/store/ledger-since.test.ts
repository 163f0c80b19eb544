/**
 * `since` names a moment that exists (issue 4: `countersign audit --since
 * ISO-8601`): Date.parse would roll 2026-02-30 over to March 2 and filter
 * by the wrong day, so a date or time that does not exist is E_LEDGER_QUERY.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryStore } from '../../engine/store/memory.js';
import { cli, tempDir } from '../helpers/cli.js';
import { thrownWithCode } from '../helpers/errors.js';

const Since = suite('ledger since: real calendar dates only');

Since('a date or time that does not exist is E_LEDGER_QUERY; leap days and zone offsets that exist are read as they are', () => {
  const store = createMemoryStore();
  for (const since of ['2026-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-01T24:00', '2026-01-01T09:60', '2026-01-01T09:30:60Z']) {
    const e = thrownWithCode(() => store.rows('chat_mutating_proposals', { since }), 'E_LEDGER_QUERY');
    assert.match(e.message, `since "${since}" is not an ISO-8601 time`);
  }
  for (const since of ['2024-02-29', '2026-02-28', '2026-12-31T23:59:59.999Z', '2026-01-01T09:30:00+02:00']) {
    assert.equal(store.rows('chat_mutating_proposals', { since }), [], since);
  }
});

Since('countersign audit --since 2026-02-30 exits 2 with E_LEDGER_QUERY instead of filtering from March 2', async () => {
  const r = await cli(['audit', '--since', '2026-02-30', '--json'], { store: tempDir('countersign-since-') });
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_LEDGER_QUERY');
  assert.is((await cli(['audit', '--since', '2024-02-29', '--json'], { store: tempDir('countersign-since-') })).code, 0);
});

Since.run();
