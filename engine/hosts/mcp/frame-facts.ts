/**
 * What the two ends of an oversized frame say about it. Such a frame is
 * skipped unread (stdio-transport.ts keeps only its first and last bytes),
 * yet the client waits on its id: only top-level keys with plain values
 * are read, so an "id" inside params is never taken for the request's.
 */
import type { OversizedFrame } from './stdio-transport.js';

const STRING = '"(?:[^"\\\\]|\\\\.)*"';
const PRIMITIVE = `(?:${STRING}|-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|true|false|null)`;
const PAIR = `\\s*${STRING}\\s*:\\s*${PRIMITIVE}\\s*`;
/** The keys with plain values that open the frame, up to the first object or array value (usually params). */
const LEADING_PAIRS = new RegExp(`^\\s*\\{((?:${PAIR},)*${PAIR})(?:,|\\}|$)`);
/** The keys with plain values that close the frame, after its last object or array value. */
const TRAILING_PAIRS = new RegExp(`,((?:${PAIR},)*${PAIR})\\}\\s*$`);

/**
 * What the ends of an oversized frame say about it. Only top-level keys are
 * read: those with plain values at its start (before the first object value)
 * and at its end (after the last one), in any order — never a key inside params.
 */
export function frameFacts(head: string, tail: string, bytes: number, limit: number): OversizedFrame {
  const keys = { ...pairsOf(TRAILING_PAIRS.exec(tail.replace(/\r$/, ''))?.[1]), ...pairsOf(LEADING_PAIRS.exec(head)?.[1]) };
  const id = typeof keys.id === 'string' || typeof keys.id === 'number' ? keys.id : undefined;
  const method = typeof keys.method === 'string' && keys.method !== '' ? keys.method : undefined;
  return { ...(id !== undefined ? { id } : {}), ...(method ? { method } : {}), bytes, limit };
}

/** The first element's keys of a batch frame, before its first object value. */
const BATCH_LEADING_PAIRS = new RegExp(`^\\s*\\[\\s*\\{((?:${PAIR},)*${PAIR})(?:,|\\}|$)`);
/** The last element's keys of a batch frame, after its last object value. */
const BATCH_TRAILING_PAIRS = new RegExp(`,((?:${PAIR},)*${PAIR})\\}\\s*\\]\\s*$`);

/** The requests the ends of an oversized batch show: its first and its last element, each with an id (one when they are the same). */
export function batchFrameFacts(head: string, tail: string, bytes: number, limit: number): Array<OversizedFrame & { id: string | number }> {
  const out: Array<OversizedFrame & { id: string | number }> = [];
  for (const keys of [pairsOf(BATCH_LEADING_PAIRS.exec(head)?.[1]), pairsOf(BATCH_TRAILING_PAIRS.exec(tail.replace(/\r$/, ''))?.[1])]) {
    const id = typeof keys.id === 'string' || typeof keys.id === 'number' ? keys.id : undefined;
    if (id === undefined || out.some((f) => f.id === id)) continue;
    const method = typeof keys.method === 'string' && keys.method !== '' ? keys.method : undefined;
    out.push({ id, ...(method ? { method } : {}), bytes, limit });
  }
  return out;
}

function pairsOf(pairs: string | undefined): Record<string, unknown> {
  if (pairs === undefined) return {};
  try {
    return JSON.parse(`{${pairs}}`) as Record<string, unknown>;
  } catch {
    return {};
  }
}
