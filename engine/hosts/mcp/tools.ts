/**
 * What each MCP tool does. A handler gets checked arguments and returns the
 * structured result — exactly the JSON the CLI prints with --json for the
 * same command — and the text block for the model. `callTool` wraps them:
 * it never throws; a client's mistake becomes a tool error result
 * (`isError: true`) carrying `{error: {code, message, fix}}`.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CountersignError, isCountersignError } from '../../errors.js';
import type { JsonObject } from '../../format/model.js';
import type { Engine } from '../../run/engine.js';
import type { RunStatus } from '../../run/contract.js';
import { validateFile } from '../../validate/index.js';
import { formatJson } from '../../validate/report.js';
import { checkArguments, toolNamed } from './arguments.js';
import type { ToolName } from './schemas.js';
import { errorText, runsText, stateText, traceText, validateText, workflowsText } from './text.js';
import type { WorkflowCatalog } from './workflows.js';

export interface McpContext {
  engine: Engine;
  catalog: WorkflowCatalog;
  /** The server's working directory: relative paths in arguments resolve against it. */
  cwd: string;
  /** The default workspace of runs started without one. */
  workspace: string;
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
    return { structured: { workflows }, text: workflowsText(workflows) };
  },

  async validate(ctx, args) {
    const report = formatJson([validateFile(ctx.catalog.resolve(args.workflow as string))]);
    return { structured: report, text: validateText(report) };
  },

  async start(ctx, args) {
    const file = ctx.catalog.resolve(args.workflow as string);
    const state = await ctx.engine.start(file, {
      input: (args.input as JsonObject | undefined) ?? {},
      as: args.as as string | undefined,
      workspace: workspaceDir(ctx, args.workspace as string | undefined),
    });
    return { structured: state, text: stateText(state) };
  },

  async step(ctx, args) {
    const state = await ctx.engine.submit(args.runId as string, args.answer, {
      seq: args.seq as number | undefined,
      as: args.as as string | undefined,
    });
    return { structured: state, text: stateText(state) };
  },

  async status(ctx, args) {
    const state = await ctx.engine.status(args.runId as string);
    return { structured: state, text: stateText(state) };
  },

  async runs(ctx, args) {
    const status = args.status as RunStatus | undefined;
    const runs = await ctx.engine.runs(status ? { status } : undefined);
    return { structured: { runs }, text: runsText(runs) };
  },

  async trace(ctx, args) {
    const journal = await ctx.engine.trace(args.runId as string);
    return { structured: journal, text: traceText(journal) };
  },
};

/** Runs one tool call to a result; every failure becomes a tool error result, never an exception. */
export async function callTool(ctx: McpContext, name: string, args: Record<string, unknown> | undefined): Promise<ToolResult> {
  try {
    const def = toolNamed(name);
    const { structured, text } = await HANDLERS[def.name](ctx, checkArguments(def, args));
    // Through JSON: exactly what the CLI prints, and a plain copy of the engine's frozen objects.
    return { content: [{ type: 'text', text }], structuredContent: JSON.parse(JSON.stringify(structured)) as Record<string, unknown>, isError: false };
  } catch (e) {
    const error = errorBody(e);
    if (error.code === 'E_INTERNAL') ctx.log(`countersign mcp: ${name}: ${(e as Error)?.stack ?? String(e)}`);
    return { content: [{ type: 'text', text: errorText(error) }], structuredContent: { error }, isError: true };
  }
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
  if (e.line) Object.assign(body, { line: e.line, col: e.col });
  if (e.nodeId) body.nodeId = e.nodeId;
  if (e.data !== undefined) body.details = e.data;
  return body;
}

function workspaceDir(ctx: McpContext, given: string | undefined): string {
  if (given === undefined) return ctx.workspace;
  const dir = resolve(ctx.cwd, given);
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new CountersignError('E_INPUT', `workspace ${dir} is not an existing directory`, {
      fix: `create it first, or pass an existing directory (relative paths resolve against ${ctx.cwd}); omit workspace to use ${ctx.workspace}`,
    });
  }
  return dir;
}
