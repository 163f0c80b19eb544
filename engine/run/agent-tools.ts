/**
 * The tools an agent may call with `$tool` while it answers a directive of
 * a driven run (ADR-019, H35–H36). The engine's tools
 * (built-ins, `createEngine({tools})`, the workflow's loaded toolModules)
 * and the host's lent ToolRunner are offered by one rule:
 *
 * - the workflow's `access` map decides, with the node's `agent` role
 *   (a node without one may use only tools no role claims): E_TOOL_ACCESS;
 * - an engine tool of class `write` or `destructive` is a mutation the
 *   agent chose at run time, so it needs the second signature: it runs
 *   through the host's tool chain when that chain has a review gate, and is
 *   refused otherwise (E_GATE_REQUIRED). A `tool` node is the author's
 *   step and runs without the gate; this path is the agent's choice.
 *
 * A host's own lent tools are the host's chain to gate (the gate issue's
 * `chain()`); the access map still applies to them. Review items are not
 * offered the engine's tools: a reviewer gets only what seed 003's
 * information boundary gives it (a decision review, its persona's tools).
 */
import { CountersignError, isCountersignError, thrownMessage } from '../errors.js';
import type { JsonValue } from '../format/model.js';
import { chain, type ChainOptions, type ToolDecorator } from '../gate/chain.js';
import { suggest } from '../format/suggest.js';
import { tenantBindDecorator } from '../gate/decorators/tenant-bind.js';
import type { ToolRefusal, ToolRunner, ToolSpecView } from '../hosts/tool-mediation.js';
import { accessDenial, type AccessMap } from '../tools/access.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { defineTool, isGated, type Tool, type ToolRunContext } from '../tools/tool.js';
import type { AgentRequest } from './contract.js';
import { notJsonResult } from './tool-steps.js';

/** A directive item as its agent receives it. */
export type DirectiveRequest = Extract<AgentRequest, { kind: 'directive' }>;
/** An issues review as its reviewer receives it. */
export type IssuesReviewRequest = Extract<AgentRequest, { kind: 'review'; contract: 'issues' }>;

/** Carried in a call's context (the chain copies it through): set once the engine's tool itself starts. */
const STARTED = Symbol('countersign.toolStarted');

/** The tool, noting in its call's context when it starts: a refusal code it throws after that is its failure, not a refusal. */
function startsWatched(tool: Tool): Tool {
  return Object.freeze({
    ...tool,
    run: (args: never, ctx: ToolRunContext) => {
      const box = (ctx as unknown as Record<symbol, { value: boolean } | undefined>)[STARTED];
      if (box) box.value = true;
      return tool.run(args, ctx);
    },
  }) as Tool;
}

/** Codes that mean the call was refused before the tool ran: the agent may say so or call again differently. */
const REFUSALS: ReadonlySet<string> = new Set([
  'E_TOOL_ARGS', 'E_PROPOSAL', 'E_OPERATOR_REQUIRED', 'E_RATE_LIMITED', 'E_GATE_REQUIRED', 'E_TOOL_ACCESS', 'ErrReviewRejected', 'ErrReviewTimeout',
]);

/** The longest context summary a proposal carries: the item's text, cut here. */
const CONTEXT_LIMIT = 2000;

export interface AgentToolsConfig {
  /** The run's tools: the engine's catalog with the workflow's modules. */
  catalog: ToolCatalog;
  /** Tools the host lends its agents (`engine.run(…, {tools})`). */
  host?: ToolRunner;
  access?: AccessMap;
  /** The decorators engine tools run through when an agent calls them; a review gate makes gated tools callable. */
  toolChain?: ChainOptions;
}

/** Where the run works, for the tools and the gate's proposals. */
export interface AgentToolsRun {
  workspace: string;
  workflowName: string;
}

/** Makes each directive's tools for one run. */
export type AgentToolsMaker = (request: DirectiveRequest | IssuesReviewRequest, userId: string) => AgentTools;

/** What one item's agent is offered. */
export interface AgentTools {
  runner: ToolRunner;
  /** The engine's own tools (not a host's): a failure of one stops the item (ADR-019). */
  isEngineTool(name: string): boolean;
  refusal(name: string): ToolRefusal | undefined;
  specs: ToolSpecView[];
}

/**
 * Checks the configuration (a clash of names, a chain that does not build)
 * before a driven run starts, so a bad configuration never leaves a
 * half-started run, and returns the binder for the run.
 */
