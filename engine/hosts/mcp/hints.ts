/**
 * The engine writes its fix hints for the command line (`--as <identity>`,
 * `countersign runs`). An MCP client has no flags and no shell: it has the
 * tools' arguments and the tools themselves. This is the one place that
 * rewords those hints for MCP, so the engine's messages stay written once
 * and a model reading a hint over MCP is told what it can actually call.
 *
 * Only hint-bearing fields are reworded (error message and fix, rejection
 * errors): workflow text such as directives is the author's and passes
 * through untouched.
 */
import type { JournalEvent, RunState } from '../../run/contract.js';

/** [CLI wording, MCP wording], applied in order; the first ones are the more specific. */
const REWORDINGS: ReadonlyArray<readonly [RegExp, string]> = [
  // requiredInputs: the start input is start's "input" argument.
  [/pass them in the start input: --input '(\{[^']*\})' \(library: start\(file, \{ input \}\)\)/g, 'pass them in the start tool\'s "input" argument: $1'],
  // `--as <identity> (library: { as })` names the flag and the library option: over MCP it is the step argument.
  [/--as <([^>]+)>(?: \(library: \{ as \}\))?/g, 'the "as" argument set to <$1>'],
  // The server has one store, chosen when it was started: a client cannot name another.
  [/; a run started with another --store or COUNTERSIGN_STORE is in that store/g, '; this server reads one store, so a run started in another store is not visible here'],
  [/\bomit --seq\b/g, 'omit the "seq" argument'],
  [/--seq\b/g, 'the "seq" argument'],
  [/\ba --workspace\b/g, 'a "workspace" argument'],
  [/--workspace\b/g, 'the "workspace" argument'],
  // `run `countersign validate <file>`` → call the validate tool; any other `countersign X …` → the X tool.
  [/\brun `countersign (validate|start|step|status|runs|trace)\b[^`]*`/g, 'call the `$1` tool'],
  [/`countersign (validate|start|step|status|runs|trace)\b[^`]*`/g, 'the `$1` tool'],
  // Loading a workflow's toolModules is the server's start flag: no call can give it.
  [/if you trust these modules, pass --allow-tool-modules \(library: createEngine\(\{ allowToolModules: true \}\)\); otherwise remove toolModules/g,
    'this server was started without --allow-tool-modules, and no tool call can change that: if the modules are trusted, whoever set up the server adds --allow-tool-modules to its command in the host\'s MCP configuration (countersign mcp --allow-tool-modules) and restarts it; otherwise remove toolModules from the workflow'],
];

/** A CLI-worded hint reworded for an MCP client: flags become tool arguments, commands become tools. */
export function mcpHint(text: string): string {
  let out = text;
  for (const [pattern, replacement] of REWORDINGS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * The rejection lines the engine writes with a CLI hint in them. Other
 * lines are not the engine's to reword: ajv's `pointer: message` lines
 * quote the schema's own values (an enum may well hold `--seq`), and a
 * node's retryMessage is the author's text.
 */
const ENGINE_REJECTION_HINT = /\(answer with --as <[^>]+>\)$/;

/** A rejection line reworded for MCP when it carries the engine's own hint; anything else exactly as it is. */
export function mcpRejectionLine(line: string): string {
  return ENGINE_REJECTION_HINT.test(line) ? mcpHint(line) : line;
}

/**
 * A message reworded outside its quoted values: what a message quotes
 * ("use --seq" as a metadata value, a file name) is the user's, passed on
 * exactly as the CLI shows it; only the engine's own words around it change.
 */
function mcpMessage(text: string): string {
  return text.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => (i % 2 === 1 ? part : mcpHint(part))).join('');
}

/** An error body (`{code, message, fix, …}`) with its message and fix reworded for MCP. */
export function mcpErrorBody<T extends { message: string; fix?: string }>(body: T): T {
  return { ...body, message: mcpMessage(body.message), ...(body.fix !== undefined ? { fix: mcpHint(body.fix) } : {}) };
}

/**
 * Failures whose message carries text that is not the engine's — the
 * agent's own `$error` words, what a tool threw — are passed on exactly:
 * only their fix (the engine's) is reworded.
 */
const FOREIGN_MESSAGE = new Set(['E_AGENT_ERROR', 'E_TOOL_FAILED']);

function mcpFailure<T extends { code?: unknown; message: string; fix?: string }>(failure: T): T {
  if (!FOREIGN_MESSAGE.has(String(failure.code))) return mcpErrorBody(failure);
  return failure.fix !== undefined ? { ...failure, fix: mcpHint(failure.fix) } : failure;
}

/**
 * A run state with its hints reworded for MCP: a failed run's error, the
 * rejection just given, and the errors the pending item carries from the
 * previous attempt. Everything else is the engine's state unchanged.
 */
export function mcpState(state: RunState): RunState {
  switch (state.status) {
    case 'failed':
      return { ...state, error: mcpFailure(state.error) };
    case 'waiting': {
      const pending = state.pending.errors ? { ...state.pending, errors: state.pending.errors.map(mcpRejectionLine) } : state.pending;
      const rejected = state.rejected ? { rejected: { ...state.rejected, errors: state.rejected.errors.map(mcpRejectionLine) } } : {};
      return { ...state, pending, ...rejected } as RunState;
    }
    default:
      return state;
  }
}

/**
 * A journal with the hints in its events reworded for MCP, as `step` and
 * `status` word them: rejection errors (`errors`) and a failure's `message`
 * and `fix`. Every other field is the recorded event unchanged.
 */
export function mcpJournal<T extends { events: JournalEvent[] }>(journal: T): T {
  const events = journal.events.map((e) => {
    const out: JournalEvent = { ...e };
    if (Array.isArray(e.errors)) out.errors = e.errors.map((x) => (typeof x === 'string' ? mcpRejectionLine(x) : x));
    // Only the engine's own failure is reworded: an answer.error message is the agent's text.
    if (e.type === 'run.failed' && typeof e.message === 'string') {
      const failure = mcpFailure({ code: e.code, message: e.message, ...(typeof e.fix === 'string' ? { fix: e.fix } : {}) });
      out.message = failure.message;
      if (failure.fix !== undefined) out.fix = failure.fix;
    }
    return out;
  });
  return { ...journal, events };
}
