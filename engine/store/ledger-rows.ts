/**
 * The ledger rules both shipped stores enforce, written once: table names,
 * row shape, JSON-only bodies, the field types of the gate's tables
 * (format/table-shapes.ts) and query bounds. Every check runs before a
 * store writes anything, so a refused append never leaves half a batch.
 */
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import type { LedgerQuery, LedgerRow } from './store.js';
import { checkShape, RUN_FORBIDDEN_TABLES } from '../format/table-shapes.js';
import { said, shown } from '../format/said.js';
import { suggest } from '../format/suggest.js';
import { isCanonicalTime, isPlainObject, kindOf } from './row-shapes.js';

const QUERY_KEYS = ['since', 'key', 'limit'];

const TABLE_NAME = /^[a-z][a-z0-9_]*$/;
/** A date, or a date-time with an optional zone, as `--since` accepts it. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function checkTable(table: unknown): string {
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw new CountersignError('E_LEDGER_TABLE', `ledger table name ${said(table)} is not allowed`, {
      fix: 'name ledger tables with a lowercase letter followed by lowercase letters, digits or _ (e.g. chat_mutating_proposals)',
    });
  }
  return table;
}

/**
 * Checks a batch before any of it is written: table names, ids unique within
 * the batch and not yet stored (`stored` answers that), canonical times, and
 * bodies that are plain JSON. Returns the rows with `runId` filled in.
 */
/** The fields a ledger row has; its own data goes in `row`. */
const ROW_FIELDS: readonly string[] = ['id', 'table', 'at', 'key', 'runId', 'row'];

export function checkRows(rows: readonly LedgerRow[], stored: (id: string) => boolean, runId?: string): LedgerRow[] {
  if (!Array.isArray(rows)) throw rowError('the rows to append are not an array', 'pass an array of ledger rows');
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    if (!(i in rows)) throw rowError(`ledger row ${i} is a hole in the list (no row)`, 'pass one row object per place in the list');
  }
  return rows.map((row, i) => {
    const where = `ledger row ${i}`;
    if (row === null || typeof row !== 'object') throw rowError(`${where} is not an object`, 'pass {id, table, at, row}');
    // Inherited fields pass every check below, then memory keeps {} and SQLite the whole row.
    if (!isPlainObject(row)) throw rowError(`${where} is ${kindOf(row)}, not a plain object`, 'pass {id, table, at, row} as a plain object with its own fields');
    // A misspelt field (kee, runID) would be kept by one store and dropped by the other, the row neither keyed nor tied to its run.
    for (const field of Object.keys(row)) {
      if (ROW_FIELDS.includes(field)) continue;
      const near = suggest(field, ROW_FIELDS);
      throw rowError(`${where} has the field ${JSON.stringify(field)}, which a ledger row does not take${near ? ` — did you mean "${near}"?` : ''}`, `${near ? `rename it to "${near}"` : 'remove it, or put it in `row`'}: a ledger row is {id, table, at, key?, runId?, row}; nothing was written`);
    }
    checkTable(row.table);
    if (typeof row.id !== 'string' || row.id.trim() === '') {
      throw rowError(`${where} (table ${row.table}) has no id`, 'give every ledger row a non-empty string id, e.g. crypto.randomUUID()');
    }
    if (seen.has(row.id) || stored(row.id)) {
      throw rowError(`ledger row id "${row.id}" is already used`, 'ledger rows are append-only and ids are unique across all tables: give the row a new id');
    }
    seen.add(row.id);
    // Round-tripped through Date: a day that does not exist (02-30) would be read as another one and sort out of place.
    if (!isCanonicalTime(row.at)) {
      throw rowError(`ledger row "${row.id}" has time ${said(row.at)}, not a time in the one form ledger rows take: UTC with milliseconds, as Date#toISOString() writes it (so that text order is time order)`, 'write `at` as new Date(ms).toISOString(), e.g. 2026-01-01T09:30:00.000Z');
    }
    for (const field of ['key', 'runId'] as const) {
      if (row[field] !== undefined && typeof row[field] !== 'string') {
        throw rowError(`ledger row "${row.id}" has a ${field} that is not a string`, `omit ${field} or make it a string`);
      }
    }
    if (row.row === null || typeof row.row !== 'object' || Array.isArray(row.row)) {
      throw rowError(`ledger row "${row.id}" has a body that is not a JSON object`, 'put the row fields in `row` as an object');
    }
    const bad = nonJson(row.row, '', new Set());
    if (bad) throw rowError(`ledger row "${row.id}" holds ${bad.what} at ${bad.at}, which JSON cannot keep`, 'use only strings, finite numbers, booleans, null, arrays and plain objects (null for "no value")');
    // The gate's tables have fixed field types, whoever writes to them.
    checkShape(row.table, row.row, row.id);
    if (RUN_FORBIDDEN_TABLES.has(row.table) && (runId !== undefined || row.runId !== undefined)) {
      throw rowError(`ledger row "${row.id}": a workflow run may not write to table ${row.table}`, `${row.table} is kept by the review gate itself; write to another table`);
    }
    return runId !== undefined && row.runId === undefined ? { ...row, runId } : row;
  });
}