export function prepareAgentTools(config: AgentToolsConfig): (run: AgentToolsRun) => AgentToolsMaker {
  const hostNames = config.host?.names() ?? [];
  for (const name of hostNames) {
    if (config.catalog.has(name)) {
      throw new CountersignError('E_TOOL_DEFINITION', `two tools are named "${name}": one registered with the engine and one the host lends its agents (run({tools}))`, {
        fix: 'rename one of them: an agent calls tools by name and must get exactly the tool it was offered',
      });
    }
    // A lent tool's name, declared class and schema are checked now, not at
    // its first call (a write one becomes a tool of the chain then; a read
    // one's schema is what its specs promise the agent).
    const spec = config.host!.spec?.(name);
    if (spec !== undefined || !/^[A-Za-z0-9_.-]{1,128}$/.test(name)) {
      try {
        defineTool({ name, class: spec?.class ?? 'read', inputSchema: spec?.inputSchema ?? { type: 'object' }, run: async () => null });
      } catch (e) {
        if (!isCountersignError(e)) throw e;
        throw new CountersignError(e.code, `the tool "${name}" the host lends its agents (run({tools})) is not a valid tool: ${e.message}`, {
          ...(e.fix ? { fix: `${e.fix} (in the host's spec("${name}"))` } : {}),
        });
      }
    }
  }
  // A name a decorator singles out (perTool, skip) that no tool of this run
  // has is a misspelling: that tool would silently get the default.
  const known = new Set([...[...config.catalog.values()].map((t) => t.name), ...hostNames]);
  for (const [option, decorator] of Object.entries(config.toolChain ?? {})) {
    for (const name of (decorator as ToolDecorator | undefined)?.namedTools ?? []) {
      if (known.has(name)) continue;
      const guess = suggest(name, known);
      throw new CountersignError('E_CHAIN_INVALID', `toolChain.${option} names the tool "${name}", which no tool of this run has${guess ? ` — did you mean "${guess}"?` : ''}`, {
        fix: `name tools as the run's catalog and the host's tools do (${[...known].join(', ') || 'none'}); the tool would otherwise silently get the default`,
      });
    }
  }
  const gated = config.toolChain?.reviewGate !== undefined;
  // tenant_bind makes the answering identity the proposal's operator (A15).
  // A key given as undefined is the key left out (the default), as an option object spread by a host often holds.
  const given = config.toolChain ? Object.fromEntries(Object.entries(config.toolChain).filter(([, d]) => d !== undefined)) as ChainOptions : undefined;
  const decorators: ChainOptions | undefined = given ? { tenantBind: tenantBindDecorator(), ...given } : undefined;
  const runnable = new Map<string, Tool>();
  for (const tool of config.catalog.values()) {
    if (isGated(tool) && !gated) continue;
    const watched = startsWatched(tool);
    runnable.set(tool.name, decorators ? chain(watched, decorators) : watched);
  }

  return (run) => (request, userId) => {
    // A reviewer gets only the host's tools (seed 003's information boundary), under the same map.
    const review = request.kind === 'review';
    const role = review ? request.reviewer : request.agent;
    const refusals = new Map<string, ToolRefusal>();
    const offered = new Map<string, (args: JsonValue, reason: string | undefined) => Promise<JsonValue>>();
    const specs: ToolSpecView[] = [];
    const contextSummary = review ? '' : summaryOf(request, run.workflowName);
    /** Set once one of the engine's tools failed in this item: nothing else runs in it (no retry, no other path). */
    let stopped: string | undefined;
    /** `lent`: a host's tool put through the chain: its failure comes back as it threw and stops nothing (the engine's own stop the item). */
    const runVia = (tool: Tool, target: Tool, lent = false) => async (args: JsonValue, reason: string | undefined): Promise<JsonValue> => {
      // Arguments first, as the chain checks them: bad ones are E_TOOL_ARGS whatever else is missing.
      tool.checkArgs(args);
      if (isGated(tool) && (reason === undefined || reason.trim() === '')) {
        throw new CountersignError('E_PROPOSAL', `tool "${tool.name}" is ${tool.class} and goes to the review gate, which needs a reason: add "reason" to the $tool line ({"$tool": {"name", "args", "reason"}})`);
      }
      const started = { value: false };
      const ctx = { userId, workspace: run.workspace, contextSummary, ...(reason !== undefined ? { reason } : {}), [STARTED]: started } as ToolRunContext;
      let result: unknown;
      try {
        result = await target.run(args, ctx);
      } catch (e) {
        // A refusal (the chain refused the call: the tool never started)
        // keeps its code; whatever else a tool throws — one of those codes
        // too, once it had started — is E_TOOL_FAILED, as at a tool node,
        // and stops the step.
        if (isCountersignError(e) && REFUSALS.has(e.code) && (lent || !started.value)) throw e;
        if (lent) throw e;
        const code = isCountersignError(e) ? e.code : undefined;
        const message = thrownMessage(e);
        stopped = tool.name;
        throw new CountersignError('E_TOOL_FAILED', code === 'E_TOOL_FAILED' ? message : `tool "${tool.name}" failed: ${code ? `${code}: ` : ''}${message}`, {
          ...(isCountersignError(e) && e.fix ? { fix: e.fix } : {}),
        });
      }
      // A tool that returns nothing (a forgotten return) ran, but gave no result: said, never passed on as null.
      if (result === undefined) {
        if (!lent) stopped = tool.name;
        throw new CountersignError('E_TOOL_FAILED', `tool "${tool.name}" ran (it may have taken effect), but returned nothing (undefined)`, {
          fix: 'return the result as JSON data from the tool (null when there is nothing to say)',
        });
      }
      // Handed to the agent and journaled as JSON: a result JSON would change is refused, never passed on altered.
      let text: string | undefined;
      let odd: string | undefined;
      try {
        text = JSON.stringify(result);
        odd = text === undefined ? `(a ${typeof result}) is not JSON` : notJsonResult(result);
      } catch (e) {
        odd = `cannot be written as JSON: ${(e as Error).message}`;
      }
      if (odd !== undefined || text === undefined) {
        if (!lent) stopped = tool.name;
        throw new CountersignError('E_TOOL_FAILED', `tool "${tool.name}" ran (it may have taken effect), but its result ${odd}`, {
          fix: 'return plain JSON data from the tool: no functions, undefined, NaN, Infinity, BigInts, Maps, Sets or cycles',
        });
      }
      return JSON.parse(text) as JsonValue;
    };
    for (const tool of review ? [] : config.catalog.values()) {
      const denial = accessDenial(config.access, role, tool.name);
      if (denial) {
        refusals.set(tool.name, { code: 'E_TOOL_ACCESS', message: denial });
        continue;
      }
      const target = runnable.get(tool.name);
      if (!target) {
        refusals.set(tool.name, {
          code: 'E_GATE_REQUIRED',
          message: `tool "${tool.name}" is ${tool.class}: an agent's call to it needs the review gate's second signature, and this run has no review gate, so it is refused`,
        });
        continue;
      }
      offered.set(tool.name, runVia(tool, target));
      specs.push({ name: tool.name, class: tool.class, ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema });
    }
    for (const name of hostNames) {
      const denial = accessDenial(config.access, role, name);
      if (denial) {
        refusals.set(name, { code: 'E_TOOL_ACCESS', message: denial });
        continue;
      }
      const host = config.host!;
      const spec = host.spec?.(name);
      const writes = spec?.class !== undefined && spec.class !== 'read';
      // A lent tool the host declares write or destructive is a mutation the agent (or reviewer) chose: the same rule as the engine's.
      if (writes && !decorators?.reviewGate) {
        refusals.set(name, { code: 'E_GATE_REQUIRED', message: `tool "${name}" is ${spec!.class}: an agent's call to it needs the review gate's second signature, and this run has no review gate, so it is refused` });
        continue;
      }
      // Every lent tool's arguments are checked against the schema the agent
      // is shown, and its result must be plain JSON, as for the engine's own
      // tools; only a mutation goes through the chain (the review gate).
      const lent = defineTool({
        name, class: writes ? spec!.class! : 'read', inputSchema: spec?.inputSchema ?? { type: 'object' },
        run: (args, ctx) => host.call(name, args as JsonValue, request, ctx.reason !== undefined ? { reason: ctx.reason } : undefined),
      });
      offered.set(name, runVia(lent, writes ? chain(lent, decorators!) : lent, true));
      if (!review) specs.push(spec ?? { name });
    }
    const stoppedMessage = (): string => `tool "${stopped}" failed earlier in this item: no further tool runs in it (a failed tool is never retried or worked around); answer, and the step fails`;
    const runner: ToolRunner = {
      names: () => [...offered.keys()],
      spec: (name) => specs.find((s) => s.name === name),
      call: (name, args, _request, meta) => {
        if (stopped !== undefined) return Promise.reject(new CountersignError('E_TOOL_STOPPED', stoppedMessage()));
        return offered.get(name)!(args, meta?.reason);
      },
    };
    // Once stopped, every later call is E_TOOL_STOPPED, a refused or unknown tool's too: an agent learns the item is over, not a list of tools to try.
    const refusal = (name: string) => (stopped !== undefined ? { code: 'E_TOOL_STOPPED', message: stoppedMessage() } : refusals.get(name));
    return { runner, refusal, specs, isEngineTool: (name) => !review && config.catalog.has(name) };
  };
}

/** What the gate's reviewer reads as the call's context: which run, node and role asked, and the directive. */
function summaryOf(request: DirectiveRequest, workflowName: string): string {
  const role = request.agent ? ` (role ${request.agent})` : '';
  const text = request.directive;
  const head = `run ${request.runId} of workflow "${workflowName}", node "${request.nodeId}"${role}`;
  const body = text.length > CONTEXT_LIMIT ? `${text.slice(0, CONTEXT_LIMIT)}…` : text;
  return body ? `${head}: ${body}` : head;
}
