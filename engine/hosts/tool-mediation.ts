/**
 * Tool calls by agents (issue 4, amending the jsonl protocol): before its
 * answer, a `jsonl` agent or reviewer may write `{"$tool": {"name", "args"}}`
 * lines; the engine answers each with one `{"$toolResult": …}` or
 * `{"$toolError": {code, message}}` line. Only tools in the effective list
 * run (a reviewer's: its persona's, so the runtime filter holds even against
 * an external agent, B13–B16). Every message from the agent — each `$tool`
 * line and the final answer — is one turn; a `$tool` line that uses the
 * last turn leaves no room for a reply, and the agent is cut off (B5).
 * A `$tool` line may carry a `reason`: a gated (write, destructive) tool
 * needs one, because it becomes the review proposal's reason.
 */
import { CountersignError, isCountersignError, thrownMessage } from '../errors.js';
import type { JsonObject, JsonValue } from '../format/model.js';
import type { AgentRequest, ToolSpecView } from '../run/contract.js';

export type { ToolSpecView };

/** What the agent says about one call besides its arguments. */
export interface ToolCallMeta {
  /** Why the agent calls the tool; the review proposal's reason when the tool is gated. */
  reason?: string;
}

/** What a host lends its agents: a catalog of callable tools. */
export interface ToolRunner {
  /** Every tool the host can run; a request's effective list narrows it. */
  names(): readonly string[];
  /** Runs one tool; throws a CountersignError (its code reaches the agent) on failure. */
  call(name: string, args: JsonValue, request: AgentRequest, meta?: ToolCallMeta): Promise<JsonValue>;
  /** How to describe a tool to the agent (its class and argument schema), when the host knows. */
  spec?(name: string): ToolSpecView | undefined;
}

/** Why a named tool is refused, more precisely than "not available" (an access map, a missing gate). */
export interface ToolRefusal {
  code: string;
  message: string;
}

/** One mediated call, as journaled (`tool.called`). */
export interface ToolCallRecord {
  /** The tool asked for; absent when the request named none (a malformed `$tool` line). */
  name?: string;
  ok: boolean;
  code?: string;
  /** Why it failed or was refused (a host may say what a successful call did): journaled whole. */
  message?: string;
  /** The failure's own remedy (gh's "run gh auth login"), carried to the run's error when the call stops the step. */
  fix?: string;
}

/** The tool side of one request: which tools it may use, its turn budget, and where calls are reported. */
export interface ToolSession {
  allowed: ReadonlySet<string>;
  /** Messages allowed in all (tool lines and the answer); undefined = no limit. */
  maxTurns?: number;
  /** Runs only `allowed` tools and counts each call as a turn: the filter holds for in-process agents too. */
  runner?: ToolRunner;
  /** Set when an agent calling the runner directly used up its turns; its answer is then a failure. */
  exhausted?: boolean;
  /** Set when the agent made more tool calls than one item allows (MAX_TOOL_CALLS_PER_ITEM): its answer is not taken. */
  overCalled?: boolean;
  onCall?: (call: ToolCallRecord) => void;
  /** Why a tool outside `allowed` is refused, when there is a precise reason. */
  refusal?: (name: string) => ToolRefusal | undefined;
  /** Calls started and not yet ended: a wait that ends first still records them (unfinishedCalls). */
  running?: Set<{ name: string; done: Promise<unknown> }>;
  /** Set when the wait for the agent has ended (it answered, timed out, crashed): why; the lent tools run no more. */
  closed?: string;
}

/** How long a stopped wait gives calls still running to end, so their outcome is what is recorded. */
export const UNFINISHED_GRACE_MS = 1_000;

/**
 * The calls still running when the wait for an agent ended (a timeout, an
 * interrupt, a crash): given a short grace to end, so the ones that do
 * report their own outcome (onCall); the rest are returned as unfinished
 * records. Either way every call that started is on the record.
 */
export async function unfinishedCalls(session: ToolSession | undefined, graceMs = UNFINISHED_GRACE_MS): Promise<ToolCallRecord[]> {
  const running = [...(session?.running ?? [])];
  if (running.length === 0) return [];
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(running.map((r) => r.done)),
    new Promise((resolve) => { timer = setTimeout(resolve, graceMs); }),
  ]);
  clearTimeout(timer);
  // One turn of the event loop: calls that just ended have reported themselves (onCall) by then.
  await new Promise((resolve) => setImmediate(resolve));
  return [...(session?.running ?? [])].map(({ name }) => ({
    name,
    ok: false,
    code: 'E_TOOL_UNFINISHED',
    message: 'still running when the wait for the agent ended; it may yet take effect',
  }));
}

/** Runs `call`, listed in `session.running` until it ends. */
async function tracked<T>(session: ToolSession, name: string, call: () => Promise<T>): Promise<T> {
  const done = call();
  const entry = { name, done };
  (session.running ??= new Set()).add(entry);
  try {
    return await done;
  } finally {
    session.running?.delete(entry);
  }
}

