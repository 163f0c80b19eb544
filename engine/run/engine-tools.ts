/**
 * The engine's tools for its runs: the catalog (built-ins and the host's),
 * each workflow's own toolModules (loaded once, only when allowed), the
 * tool nodes a run reaches, and what a driven run's agents may call.
 */
import { CountersignError, isCountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import type { CompiledWorkflow } from '../compile/machine.js';
import type { RunEnv } from '../nodes/node-type.js';
import type { RunRecord, Store } from '../store/store.js';
import { BUILTIN_TOOLS } from '../tools/builtin/index.js';
import { createToolCatalog, type ToolCatalog } from '../tools/catalog.js';
import { loadToolModules, storedRunFault } from '../tools/modules.js';
import type { Tool, ToolSpec } from '../tools/tool.js';
import { prepareAgentTools } from './agent-tools.js';
import type { RunOptions } from './driver.js';
import { hashWorkflow } from './hash.js';
import { advanceTools } from './tool-steps.js';
import type { ValidWorkflow, WorkflowSource } from './workflow-source.js';

/** Why a tool node was not run by this process (see WaitingState.held). */
export type Held = { code: string; message: string; fix?: string };

/** What keeps this process from running a tool node, without anything wrong with the run. */
const HOLDING: ReadonlySet<string> = new Set(['E_TOOL_UNKNOWN', 'E_TOOL_MODULE_BLOCKED', 'E_TOOL_MODULE', 'E_TOOL_DEFINITION']);

export interface EngineToolsDeps {
  store: Store;
  now: () => Date;
  tools?: ReadonlyArray<Tool | ToolSpec>;
  allowToolModules?: boolean;
  toolHeartbeatMs?: number;
  compiledFor(rec: RunRecord): CompiledWorkflow;
  envOf(rec: RunRecord): RunEnv;
  mustGet(runId: string): RunRecord;
}

export function engineTools(deps: EngineToolsDeps) {
  const { store, now, compiledFor, envOf, mustGet } = deps;
  const hostTools = [...BUILTIN_TOOLS, ...(deps.tools ?? [])];
  const catalog = createToolCatalog(hostTools);
  /**
   * Per workflow hash and file: the catalog with that workflow's toolModules
   * loaded. The file is part of the key because two projects may hold the
   * same workflow text next to different modules.
   */
  const moduleCatalogs = new Map<string, ToolCatalog>();
  const keyOf = (hash: string, file: string | undefined) => `${hash}\n${file ?? ''}`;
  /** `runId`: the modules are that existing run's (named so in a refusal: its stored copy, not the file, names them). */
  const catalogWith = async (modules: readonly string[] | undefined, file: string | undefined, runId?: string): Promise<ToolCatalog> => {
    if (!modules || modules.length === 0) return catalog;
    const loaded = await loadToolModules(modules, file, deps.allowToolModules === true, runId);
    try {
      return createToolCatalog(hostTools, loaded);
    } catch (e) {
      // A module's tool whose name is taken: for an existing run, said of its stored copy (as loadToolModules says its faults).
      throw runId !== undefined && isCountersignError(e) ? storedRunFault(e, runId, file) : e;
    }
  };
  const catalogOf = (rec: RunRecord): ToolCatalog => moduleCatalogs.get(keyOf(rec.workflowHash, rec.file)) ?? catalog;

  /**
   * Loads the run's toolModules once (E_TOOL_MODULE_BLOCKED unless allowed), so its tools are in catalogOf(rec).
   * A run that has ended runs no tool and offers agents nothing: nothing is loaded, and it is never refused for it.
   */
  const ensureModules = async (rec: RunRecord): Promise<void> => {
    if (rec.status !== 'waiting') return;
    const wf = compiledFor(rec).workflow;
    const key = keyOf(rec.workflowHash, rec.file);
    if (wf.toolModules?.length && !moduleCatalogs.has(key)) moduleCatalogs.set(key, await catalogWith(wf.toolModules, rec.file, rec.runId));
  };

  return {
    catalogOf,
    ensureModules,

    /**
     * Runs the tool nodes the run has reached (loading its tool modules
     * first). When this process cannot run one — its tool is not registered
     * here, or the modules may not or could not load — the run is left as
     * it is and the reason is returned, for the state's `held`.
     */
    async settle(runId: string): Promise<Held | undefined> {
      try {
        await ensureModules(mustGet(runId));
        await advanceTools({ store, now, catalogOf, compiledFor, envOf, ...(deps.toolHeartbeatMs ? { heartbeatMs: deps.toolHeartbeatMs } : {}) }, runId);
        return undefined;
      } catch (e) {
        if (!isCountersignError(e) || !HOLDING.has(e.code)) throw e;
        return { code: e.code, message: e.message, ...(e.fix ? { fix: e.fix } : {}) };
      }
    },

    /** Validates a source with every tool it may name: the host's, those lent to run(), and, when allowed, its own modules'. */
    async load(source: WorkflowSource, lent?: readonly string[]): Promise<ValidWorkflow> {
      const { loadValidWorkflow, readWorkflowSource, isDocument } = await import('./workflow-source.js');
      const { doc, file, modules } = readWorkflowSource(source);
      let tools: ToolCatalog;
      try {
        tools = await catalogWith(modules, file);
      } catch (e) {
        // A module's fault is the workflow's toolModules entry: placed at its line:col, as validate places it.
        if (!isCountersignError(e) || e.pointer === undefined || e.line !== undefined || !isDocument(doc)) throw e;
        const at = doc.locate(e.pointer);
        throw new CountersignError(e.code, e.message, { file: e.file ?? doc.file, pointer: e.pointer, line: at.line, col: at.col, ...(e.fix ? { fix: e.fix } : {}), ...(e.data !== undefined ? { data: e.data } : {}), cause: e });
      }
      const loaded = loadValidWorkflow(doc, { tools, modulesLoaded: true, ...(lent ? { lentTools: lent } : {}), ...(file ? { file } : {}) });
      if (tools !== catalog) moduleCatalogs.set(keyOf(hashWorkflow(loaded.workflow), loaded.file), tools);
      return loaded;
    },

    /** What agents may call with `$tool` in a run of `workflow` (checked before the run starts). */
    forAgents(workflow: Workflow, file: string | undefined, opts: RunOptions): ReturnType<typeof prepareAgentTools> {
      return prepareAgentTools({
        catalog: moduleCatalogs.get(keyOf(hashWorkflow(workflow), file)) ?? catalog,
        ...(opts.tools ? { host: opts.tools } : {}),
        ...(workflow.access ? { access: workflow.access } : {}),
        ...(opts.toolChain ? { toolChain: opts.toolChain } : {}),
      });
    },
  };
}
