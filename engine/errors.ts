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
  /**
   * Structured detail for hosts, e.g. the validation report behind
   * E_WORKFLOW_INVALID. (Not `details`: test runners read that as text.)
   */
  readonly data?: unknown;

  constructor(
    code: string,
    message: string,
    options: ErrorLocation & { fix?: string; cause?: unknown; data?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CountersignError';
    this.code = code;
    this.fix = options.fix;
    this.file = options.file;
    this.pointer = options.pointer;
    this.line = options.line;
    this.col = options.col;
    this.nodeId = options.nodeId;
    this.data = options.data;
  }

  toJSON(): ErrorJSON {
    const out: ErrorJSON = { code: this.code, message: this.message };
    if (this.fix !== undefined) out.fix = this.fix;
    if (this.file !== undefined) out.file = this.file;
    if (this.pointer !== undefined) out.pointer = this.pointer;
    if (this.line !== undefined) out.line = this.line;
    if (this.col !== undefined) out.col = this.col;
    if (this.nodeId !== undefined) out.nodeId = this.nodeId;
    if (this.data !== undefined) out.details = this.data;
    return out;
  }
}

/**
 * Marks countersign's errors across copies of the library: a tool module
 * imports the package while the CLI runs its own bundle, so `instanceof`
 * alone would lose a module's typed error (its code and fix).
 */
const BRAND = Symbol.for('countersign.error');
Object.defineProperty(CountersignError.prototype, BRAND, { value: true });

export function isCountersignError(e: unknown): e is CountersignError {
  return e instanceof CountersignError || (e instanceof Error && (e as unknown as Record<symbol, unknown>)[BRAND] === true && typeof (e as { code?: unknown }).code === 'string');
}

/** What a tool threw, as text: an Error's message, a thrown object's `message`, or the value as JSON; a `code` it carries is kept. */
export function thrownMessage(e: unknown): string {
  if (e instanceof Error) {
    const text = e.message || e.name;
    // A plain Error with its own code (Object.assign(new Error(…), {code})): kept, as for a thrown object.
    // (A countersign error's code is said by whoever reports it; Node's own messages already open with theirs.)
    const code = (e as { code?: unknown }).code;
    const own = !isCountersignError(e) && (typeof code === 'string' || typeof code === 'number') && !text.includes(String(code));
    return own ? `${text} (code ${String(code)})` : text;
  }
  if (e !== null && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    const { message, code } = e as { message: string; code?: unknown };
    return code !== undefined ? `${message} (code ${String(code)})` : message;
  }
  try {
    return typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e));
  } catch {
    return String(e);
  }
}
