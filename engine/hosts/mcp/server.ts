/**
 * `countersign mcp`: the engine behind an MCP server on stdio. It is a new
 * way in, not a second engine: every tool call goes to the same engine and
 * store the CLI uses, so runs started here are visible to `countersign
 * status` and the other way round, and two servers on one store are kept
 * apart by the core's `seq` rule and its one-transaction steps.
 *
 * stdout carries only MCP frames; everything else goes to the log (stderr).
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createEngine } from '../../run/engine.js';
import { CountersignError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { TOOLS } from './schemas.js';
import { GuardedStdioTransport, type OversizedFrame } from './stdio-transport.js';
import { callToolRequest, errorResult, oversizedCallResult, type McpContext } from './tools.js';
import { createWorkflowCatalog } from './workflows.js';

export const SERVER_NAME = 'countersign';

const INSTRUCTIONS = `countersign runs declarative workflows step by step. Each answer is checked against a JSON Schema; a wrong answer is rejected with the exact errors and asked again.
1. list_workflows, then start {"workflow": "<name or path>", "input": {…}}.
2. The result names the runId, the pending item (a directive, or a review) and the seq to answer. Do what it says, then call step {"runId", "seq", "answer": {…}} — plus "as" (your identity) in review loops.
3. Repeat until the run is completed (its output is returned) or failed.
Review items must be answered by another identity than the one that produced the work: route them to a separate reviewer (a subagent) with its own "as".
Lost track? runs lists every run; status {"runId"} shows the pending item and the seq again.`;

export interface McpServerOptions {
  /** Load workflows' toolModules (runs their code); off by default. */
  allowToolModules?: boolean;
  store: Store;
  /** The server's working directory: relative workflow and workspace paths resolve against it. */
  cwd: string;
  /** The folders searched for workflows by name, in order (see workflowDirs). */
  workflowDirs: readonly string[];
  /** The default workspace for runs started without one; `cwd` when omitted. */
  workspace?: string;
  version: string;
  /** Diagnostics; stderr by default. */
  log?: (line: string) => void;
}

export interface StdioOptions extends McpServerOptions {
  /** The streams MCP frames travel on; this process's stdin and stdout by default. */
  stdin?: Readable;
  stdout?: Writable;
  /** The largest message read; a larger request is refused and skipped (MAX_FRAME_BYTES, 10 MiB, by default). */
  maxFrameBytes?: number;
}

/** The MCP server with its tools registered, not yet connected to a transport. */
export function createMcpServer(options: McpServerOptions): Server {
  return build(options).server;
}

function build(options: McpServerOptions): { server: Server; ctx: McpContext; settled: () => Promise<number> } {
  const ctx: McpContext = {
    engine: createEngine({ store: options.store, allowToolModules: options.allowToolModules === true }),
    runs: options.store,
    catalog: createWorkflowCatalog({ cwd: options.cwd, dirs: options.workflowDirs }),
    cwd: options.cwd,
    workspace: options.workspace ?? options.cwd,
    allowToolModules: options.allowToolModules === true,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  };
  const server = new Server({ name: SERVER_NAME, version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  // Calls still running when the client hangs up finish, and are answered, before the store closes under them.
  const inFlight = new Set<Promise<unknown>>();
  // tools/list and tools/call are served by the fallback, not setRequestHandler: the SDK would check the params
  // against its own schema first and answer malformed params with an opaque Internal error holding a zod dump;
  // here tools/list answers Invalid params in words, and callToolRequest answers a malformed call with E_INPUT.
  server.fallbackRequestHandler = async (request) => {
    if (request.method === 'tools/list') return listTools(request.params);
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    const call = callToolRequest(ctx, request.params);
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
    }
  };
  server.onerror = (error) => ctx.log(`countersign mcp: ${error.message}`);
  // Resolves with how many calls it waited for, so a caller can wait again for calls that started meanwhile.
  return { server, ctx, settled: async () => (await Promise.allSettled([...inFlight])).length };
}

/** Every tool in one page: this server never hands out a cursor, so any cursor sent back is not one of its own. */
function listTools(params: Record<string, unknown> | undefined): { tools: unknown[] } {
  const cursor = params?.cursor;
  if (cursor !== undefined) {
    const got = typeof cursor === 'string' ? `the cursor ${JSON.stringify(cursor.slice(0, 80))}` : `a ${cursor === null ? 'null' : typeof cursor} (a cursor is a string)`;
    // A plain Error with a code: McpError would prefix the message with "MCP error -32602:" once more.
    throw Object.assign(new Error(`Invalid params: params.cursor is ${got}, but this server lists every tool in one page and never returns a nextCursor; call tools/list without a cursor`), { code: ErrorCode.InvalidParams });
  }
  return { tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })) };
}

