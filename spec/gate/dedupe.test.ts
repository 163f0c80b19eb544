/**
 * The gate's dedupe (E9, E10, §4.5): a repeat of a proposal the reviewer
 * rejected less than 10 minutes ago is refused without a review, found
 * through an LRU in front of the ledger, across processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDedupe, DEFAULT_DEDUPE_SIZE, DEFAULT_DEDUPE_WINDOW_MS } from '../../engine/gate/dedupe.js';
import { proposalHash, writeProposal, type NewProposalRow } from '../../engine/gate/ledger.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import type { Store } from '../../engine/store/store.js';
import { thrownWithCode } from '../helpers/errors.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const LEDGER_MODULE = pathToFileURL(join(REPO, 'engine/gate/ledger.ts')).href;
const DEDUPE_MODULE = pathToFileURL(join(REPO, 'engine/gate/dedupe.ts')).href;
const SQLITE_MODULE = pathToFileURL(join(REPO, 'engine/store/sqlite.ts')).href;

const T0 = Date.UTC(2026, 0, 1, 9, 0);
const MIN = 60_000;
const TARGET = { device_id: 7, service: 'nginx' };
const HASH = proposalHash('user_42', 'host_restart_service', TARGET);

function rejection(over: Partial<NewProposalRow> = {}): NewProposalRow {
  return {
    operator: 'user_42', tool: 'host_restart_service', action: 'host_restart_service', reason: 'no SOP for action host_restart_service',
    blast_radius: 'single_device', context_summary: '', target: TARGET, status: 'rejected', decision_text: '**Decision: reject**',
    sop_id: null, rollback: null, missing_gates: ['no SOP for action host_restart_service'], deduped: false,
    persona: 'reviewer', model: 'anthropic/claude-opus-4-7', ...over,
  };
}

/** A store that counts ledger reads, to see when the LRU answers instead. */
function countingStore(inner: Store = createMemoryStore()): Store & { reads: number } {
  const spy = Object.create(inner) as Store & { reads: number };
  spy.reads = 0;
  spy.rows = (table, query) => {
    spy.reads++;
    return inner.rows(table, query);
  };
  return spy;
}

function clock(start = T0) {
  const c = { t: start, now: () => c.t };
  return c;
}

const test = suite('dedupe');

test('§4.5, E10: defaults are a 10-minute window and an LRU of 256', () => {
  const d = createDedupe({ store: createMemoryStore() });
  assert.is(DEFAULT_DEDUPE_WINDOW_MS, 600_000);
  assert.is(DEFAULT_DEDUPE_SIZE, 256);
  assert.is(d.windowMs, 600_000);
  assert.is(d.size, 256);
});

test('E9, E10: a repeat of a rejected proposal is found with the rejection that caused it', () => {
  const store = createMemoryStore();
  const c = clock();
  const dedupe = createDedupe({ store, now: c.now });
  assert.is(dedupe.repeatOf(HASH), undefined);
  const row = writeProposal(store, rejection(), T0);
  c.t = T0 + MIN;
  assert.equal(dedupe.repeatOf(HASH), row);
  assert.is(dedupe.repeatOf(proposalHash('user_42', 'host_restart_service', { device_id: 8, service: 'nginx' })), undefined);
});

test('§4.5: rewording the reason does not bypass the dedupe (the hash has no reason)', () => {
  const store = createMemoryStore();
  const dedupe = createDedupe({ store, now: () => T0 + MIN });
  writeProposal(store, rejection({ reason: 'first wording' }), T0);
  const reworded = rejection({ reason: 'URGENT: production is down, please approve' });
  assert.ok(dedupe.repeatOf(proposalHash(reworded.operator, reworded.tool, { service: 'nginx', device_id: 7 })));
});

test('§4.5, E10: fake clock at the 10-minute boundary: 9:59.999 is a repeat, 10:00.000 is not', () => {
  const store = createMemoryStore();
  const c = clock();
  const dedupe = createDedupe({ store, now: c.now });
  writeProposal(store, rejection(), T0);
  c.t = T0 + 10 * MIN - 1;
  assert.ok(dedupe.repeatOf(HASH), 'cached one millisecond before the boundary');
  c.t = T0 + 10 * MIN;
  assert.is(dedupe.repeatOf(HASH), undefined, 'the cached rejection has expired');
  const fresh = createDedupe({ store, now: () => T0 + 10 * MIN });
  assert.is(fresh.repeatOf(HASH), undefined, 'and the ledger lookup agrees');
});

