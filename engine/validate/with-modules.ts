/**
 * Validation with a workflow's own tools loaded (`validate
 * --allow-tool-modules`, and the MCP server started with that flag): the
 * modules' code runs, so their tool names and literal arguments are
 * checked as `start` will check them.
 */
import { isCountersignError } from '../errors.js';
import { readSource } from '../format/source.js';
import { BUILTIN_TOOLS } from '../tools/builtin/index.js';
import { createToolCatalog } from '../tools/catalog.js';
import { loadToolModules } from '../tools/modules.js';
import { validateDocument, validateFile, type ValidationReport } from './index.js';
import { locateFinding } from './locate.js';

/** Validates with the workflow's own tools loaded, as `start --allow-tool-modules` will: their names and literal args are checked. */
export async function validateFileWithModules(path: string): Promise<ValidationReport> {
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