/** The reply to a request too large to read: a tool error for tools/call, Invalid Request for anything else. */
function refuseOversized(ctx: McpContext, frame: OversizedFrame & { id: string | number }): JSONRPCMessage {
  if (frame.method === 'tools/call') return { jsonrpc: '2.0', id: frame.id, result: oversizedCallResult(ctx, frame) };
  return {
    jsonrpc: '2.0',
    id: frame.id,
    error: { code: ErrorCode.InvalidRequest, message: `E_INPUT: the request is ${frame.bytes} bytes; this server reads messages of up to ${frame.limit} bytes, so it was skipped unread` },
  };
}

/**
 * A tool result left out of a batch's reply because the replies together
 * pass the frame limit: an E_RESULT_TOO_LARGE tool error that says the call
 * took effect and, for a run, where it stands and how to read it alone.
 */
function leftOutOfBatch(ctx: McpContext, reply: JSONRPCMessage, bytes: number, total: number, limit: number): JSONRPCMessage {
  const id = (reply as { id: string | number }).id;
  const result = (reply as { result?: { content?: unknown; structuredContent?: { runId?: unknown; status?: unknown; seq?: unknown } } }).result;
  const why = `the replies to this batch are ${total} bytes together, more than the ${limit} bytes one MCP message over stdio may hold, so this reply (${bytes} bytes) was left out of the batch's array`;
  if (!Array.isArray(result?.content)) {
    return { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: `E_RESULT_TOO_LARGE: ${why}; send the request again on a line of its own` } };
  }
  const run = result.structuredContent;
  const runId = typeof run?.runId === 'string' ? run.runId : undefined;
  return {
    jsonrpc: '2.0',
    id,
    result: errorResult(ctx, 'batch', new CountersignError('E_RESULT_TOO_LARGE', `${why}. The call itself took effect${runId ? `: run ${runId} is ${String(run?.status)} at seq ${String(run?.seq)}` : ''}.`, {
      fix: `${runId ? `call status {"runId": "${runId}"} on a line of its own (not in a batch) to read it; ` : ''}send large reads one per line, not in a batch`,
      data: { bytes, total, limit, ...(runId ? { runId } : {}) },
    })),
  };
}

/** Waits until no call is running and the replies of the finished ones have been handed to the transport. */
async function answerInFlight(settled: () => Promise<number>): Promise<void> {
  // The SDK starts a handler a microtask after the message arrives and sends its reply a few after it resolves:
  // a turn of the event loop on each side covers both.
  do await new Promise((r) => setImmediate(r));
  while ((await settled()) > 0);
  await new Promise((r) => setImmediate(r));
}

/**
 * Serves on this process's stdin/stdout until the client closes stdin (or
 * the process is told to stop), then closes the store. Resolves when done.
 */
export async function serveStdio(options: StdioOptions): Promise<{ signal?: NodeJS.Signals }> {
  const stdin = options.stdin ?? process.stdin;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { server, ctx, settled } = build({ ...options, log });
  const transport = new GuardedStdioTransport(stdin, options.stdout ?? process.stdout, {
    maxFrameBytes: options.maxFrameBytes,
    refuse: (frame) => refuseOversized(ctx, frame),
    leftOut: (reply, bytes, total, limit) => leftOutOfBatch(ctx, reply, bytes, total, limit),
  });
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
  });
  // The transport does not notice a closed stdin by itself: without this a
  // client that hangs up would leave the server waiting until it is killed.
  // Calls still running have committed, or will commit, their effects: their
  // replies are written (stdout is still open) before the server closes, so a
  // client reading on after closing its end learns, say, the runId it started.
  let hungUp = false;
  const hangUp = () => {
    if (hungUp) return;
    hungUp = true;
    transport.flush();
    void answerInFlight(settled).then(() => server.close());
  };
  stdin.once('end', hangUp);
  stdin.once('close', hangUp);
  // A signal ends the server as a hang-up does — the calls still running are
  // answered first, for at most a few seconds — and its status says which
  // signal (130, 143, 129); a second signal closes at once.
  let signalled: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (signalled !== undefined) return void server.close();
    signalled = signal;
    transport.flush();
    void Promise.race([answerInFlight(settled), new Promise((r) => setTimeout(r, SIGNAL_GRACE_MS).unref())]).then(() => server.close());
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  await server.connect(transport);
  log(`countersign mcp ${options.version}: serving on stdio; store ${options.store.location ?? '(memory)'}; workflows from ${options.workflowDirs.join(', ') || '(none)'}`);
  try {
    await closed;
  } finally {
    stdin.off('end', hangUp);
    stdin.off('close', hangUp);
    for (const signal of STOP_SIGNALS) process.off(signal, stop);
    await settled();
    options.store.close();
  }
  return signalled !== undefined ? { signal: signalled } : {};
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long a signalled server waits for the calls still running before it closes. */
const SIGNAL_GRACE_MS = 5_000;
