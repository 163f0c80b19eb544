/**
 * What a driven run reports between the items it hands out, read from the
 * journal as it grows: the condition and expression nodes the run passed
 * (and where each led), the tool nodes the engine ran, and a node's
 * deadline firing. Only read when someone listens (onProgress), and only the
 * events appended since the last read.
 */
import type { JournalEvent } from './contract.js';
import type { Engine } from './engine.js';
import type { ProgressEvent } from './driver.js';

export interface JournalProgress {
  /** Reports the events appended since the last call; `timedOut` names a node whose deadline just fired. */
  report(timedOut?: string): Promise<void>;
}

/** `from`: the event index to start at (0 for a run this drive started; the journal's length for a resumed one). */
export function journalProgress(engine: Engine, runId: string, from: number, emit: (e: ProgressEvent) => void): JournalProgress {
  let at = from;
  return {
    async report(timedOut) {
      const { events } = await engine.trace(runId, { from: at });
      at += events.length;
      if (timedOut !== undefined) {
        const route = events.find((e) => e.type === 'route' && e.from === timedOut && e.via === 'timeout');
        const state = await engine.status(runId);
        emit({ type: 'timeout', nodeId: timedOut, state, ...(typeof route?.to === 'string' ? { to: route.to } : {}) });
      }
      for (const e of progressOf(events)) emit(e);
    },
  };
}

/** The progress events a stretch of journal holds, in order. */
export function progressOf(events: readonly JournalEvent[]): ProgressEvent[] {
  const out: ProgressEvent[] = [];
  // Nodes evaluated without an answer: their routes are the run's own decisions.
  const passed = new Map<string, 'condition' | 'expression'>();
  for (const e of events) {
    if (e.type === 'condition.evaluated' && typeof e.nodeId === 'string') passed.set(e.nodeId, 'condition');
    else if (e.type === 'expression.evaluated' && typeof e.nodeId === 'string') passed.set(e.nodeId, 'expression');
    else if (e.type === 'route' && typeof e.from === 'string' && typeof e.to === 'string' && typeof e.via === 'string' && passed.has(e.from)) {
      out.push({ type: 'route', from: e.from, to: e.to, via: e.via, kind: passed.get(e.from)! });
      passed.delete(e.from);
    } else if (e.type === 'tool.succeeded' || e.type === 'tool.failed') {
      out.push({
        type: 'tool',
        nodeId: String(e.nodeId),
        tool: String(e.tool),
        ok: e.type === 'tool.succeeded',
        ...(typeof e.code === 'string' ? { code: e.code } : {}),
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
      });
    }
  }
  return out;
}
