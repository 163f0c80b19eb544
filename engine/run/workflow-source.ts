/**
 * What a run can be started from: a file path, a parsed source document,
 * or a workflow object. Every form is validated first; a workflow with
 * errors never starts.
 */
import { shown } from '../format/said.js';
import { resolve as resolvePath } from 'node:path';
import { CountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import { readSource, type SourceDocument } from '../format/source.js';
import { validateDocument, validateWorkflow, type ValidateOptions, type ValidationReport } from '../validate/index.js';
import { shellWord } from '../format/shell-word.js';

export type WorkflowSource = string | SourceDocument | Workflow;

export interface ValidWorkflow {
  workflow: Workflow;
  file?: string;
  report: ValidationReport;
}

export function isDocument(s: WorkflowSource): s is SourceDocument {
  return typeof s === 'object' && s !== null && 'locate' in s && 'data' in s;
}

/**
 * The source parsed once, its file (absolute) and the tool modules it names,
 * so the tools can be loaded before the workflow is validated against them.
 */
export function readWorkflowSource(source: WorkflowSource): { doc: SourceDocument | Workflow; file?: string; modules?: string[] } {
  const doc = typeof source === 'string' ? readSource(source) : source;
  const file = typeof source === 'string' ? resolvePath(source) : isDocument(source) ? source.file : undefined;
  const data = (isDocument(doc) ? doc.data : doc) as { toolModules?: unknown };
  const modules = Array.isArray(data?.toolModules) && data.toolModules.every((m) => typeof m === 'string') ? (data.toolModules as string[]) : undefined;
  return { doc, ...(file ? { file } : {}), ...(modules ? { modules } : {}) };
}

export function loadValidWorkflow(source: WorkflowSource, opts: ValidateOptions & { file?: string } = {}): ValidWorkflow {
  // Nothing to validate is the caller's mistake, said as such: never "a workflow with 1 validation error" to validate again.
  if (source === null || (typeof source !== 'string' && (typeof source !== 'object' || Array.isArray(source)))) {
    throw new CountersignError('E_INPUT', `no workflow was given: expected a workflow file's path, a parsed document or a workflow object, got ${shown(source)}`, {
      fix: 'pass the workflow, e.g. engine.start("workflows/review-loop.json") or engine.start(workflowObject)',
    });
  }
  let report: ValidationReport;
  let data: unknown;
  let file: string | undefined;
  if (typeof source === 'string') {
    const doc = readSource(source);
    file = resolvePath(source);
    report = validateDocument(doc, opts);
    data = doc.data;
  } else if (isDocument(source)) {
    file = opts.file ?? source.file;
    report = validateDocument(source, opts);
    data = source.data;
  } else {
    report = validateWorkflow(source, undefined, opts);
    data = source;
  }
  if (!report.ok) {
    const first = report.errors[0];
    // The location travels as fields (file, pointer, line, col), which every host prints or jumps to.
    throw new CountersignError(
      'E_WORKFLOW_INVALID',
      `the workflow has ${report.errors.length} validation error(s); first: ${first.code} ${first.message}`,
      {
        // A workflow object has no file: the report's placeholder name ("<workflow>") is not one to validate.
        ...(file !== undefined ? { file } : {}),
        // The first finding's location, as fields a host can act on (jump to it), not only in the text.
        pointer: first.pointer,
        ...(first.line > 0 ? { line: first.line, col: first.col } : {}),
        // A workflow naming tool modules is validated with them, as it was here: without the flag the command would call it fine.
        fix: file !== undefined ? `run \`countersign validate ${shellWord(file)}${namesToolModules(data) ? ' --allow-tool-modules' : ''}\` to see every finding` : 'validate it with validateWorkflow(workflow) to see every finding',
        data: report,
      },
    );
  }
  return { workflow: data as Workflow, file, report };
}

/** Whether a workflow's data names tool modules (a CLI command on it then needs --allow-tool-modules). */
export function namesToolModules(data: unknown): boolean {
  const modules = (data as { toolModules?: unknown } | null)?.toolModules;
  return Array.isArray(modules) && modules.length > 0;
}