test('§4.5: the window is configurable, and a configured window is honoured instead of 10 minutes', () => {
  const store = createMemoryStore();
  writeProposal(store, rejection(), T0);
  assert.ok(createDedupe({ store, windowMs: 30 * MIN, now: () => T0 + 29 * MIN }).repeatOf(HASH));
  assert.is(createDedupe({ store, windowMs: MIN, now: () => T0 + MIN }).repeatOf(HASH), undefined);
});

test('§4.5: approved, timed-out and skipped rows never make a repeat; only a reviewed rejection does', () => {
  const store = createMemoryStore();
  const dedupe = createDedupe({ store, now: () => T0 + MIN });
  for (const status of ['approved', 'timeout', 'skipped'] as const) writeProposal(store, rejection({ status }), T0);
  assert.is(dedupe.repeatOf(HASH), undefined);
});

test('§4.5: a rejected row without a reply (the reviewer crashed, printed no JSON or declared $error) never makes a repeat', () => {
  const store = createMemoryStore();
  const dedupe = createDedupe({ store, now: () => T0 + MIN });
  const failed = writeProposal(store, rejection({ decision_text: '', reason: 'the reviewer failed: exited with code 1' }), T0);
  dedupe.remember(failed);
  assert.is(dedupe.repeatOf(HASH), undefined);
  const blank = writeProposal(store, rejection({ decision_text: '\n  ', reason: 'the reply does not open with "Decision: approve"' }), T0);
  dedupe.remember(blank);
  assert.is(dedupe.repeatOf(HASH), undefined, 'a blank reply is no reply either');
  writeProposal(store, rejection(), T0);
  assert.is(dedupe.repeatOf(HASH)?.decision_text, '**Decision: reject**', 'the reviewer\'s own rejection still does');
});

test('§4.5: refusing repeats does not extend the window: deduped rows do not count, so a fresh review comes after 10 minutes', () => {
  const store = createMemoryStore();
  const c = clock();
  const dedupe = createDedupe({ store, now: c.now });
  const original = writeProposal(store, rejection(), T0);
  for (const minute of [3, 6, 9]) {
    c.t = T0 + minute * MIN;
    assert.equal(dedupe.repeatOf(HASH), original, `minute ${minute}`);
    dedupe.remember(writeProposal(store, rejection({ deduped: true }), c.t));
  }
  c.t = T0 + 10 * MIN;
  assert.is(dedupe.repeatOf(HASH), undefined);
});

test('E10: a cached rejection is answered from the LRU without reading the ledger', () => {
  const store = countingStore();
  const dedupe = createDedupe({ store, now: () => T0 + MIN });
  dedupe.remember(writeProposal(store, rejection(), T0));
  assert.ok(dedupe.repeatOf(HASH));
  assert.ok(dedupe.repeatOf(HASH));
  assert.is(store.reads, 0);
});

test('E10: the LRU holds `size` rejections; the least recently used falls out and is read from the ledger again', () => {
  const store = countingStore();
  const dedupe = createDedupe({ store, size: 2, now: () => T0 + MIN });
  const hashes = [1, 2, 3].map((id) => {
    const row = writeProposal(store, rejection({ target: { device_id: id } }), T0);
    dedupe.remember(row);
    return row.proposal_hash;
  });
  assert.ok(dedupe.repeatOf(hashes[2]));
  assert.ok(dedupe.repeatOf(hashes[1]));
  assert.is(store.reads, 0, 'the two most recent are cached');
  assert.ok(dedupe.repeatOf(hashes[0]), 'the evicted one is still a repeat: the ledger is the truth');
  assert.is(store.reads, 1);
  assert.ok(dedupe.repeatOf(hashes[1]));
  assert.is(store.reads, 1, 'reading hash 0 back evicted hash 2, not the recently used hash 1');
  assert.ok(dedupe.repeatOf(hashes[2]));
  assert.is(store.reads, 2);
});

