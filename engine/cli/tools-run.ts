/**
 * The tool nodes a command ran on its way (`start`, `step`, `status`): a
 * posted PR comment cannot be taken back, so the command says so, on
 * stderr as `run`'s progress does, and as `toolsRun` in --json.
 */
import type { Engine } from '../run/engine.js';
import type { Io } from './io.js';

export interface ToolRun {
  nodeId: string;
  tool: string;
  ok: boolean;
  code?: string;
  message?: string;
}

/** How many journal events the run has now: the mark to read tool nodes after. */
export async function journalMark(engine: Engine, runId: string): Promise<number> {
  return (await engine.trace(runId)).events.length;
}

/** Tool nodes that succeeded or failed after `mark`. */
export async function toolsRunSince(engine: Engine, runId: string, mark: number): Promise<ToolRun[]> {
  return (await engine.trace(runId)).events.slice(mark)
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
