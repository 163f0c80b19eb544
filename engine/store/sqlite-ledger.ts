/**
 * The SQLite store's ledger: append-only rows in one `ledger` table, the
 * body kept as JSON text and parsed back on every read, so booleans, objects
 * and null come back as they were written (never SQLite's 0/1 or text).
 * Appends run inside the caller's transaction, which makes a batch (and a
 * step's rows with its record) all-or-nothing.
 */
import type Database from 'better-sqlite3';
import { CountersignError } from '../errors.js';
import type { JsonObject } from '../format/model.js';
import type { LedgerQuery, LedgerRow } from './store.js';
import { checkQuery, checkRows, checkTable } from './ledger-rows.js';

interface LedgerDbRow {
  id: string;
  table_name: string;
  at: string;
  key: string | null;
  run_id: string | null;
  body: string;
}

type Query = Database.Statement<unknown[], LedgerDbRow>;

export interface SqliteLedger {
  /** Call inside a write transaction. */
  append(rows: readonly LedgerRow[], runId?: string): void;
  rows(table: string, query?: LedgerQuery): LedgerRow[];
}

export function createSqliteLedger(db: Database.Database, file: string): SqliteLedger {
  const hasId = db.prepare<[string], number>('SELECT 1 FROM ledger WHERE id = ?').pluck();
  const nextSeq = db.prepare<[], number>('SELECT COALESCE(MAX(seq) + 1, 0) FROM ledger').pluck();
  const insert = db.prepare<[string, number, string, string, string | null, string | null, string]>(
    'INSERT INTO ledger (id, seq, table_name, at, key, run_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );

  // One prepared query per combination of since / key / limit, made on first use.
  const queries = new Map<string, Query>();
  function query(since: boolean, key: boolean, limit: boolean): Query {
    const shape = `${since}${key}${limit}`;
    let stmt = queries.get(shape);
    if (!stmt) {
      const where = ['table_name = ?', ...(key ? ['key = ?'] : []), ...(since ? ['at >= ?'] : [])].join(' AND ');
      const columns = 'id, table_name, at, key, run_id, body';
      // With a limit, take the newest rows, then turn them back to oldest first.
      const text = limit
        ? `SELECT ${columns} FROM (SELECT ${columns}, seq FROM ledger WHERE ${where} ORDER BY at DESC, seq DESC LIMIT ?) ORDER BY at, seq`
        : `SELECT ${columns} FROM ledger WHERE ${where} ORDER BY at, seq`;
      stmt = db.prepare<unknown[], LedgerDbRow>(text);
      queries.set(shape, stmt);
    }
    return stmt;
  }

  function toRow(r: LedgerDbRow): LedgerRow {
    let body: JsonObject;
    try {
      body = JSON.parse(r.body) as JsonObject;
    } catch (err) {
      throw new CountersignError('E_STORE', `ledger row "${r.id}" in ${file} is not valid JSON (${(err as Error).message})`, {
        file,
        fix: 'the database row is damaged; restore countersign.db from a backup',
      });
    }
    // Valid JSON that is no row body (null, a list) is as damaged as text that is not JSON.
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new CountersignError('E_STORE', `ledger row "${r.id}" in ${file} has a body that is not a JSON object (${JSON.stringify(body).slice(0, 60)})`, {
        file,
        fix: 'the database row is damaged; restore countersign.db from a backup',
      });
    }
    const row: LedgerRow = { id: r.id, table: r.table_name, at: r.at, row: body };
    if (r.key !== null) row.key = r.key;
    if (r.run_id !== null) row.runId = r.run_id;
    return row;
  }

  return {
    append(rows, runId) {
      const checked = checkRows(rows, (id) => hasId.get(id) !== undefined, runId);
      let seq = nextSeq.get() ?? 0;
      for (const r of checked) insert.run(r.id, seq++, r.table, r.at, r.key ?? null, r.runId ?? null, JSON.stringify(r.row));
    },

    rows(table, q) {
      checkTable(table);
      const { since, key, limit } = checkQuery(q);
      const params: unknown[] = [table];
      if (key !== undefined) params.push(key);
      if (since !== undefined) params.push(since);
      if (limit !== undefined) params.push(limit);
      return query(since !== undefined, key !== undefined, limit !== undefined).all(...params).map(toRow);
    },
  };
}