/**
 * The tools a request may use: a decision review's persona list; otherwise
 * every tool `runner` offers (for a driven run, the engine has already
 * narrowed that to what the item's role may use, see run/agent-tools.ts).
 */
export function toolSession(
  request: AgentRequest,
  runner: ToolRunner | undefined,
  onCall?: (call: ToolCallRecord) => void,
  refusal?: (name: string) => ToolRefusal | undefined,
): ToolSession {
  const decision = request.kind === 'review' && request.contract === 'decision';
  const allowed = new Set(decision ? request.persona.tools : (runner?.names() ?? []));
  const session: ToolSession = {
    allowed,
    ...(decision ? { maxTurns: request.persona.max_turns } : {}),
    ...(onCall ? { onCall } : {}),
    ...(refusal ? { refusal } : {}),
  };
  if (runner) session.runner = guardedRunner(runner, session);
  return session;
}

/** The refusal for a tool this session may not call. */
function refusalOf(name: string, session: ToolSession, runner: ToolRunner | undefined): ToolRefusal {
  const precise = session.refusal?.(name);
  if (precise) return precise;
  const list = runner ? runner.names().filter((n) => session.allowed.has(n)) : [];
  return { code: 'E_TOOL_DENIED', message: `tool "${name}" is not available here; the tools you may call are: ${list.length > 0 ? list.join(', ') : 'none'}` };
}

/** Runners made by guardedRunner: they report every call themselves. */
const GUARDED = new WeakSet<ToolRunner>();

/**
 * The runner an agent is lent: the effective list and the turn budget are
 * enforced here, and every call is reported (`onCall`, journaled as
 * `tool.called`), so a library agent calling it directly is held to the
 * same rules, and leaves the same record, as a jsonl one whose `$tool`
 * lines are mediated.
 */
/**
 * Tool calls one agent may make for one item. An agent looping on calls
 * (each refused or not) would otherwise run until its timeout, journaling
 * every call: past this it is a fault of the agent, and nothing more runs.
 */
export const MAX_TOOL_CALLS_PER_ITEM = 1000;

export function tooManyToolCalls(nodeId: string): CountersignError {
  return new CountersignError('E_AGENT_OUTPUT', `the agent made more than ${MAX_TOOL_CALLS_PER_ITEM} tool calls for node "${nodeId}" without answering; the limit is ${MAX_TOOL_CALLS_PER_ITEM} calls per item, and no more run`, {
    nodeId,
    fix: 'answer the item after the tool calls it needs (an agent that keeps calling tools is looping); the run is still waiting: resume it',
  });
}

function guardedRunner(runner: ToolRunner, session: ToolSession): ToolRunner {
  let calls = 0;
  // A library agent may call with a name that is no string: on the record without one, as a malformed `$tool` line is.
  const named = (name: unknown) => (typeof name === 'string' && name !== '' ? { name } : {});
  const refuse = (name: string, code: string, message: string): never => {
    session.onCall?.({ ...named(name), ok: false, code, message });
    throw new CountersignError(code, message);
  };
  const guarded: ToolRunner = {
    names: () => runner.names().filter((n) => session.allowed.has(n)),
    ...(runner.spec ? { spec: (name: string) => runner.spec!(name) } : {}),
    async call(name, args, request, meta) {
      // The run no longer waits for this agent: nothing it calls now could be on the item's record, so nothing runs.
      if (session.closed !== undefined) {
        throw new CountersignError('E_TOOL_SESSION_OVER', `tool "${name}" was called after the run stopped waiting for this agent (${session.closed}): it did not run`, {
          fix: 'call tools only while answering the item you were given; for a later item, use the runner that item lends',
        });
      }
      // Every call is a turn, a refused one too (as every `$tool` line of a jsonl agent is).
      calls++;
      if (calls > MAX_TOOL_CALLS_PER_ITEM) {
        // Said once on the record; later calls are refused without a word more (E_TOOL_SESSION_OVER).
        session.closed = `it made ${MAX_TOOL_CALLS_PER_ITEM} tool calls for this item, the limit`;
        session.overCalled = true;
        const over = tooManyToolCalls(request.nodeId);
        session.onCall?.({ ...named(name), ok: false, code: over.code, message: over.message });
        throw over;
      }
      // A call that uses the last turn leaves no room for the answer.
      if (session.maxTurns !== undefined && calls >= session.maxTurns) {
        session.exhausted = true;
        refuse(name, 'E_MAX_TURNS', `${calls} message(s) used, the limit is max_turns ${session.maxTurns}, and no reply came`);
      }
      if (!session.allowed.has(name) || !runner.names().includes(name)) {
        const refused = refusalOf(name, session, runner);
        refuse(name, refused.code, refused.message);
      }
      try {
        const result = await tracked(session, name, () => runner.call(name, args, request, meta));
        // A tool that returns nothing ran, but gave no result: a failure on the record, never a null.
        if (result === undefined) throw new CountersignError('E_TOOL_FAILED', `tool "${name}" ran (it may have taken effect), but returned nothing (undefined)`);
        session.onCall?.({ name, ok: true });
        return result;
      } catch (e) {
        session.onCall?.({ name, ok: false, code: isCountersignError(e) ? e.code : 'E_TOOL_FAILED', message: thrownMessage(e), ...(isCountersignError(e) && e.fix ? { fix: e.fix } : {}) });
        throw e;
      }
    },
  };
  GUARDED.add(guarded);
  return guarded;
}

