import { validatePersonaFile } from '../../gate/persona-lint.js';
import { isCountersignError } from '../../errors.js';
import { readSource } from '../../format/source.js';
import { BUILTIN_TOOLS } from '../../tools/builtin/index.js';
import { createToolCatalog } from '../../tools/catalog.js';
import { loadToolModules } from '../../tools/modules.js';
import { formatHuman, formatJson } from '../../validate/report.js';
import { validateDocument, validateFile, type ValidationReport } from '../../validate/index.js';
import { locateFinding } from '../../validate/locate.js';
import { printJson, usage } from '../io.js';
import { TOOL_MODULE_OPTIONS, type Command } from './command.js';

export const command: Command = {
  usage: [
    'countersign validate <files...> [--allow-tool-modules] [--json]',
    '  .json, .yaml and .yml files are workflows; .md files are personas (agents/<name>.md)',
    '  --allow-tool-modules  load the workflows\' toolModules (runs their code) to check their tools fully;',
    '                        without it, a name validate cannot know is a warning',
    '  exit 0 when every file is valid, 1 when any has errors, 2 on usage errors',
  ].join('\n'),
  options: { json: { type: 'boolean' }, ...TOOL_MODULE_OPTIONS },
  async run(values, files, io) {
    if (files.length === 0) throw usage('validate needs at least one workflow or persona file', 'countersign validate workflows/*.json agents/*.md');
    const withModules = values['allow-tool-modules'] === true;
    // A .md file is a persona wherever it lies; every other file is a workflow.
    const reports: ValidationReport[] = [];
    for (const f of files) reports.push(/\.md$/i.test(f) ? validatePersonaFile(f) : withModules ? await validateWithModules(f) : validateFile(f));
    if (values.json) printJson(io, formatJson(reports));
    else {
      const text = formatHuman(reports);
      if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      for (const r of reports) if (r.ok) io.stderr.write(`${r.file}: ok${r.warnings.length ? ` (${r.warnings.length} warning(s))` : ''}\n`);
    }
    return reports.every((r) => r.ok) ? 0 : 1;
  },
};

/** Validates with the workflow's own tools loaded, as `start --allow-tool-modules` will: their names and literal args are checked. */
async function validateWithModules(path: string): Promise<ValidationReport> {
  let doc;
  try {
    doc = readSource(path);
  } catch {
    return validateFile(path); // the same unreadable-file report
  }
  const data = doc.data as { toolModules?: unknown };
  const modules = Array.isArray(data?.toolModules) && data.toolModules.every((m) => typeof m === 'string') ? (data.toolModules as string[]) : [];
  if (modules.length === 0) return validateDocument(doc);
  try {
    const tools = createToolCatalog(BUILTIN_TOOLS, await loadToolModules(modules, doc.file, true));
    return validateDocument(doc, { tools, modulesLoaded: true });
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    // A module that does not load is a finding of this file, at its entry.
    const base = validateDocument(doc);
    const pointer = e.pointer ?? '/toolModules';
    const at = locateFinding(doc, { code: e.code, message: e.message, pointer, severity: 'error' });
    const finding = { code: e.code, message: e.fix ? `${e.message}; ${e.fix}` : e.message, pointer, line: at.line, col: at.col };
    const already = base.errors.some((f) => f.code === finding.code && f.pointer === finding.pointer);
    // With the modules not loaded, "may come from toolModules" warnings would only repeat this error.
    const warnings = base.warnings.filter((w) => w.code !== 'E_TOOL_UNKNOWN');
    return already ? { ...base, warnings } : { ...base, ok: false, errors: [...base.errors, finding], warnings };
  }
}
