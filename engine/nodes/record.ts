/**
 * `record`: appends one row to a named ledger table in the run's store —
 * the review gate's proposal rows, or any audit trail a workflow keeps.
 * Each field is a literal JSON value, a template string, or
 * `{contextPath}` (copied with its JSON type: an object stays an object,
 * a missing value becomes null). The row is written in the same store
 * transaction as the step, so a run never records a row it did not reach,
 * nor reaches a node whose row was lost. A table with a fixed shape (the
 * review gate's chat_mutating_proposals, tool_executions, …) takes only
 * rows of its field types: validate checks the fields it can see, and a
 * row that still does not fit fails the run with E_LEDGER_ROW, unwritten.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue, Operand, RecordNode, Workflow } from '../format/model.js';
import { renderTemplate } from '../format/template.js';
import { checkTemplate, templateReads } from './checks.js';
import type { Finding, RunContext, TransientType, VariableRead } from './node-type.js';
import { lookup } from './workflow-facts.js';
import { describeKind, fitsKind, optionalKind, RUN_FORBIDDEN_TABLES, shapeProblems, tableShape, takesString } from '../format/table-shapes.js';

/** Ledger table names: lower-case SQL-safe identifiers. */
export const TABLE_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Columns the engine fills itself. */
const RESERVED_FIELDS = ['id', 'at'];

export const record: TransientType<RecordNode> = {
  type: 'record',
  kind: 'transient',
  connections: { required: ['default'], optional: [] },

  declares() {
    return { local: ['rowId'], globals: [] };
  },

  reads(node, pointer) {
    const out: VariableRead[] = [];
    for (const [name, value] of Object.entries(node.fields ?? {})) {
      const at = `${pointer}/fields/${escape(name)}`;
      if (typeof value === 'string') out.push(...templateReads(value, at));
      else if (isPath(value)) out.push({ path: value.contextPath, pointer: `${at}/contextPath` });
    }
    if (typeof node.key === 'string') out.push(...templateReads(node.key, `${pointer}/key`));
    return out;
  },

  check(node, ctx): Finding[] {
    const findings: Finding[] = [];
    for (const [name, value] of Object.entries(node.fields ?? {})) {
      const at = `${ctx.pointer}/fields/${escape(name)}`;
      if (RESERVED_FIELDS.includes(name)) {
        findings.push({ code: 'E_SCHEMA', message: `field "${name}" is filled by the engine (every row gets its own id and time); remove it`, pointer: at, severity: 'error', key: true });
      }
      if (typeof value === 'string') findings.push(...checkTemplate(value, at));
    }
    if (typeof node.key === 'string') findings.push(...checkTemplate(node.key, `${ctx.pointer}/key`));
    findings.push(...shapeFindings(node, ctx.pointer));
    return findings;
  },

  step(node, ctx, workflow) {
    const rowId = randomUUID();
    const row: JsonObject = {};
    const unset: string[] = [];
    // Own data properties (a plain assignment of `__proto__` would set the row's prototype instead).
    for (const [name, value] of Object.entries(node.fields)) Object.defineProperty(row, name, { value: fieldValue(value, ctx, workflow, unset), enumerable: true, writable: true, configurable: true });
    // A row the store would refuse fails the run here, with the node named,
    // instead of aborting the step's transaction.
    const [bad] = RUN_FORBIDDEN_TABLES.has(node.table)
      ? [{ field: 'table', message: keptBy(node.table), fix: 'write to another table' }]
      : shapeProblems(node.table, row);
    if (bad) {
      const message = `record node "${node.id}" cannot write its ${node.table} row: ${bad.message} (${bad.fix})`;
      return { via: 'error', event: { type: 'record.refused', table: node.table, field: bad.field, message }, error: { code: 'E_LEDGER_ROW', message } };
    }
    const event: { type: string; [k: string]: JsonValue | undefined } = { type: 'record.written', table: node.table, rowId, row };
    if (node.key !== undefined) event.key = render(node.key, ctx, workflow, unset);
    return { via: 'default', local: { rowId }, event, ...(unset.length > 0 ? { unset } : {}) };
  },
};

