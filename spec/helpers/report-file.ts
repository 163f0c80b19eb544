/** Review report files for the report-parsing suites: each in a fresh directory of its own. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A writer of report files under one temp root, and a cleanup for the suite's `after`. */
export function reportFiles(prefix: string): { root: string; report: (name: string, text: string) => string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  let counter = 0;
  return {
    root,
    /** Writes `text` to a fresh file with the given name and returns its path. */
    report(name, text) {
      const dir = join(root, String(++counter));
      mkdirSync(dir);
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A report's issues and format, without its digest (which only says whether the text changed). */
export function shapeOf(report: { issues: string[]; format: string }): { issues: string[]; format: string } {
  return { issues: report.issues, format: report.format };
}
