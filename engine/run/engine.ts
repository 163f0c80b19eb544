/**
 * The engine: starts runs, takes answers, reports status and journals.
 * It never calls a model; a host drives it (the CLI, an MCP server, an
 * embedding, or `run` with an Agent). Every step is one store transaction.
 */
import { randomUUID } from 'node:crypto';
import { CountersignError } from '../errors.js';
import type { JsonObject, JsonValue, Workflow } from '../format/model.js';
import { compileWorkflow, type CompiledWorkflow } from '../compile/machine.js';
import type { Store, RunRecord } from '../store/store.js';
import type { Agent } from '../hosts/agent.js';
import type { JournalEvent, RunState, RunSummary, RunStatus } from './contract.js';
import { hashWorkflow } from './hash.js';
import { stateOf } from './state.js';
import { firstStep, nextStep } from './step.js';
import type { WorkflowSource } from './workflow-source.js';
import { driveRun, type RunOptions, type RunResult } from './driver.js';

export interface EngineOptions {
  store: Store;
  /** Injected for tests and replays; defaults to the wall clock. */
  now?: () => Date;
  newRunId?: () => string;
}

export interface StartOptions {
  input?: JsonObject;
  /** The starting identity (`userId`); `local` by default. */
  as?: string;
  /** The run's working directory; the process cwd by default. */
  workspace?: string;
}

export interface SubmitOptions {
  /** The seq being answered; lower replays, higher is E_SEQ. */
  seq?: number;
  /** The answering identity (`userId`). */
  as?: string;
}

export interface Engine {
  start(source: WorkflowSource, options?: StartOptions): Promise<RunState>;
  submit(runId: string, answer: unknown, options?: SubmitOptions): Promise<RunState>;
  status(runId: string): Promise<RunState>;
  trace(runId: string): Promise<{ runId: string; events: JournalEvent[] }>;
  runs(filter?: { status?: RunStatus }): Promise<RunSummary[]>;
  run(source: WorkflowSource | { runId: string }, options: RunOptions & StartOptions & { agent: Agent }): Promise<RunResult>;
}

