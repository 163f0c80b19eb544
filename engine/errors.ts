/**
 * The single domain error type. Every failure the engine, the validator, a
 * store or an adapter reports is a `CountersignError` whose `code` is stable:
 * hosts and tests match on the code, never on the message.
 */
export interface ErrorLocation {
  /** The file the problem is in, when it came from a file. */
  file?: string;
  /** RFC 6901 JSON pointer into the workflow document, e.g. `/nodes/3/connections/true`. */
  pointer?: string;
  /** 1-based line and column of the pointer (or of the syntax error). */
  line?: number;
  col?: number;
  /** The workflow node the problem belongs to. */
  nodeId?: string;
}

export interface ErrorJSON extends ErrorLocation {
  code: string;
  message: string;
  fix?: string;
  details?: unknown;
}

export class CountersignError extends Error {
  readonly code: string;
  readonly fix?: string;
  readonly file?: string;
  readonly pointer?: string;
  readonly line?: number;
  readonly col?: number;
  readonly nodeId?: string;
  /** Structured detail for hosts, e.g. the validation findings behind E_WORKFLOW_INVALID. */
  readonly details?: unknown;

  constructor(
    code: string,
    message: string,
    details: ErrorLocation & { fix?: string; cause?: unknown; details?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'CountersignError';
    this.code = code;
    this.fix = details.fix;
    this.file = details.file;
    this.pointer = details.pointer;
    this.line = details.line;
    this.col = details.col;
    this.nodeId = details.nodeId;
    this.details = details.details;
  }

  toJSON(): ErrorJSON {
    const out: ErrorJSON = { code: this.code, message: this.message };
    if (this.fix !== undefined) out.fix = this.fix;
    if (this.file !== undefined) out.file = this.file;
    if (this.pointer !== undefined) out.pointer = this.pointer;
    if (this.line !== undefined) out.line = this.line;
    if (this.col !== undefined) out.col = this.col;
    if (this.nodeId !== undefined) out.nodeId = this.nodeId;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

export function isCountersignError(e: unknown): e is CountersignError {
  return e instanceof CountersignError;
}