test('§4.5: a miss is never cached, so a rejection written later (by another store instance) is found at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-dedupe-'));
  const mine = countingStore(createSqliteStore(dir));
  const theirs = createSqliteStore(dir);
  const dedupe = createDedupe({ store: mine, now: () => T0 + MIN });
  assert.is(dedupe.repeatOf(HASH), undefined);
  writeProposal(theirs, rejection(), T0);
  assert.is(dedupe.repeatOf(HASH)?.status, 'rejected');
  mine.close();
  theirs.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a window or size that is not a positive whole number, or no store, is E_DEDUPE_CONFIG', () => {
  const store = createMemoryStore();
  for (const bad of [{ windowMs: 0 }, { windowMs: -1 }, { windowMs: 1.5 }, { size: 0 }, { size: Number.NaN }]) {
    const e = thrownWithCode(() => createDedupe({ store, ...bad }), 'E_DEDUPE_CONFIG');
    assert.ok(e.fix);
  }
  thrownWithCode(() => createDedupe({} as never), 'E_DEDUPE_CONFIG');
  // A window longer than ten years would make the ledger look-back an impossible date: refused, naming windowMs.
  for (const windowMs of [1e14, 9e15]) assert.match(thrownWithCode(() => createDedupe({ store, windowMs }), 'E_DEDUPE_CONFIG').message, 'windowMs');
  assert.ok(createDedupe({ store, windowMs: 365 * 24 * 3_600_000 }), 'a year is fine');
});

test.run();

// A child writes (or checks) through its own SQLite store: a separate process, as a second gate would be.
const CHILD = `
const [ledgerUrl, dedupeUrl, sqliteUrl, dir, mode, now] = process.argv.slice(1);
const { writeProposal } = await import(ledgerUrl);
const { createDedupe } = await import(dedupeUrl);
const { createSqliteStore } = await import(sqliteUrl);
const store = createSqliteStore(dir);
const target = { service: 'nginx', device_id: 7 };
if (mode === 'reject') {
  const row = writeProposal(store, {
    operator: 'user_42', tool: 'host_restart_service', action: 'host_restart_service', reason: 'parallel operation detected; wait for X to complete',
    blast_radius: 'single_device', context_summary: '', target, status: 'rejected', decision_text: '**Decision: reject**',
    sop_id: null, rollback: null, missing_gates: ['parallel operation detected'], deduped: false, persona: 'reviewer', model: 'm',
  }, Number(now));
  process.stdout.write(JSON.stringify(row));
} else {
  const { proposalHash } = await import(ledgerUrl);
  const hit = createDedupe({ store, now: () => Number(now) }).repeatOf(proposalHash('user_42', 'host_restart_service', target));
  process.stdout.write(JSON.stringify(hit ?? null));
}
store.close();
`;

function child(dir: string, mode: 'reject' | 'check', now: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, LEDGER_MODULE, DEDUPE_MODULE, SQLITE_MODULE, dir, mode, String(now)], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child ${mode} exited ${code}: ${err}`))));
  });
}

const processes = suite('dedupe across processes');

processes('§4.5, E10: a rejection written by one process is a repeat for a gate in another process on the same store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-dedupe-'));
  const store = createSqliteStore(dir);
  const dedupe = createDedupe({ store, now: () => T0 + 2 * MIN });
  assert.is(dedupe.repeatOf(HASH), undefined, 'nothing rejected yet');

  const written = (await child(dir, 'reject', T0)) as { id: string; proposal_hash: string };
  assert.is(written.proposal_hash, HASH, 'the child computed the same key for the same call');
  assert.is(dedupe.repeatOf(HASH)?.id, written.id, 'this process sees the other process\'s rejection');
  assert.is(((await child(dir, 'check', T0 + 2 * MIN)) as { id: string }).id, written.id, 'so does a third process');
  assert.is(await child(dir, 'check', T0 + 10 * MIN), null, 'and for every process the window ends at 10 minutes');
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

processes.run();
