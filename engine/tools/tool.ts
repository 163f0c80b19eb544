/**
 * The tool model: what an agent may call, and what the review gate needs to
 * know about it. A tool's `class` decides whether a call is second-signed
 * (`write`, `destructive`) or passes straight through (`read`); its
 * `blastRadius` goes into the proposal the reviewer weighs (A24, A25).
 *
 * `defineTool` compiles the inputSchema once (arg-schema.ts). Every call validates its
 * arguments before anything else happens (§4.13, H41): the inputSchema, then
 * the tool's own `refineArgs` rules (§4.14), both as data (`argProblems`) for
 * `validate` to use too. A chained tool does it before tenant_bind, before a
 * proposal is built, before any row or side effect, so a malformed call can
 * neither reach a reviewer nor leave a trace in the ledger.
 */
import type { ValidateFunction } from 'ajv';
import { CountersignError } from '../errors.js';
import { shown } from '../format/said.js';
import type { JsonObject } from '../format/model.js';
import { ROOT } from '../nodes/answer-errors.js';
import { deepFreeze } from '../format/freeze.js';
import { deeperThan } from '../format/depth.js';
import { MAX_ANSWER_DEPTH } from '../nodes/answer-guard.js';
import { compileArgSchema as compile, toProblem } from './arg-schema.js';

/** How far a mutation reaches; the reviewer weighs a tenant-wide action hardest (A24, A25). */
export const BLAST_RADII = ['single_device', 'cluster', 'tenant_wide'] as const;
export type BlastRadius = (typeof BLAST_RADII)[number];



