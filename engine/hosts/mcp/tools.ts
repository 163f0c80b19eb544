/**
 * What each MCP tool does. A handler gets checked arguments and returns the
 * structured result — the JSON the CLI prints with --json for the same
 * command, its hints reworded for MCP (hints.ts) — and the text block for
 * the model. `callToolRequest` wraps them: it never throws; a client's
 * mistake, a malformed call included, becomes a tool error result
 * (`isError: true`) carrying `{error: {code, message, fix}}`.
 */
import { existsSync } from 'node:fs';
import { isDirectory } from '../../format/make-dirs.js';
import { resolve } from 'node:path';
import { CountersignError, isCountersignError } from '../../errors.js';
import type { JsonObject } from '../../format/model.js';
import { MAX_ANSWER_BYTES } from '../../nodes/answer-schema.js';
import type { Engine } from '../../run/engine.js';
import type { RunState, RunStatus } from '../../run/contract.js';
import { validateFile } from '../../validate/index.js';
import { validateFileWithModules } from '../../validate/with-modules.js';
import { validatePersonaFile } from '../../gate/persona-lint.js';
import { formatJson } from '../../validate/report.js';
import { checkArguments, toolNamed } from './arguments.js';
import { mcpErrorBody, mcpJournal, mcpState } from './hints.js';
import { itemWithDeadline, lateAnswer, type LateAnswer, type RunReader } from './late-answer.js';
import { assertJournalFits, assertResultFits, capText } from './result-size.js';
import { TOOLS, type ToolName } from './schemas.js';
import type { OversizedFrame } from './stdio-transport.js';
import { errorText, runsText, stateText, traceText, validateText, workflowsText } from './text.js';
import type { WorkflowCatalog } from './workflows.js';

