/**
 * The in-memory store, for tests and embedding. Records are kept as given:
 * the engine never mutates a record it passed in or got back (it builds new
 * ones), so nothing is copied. The workflow copy is kept once per hash,
 * which keeps 10,000 waiting runs small.
 */
import type { Workflow } from '../format/model.js';
import type { JournalEvent, RunStatus, RunSummary } from '../run/contract.js';
import type { Mutation, RunRecord, Store } from './store.js';
import { duplicateRun, runNotFound, unknownWorkflowHash, workflowNotFound } from './store-errors.js';

export function createMemoryStore(): Store {
  const workflows = new Map<string, Workflow>();
  const runs = new Map<string, RunRecord>();
  const journals = new Map<string, JournalEvent[]>();

  return {
    putWorkflow(hash, workflow) {
      if (!workflows.has(hash)) workflows.set(hash, workflow);
    },

    getWorkflow(hash) {
      const workflow = workflows.get(hash);
      if (!workflow) throw workflowNotFound(hash);
      return workflow;
    },

    create(record, events) {
      if (runs.has(record.runId)) throw duplicateRun(record.runId);
      if (!workflows.has(record.workflowHash)) throw unknownWorkflowHash(record.runId, record.workflowHash);
      runs.set(record.runId, record);
      journals.set(record.runId, [...events]);
    },

    get(runId) {
      return runs.get(runId);
    },

    update<T>(runId: string, mutate: (current: RunRecord) => Mutation<T>): T {
      const current = runs.get(runId);
      if (!current) throw runNotFound(runId);
      // Nothing is written until mutate returns, so a throw leaves the run as it was.
      const { record, events, result } = mutate(current);
      if (record) runs.set(runId, record);
      if (events && events.length > 0) journals.get(runId)!.push(...events);
      return result;
    },

    list(filter?: { status?: RunStatus }): RunSummary[] {
      const out: RunSummary[] = [];
      for (const r of runs.values()) {
        if (filter?.status && r.status !== filter.status) continue;
        out.push({ runId: r.runId, workflow: r.workflow, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt });
      }
      return out.sort(newestFirst);
    },

    events(runId) {
      const journal = journals.get(runId);
      if (!journal) throw runNotFound(runId);
      // The journal is append-only: readers get copies, never the stored events.
      return journal.map((e) => structuredClone(e));
    },

    close() {
      workflows.clear();
      runs.clear();
      journals.clear();
    },
  };
}

function newestFirst(a: RunSummary, b: RunSummary): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  if (a.runId === b.runId) return 0;
  return a.runId < b.runId ? 1 : -1;
}