export const TOOL_CLASSES = ['read', 'write', 'destructive'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** Tools of these classes go through the review gate (A4, A16–A19). */
export const GATED_CLASSES: ReadonlySet<ToolClass> = new Set(['write', 'destructive']);

/** What the gate assumes when a tool does not declare its blast radius: the narrowest. */
export const DEFAULT_BLAST_RADIUS: BlastRadius = 'single_device';

/**
 * What the caller of a tool (a coordinator, an agent host) knows about the
 * call. None of it is trusted for identity on its own: `tenant_bind`
 * resolves the operator from it, and the review gate copies the rest into
 * the proposal the reviewer reads.
 */
export interface ToolCallContext {
  /** The operator's user id; `tenant_bind` binds it and the proposal's `operator` is that bound value (A15). */
  userId?: string;
  /** The tenant the operator acts in, for resolvers that map tenants to operators. */
  tenantId?: string;
  /** Why the call is made; becomes the proposal's `reason`. */
  reason?: string;
  /** The coordinator's running summary of the conversation; becomes `context_summary` (A26). */
  contextSummary?: string;
  /** A recorded user confirmation (`countersign confirm`); becomes `confirmation_id` (F6, §4.6). */
  confirmationId?: string;
  /** Asks the reviewer to accept a missing SOP; counts only with a matching `confirmationId` (F5, §4.6). */
  forceApproveNoSop?: boolean;
  /** Cancels the call; the timeout decorator also aborts the signal it hands the inner tool. */
  signal?: AbortSignal;
}

/**
 * What a tool's own `run` receives: the caller's context plus what the chain
 * established. `operator` is the value tenant_bind bound (not whatever the
 * caller wrote), and `proposalId` is the ledger row that approved (or
 * skipped) the call.
 */
export interface ToolRunContext extends ToolCallContext {
  operator?: string;
  proposalId?: string;
  /** The run's workspace: tools that run processes (gh) run them here, never elsewhere (H3–H6). */
  workspace?: string;
}

/** What `defineTool` takes. */
export interface ToolSpec<A extends JsonObject = JsonObject, R = unknown> {
  /** `[A-Za-z0-9_.-]{1,128}`: no `*`, so a name never reads as a tool-list glob. */
  name: string;
  class: ToolClass;
  /** How far a mutation reaches; defaults to `single_device` in proposals. */
  blastRadius?: BlastRadius;
  description?: string;
  /** A JSON Schema (draft-07, or 2020-12 when its `$schema` says so) for an object of arguments. */
  inputSchema: JsonObject;
  /** The side effect. Receives arguments that already satisfy `inputSchema` and `refineArgs`. */
  run(args: A, ctx: ToolRunContext): R | Promise<R>;
  /**
   * Rules on the arguments that code can express and JSON Schema cannot
   * (e.g. a text that must not hold a heading of its own). Runs wherever the
   * schema runs: before anything starts, before a review, in `validate`.
   * It also runs when the schema has already found problems, so it must not
   * assume the schema's shape (look at `body` only when it is a string).
   * Must have no side effect.
   */
  refineArgs?(args: JsonObject): ArgProblem[];
}

/** One thing wrong with a call's arguments. */
export interface ArgProblem {
  /** JSON pointer into the arguments; '' is the arguments object itself. */
  pointer: string;
  /** What is wrong there, without the pointer: `must be one of "APPROVE", …`. */
  message: string;
  /** For a missing required property: its name (the pointer is then its parent). */
  missing?: string;
  /** For a property the schema does not allow: its name (the pointer is then its parent). */
  unexpected?: string;
  /** The JSON Schema keyword that failed (`type`, `enum`, …); absent for the tool's own rules (refineArgs). */
  keyword?: string;
}

/** A defined tool: frozen metadata plus a `run` that validates first. */
export interface Tool<A extends JsonObject = JsonObject, R = unknown> {
  readonly name: string;
  readonly class: ToolClass;
  readonly blastRadius?: BlastRadius;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  /** Validates `args` (E_TOOL_ARGS) and only then runs the tool. */
  run(args: unknown, ctx?: ToolRunContext): Promise<R>;
  /** The arguments, typed, if they have no problems (see argProblems); otherwise throws E_TOOL_ARGS. Has no side effect. */
  checkArgs(args: unknown): A;
  /** Everything wrong with `args`: the inputSchema's problems, then the tool's own rules (refineArgs). [] when valid. Has no side effect. */
  argProblems(args: unknown): ArgProblem[];
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function isGated(tool: Pick<Tool, 'class'>): boolean {
  return GATED_CLASSES.has(tool.class);
}

export function defineTool<A extends JsonObject = JsonObject, R = unknown>(spec: ToolSpec<A, R>): Tool<A, R> {
  return buildTool(spec, false);
}

/**
 * For the built-ins only: their schemas are fixed and compiled by the spec
 * suite, so compiling them on first use (not at import) spares every CLI
 * command that never calls a tool ajv's meta-schema work (a quarter of a
 * `step`). A host's tools keep failing at definition.
 */
export function defineBuiltinTool<A extends JsonObject = JsonObject, R = unknown>(spec: ToolSpec<A, R>): Tool<A, R> {
  return buildTool(spec, true);
}

/**
 * A tool from whatever a host or a tool module hands over: one made with
 * `defineTool` is taken as it is; anything else is taken as a plain tool
 * spec ({name, class, inputSchema, run}) and goes through `defineTool`, so
 * it is checked now (E_TOOL_DEFINITION) rather than failing at its first call.
 */
export function asTool(entry: unknown): Tool {
  return isTool(entry) ? entry : defineTool(entry as ToolSpec);
}

/** Whether `value` has everything a defined tool has (a plain spec lacks checkArgs and argProblems). */
export function isTool(value: unknown): value is Tool {
  if (value === null || typeof value !== 'object') return false;
  const t = value as Partial<Record<keyof Tool, unknown>>;
  return typeof t.name === 'string'
    && (TOOL_CLASSES as readonly unknown[]).includes(t.class)
    && t.inputSchema !== null && typeof t.inputSchema === 'object'
    && typeof t.run === 'function' && typeof t.checkArgs === 'function' && typeof t.argProblems === 'function';
}

function buildTool<A extends JsonObject, R>(spec: ToolSpec<A, R>, lazy: boolean): Tool<A, R> {
  const name = checkSpec(spec);
  // The tool's own frozen copy: what it publishes is what it enforces, whatever the caller does with its object later.
  let inputSchema: JsonObject;
  try {
    inputSchema = deepFreeze(structuredClone(spec.inputSchema));
  } catch (e) {
    throw new CountersignError('E_TOOL_DEFINITION', `tool "${name}": inputSchema is not plain JSON data (${(e as Error).message})`, {
      fix: 'describe the arguments with a JSON Schema made of objects, arrays, strings, numbers and booleans only',
    });
  }
  let compiled: ValidateFunction | undefined = lazy ? undefined : compile(name, inputSchema);
  const refine = spec.refineArgs;
  /** The schema's problems, then the tool's own. */
  const problemsOf = (args: unknown): { schema: ArgProblem[]; own: ArgProblem[] } => {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return { schema: [{ pointer: '', message: `tool arguments must be a JSON object, got ${describeValue(args)}` }], own: [] };
    }
    // Arguments become the proposal's target and the audit row: only plain JSON data, kept as it is.
    const foreign = jsonArgProblem(args);
    if (foreign) return { schema: [foreign], own: [] };
    // As deep as an answer may be, no deeper: arguments are hashed, stored and shown as JSON.
    const deep = deeperThan(args, MAX_ANSWER_DEPTH);
    if (deep !== undefined) return { schema: [{ pointer: deep, message: `nests deeper than ${MAX_ANSWER_DEPTH} levels; flatten the arguments` }], own: [] };
    const validate = (compiled ??= compile(name, inputSchema));
    const schema = validate(args) ? [] : (validate.errors ?? []).map(toProblem);
    return { schema, own: refine ? refined((a) => refine.call(spec, a), args as JsonObject, schema.length > 0) : [] };
  };
  const argProblems = (args: unknown): ArgProblem[] => {
    const { schema, own } = problemsOf(args);
    return [...schema, ...own];
  };
  const checkArgs = (args: unknown): A => {
    const { schema, own } = problemsOf(args);
    if (schema.length > 0 || own.length > 0) throw argsError(name, inputSchema, schema, own);
    return args as A;
  };
  const impl = spec.run;
  const tool: Tool<A, R> = {
    name,
    class: spec.class,
    ...(spec.blastRadius !== undefined ? { blastRadius: spec.blastRadius } : {}),
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    inputSchema,
    checkArgs,
    argProblems,
    async run(args: unknown, ctx: ToolRunContext = {}): Promise<R> {
      // The tool runs on its own copy of what was checked: a caller editing its object afterwards changes nothing.
      const checked = structuredClone(checkArgs(args));
      return impl.call(spec, checked, ctx);
    },
  };
  return Object.freeze(tool);
}

/**
 * The tool's own rules. Arguments the schema already refused may have any
 * shape; a rule that trips over one adds nothing (the schema's problems
 * already refuse the call). On arguments the schema accepted, a rule that
 * throws is a defect of the tool, and is not hidden.
 */
function refined(refine: (args: JsonObject) => ArgProblem[], args: JsonObject, schemaFailed: boolean): ArgProblem[] {
  let out: unknown;
  try {
    out = refine(args);
  } catch (e) {
    if (schemaFailed) return [];
    throw e;
  }
  const wellFormed = Array.isArray(out) && out.every((p) => p !== null && typeof p === 'object' && typeof (p as ArgProblem).pointer === 'string' && typeof (p as ArgProblem).message === 'string');
  if (wellFormed) return out as ArgProblem[];
  if (schemaFailed) return [];
  // A rule that answers in another shape must not read as "no problems": the check would be off.
  throw new CountersignError('E_TOOL_DEFINITION', `refineArgs returned ${JSON.stringify(out)?.slice(0, 200) ?? String(out)}, not an array of {pointer, message}`, {
    fix: 'return [] when the arguments are fine, else [{pointer: "/field", message: "what is wrong"}, …]',
  });
}

function checkSpec(spec: ToolSpec<JsonObject, unknown>): string {
  const bad = (message: string, fix: string): never => {
    throw new CountersignError('E_TOOL_DEFINITION', message, { fix });
  };
  if (spec === null || typeof spec !== 'object') bad('defineTool needs a tool spec object', 'pass {name, class, inputSchema, run}');
  const { name } = spec;
  if (typeof name !== 'string' || !NAME.test(name)) {
    bad(`tool name ${JSON.stringify(name)} is not 1–128 characters of [A-Za-z0-9_.-]`, 'name the tool like host_restart_service');
  }
  if (!(TOOL_CLASSES as readonly string[]).includes(spec.class)) {
    bad(`tool "${name}": class ${JSON.stringify(spec.class)} is not one of ${TOOL_CLASSES.join(', ')}`,
      'declare class "read" for tools without side effects, "write" or "destructive" for mutating ones');
  }
  if (spec.blastRadius !== undefined && !(BLAST_RADII as readonly string[]).includes(spec.blastRadius)) {
    bad(`tool "${name}": blastRadius ${JSON.stringify(spec.blastRadius)} is not one of ${BLAST_RADII.join(', ')}`,
      `use one of ${BLAST_RADII.join(', ')}, or leave it out for ${DEFAULT_BLAST_RADIUS}`);
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    bad(`tool "${name}": description must be a string`, 'describe the tool in one sentence, or leave description out');
  }
  if (typeof spec.run !== 'function') bad(`tool "${name}": run is not a function`, 'give the tool a run(args, ctx) function');
  if (spec.refineArgs !== undefined && typeof spec.refineArgs !== 'function') {
    bad(`tool "${name}": refineArgs is not a function`, 'give refineArgs(args) returning [{pointer, message}] for each problem, or leave it out');
  }
  const schema = spec.inputSchema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    bad(`tool "${name}": inputSchema must be a JSON Schema object`, 'pass {"type": "object", "properties": {…}}');
  }
  // Arguments become the proposal's `target`, an object (A23): a schema for anything else can never be satisfied.
  if (schema.type !== undefined && schema.type !== 'object') {
    bad(`tool "${name}": inputSchema has type ${JSON.stringify(schema.type)}, but tool arguments are always an object`,
      'use "type": "object" and describe each argument under "properties"');
  }
  return name;
}