export interface McpContext {
  engine: Engine;
  /** The engine's store, read as it is: `step` checks the item it answers without firing its deadline (late-answer.ts). */
  runs: RunReader;
  catalog: WorkflowCatalog;
  /** The server's working directory: relative paths in arguments resolve against it. */
  cwd: string;
  /** The default workspace of runs started without one. */
  workspace: string;
  /** The server was started with --allow-tool-modules: validate loads a workflow's modules too. */
  allowToolModules?: boolean;
  /** Where diagnostics go (stderr): never stdout, which carries only MCP frames. */
  log: (line: string) => void;
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

interface Outcome {
  structured: object;
  text: string;
}

type Handler = (ctx: McpContext, args: Record<string, unknown>) => Promise<Outcome>;

const HANDLERS: Record<ToolName, Handler> = {
  async list_workflows(ctx) {
    const workflows = ctx.catalog.list();
    return { structured: { workflows }, text: workflowsText(workflows, (w) => ctx.catalog.startWith(w)) };
  },

  async validate(ctx, args) {
    const ref = args.workflow as string;
    // A file that is not there is a finding, as `countersign validate` reports it, not a tool error.
    let file: string;
    try {
      file = ctx.catalog.resolve(ref);
    } catch (e) {
      // Only a path that is not there at all; a directory keeps the catalog's clearer error.
      if (!isCountersignError(e) || e.code !== 'E_FILE_NOT_FOUND' || existsSync(resolve(ctx.cwd, ref))) throw e;
      // Written as a name (no folder, no file extension) and no workflow has
      // it: the finding gives the catalog's fix, which lists the names a
      // misspelt one was meant as. A path is reported as the CLI reports it.
      if (!/[\\/]/.test(ref) && !/\.(json|ya?ml|md)$/i.test(ref)) {
        const report = formatJson([{ file: ref, ok: false, errors: [{ code: e.code, message: `${e.message}; ${e.fix ?? 'check the path'}`, pointer: '', line: 0, col: 0 }], warnings: [] }]);
        return { structured: report, text: validateText(report) };
      }
      file = resolve(ctx.cwd, ref);
    }
    // A path is reported as given, as `countersign validate <path>` run in the server's directory prints it; a name by its file.
    const shown = file === resolve(ctx.cwd, ref) ? ref : file;
    // A .md file is a persona, as for `countersign validate`.
    // A server allowed to load toolModules checks their tools too, as `validate --allow-tool-modules` does.
    const checked = /\.md$/i.test(file) ? validatePersonaFile(file) : ctx.allowToolModules ? await validateFileWithModules(file) : validateFile(file);
    const report = formatJson([{ ...checked, file: shown }]);
    return { structured: report, text: validateText(report) };
  },

  async start(ctx, args) {
    const file = ctx.catalog.resolve(args.workflow as string);
    const state = await ctx.engine.start(file, {
      input: (args.input as JsonObject | undefined) ?? {},
      as: args.as as string | undefined,
      workspace: workspaceDir(ctx, args.workspace as string | undefined),
    });
    return stateOutcome(ctx, state);
  },

  async step(ctx, args) {
    const runId = args.runId as string;
    const answer = args.answer;
    // Without a seq the answer is for the item pending when the call arrives:
    // pinned here, so two clients answering at once cannot both advance the
    // run (the second is a replay), and an answer never lands on a later item.
    const seq = (args.seq as number | undefined) ?? pendingSeq(ctx.runs, runId);
    const item = itemWithDeadline(ctx.runs, runId, seq);
    const state = await ctx.engine.submit(runId, answer, { seq, as: args.as as string | undefined });
    // The engine drops an answer that comes after the deadline and returns the state the deadline left: say so.
    return stateOutcome(ctx, state, item && lateAnswer(ctx.runs, item, state));
  },

  async status(ctx, args) {
    return stateOutcome(ctx, await ctx.engine.status(args.runId as string));
  },

  async runs(ctx, args) {
    const status = args.status as RunStatus | undefined;
    const runs = await ctx.engine.runs(status ? { status } : undefined);
    return { structured: { runs }, text: runsText(runs) };
  },

  async trace(ctx, args) {
    const journal = mcpJournal(await ctx.engine.trace(args.runId as string, typeof args.from === 'number' ? { from: args.from } : undefined));
    return { structured: journal, text: traceText(journal) };
  },
};

/**
 * A run state and its text, which names the run's workspace: the directory
 * a directive's relative paths mean. The structured state is the CLI's JSON
 * as it is; a late answer is told in the text only.
 */
async function stateOutcome(ctx: McpContext, engineState: RunState, late?: LateAnswer): Promise<Outcome> {
  const state = mcpState(engineState);
  const { workspace } = await ctx.engine.info(state.runId);
  return { structured: state, text: stateText(state, workspace, late) };
}

/**
 * Runs one `tools/call` request's params to a result. The params are
 * checked here rather than by the SDK, whose schema would turn a malformed
 * call (arguments that are not an object, no tool name) into an opaque
 * JSON-RPC error with no code and no fix.
 */
export async function callToolRequest(ctx: McpContext, params: unknown): Promise<ToolResult> {
  const p = (isPlainObject(params) ? params : {}) as { name?: unknown; arguments?: unknown };
  if (typeof p.name !== 'string' || p.name === '') {
    return errorResult(ctx, String(p.name ?? '(no name)'), new CountersignError('E_INPUT', 'the tools/call request names no tool: params.name must be a non-empty string', {
      fix: `send params {"name": "<tool>", "arguments": {…}}; tools/list names the tools: ${TOOLS.map((t) => t.name).join(', ')}`,
    }));
  }
  if (p.arguments !== undefined && !isPlainObject(p.arguments)) {
    const got = p.arguments === null ? 'null' : Array.isArray(p.arguments) ? 'an array' : `a ${typeof p.arguments}`;
    return errorResult(ctx, p.name, new CountersignError('E_INPUT', `the arguments of ${p.name} must be a JSON object, not ${got}`, {
      fix: `send params {"name": "${p.name}", "arguments": {…}} with the arguments as an object whose keys its input schema in tools/list names (omit "arguments" when there are none)`,
    }));
  }
  return callTool(ctx, p.name, p.arguments as Record<string, unknown> | undefined);
}

/** Runs one tool call to a result; every failure becomes a tool error result, never an exception. */
export async function callTool(ctx: McpContext, name: string, args: Record<string, unknown> | undefined): Promise<ToolResult> {
  try {
    const def = toolNamed(name);
    const { structured, text } = await HANDLERS[def.name](ctx, checkArguments(def, args));
    // Through JSON: the shape the CLI prints with --json, and a plain copy of the engine's frozen objects.
    const structuredContent = JSON.parse(JSON.stringify(structured)) as Record<string, unknown>;
    const result: ToolResult = { content: [{ type: 'text', text: capText(text) }], structuredContent, isError: false };
    if (name === 'trace') assertJournalFits(result, structuredContent.runId as string, typeof args?.from === 'number' ? args.from : 0, (structuredContent.events as unknown[]).length);
    else assertResultFits(name, result, 'runId' in structuredContent && 'status' in structuredContent ? structuredContent : undefined);
    return result;
  } catch (e) {
    return errorResult(ctx, name, e);
  }
}

/** A tool error result for any failure: the CLI's `{error}` body, reworded for MCP, and its text. */
export function errorResult(ctx: Pick<McpContext, 'log'>, name: string, e: unknown): ToolResult {
  const error = mcpErrorBody(errorBody(e));
  if (error.code === 'E_INTERNAL') ctx.log(`countersign mcp: ${name}: ${(e as Error)?.stack ?? String(e)}`);
  return { content: [{ type: 'text', text: errorText(error) }], structuredContent: { error }, isError: true };
}

/** The tool error for a tools/call too large to read (the transport skipped it unread). */
export function oversizedCallResult(ctx: Pick<McpContext, 'log'>, frame: OversizedFrame): ToolResult {
  return errorResult(ctx, 'tools/call', new CountersignError('E_INPUT', `the tools/call request is ${frame.bytes} bytes; this server reads messages of up to ${frame.limit} bytes, so it was skipped unread and nothing changed`, {
    fix: `keep large content in files and pass their paths: a step answer may hold at most ${MAX_ANSWER_BYTES} bytes (larger ones are rejected with E_ANSWER_TOO_LARGE)`,
  }));
}

/** The CLI's `{error}` body for --json: code, message, fix and whatever location is known. */
export function errorBody(e: unknown): { code: string; message: string; fix?: string; [key: string]: unknown } {
  if (!isCountersignError(e)) {
    return {
      code: 'E_INTERNAL',
      message: `unexpected failure: ${(e as Error)?.message ?? String(e)}`,
      fix: 'this is a countersign bug; please report it with the tool call that caused it (the server log on stderr has the stack)',
    };
  }
  const body: { code: string; message: string; fix?: string; [key: string]: unknown } = { code: e.code, message: e.message };
  if (e.fix) body.fix = e.fix;
  if (e.file) body.file = e.file;
  if (e.pointer !== undefined) body.pointer = e.pointer;
  if (e.line) Object.assign(body, { line: e.line, col: e.col });
  if (e.nodeId) body.nodeId = e.nodeId;
  if (e.data !== undefined) body.details = e.data;
  return body;
}

function workspaceDir(ctx: McpContext, given: string | undefined): string {
  if (given === undefined) return ctx.workspace;
  const dir = resolve(ctx.cwd, given);
  if (!isDirectory(dir)) {
    throw new CountersignError('E_INPUT', `workspace ${dir} is not an existing directory`, {
      fix: `create it first, or pass an existing directory (relative paths resolve against ${ctx.cwd}); omit workspace to use ${ctx.workspace}`,
    });
  }
  return dir;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The seq of the run's pending item as stored (a read only: it fires nothing), if it waits. */
function pendingSeq(runs: RunReader, runId: string): number | undefined {
  // A blank id is the engine's own E_INPUT (with its fix), not the store's.
  if (runId.trim() === '') return undefined;
  const rec = runs.get(runId);
  return rec?.status === 'waiting' ? rec.seq : undefined;
}