export function createEngine(options: EngineOptions): Engine {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const newRunId = options.newRunId ?? (() => randomUUID());
  const workflows = new Map<string, Workflow>();

  function compiledFor(rec: RunRecord): CompiledWorkflow {
    let wf = workflows.get(rec.workflowHash);
    if (!wf) {
      wf = store.getWorkflow(rec.workflowHash);
      workflows.set(rec.workflowHash, wf);
    }
    return compileWorkflow(wf, rec.workflowHash);
  }

  function mustGet(runId: string): RunRecord {
    const rec = store.get(runId);
    if (!rec) throw notFound(runId);
    return rec;
  }

  /** Fires an overdue deadline (the `timeout` route or E_TIMEOUT) inside a transaction. */
  function fireDeadline(runId: string): RunState {
    return store.update(runId, (rec) => {
      if (rec.status !== 'waiting' || !rec.deadline || now() < new Date(rec.deadline)) return { result: stateOf(rec) };
      const s = nextStep(compiledFor(rec), rec, { type: 'TIMEOUT' }, now());
      return { record: s.record, events: s.events, result: stateOf(s.record) };
    });
  }

  const engine: Engine = {
    async start(source, opts = {}) {
      // Loaded on demand: parsing and validating files is only needed to start a run.
      const { loadValidWorkflow } = await import('./workflow-source.js');
      const { workflow, file } = loadValidWorkflow(source);
      const hash = hashWorkflow(workflow);
      workflows.set(hash, workflow);
      const compiled = compileWorkflow(workflow, hash);
      const runId = newRunId();
      const at = now();
      const userId = opts.as ?? 'local';
      const base: RunRecord = {
        runId,
        workflow: workflow.metadata.name,
        workflowHash: hash,
        ...(file ? { file } : {}),
        workspace: opts.workspace ?? process.cwd(),
        status: 'waiting',
        snapshot: {},
        seq: 0,
        createdAt: at.toISOString(),
        updatedAt: at.toISOString(),
      };
      const input = jsonCopy(opts.input ?? {}, 'E_INPUT').value as JsonObject;
      const meta = { executionId: runId, workflowId: workflow.id ?? workflow.metadata.name, userId };
      const settled = firstStep(compiled, base, { context: compiled.initialContext(meta, input) }, at);
      const started: JournalEvent = { seq: 0, at: base.createdAt, type: 'run.started', workflow: base.workflow, workflowHash: hash, userId };
      store.putWorkflow(hash, workflow);
      store.create(settled.record, [started, ...settled.events]);
      return stateOf(settled.record);
    },

    async submit(runId, answer, opts = {}) {
      const { value: copy, bytes } = jsonCopy(answer, 'E_INPUT');
      const userId = opts.as ?? 'local';
      if (opts.seq !== undefined && !Number.isInteger(opts.seq)) {
        throw new CountersignError('E_SEQ', `seq must be an integer, got ${JSON.stringify(opts.seq)}`, { fix: 'pass the seq from the pending state' });
      }
      return store.update(runId, (rec) => {
        if (opts.seq !== undefined) {
          const answered = rec.status === 'waiting' ? opts.seq < rec.seq : opts.seq <= rec.seq;
          if (answered) return { result: { ...stateOf(rec), replayed: true as const } };
          if (opts.seq !== rec.seq) {
            throw new CountersignError('E_SEQ', `run ${runId} is at seq ${rec.seq}; seq ${opts.seq} has not been issued`, {
              fix: `answer seq ${rec.seq}, or omit --seq`,
            });
          }
        }
        if (rec.status !== 'waiting') {
          throw new CountersignError('E_RUN_NOT_WAITING', `run ${runId} is ${rec.status} and takes no more answers`, {
            fix: 'start a new run with `countersign start`',
          });
        }
        const compiled = compiledFor(rec);
        const at = now();
        // A late answer does not count: the deadline fires first.
        const event = rec.deadline && at >= new Date(rec.deadline) ? ({ type: 'TIMEOUT' } as const) : ({ type: 'SUBMIT', answer: copy, bytes, userId } as const);
        const s = nextStep(compiled, rec, event, at);
        const state = stateOf(s.record);
        return { record: s.record, events: s.events, result: s.rejected && state.status === 'waiting' ? { ...state, rejected: s.rejected } : state };
      });
    },

    async status(runId) {
      const rec = mustGet(runId);
      if (rec.status === 'waiting' && rec.deadline && now() >= new Date(rec.deadline)) return fireDeadline(runId);
      return stateOf(rec);
    },

    async trace(runId) {
      mustGet(runId);
      return { runId, events: store.events(runId) };
    },

    async runs(filter) {
      return store.list(filter);
    },

    async run(source, opts) {
      const first =
        typeof source === 'object' && source !== null && 'runId' in source && Object.keys(source).length === 1
          ? await engine.status((source as { runId: string }).runId)
          : await engine.start(source as WorkflowSource, opts);
      return driveRun(engine, first, opts, now);
    },
  };
  return engine;
}

function notFound(runId: string): CountersignError {
  return new CountersignError('E_RUN_NOT_FOUND', `no run "${runId}" in the store`, { fix: 'list runs with `countersign runs`' });
}

/** Answers and inputs are stored as JSON: copying through JSON also detaches them from the caller. */
function jsonCopy(value: unknown, code: string): { value: JsonValue; bytes: number } {
  if (value === undefined) throw new CountersignError(code, 'no value was given', { fix: 'pass a JSON value' });
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new CountersignError(code, `the value cannot be serialised as JSON: ${(e as Error).message}`);
  }
  if (text === undefined) throw new CountersignError(code, 'the value is not JSON', { fix: 'pass a JSON object' });
  return { value: JSON.parse(text) as JsonValue, bytes: Buffer.byteLength(text, 'utf8') };
}
