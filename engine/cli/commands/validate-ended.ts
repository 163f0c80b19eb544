/**
 * `validate --allow-tool-modules` over several files, when a module ends
 * the process while it loads: the files already checked keep their
 * results, the file whose module did it gets E_TOOL_MODULE at its
 * `/toolModules/<i>` entry, and the files not reached say so — one
 * document (or one line per finding), as validate always prints.
 */
import { isAbsolute, resolve } from 'node:path';
import { readSource } from '../../format/source.js';
import { formatHuman, formatJson } from '../../validate/report.js';
import { locateFinding } from '../../validate/locate.js';
import type { ValidationReport } from '../../validate/index.js';
import type { EndedEarly } from '../early-exit.js';
import { printJson, type Io } from '../io.js';

export function sayValidateEndedEarly(io: Io, json: boolean, files: readonly string[], checked: readonly ValidationReport[], ended: EndedEarly): void {
  // The file whose module ended it: the one whose toolModules named that module (a timer its module left may
  // fire while a later file is checked), else the file being checked.
  const named = ended.activity?.workflow;
  const culprit = named !== undefined ? files.findIndex((f, k) => k <= checked.length && resolve(io.cwd, f) === named) : -1;
  const at = culprit >= 0 ? culprit : checked.length;
  const reports: ValidationReport[] = files.map((file, k) => {
    if (k === at) {
      const pointer = ended.activity?.pointer ?? '/toolModules';
      const where = position(resolve(io.cwd, file), pointer);
      return { file, ok: false, errors: [{ code: 'E_TOOL_MODULE', message: `${ended.message}; ${ended.fix}`, pointer, line: where.line, col: where.col }], warnings: [] };
    }
    if (k < checked.length) return checked[k];
    const when = k === checked.length ? 'while it was being checked' : 'before its turn';
    return {
      file,
      ok: false,
      errors: [{ code: 'E_TOOL_MODULE', message: `not checked: the process ended ${when}, by the tool module of ${files[at]}; validate it again once that module is fixed`, pointer: '', line: 0, col: 0 }],
      warnings: [],
    };
  });
  if (json) printJson(io, formatJson(reports));
  else {
    const text = formatHuman(reports);
    if (text) io.stdout.write(`${text}\n`);
  }
}

/** Where `pointer` is in `path` (line 0: no position, when the file cannot be read again). */
function position(path: string, pointer: string): { line: number; col: number } {
  try {
    const doc = readSource(isAbsolute(path) ? path : resolve(path));
    return locateFinding(doc, { code: 'E_TOOL_MODULE', message: '', pointer, severity: 'error' });
  } catch {
    return { line: 0, col: 0 };
  }
}
