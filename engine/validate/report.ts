/**
 * Validation output. Human: one line per finding, `file:line:col error CODE
 * message`, in file order, so editors and terminals can jump to it. JSON:
 * exactly the documented `{files: [...]}` document for `--json`.
 */
import type { FindingOut, ValidationReport } from './index.js';

/** A finding as --json prints it: `line`/`col` are null for a file that has no position to give (it could not be read). */
export type JsonFinding = Omit<FindingOut, 'line' | 'col'> & { line: number | null; col: number | null };

export interface JsonReport {
  files: { file: string; ok: boolean; errors: JsonFinding[]; warnings: JsonFinding[] }[];
}

export function formatHuman(reports: ValidationReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const all = [
      ...report.errors.map((f) => ({ f, severity: 'error' })),
      ...report.warnings.map((f) => ({ f, severity: 'warning' })),
    ].sort((a, b) => a.f.line - b.f.line || a.f.col - b.f.col);
    // One line per finding: a message quoting the user's multi-line text keeps its breaks escaped.
    // Line 0 is no position (an unreadable file): named without one rather than as a line that does not exist.
    for (const { f, severity } of all) lines.push(`${report.file}${f.line > 0 ? `:${f.line}:${f.col}` : ':'} ${severity} ${f.code} ${oneLine(f.message)}`);
  }
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

export function formatJson(reports: ValidationReport[]): JsonReport {
  const finding = (f: FindingOut): JsonFinding => ({ code: f.code, message: f.message, pointer: f.pointer, line: f.line > 0 ? f.line : null, col: f.line > 0 ? f.col : null });
  return {
    files: reports.map((r) => ({ file: r.file, ok: r.ok, errors: r.errors.map(finding), warnings: r.warnings.map(finding) })),
  };
}