/**
 * Static checks of a row for a table with a fixed shape (the gate's
 * chat_mutating_proposals, …): every field present and no other, literals
 * of the field's type, and templates only where a string fits. A
 * `contextPath` is checked when the row is written.
 */
function shapeFindings(node: RecordNode, pointer: string): Finding[] {
  if (RUN_FORBIDDEN_TABLES.has(node.table)) {
    return [{ code: 'E_LEDGER_ROW', message: `table ${node.table}: ${keptBy(node.table)}; a workflow may not write to it`, pointer: `${pointer}/table`, severity: 'error' }];
  }
  const shape = tableShape(node.table);
  if (!shape || !node.fields || typeof node.fields !== 'object') return [];
  const findings: Finding[] = [];
  const at = (name: string) => `${pointer}/fields/${escape(name)}`;
  for (const [name, value] of Object.entries(node.fields)) {
    if (RESERVED_FIELDS.includes(name)) continue;
    // Own keys only: a field may be named `constructor` or `toString`.
    const kind = Object.hasOwn(shape, name) ? shape[name] : undefined;
    if (kind === undefined) {
      findings.push({ code: 'E_LEDGER_ROW', message: `a ${node.table} row has no field "${name}"; its fields are ${Object.keys(shape).join(', ')}`, pointer: at(name), severity: 'error', key: true });
    } else if (typeof value === 'string') {
      if (!takesString(kind)) findings.push({ code: 'E_LEDGER_ROW', message: `field "${name}" of a ${node.table} row must be ${describeKind(kind)}, and a template always renders a string; use {"contextPath": "…"} or a literal`, pointer: at(name), severity: 'error' });
      else if (kind === 'status' && !/\{\{/.test(value) && !fitsKind(value, kind)) findings.push({ code: 'E_LEDGER_ROW', message: `status "${value}" is not one of ${describeKind(kind)}`, pointer: at(name), severity: 'error' });
    } else if (!isPath(value) && !fitsKind(value, kind)) {
      findings.push({ code: 'E_LEDGER_ROW', message: `field "${name}" of a ${node.table} row must be ${describeKind(kind)}, not ${JSON.stringify(value)}`, pointer: at(name), severity: 'error' });
    }
  }
  const missing = Object.keys(shape).filter((name) => !(name in node.fields) && !optionalKind(shape[name]));
  if (missing.length > 0) {
    findings.push({ code: 'E_LEDGER_ROW', message: `a ${node.table} row needs every field of the table; this one lacks ${missing.join(', ')}`, pointer: `${pointer}/fields`, severity: 'error', key: true });
  }
  return findings;
}

function fieldValue(value: Operand, ctx: RunContext, workflow: Workflow, unset: string[]): JsonValue {
  if (typeof value === 'string') return render(value, ctx, workflow, unset);
  if (isPath(value)) {
    const r = lookup(ctx, workflow, value.contextPath);
    return r.found && r.value !== undefined ? structuredClone(r.value as JsonValue) : null;
  }
  return value;
}

function render(text: string, ctx: RunContext, workflow: Workflow, unset: string[]): string {
  const out = renderTemplate(text, (path) => lookup(ctx, workflow, path));
  unset.push(...out.unset);
  return out.text;
}

function isPath(o: Operand): o is { contextPath: string } {
  return o !== null && typeof o === 'object' && !Array.isArray(o) && typeof (o as { contextPath?: unknown }).contextPath === 'string';
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Who alone writes a table no run may write. */
function keptBy(table: string): string {
  if (table === 'user_confirmations') return 'only a person writes confirmations (countersign confirm, or a host\'s recordConfirmation)';
  if (table === 'tool_executions') return 'only the audit decorator writes it, as a tool runs (a row a workflow wrote would show a run that never happened)';
  return 'only the review gate writes it (the runs it started)';
}
