/**
 * `<report>.prev`: the one earlier generation the engine keeps (G8) — the
 * findings of the last accepted review, whatever the fix step did to the
 * report file afterwards. A fixer that ticks items off, rewrites or deletes
 * the report must not turn `.prev` into something no reviewer wrote.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { CountersignError } from '../errors.js';
import { moveAside, setAside } from './artifacts.js';
import { NotRegularFile, readRegularFile } from './report-file.js';
import { reportDigest, reportText, type ReportFormat } from './report.js';
import { withoutBom } from '../format/bom.js';

/** The report as the engine accepted it. */
export interface AcceptedReport {
  digest: string;
  issues: string[];
  format: ReportFormat;
  /** Where it was accepted: a templated report path may name another file next time. */
  path?: string;
}

/** What happened to the live report since it was accepted: `kept` when nothing. */
export type ReportChange = 'kept' | 'edited' | 'deleted';

/**
 * Makes `.prev` the accepted report. Unchanged, the file itself moves there.
 * Edited or deleted, `.prev` is written from the accepted findings and an
 * edited file is set aside as `.refused` (the latest one; a later one replaces it). Without a record
 * of the accepted report (a run begun by an older version) the file moves.
 */
export function keepPreviousReport(report: string, accepted: AcceptedReport | undefined): ReportChange {
  if (!accepted) {
    moveAside(report);
    return 'kept';
  }
  const live = digestOf(report);
  if (live === accepted.digest) {
    moveAside(report);
    return 'kept';
  }
  // Gone, and already at .prev as accepted: an earlier attempt at this step
  // moved it (a process killed before its step committed). Nothing to redo,
  // nothing the fix step did.
  if (live === undefined && digestOf(`${report}.prev`) === accepted.digest) return 'kept';
  const change: ReportChange = live === undefined ? 'deleted' : 'edited';
  if (change === 'edited') setAside(report, `${report}.refused`);
  moveAside(report); // creates the directory when the report was deleted with it
  try {
    // Written beside it and renamed over it: a rename replaces a link at .prev, never writes through one.
    // Named by process and a random part: a temp file a crashed process left (its pid reused since) is never in the way.
    const temp = `${report}.prev.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, reportText(accepted.issues, accepted.format), { flag: 'wx' });
    renameSync(temp, `${report}.prev`);
  } catch (e) {
    throw new CountersignError('E_REPORT_PATH', `the review report ${report} cannot be prepared: writing ${report}.prev failed (${(e as NodeJS.ErrnoException).code ?? String(e)})`, {
      file: report,
      fix: 'point the review node\'s "report" at a file path inside the workspace whose directory can be written',
    });
  }
  return change;
}

/** The live report's digest; undefined when it is gone. Something other than a file counts as an edit, never read. */
function digestOf(path: string): string | undefined {
  try {
    // As readReport digests it: without a byte-order mark (a Windows editor's), or an untouched report would read as edited.
    return reportDigest(withoutBom(readRegularFile(path)));
  } catch (e) {
    return e instanceof NotRegularFile ? `not-a-file:${e.kind}` : undefined;
  }
}