/** `<pointer or (root)>: <message>`, the line an agent reads for one problem. */
export function describeArgProblem(p: ArgProblem): string {
  return `${p.pointer || ROOT}: ${p.message}`;
}

/**
 * The first value JSON would not carry as it is — a function, symbol or
 * BigInt, NaN or Infinity, undefined (a member JSON drops, a list entry or
 * hole it turns into null), an object that is not plain data (a Date, a
 * Map, a class instance), or an object that contains itself — as an
 * argument problem at its pointer. The arguments are the proposal's
 * target and the audit row: what the reviewer approves must be what runs.
 * Walked with a stack, however deep the arguments go.
 */
export function jsonArgProblem(args: unknown, root = ''): ArgProblem | undefined {
  // `leave` entries take an object off the current path once its children are done.
  const stack: Array<{ value: unknown; pointer: string } | { leave: object }> = [{ value: args, pointer: root }];
  const onPath = new Set<object>();
  const plain = 'pass plain JSON data';
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('leave' in item) {
      onPath.delete(item.leave);
      continue;
    }
    const { value, pointer } = item;
    const kind = typeof value;
    if (kind === 'function' || kind === 'symbol' || kind === 'bigint') return { pointer, message: `is a ${kind}, which has no JSON form; ${plain}` };
    if (kind === 'number' && !Number.isFinite(value)) return { pointer, message: `is ${String(value)}, which JSON has no number for; ${plain}` };
    if (value === undefined) return { pointer, message: `is undefined, which JSON drops (or turns into null in a list); leave the key out, or ${plain}` };
    if (value === null || kind !== 'object') continue;
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
      return { pointer, message: `is a ${(value as object).constructor?.name ?? 'non-plain'} object, which JSON would store in another form; ${plain}` };
    }
    if (onPath.has(value as object)) return { pointer, message: `contains itself (a cycle), which has no JSON form; ${plain}` };
    onPath.add(value as object);
    stack.push({ leave: value as object });
    // By index for a list, so a hole is seen; by own key for an object.
    const entries: Array<[string, unknown]> = Array.isArray(value) ? Array.from(value, (v, i) => [String(i), v]) : Object.entries(value as object);
    // Reversed onto the stack: the first problem in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      stack.push({ value: child, pointer: `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
    }
  }
  return undefined;
}

function argsError(name: string, schema: JsonObject, misfits: ArgProblem[], refused: ArgProblem[]): CountersignError {
  const found = [...misfits, ...refused];
  const problems = found.map(describeArgProblem);
  const expected = Array.isArray(schema.required) && schema.required.length > 0
    ? ` (required: ${schema.required.join(', ')})`
    : '';
  // Arguments the schema accepts but the tool's own rules refuse are not said to misfit the schema.
  const fits = misfits.length === 0;
  return new CountersignError('E_TOOL_ARGS', `tool "${name}" was called with ${fits ? 'arguments it refuses' : 'arguments that do not fit its inputSchema'}: ${problems.join('; ')}`, {
    pointer: found[0].pointer,
    fix: fits
      ? `call ${name} again with arguments that avoid the problems named; the tool did not run and no ledger row was written`
      : `call ${name} again with arguments that satisfy its inputSchema${expected}; the tool did not run and no ledger row was written`,
    data: { tool: name, errors: problems },
  });
}

/** Named as given (`"n=1"`, NaN, 5n), never by its typeof: an array keeps its own word, as JSON Schema says it. */
function describeValue(v: unknown): string {
  return Array.isArray(v) ? 'an array' : shown(v);
}
