/**
 * Keeping every tool result inside one stdio message. The SDK's clients
 * close the whole connection on a frame over 10 MiB, so one large result
 * (a run whose output holds a few big answers, read by `status` or `trace`)
 * would end the session for every later call — and end it again each time
 * the run is read. The text block repeats the state for the model, so it is
 * capped first: its start (what the result is, which run) and its end (the
 * exact next call) are kept, the middle is left out with a pointer to
 * structuredContent. When structuredContent alone is still too large, the
 * result becomes an E_RESULT_TOO_LARGE tool error that names the run and
 * how to read it in a shell; the server keeps serving.
 */
import { CountersignError } from '../../errors.js';
import { MAX_FRAME_BYTES } from './stdio-transport.js';

/** The longest text block, in characters: ample for any directive or review prompt a model should read whole. */
export const MAX_TEXT_CHARS = 256 * 1024;
/** Of a capped text, how much of its end is kept: the `To answer, call step with …` lines and the schema before them. */
const TAIL_CHARS = 32 * 1024;
/** Room left in a frame for the JSON-RPC envelope around a result. */
const ENVELOPE_BYTES = 16 * 1024;

/** The text, or its start and end with the middle left out and a note saying where the rest is. */
export function capText(text: string, max = MAX_TEXT_CHARS): string {
  if (text.length <= max) return text;
  const noteFor = (omitted: number) =>
    `\n\n[… ${omitted} characters left out here: this text is capped at ${max} characters, this note included. ` +
    'structuredContent holds the full result; status {"runId"} repeats the pending item, and in a shell ' +
    'countersign status <runId> --json or countersign trace <runId> --json (same --store) prints everything. ' +
    'Keep large values in files and pass their paths.]\n\n';
  // The note counts against the cap: sized with the most digits the count can have.
  const keep = Math.max(0, max - noteFor(text.length).length);
  const tail = Math.min(TAIL_CHARS, Math.floor(keep / 4));
  const head = keep - tail;
  return `${text.slice(0, safeEnd(text, head))}${noteFor(text.length - head - tail)}${text.slice(safeStart(text, text.length - tail))}`;
}

/**
 * Throws E_RESULT_TOO_LARGE when the result, serialised, would not fit in
 * one message. `runState` is what the call left behind (for start, step and
 * status), so the client learns the runId and where the run stands even then.
 */
export function assertResultFits(tool: string, result: object, runState?: { runId?: unknown; status?: unknown; seq?: unknown }, limit = MAX_FRAME_BYTES): void {
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (bytes <= limit - ENVELOPE_BYTES) return;
  const runId = typeof runState?.runId === 'string' ? runState.runId : undefined;
  const where = runId ? ` The call itself took effect: run ${runId} is ${String(runState?.status)} at seq ${String(runState?.seq)}.` : '';
  throw new CountersignError('E_RESULT_TOO_LARGE', `the result of ${tool} is ${bytes} bytes as JSON, more than the ${limit} bytes one MCP message over stdio may hold, so it was not sent.${where}`, {
    fix: `${runId ? `read the run in a shell: countersign status ${runId} --json (or countersign trace ${runId} --json) with the same --store; ` : ''}keep large values in files and pass their paths instead of their contents`,
    data: { bytes, limit, ...(runId ? { runId, status: runState?.status, seq: runState?.seq } : {}) },
  });
}

/**
 * E_RESULT_TOO_LARGE for a journal (trace) that does not fit in one
 * message: it changed nothing, so the fix is to read it in parts (`from`),
 * or whole in a shell.
 */
export function assertJournalFits(result: object, runId: string, from: number, events: number, limit = MAX_FRAME_BYTES): void {
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (bytes <= limit - ENVELOPE_BYTES) return;
  const half = from + Math.max(1, Math.floor(events / 2));
  throw new CountersignError('E_RESULT_TOO_LARGE', `the journal of run ${runId} from event ${from} on (${events} events) is ${bytes} bytes as JSON, more than the ${limit} bytes one MCP message over stdio may hold, so it was not sent`, {
    fix: `read it in parts: call trace with from (e.g. from: ${half}, then from an earlier index with fewer events left), or read it whole in a shell: countersign trace ${runId} --json with the same --store`,
    data: { bytes, limit, runId, from, events },
  });
}

/** An end index that does not split a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** A start index that does not split a surrogate pair. */
function safeStart(text: string, start: number): number {
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}
