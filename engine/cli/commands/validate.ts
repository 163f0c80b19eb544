import { formatHuman, formatJson } from '../../validate/report.js';
import { validateFile } from '../../validate/index.js';
import { printJson, usage } from '../io.js';
import type { Command } from './command.js';

export const command: Command = {
  usage: 'countersign validate <files...> [--json]\n  exit 0 when every file is valid, 1 when any has errors, 2 on usage errors',
  options: { json: { type: 'boolean' } },
  async run(values, files, io) {
    if (files.length === 0) throw usage('validate needs at least one workflow file', 'countersign validate workflows/*.json');
    const reports = files.map((f) => validateFile(f));
    if (values.json) printJson(io, formatJson(reports));
    else {
      const text = formatHuman(reports);
      if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      for (const r of reports) if (r.ok) io.stderr.write(`${r.file}: ok${r.warnings.length ? ` (${r.warnings.length} warning(s))` : ''}\n`);
    }
    return reports.every((r) => r.ok) ? 0 : 1;
  },
};
