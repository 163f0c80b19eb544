/**
 * The tool nodes a command ran on its way (`start`, `step`, `status`): a
 * posted PR comment cannot be taken back, so the command says so, on
 * stderr as `run`'s progress does, and as `toolsRun` in --json.
 */
import type { Store } from '../store/store.js';
import type { Io } from './io.js';

export interface ToolRun {
  nodeId: string;
  tool: string;
  ok: boolean;
  code?: string;
  message?: string;
}

/**
 * How many journal events the run has now: the mark to read tool nodes
 * after. Counted, not read: a long run's journal is large, and a step must
 * not cost more as its run grows.
 */
export function journalMark(store: Store, runId: string): number {
  // An unknown run is the engine's to report (E_RUN_NOT_FOUND naming the store) when the command calls it.
  return store.get(runId) ? store.eventCount(runId) : 0;
}

/** Tool nodes that succeeded or failed after `mark` (only the events after it are read). */
export function toolsRunSince(store: Store, runId: string, mark: number): ToolRun[] {
  return store.events(runId, mark)
    .filter((e) => e.type === 'tool.succeeded' || e.type === 'tool.failed')
    .map((e) => ({
      nodeId: String(e.nodeId),
      tool: String(e.tool),
      ok: e.type === 'tool.succeeded',
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.message === 'string' ? { message: e.message } : {}),
    }));
}

export function printToolsRun(io: Io, runs: ToolRun[]): void {
  for (const r of runs) io.stderr.write(r.ok ? `▸ ${r.nodeId}: tool ${r.tool} ✓\n` : `▸ ${r.nodeId}: tool ${r.tool} ✗ ${r.code}: ${r.message}\n`);
}