/** A `$tool` call as read from a line, with what it holds that the protocol does not take. */
export interface ToolRequest {
  name: unknown;
  args: unknown;
  reason?: unknown;
  /** Keys inside `$tool` besides name, args and reason. */
  unknown?: string[];
  /** Keys beside `$tool` on the line (other than `$seq`): an answer's fields, say, which a tool line would drop. */
  beside?: string[];
}

/** A `{"$tool": …}` message, or undefined when the line is an answer. */
export function toolRequestOf(message: JsonValue): ToolRequest | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('$tool' in message)) return undefined;
  const besideKeys = Object.keys(message).filter((k) => k !== '$tool' && k !== '$seq');
  const beside = besideKeys.length > 0 ? { beside: besideKeys } : {};
  const t = message.$tool;
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return { name: undefined, args: undefined, ...beside };
  const o = t as JsonObject;
  const unknown = Object.keys(o).filter((k) => k !== 'name' && k !== 'args' && k !== 'reason');
  return { name: o.name, args: o.args, ...(o.reason !== undefined ? { reason: o.reason } : {}), ...(unknown.length > 0 ? { unknown } : {}), ...beside };
}

/** Runs (or refuses) one `$tool` request and returns the line to send back. */
export async function mediate(call: ToolRequest, session: ToolSession, request: AgentRequest): Promise<JsonObject> {
  const name = call.name;
  const refuse = (code: string, message: string): JsonObject => {
    session.onCall?.({ ...(typeof name === 'string' && name !== '' ? { name } : {}), ok: false, code, message });
    return { $toolError: { code, message } };
  };
  if (typeof name !== 'string' || name === '') return refuse('E_TOOL_REQUEST', '"$tool" must be {"name": "<tool>", "args": {…}, "reason"?: "…"}');
  if (call.reason !== undefined && typeof call.reason !== 'string') return refuse('E_TOOL_REQUEST', '"$tool".reason must be a string: why you call the tool');
  // A misspelt key ("reasn") would otherwise be dropped without a word: the call is refused, never run without it.
  if (call.unknown) return refuse('E_TOOL_REQUEST', `"$tool" has ${call.unknown.map((k) => JSON.stringify(k)).join(', ')}, which it does not take: only "name", "args" and "reason"`);
  // So would an answer's fields written beside the call: a tool line is only the call.
  if (call.beside) return refuse('E_TOOL_REQUEST', `a "$tool" line holds only "$tool" (and "$seq"), but this one also has ${call.beside.map((k) => JSON.stringify(k)).join(', ')}, which would be lost: call the tool on a line of its own, and answer on a later line`);
  // Left out, "args" is {}; given, it is the arguments object itself: null (or a list) is never read as {}.
  if (call.args !== undefined && (call.args === null || typeof call.args !== 'object' || Array.isArray(call.args))) {
    return refuse('E_TOOL_ARGS', `"$tool".args must be an object of arguments, not ${call.args === null ? 'null' : Array.isArray(call.args) ? 'a list' : `a ${typeof call.args}`}: write {} for none, or leave "args" out`);
  }
  const runner = session.runner;
  const guarded = runner !== undefined && GUARDED.has(runner);
  // A guarded runner refuses and reports by itself; any other is checked here.
  if (!runner || (!guarded && (!session.allowed.has(name) || !runner.names().includes(name)))) {
    const refused = refusalOf(name, session, runner);
    return refuse(refused.code, refused.message);
  }
  try {
    const meta = typeof call.reason === 'string' ? { reason: call.reason } : undefined;
    const result = guarded ? await runner.call(name, (call.args ?? {}) as JsonValue, request, meta) : await tracked(session, name, () => runner.call(name, (call.args ?? {}) as JsonValue, request, meta));
    if (result === undefined) {
      const message = `tool "${name}" ran (it may have taken effect), but returned nothing (undefined)`;
      if (!guarded) session.onCall?.({ name, ok: false, code: 'E_TOOL_FAILED', message });
      return { $toolError: { code: 'E_TOOL_FAILED', message } };
    }
    if (!guarded) session.onCall?.({ name, ok: true });
    return { $toolResult: result };
  } catch (e) {
    const code = isCountersignError(e) ? e.code : 'E_TOOL_FAILED';
    const message = thrownMessage(e);
    // The remedy travels with the error, so the agent can act on it (install a CLI, fix an argument).
    const error: JsonObject = { code, message };
    if (isCountersignError(e) && e.fix) error.fix = e.fix;
    if (!guarded) session.onCall?.({ name, ok: false, code, message, ...(typeof error.fix === 'string' ? { fix: error.fix } : {}) });
    return { $toolError: error };
  }
}
