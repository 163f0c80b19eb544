import { resolve } from 'node:path';
import { validatePersonaFile } from '../../gate/persona-lint.js';
import { formatHuman, formatJson } from '../../validate/report.js';
import { validateFile, type ValidationReport } from '../../validate/index.js';
import { validateFileWithModules } from '../../validate/with-modules.js';
import { printJson, reportFailure, usage } from '../io.js';
import { sayWhenEndedEarly } from '../early-exit.js';
import { TOOL_MODULE_OPTIONS, type Command } from './command.js';
import { sayValidateEndedEarly } from './validate-ended.js';

export const command: Command = {
  usage: [
    'countersign validate <files...> [--allow-tool-modules] [--json]',
    '  .json, .yaml and .yml files are workflows; .md files are personas (agents/<name>.md)',
    '  --allow-tool-modules  load the workflows\' toolModules (runs their code) to check their tools fully;',
    '                        without it, a name validate cannot know is a warning',
    '  exit 0 when every file is valid, 1 when any has errors, 2 on usage errors or a path that is no readable file',
  ].join('\n'),
  options: { json: { type: 'boolean' }, ...TOOL_MODULE_OPTIONS },
  async run(values, files, io) {
    if (files.length === 0) throw usage('validate needs at least one workflow or persona file', 'countersign validate workflows/*.json agents/*.md');
    const withModules = values['allow-tool-modules'] === true;
    // A .md file is a persona wherever it lies; every other file is a workflow.
    const reports: ValidationReport[] = [];
    // A module may end the process mid-way: the files checked so far are still said (validate-ended.ts).
    if (withModules) sayWhenEndedEarly((ended) => sayValidateEndedEarly(io, values.json === true, files, reports, ended));
    for (const f of files) {
      // Read relative to where the command was given (io.cwd), as every other command does; reported as the user named it.
      const path = resolve(io.cwd, f);
      const report = /\.md$/i.test(f) ? validatePersonaFile(path) : withModules ? await validateFileWithModules(path) : validateFile(path);
      reports.push({ ...report, file: f });
    }
    if (withModules) sayWhenEndedEarly(undefined);
    if (values.json) printJson(io, formatJson(reports));
    else {
      const text = formatHuman(reports);
      if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      for (const r of reports) if (r.ok) io.stderr.write(`${r.file}: ok${r.warnings.length ? ` (${r.warnings.length} warning(s))` : ''}\n`);
    }
    // A file that could not be read is this command's error too, said the CLI's way on stderr, under --json as well
    // (stdout keeps its one document, which still lists it).
    for (const r of reports) {
      const missing = r.errors.find((f) => f.code === 'E_FILE_NOT_FOUND');
      if (!missing) continue;
      const cut = missing.message.indexOf('; ');
      reportFailure(io, { code: missing.code, message: cut > 0 ? missing.message.slice(0, cut) : missing.message, ...(cut > 0 ? { fix: missing.message.slice(cut + 2) } : {}) });
    }
    // A path that is no readable file is a usage error, as in every other command; the files that could be read are still reported.
    if (reports.some((r) => r.errors.some((f) => f.code === 'E_FILE_NOT_FOUND'))) return 2;
    return reports.every((r) => r.ok) ? 0 : 1;
  },
};
