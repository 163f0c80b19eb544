/**
 * The gate's dedupe (E9, E10, §4.5): a proposal whose hash (operator, tool,
 * canonical target) was rejected by a review less than `windowMs` ago is a
 * repeat, refused without spawning the reviewer again. The ledger is the
 * truth, so a rejection written by another process or before a restart is
 * found; an in-memory LRU of recent rejections sits in front of it so a
 * looping coordinator costs no ledger read.
 *
 * Only reviewed rejections open a window. Deduped rows (the refusals of
 * repeats) do not extend it, so a coordinator retrying every minute still
 * gets a fresh review once the reviewer's own rejection is `windowMs` old.
 */
import { CountersignError } from '../errors.js';
import type { Store } from '../store/store.js';
import { proposalsByHash, type ProposalRow } from './ledger.js';

export const DEFAULT_DEDUPE_WINDOW_MS = 600_000;
/** The longest window: ten years, so the look-back is always a date the ledger can name. */
export const MAX_DEDUPE_WINDOW_MS = 10 * 365 * 24 * 3_600_000;

/** A failed gate line about the SOP opens with "no SOP" (seed C2: `✗ no SOP for action <X>`). */
const NO_SOP_GATE = /^\s*no\s+SOP\b/i;
/** A reason that is seed C2's own wording, "no SOP for action <X>", from its first word. */
const NO_SOP_REASON = /^\s*no\s+SOP\s+for\b/i;

/**
 * Whether a rejection was (at least partly) for a missing SOP: one of its ✗
 * lines opens with "no SOP", or its reason is seed C2's "no SOP for action
 * <X>". Only such a rejection can be answered by a user's confirmation of
 * force_approve_no_sop (F6, §4.6); every other one stays a repeat for its
 * whole window. The words are matched where they open a line, never inside
 * prose ("No SOP gap here" in the Notes is no missing SOP).
 */
export function rejectedForNoSop(row: Pick<ProposalRow, 'reason' | 'missing_gates'>): boolean {
  // Emphasis is not wording: "**no SOP** for …" and "`no SOP`" open with it too.
  const gate = (text: unknown) => typeof text === 'string' && NO_SOP_GATE.test(text.replace(/[*_`]/g, ''));
  return (typeof row.reason === 'string' && NO_SOP_REASON.test(row.reason.replace(/[*_`]/g, ''))) || (Array.isArray(row.missing_gates) && row.missing_gates.some(gate));
}
export const DEFAULT_DEDUPE_SIZE = 256;

export interface DedupeOptions {
  store: Store;
  /** How long a rejection refuses its repeats; default 10 minutes. */
  windowMs?: number;
  /** Rejections kept in memory; default 256. */
  size?: number;
  /** The clock, in epoch milliseconds; default Date.now. */
  now?: () => number;
}

export interface Dedupe {
  readonly windowMs: number;
  readonly size: number;
  /**
   * The reviewed rejection that makes a proposal with this hash a repeat, or
   * undefined. `fromLedger` skips the in-memory cache: when a confirmation
   * may reopen the call, only the newest rejection — perhaps another
   * process's — can say whether that confirmation was already used.
   */
  repeatOf(hash: string, opts?: { fromLedger?: boolean }): ProposalRow | undefined;
  /** Tells the dedupe about a row just written; only a reviewed rejection is kept. */
  remember(row: ProposalRow): void;
}

export function createDedupe(options: DedupeOptions): Dedupe {
  const { store, windowMs = DEFAULT_DEDUPE_WINDOW_MS, size = DEFAULT_DEDUPE_SIZE, now = Date.now } = options;
  positive('windowMs', windowMs, 'a window in milliseconds, e.g. 600000 for 10 minutes');
  // A window reaching back past any date the ledger can name would make every lookup an impossible time.
  if ((windowMs as number) > MAX_DEDUPE_WINDOW_MS) {
    throw new CountersignError('E_DEDUPE_CONFIG', `dedupe windowMs ${windowMs} is longer than the ${MAX_DEDUPE_WINDOW_MS} ms (10 years) the ledger can look back`, {
      fix: 'pass windowMs as a window in milliseconds of at most 10 years, e.g. 600000 for 10 minutes',
    });
  }
  positive('size', size, 'how many rejections to keep in memory, e.g. 256');
  // `in`, not a read: a lazy store (the CLI's) opens on its first read, and a gate that fails to build must create none.
  if (store === null || typeof store !== 'object' || !('rows' in store)) {
    throw new CountersignError('E_DEDUPE_CONFIG', 'the dedupe needs the store that holds the ledger', {
      fix: 'pass { store } (the same store the gate writes its proposal rows to)',
    });
  }
  // Map iteration order is insertion order: the first key is the least recently used.
  const lru = new Map<string, ProposalRow>();

  const fresh = (row: ProposalRow, t: number) => t - Date.parse(row.at) < windowMs;
  // Only the reviewer's own rejection counts: a reply it gave (decision_text).
  // A reviewer that crashed, printed no JSON or declared $error decided
  // nothing — the call failed closed, and a retry once it is fixed is
  // reviewed. A row a hand run of the gate workflow wrote is no decision of this gate's.
  const counts = (row: ProposalRow) =>
    row.status === 'rejected' && row.deduped !== true && row.by_gate !== false && typeof row.decision_text === 'string' && row.decision_text.trim() !== '';
  // A later approval of the same call (its confirmation reopened the
  // rejection, and the fresh review approved) is the newest decision: the
  // old rejection no longer makes a retry a repeat.
  const approves = (row: ProposalRow) => row.status === 'approved' && row.deduped !== true && row.by_gate !== false;

  function keep(hash: string, row: ProposalRow): void {
    lru.delete(hash);
    lru.set(hash, row);
    if (lru.size > size) lru.delete(lru.keys().next().value!);
  }

  return {
    windowMs,
    size,

    repeatOf(hash, opts) {
      const t = now();
      const cached = lru.get(hash);
      // Answered from memory (E10: no ledger read). An approval another
      // process wrote since is not seen here until the rejection leaves the
      // window or the cache: the stale answer is a refusal, never an approval.
      if (cached && fresh(cached, t) && opts?.fromLedger !== true) {
        keep(hash, cached);
        return cached;
      }
      if (cached) lru.delete(hash);
      // Misses are never cached: another process may reject this proposal at any moment.
      const since = new Date(t - windowMs).toISOString();
      const rows = proposalsByHash(store, hash, since).filter((r) => (counts(r) || approves(r)) && fresh(r, t));
      const newest = rows[rows.length - 1];
      if (!newest || newest.status !== 'rejected') return undefined;
      keep(hash, newest);
      return newest;
    },

    remember(row) {
      if (typeof row.proposal_hash !== 'string') return;
      if (counts(row)) keep(row.proposal_hash, row);
      else if (approves(row)) lru.delete(row.proposal_hash);
    },
  };
}

function positive(name: string, value: unknown, what: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new CountersignError('E_DEDUPE_CONFIG', `dedupe ${name} ${JSON.stringify(value)} is not a positive whole number`, {
      fix: `pass ${name} as ${what}, or leave it out for the default`,
    });
  }
}
