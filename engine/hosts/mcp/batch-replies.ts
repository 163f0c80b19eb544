/**
 * JSON-RPC 2.0 batches, where the protocol has them (MCP 2025-03-26): the
 * replies to one batch go back as one array, on one line, once every
 * request in it is answered (JSON-RPC 2.0 §6). Invalid elements are
 * answered in that array too; a batch of notifications gets no reply.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

interface Batch {
  waiting: Set<Id>;
  replies: unknown[];
}

export class BatchReplies {
  private readonly byId = new Map<Id, Batch>();

  /**
   * Opens a batch whose requests `ids` will be answered, with the replies
   * already known (`errors`, for invalid elements). Returns the array to
   * write at once when no request is awaited and there is something to say.
   */
  open(ids: readonly Id[], errors: readonly unknown[]): unknown[] | undefined {
    const waiting = new Set(ids.filter((id) => !this.byId.has(id)));
    if (waiting.size === 0) return errors.length > 0 ? [...errors] : undefined;
    const batch: Batch = { waiting, replies: [...errors] };
    for (const id of waiting) this.byId.set(id, batch);
    return undefined;
  }

  /**
   * A reply the server sends: `undefined` when it belongs to no open batch
   * (written as it is), `[]` when it is held for its batch, or the whole
   * batch's replies when it was the last one awaited.
   */
  /**
   * The client cancelled request `id` (notifications/cancelled): MCP sends no
   * reply for it, so its batch waits for it no more. Returns the batch's
   * replies when that was the last one awaited (to write now), else undefined.
   */
  cancel(id: unknown): unknown[] | undefined {
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    const batch = this.byId.get(id);
    if (!batch) return undefined;
    this.byId.delete(id);
    batch.waiting.delete(id);
    return batch.waiting.size === 0 && batch.replies.length > 0 ? batch.replies : undefined;
  }

  take(message: JSONRPCMessage): unknown[] | undefined {
    const id = (message as { id?: unknown }).id;
    if (!('result' in message || 'error' in message) || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
    const batch = this.byId.get(id);
    if (!batch) return undefined;
    this.byId.delete(id);
    batch.waiting.delete(id);
    batch.replies.push(message);
    return batch.waiting.size === 0 ? batch.replies : [];
  }
}

/**
 * A batch's replies as one line that fits in `limit` bytes. Each reply was
 * sized on its own (a tool result is capped below one message), but a
 * batch's replies go out together: when the array is too large, the largest
 * replies are swapped, one at a time, for `leftOut(reply, bytes, total)` —
 * a short error saying the call took effect and how to read it alone —
 * until the line fits. The SDK's clients drop the whole connection on a
 * larger line.
 */
export function batchLine(replies: readonly unknown[], limit: number, leftOut: (reply: unknown, bytes: number, total: number) => unknown): string {
  const parts = replies.map((reply) => JSON.stringify(reply));
  const total = () => parts.reduce((sum, p) => sum + Buffer.byteLength(p, 'utf8'), 0) + parts.length + 2; // commas, brackets, newline
  const whole = total();
  const done = new Set<number>();
  while (total() > limit) {
    let largest = -1;
    for (let i = 0; i < parts.length; i++) if (!done.has(i) && (largest < 0 || parts[i].length > parts[largest].length)) largest = i;
    if (largest < 0) break;
    done.add(largest);
    parts[largest] = JSON.stringify(leftOut(replies[largest], Buffer.byteLength(parts[largest], 'utf8'), whole));
  }
  return `[${parts.join(',')}]\n`;
}
