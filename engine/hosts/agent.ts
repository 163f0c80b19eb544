/**
 * The agent boundary. The engine never calls a model: an Agent answers the
 * pending items a driving `run` hands it. Adapters (scripted, jsonl, exec,
 * interactive) implement this; a library host implements it with its own
 * agent function.
 */
import type { AgentRequest } from '../run/contract.js';
import type { ToolSession } from './tool-mediation.js';

export interface AnswerOptions {
  /** Aborted when the run stops waiting for this answer (timeout, shutdown). */
  signal: AbortSignal;
  /** How long the driver waits before it gives up with E_AGENT_TIMEOUT. */
  timeoutMs: number;
  /**
   * The tools this request may call and its turn budget. Adapters that can
   * hold a conversation (jsonl) mediate `$tool` lines through it; single-shot
   * ones (exec) cannot call tools.
   */
  tools?: ToolSession;
}

export interface Agent {
  /**
   * Resolves with the bare answer object, or `{"$error": "…"}` when the
   * agent itself declares failure. Rejects with a CountersignError whose
   * code is E_AGENT_CRASHED, E_AGENT_OUTPUT, E_AGENT_TIMEOUT or
   * E_AGENT_SCRIPT_EXHAUSTED for infrastructure faults: those never route
   * the workflow; the run stays waiting and resumable.
   */
  answer(request: AgentRequest, options: AnswerOptions): Promise<unknown>;
  /**
   * False for adapters that cannot call tools (exec, scripted, interactive):
   * their requests list no `toolSpecs`, since an offer they cannot take up
   * would only cost them attempts. Absent or true: offered as the workflow allows.
   */
  readonly callsTools?: boolean;
  /**
   * Releases processes and handles (closes the jsonl agent's stdin). run()
   * calls it when its drive ends, once no other drive shares the agent; an
   * agent closed this way must serve its next request afresh.
   */
  close?(): Promise<void>;
}
