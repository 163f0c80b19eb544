/**
 * Validation output. Human: one line per finding, `file:line:col error CODE
 * message`, in file order, so editors and terminals can jump to it. JSON:
 * exactly the documented `{files: [...]}` document for `--json`.
 */
import type { FindingOut, ValidationReport } from './index.js';

export interface JsonReport {
  files: { file: string; ok: boolean; errors: FindingOut[]; warnings: FindingOut[] }[];
}

export function formatHuman(reports: ValidationReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const all = [
      ...report.errors.map((f) => ({ f, severity: 'error' })),
      ...report.warnings.map((f) => ({ f, severity: 'warning' })),
    ].sort((a, b) => a.f.line - b.f.line || a.f.col - b.f.col);
    // One line per finding: a message quoting the user's multi-line text keeps its breaks escaped.
    for (const { f, severity } of all) lines.push(`${report.file}:${f.line}:${f.col} ${severity} ${f.code} ${oneLine(f.message)}`);
  }
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

export function formatJson(reports: ValidationReport[]): JsonReport {
  const finding = (f: FindingOut): FindingOut => ({ code: f.code, message: f.message, pointer: f.pointer, line: f.line, col: f.col });
  return {
    files: reports.map((r) => ({ file: r.file, ok: r.ok, errors: r.errors.map(finding), warnings: r.warnings.map(finding) })),
  };
}