/** The query with `since` as a canonical time (text order is time order), after checking it. */
export function checkQuery(query: LedgerQuery | undefined): { since?: string; key?: string; limit?: number } {
  if (query === undefined) return {};
  // null, a number or a misspelt key ({ lim }) would otherwise be read as no query: every row, silently.
  // A Map has no own keys either: it would be read as no query.
  if (!isPlainObject(query)) {
    throw new CountersignError('E_LEDGER_QUERY', `a ledger query is an object ({ since, key, limit }), got ${query !== null && typeof query === 'object' && !Array.isArray(query) ? kindOf(query) : shown(query)}`, {
      fix: 'pass { since, key, limit } (each optional), or leave the query out for every row',
    });
  }
  for (const name of Object.keys(query)) {
    if (QUERY_KEYS.includes(name)) continue;
    const near = suggest(name, QUERY_KEYS);
    throw new CountersignError('E_LEDGER_QUERY', `a ledger query has no option ${JSON.stringify(name)}${near ? ` — did you mean "${near}"?` : ''}`, {
      fix: `${near ? `rename it to "${near}"` : 'remove it'}: a ledger query takes ${QUERY_KEYS.join(', ')}, and an option it does not know is never read as left out`,
    });
  }
  const out: { since?: string; key?: string; limit?: number } = {};
  if (query.since !== undefined) {
    // Every ledger time is UTC, so is a date-time given without a zone (as a bare date already is to Date.parse).
    const ms = typeof query.since === 'string' && ISO_8601.test(query.since) && realCalendar(query.since) ? Date.parse(withZone(query.since)) : Number.NaN;
    if (Number.isNaN(ms)) {
      throw new CountersignError('E_LEDGER_QUERY', `since ${said(query.since)} is not an ISO-8601 time${typeof query.since === 'string' && ISO_8601.test(query.since) ? ' (no such date or time)' : ''}`, {
        fix: 'pass a date or date-time that exists, such as 2026-01-01 or 2026-01-01T09:30:00Z',
      });
    }
    // Ledger times are whole milliseconds; Date.parse drops digits past the
    // third, so a finer time rounds up: no row before it is ever listed.
    const finer = typeof query.since === 'string' ? /\.\d{3}(\d+)/.exec(query.since) : null;
    out.since = new Date(finer && /[1-9]/.test(finer[1]) ? ms + 1 : ms).toISOString();
  }
  if (query.key !== undefined) {
    if (typeof query.key !== 'string') throw new CountersignError('E_LEDGER_QUERY', `a ledger query key must be a string, got ${said(query.key)}`, { fix: 'pass the key as a string' });
    out.key = query.key;
  }
  if (query.limit !== undefined) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
      throw new CountersignError('E_LEDGER_QUERY', `limit ${said(query.limit)} is not a positive whole number`, {
        fix: 'pass a limit of 1 or more, or omit it for every row',
      });
    }
    out.limit = query.limit;
  }
  return out;
}

/**
 * Whether the date and time fields name a real moment. Date.parse rolls
 * 2026-02-30 over to March 2 and reads 24:00 as the next day; a filter
 * silently moved by days is worse than an error.
 */
/** A date-time without a zone, read as UTC: Date.parse would read it in the machine's zone. */
function withZone(text: string): string {
  return /T[^Z+-]*$/.test(text) ? `${text}Z` : text;
}

function realCalendar(text: string): boolean {
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text)!;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  const days = last.getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= days && Number(h) <= 23 && Number(mi) <= 59 && Number(s) <= 59;
}

function rowError(message: string, fix: string): CountersignError {
  return new CountersignError('E_LEDGER_ROW', message, { fix });
}

/** The first value that would not survive JSON unchanged (or a cycle), with its pointer in the body. */
function nonJson(value: unknown, at: string, parents: Set<object>): { what: string; at: string } | undefined {
  const here = at === '' ? '/' : at;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { what: String(value), at: here };
  if (typeof value !== 'object') return { what: value === undefined ? 'undefined' : said(value), at: here };
  if (parents.has(value)) return { what: 'a reference to itself', at: here };
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return { what: `a ${(value as object).constructor?.name ?? 'class'} instance`, at: here };
  }
  parents.add(value);
  try {
    // Array holes count too: JSON would turn them into null.
    const entries = Array.isArray(value) ? Array.from(value, (v, i) => [String(i), v] as const) : Object.entries(value as JsonObject);
    for (const [k, v] of entries) {
      const bad = nonJson(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, parents);
      if (bad) return bad;
    }
  } finally {
    parents.delete(value);
  }
  return undefined;
}
