/**
 * What a run can be started from: a file path, a parsed source document,
 * or a workflow object. Every form is validated first; a workflow with
 * errors never starts.
 */
import { resolve as resolvePath } from 'node:path';
import { CountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import { readSource, type SourceDocument } from '../format/source.js';
import { validateDocument, validateWorkflow, type ValidateOptions, type ValidationReport } from '../validate/index.js';

export type WorkflowSource = string | SourceDocument | Workflow;

export interface ValidWorkflow {
  workflow: Workflow;
  file?: string;
  report: ValidationReport;
}

function isDocument(s: WorkflowSource): s is SourceDocument {
  return typeof s === 'object' && s !== null && 'locate' in s && 'data' in s;
}

export function loadValidWorkflow(source: WorkflowSource, opts: ValidateOptions = {}): ValidWorkflow {
  let report: ValidationReport;
  let data: unknown;
  let file: string | undefined;
  if (typeof source === 'string') {
    const doc = readSource(source);
    file = resolvePath(source);
    report = validateDocument(doc, opts);
    data = doc.data;
  } else if (isDocument(source)) {
    file = source.file;
    report = validateDocument(source, opts);
    data = source.data;
  } else {
    report = validateWorkflow(source, undefined, opts);
    data = source;
  }
  if (!report.ok) {
    const first = report.errors[0];
    const where = first.line ? `${report.file}:${first.line}:${first.col}` : `${report.file}${first.pointer ? `#${first.pointer}` : ''}`;
    throw new CountersignError(
      'E_WORKFLOW_INVALID',
      `the workflow has ${report.errors.length} validation error(s); first: ${where} ${first.code} ${first.message}`,
      { file: report.file, fix: 'run `countersign validate <file>` to see every finding', data: report },
    );
  }
  return { workflow: data as Workflow, file, report };
}
