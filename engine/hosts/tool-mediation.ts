/**
 * Tool calls by agents (issue 4, amending the jsonl protocol): before its
 * answer, a `jsonl` agent or reviewer may write `{"$tool": {"name", "args"}}`
 * lines; the engine answers each with one `{"$toolResult": …}` or
 * `{"$toolError": {code, message}}` line. Only tools in the effective list
 * run (a reviewer's: its persona's, so the runtime filter holds even against
 * an external agent, B13–B16). Every message from the agent — each `$tool`
 * line and the final answer — is one turn; a `$tool` line that uses the
 * last turn leaves no room for a reply, and the agent is cut off (B5).
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { JsonObject, JsonValue } from '../format/model.js';
import type { AgentRequest } from '../run/contract.js';

/** What a host lends its agents: a catalog of callable tools. */
export interface ToolRunner {
  /** Every tool the host can run; a request's effective list narrows it. */
  names(): readonly string[];
  /** Runs one tool; throws a CountersignError (its code reaches the agent) on failure. */
  call(name: string, args: JsonValue, request: AgentRequest): Promise<JsonValue>;
}

/** One mediated call, as journaled (`tool.called`). */
export interface ToolCallRecord {
  name: string;
  ok: boolean;
  code?: string;
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
  onCall?: (call: ToolCallRecord) => void;
}

/** The tools a request may use: a decision review's persona list; otherwise the whole catalog. */
export function toolSession(request: AgentRequest, runner: ToolRunner | undefined, onCall?: (call: ToolCallRecord) => void): ToolSession {
  const decision = request.kind === 'review' && request.contract === 'decision';
  const allowed = new Set(decision ? request.persona.tools : (runner?.names() ?? []));
  const session: ToolSession = { allowed, ...(decision ? { maxTurns: request.persona.max_turns } : {}), ...(onCall ? { onCall } : {}) };
  if (runner) session.runner = guardedRunner(runner, session);
  return session;
}

/**
 * The runner an agent is lent: the effective list and the turn budget are
 * enforced here, so a library reviewer calling it directly is held to the
 * same rules as a jsonl one whose `$tool` lines are mediated.
 */
function guardedRunner(runner: ToolRunner, session: ToolSession): ToolRunner {
  let calls = 0;
  return {
    names: () => runner.names().filter((n) => session.allowed.has(n)),
    async call(name, args, request) {
      if (!session.allowed.has(name) || !runner.names().includes(name)) {
        throw new CountersignError('E_TOOL_DENIED', `tool "${name}" is not available here; the tools you may call are: ${runner.names().filter((n) => session.allowed.has(n)).join(', ') || 'none'}`);
      }
      calls++;
      // A call that uses the last turn leaves no room for the answer.
      if (session.maxTurns !== undefined && calls >= session.maxTurns) {
        session.exhausted = true;
        throw new CountersignError('E_MAX_TURNS', `${calls} message(s) used, the limit is max_turns ${session.maxTurns}, and no reply came`);
      }
      return runner.call(name, args, request);
    },
  };
}

/** A `{"$tool": …}` message, or undefined when the line is an answer. */
export function toolRequestOf(message: JsonValue): { name: unknown; args: unknown } | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('$tool' in message)) return undefined;
  const t = message.$tool;
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return { name: undefined, args: undefined };
  return { name: (t as JsonObject).name, args: (t as JsonObject).args };
}

/** Runs (or refuses) one `$tool` request and returns the line to send back. */
export async function mediate(call: { name: unknown; args: unknown }, session: ToolSession, request: AgentRequest): Promise<JsonObject> {
  const name = call.name;
  const refuse = (code: string, message: string): JsonObject => {
    session.onCall?.({ name: typeof name === 'string' ? name : String(name), ok: false, code });
    return { $toolError: { code, message } };
  };
  if (typeof name !== 'string' || name === '') return refuse('E_TOOL_REQUEST', '"$tool" must be {"name": "<tool>", "args": {…}}');
  if (!session.allowed.has(name) || !session.runner || !session.runner.names().includes(name)) {
    const list = [...session.allowed].filter((n) => session.runner?.names().includes(n));
    return refuse('E_TOOL_DENIED', `tool "${name}" is not available here; the tools you may call are: ${list.length > 0 ? list.join(', ') : 'none'}`);
  }
  try {
    const result = await session.runner.call(name, (call.args ?? {}) as JsonValue, request);
    session.onCall?.({ name, ok: true });
    return { $toolResult: result ?? null };
  } catch (e) {
    const code = isCountersignError(e) ? e.code : 'E_TOOL_FAILED';
    return refuse(code, e instanceof Error ? e.message : String(e));
  }
}
