import { validatePersonaFile } from '../../gate/persona-lint.js';
import { formatHuman, formatJson } from '../../validate/report.js';
import { validateFile } from '../../validate/index.js';
import { printJson, usage } from '../io.js';
import type { Command } from './command.js';

export const command: Command = {
  usage: 'countersign validate <files...> [--json]\n  .json, .yaml and .yml files are workflows; .md files are personas (agents/<name>.md)\n  exit 0 when every file is valid, 1 when any has errors, 2 on usage errors',
  options: { json: { type: 'boolean' } },
  async run(values, files, io) {
    if (files.length === 0) throw usage('validate needs at least one workflow or persona file', 'countersign validate workflows/*.json agents/*.md');
    // A .md file is a persona wherever it lies; every other file is a workflow.
    const reports = files.map((f) => (/\.md$/i.test(f) ? validatePersonaFile(f) : validateFile(f)));
    if (values.json) printJson(io, formatJson(reports));
    else {
      const text = formatHuman(reports);
      if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      for (const r of reports) if (r.ok) io.stderr.write(`${r.file}: ok${r.warnings.length ? ` (${r.warnings.length} warning(s))` : ''}\n`);
    }
    return reports.every((r) => r.ok) ? 0 : 1;
  },
};
