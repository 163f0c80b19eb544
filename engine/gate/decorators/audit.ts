/**
 * audit: one execution row per call that reaches it (A14, E3). It sits
 * inside the review gate, so a rejected or timed-out review never gets here
 * and leaves no execution row (A12, E7): the proposal row is its record. It
 * sits outside ratelimit, so an approved call the rate limit refused is
 * recorded as a failed execution rather than vanishing from the trail.
 * `read` tools are audited too, with `proposal_id` null. A call stopped by
 * its signal (timeout) is recorded as failed when the stop comes, even if
 * the tool ignores the signal and never settles.
 */
import { randomUUID } from 'node:crypto';
import { CountersignError, isCountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import type { ToolDecorator } from '../chain.js';
import type { ExecutionRow } from '../ledger.js';
import { recordingStop, untilStopped } from './until-stopped.js';

// The row is the ledger's own type: one definition of the executions table.
export type { ExecutionRow };

export interface ExecutionSink {
  writeExecution(row: ExecutionRow): void | Promise<void>;
}

export interface AuditOptions {
  sink: ExecutionSink;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
  newId?: () => string;
}

export function auditDecorator(options: AuditOptions): ToolDecorator {
  if (typeof options?.sink?.writeExecution !== 'function') {
    throw new CountersignError('E_CHAIN_INVALID', 'auditDecorator needs a sink with writeExecution(row)', {
      fix: 'pass {sink: {writeExecution(row) {…}}}, e.g. one that appends to the ledger\'s executions table',
    });
  }
  for (const key of ['now', 'newId'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      throw new CountersignError('E_CHAIN_INVALID', `auditDecorator: ${key}, if given, must be a function, got ${said(options[key])}`, {
        fix: `pass ${key === 'now' ? 'now: () => Date.now()' : 'newId: () => randomUUID()'}, or leave it out`,
      });
    }
  }
  const { sink } = options;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  return {
    position: 'audit',
    wrap: (next, tool) => async (call) => {
      // A snapshot: the row shows the arguments as called, even if the tool mutates its input.
      const args = structuredClone(call.args);
      const row = (ok: boolean, error: string | null): ExecutionRow => ({
        id: newId(),
        at: new Date(now()).toISOString(),
        proposal_id: call.proposalId ?? null,
        tool: tool.name,
        args,
        ok,
        error,
      });
      // A call stopped from outside (timeout's limit, the caller's abort) is
      // recorded when the stop comes, even if the tool never settles.
      let result: unknown;
      try {
        result = await untilStopped(next(call), call.ctx?.signal, tool.name);
      } catch (err) {
        const writing = write(sink, row(false, messageOf(err)), tool.name, err);
        recordingStop(call.ctx?.signal, writing);
        await writing;
        // A tool that ignores the stop and finishes later took effect after
        // all: that is recorded too, as a row of its own, so the ledger
        // never shows only "not ok" for a mutation that happened.
        // (One that ended by the stop's own turn is said in the row above.)
        const ran = call.ran;
        if (call.ctx?.signal?.aborted && ran?.promise && !ran.settled) {
          void ran.promise.then(
            () => write(sink, row(true, `finished after the call was stopped (${messageOf(err)}): it took effect`), tool.name),
            () => undefined,
          ).catch(() => undefined);
        }
        throw err;
      }
      await write(sink, row(true, null), tool.name);
      return result;
    },
  };
}

/**
 * Writes the row. A row that cannot be written is E_STORE (the ledger must
 * never lose a call quietly), said truthfully: a call that ran took effect
 * (so nobody retries a mutation blindly); a call that failed or was refused
 * is named with its own code and message, also kept as `data.failure`.
 */
async function write(sink: ExecutionSink, row: ExecutionRow, tool: string, failure?: unknown): Promise<void> {
  try {
    await sink.writeExecution(row);
  } catch (err) {
    const lost = `its execution row could not be written: ${messageOf(err)}`;
    if (failure === undefined) {
      throw new CountersignError('E_STORE', `tool "${tool}" ran, but ${lost}`, {
        fix: 'check the store; the call took effect, so do not retry it blindly',
        cause: err,
        data: { row },
      });
    }
    const code = isCountersignError(failure) ? failure.code : 'E_TOOL_FAILED';
    throw new CountersignError('E_STORE', `tool "${tool}" failed with ${code} (${messageOf(failure)}), and ${lost}`, {
      fix: `check the store; the call itself failed (${code}), so it did not complete: see that error before calling again`,
      cause: failure,
      data: { row, failure: { code, message: messageOf(failure) } },
    });
  }
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
