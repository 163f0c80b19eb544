/**
 * MCP over stdio, one JSON-RPC message per line, with a per-frame size
 * limit that refuses one request instead of ending the session.
 *
 * The SDK's StdioServerTransport closes the whole connection when its read
 * buffer passes 10 MiB, so one oversized `step` (a client pasting a file
 * into an answer) would end the server for every later call. Here a frame
 * over the limit is skipped as it streams in — only its first and last
 * bytes are kept, to find its id — and the request is answered through
 * `refuse`; the next line is read as usual. A line that is not JSON-RPC but
 * carries an id gets an Invalid Request error, and one that is not JSON at
 * all a Parse error to the id it still shows, rather than silence, so the
 * client does not wait for an answer that never comes. A last message the
 * client wrote without a newline before closing its end is read too.
 *
 * A JSON-RPC batch (an array on one line) is read element by element when
 * the negotiated protocol version allows batches (2025-03-26 and earlier),
 * and its replies go back together as one array on one line, once every
 * request in it is answered (batch-replies.ts), kept inside the frame limit;
 * from 2025-06-18 on, which removed batches, each request in it gets an
 * Invalid Request error. An oversized batch is refused at the ids its ends
 * show (its first and its last element).
 */
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BatchReplies, batchLine } from './batch-replies.js';
import { batchFrameFacts, frameFacts } from './frame-facts.js';
import { repeatedKeySaid } from '../../format/json-source.js';

/** The same limit the SDK applies, per frame here rather than per buffer. */
export const MAX_FRAME_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** How much of each end of an oversized frame is kept: enough for `"method"` at the start and `"id"` at either end. */
const EDGE_BYTES = 512;

export { batchFrameFacts, frameFacts };

export interface OversizedFrame {
  /** The request id, when one could be read from either end of the frame. */
  id?: string | number;
  /** The request method, when it could be read from the start of the frame. */
  method?: string;
  bytes: number;
  limit: number;
}

export interface GuardedStdioOptions {
  maxFrameBytes?: number;
  /** The reply to an oversized request (called only when its id is known); undefined sends nothing. */
  refuse: (frame: OversizedFrame & { id: string | number }) => JSONRPCMessage | undefined;
  /**
   * What goes back in place of a reply left out of a batch's array because
   * the replies together pass the frame limit; by default a JSON-RPC
   * Internal error saying so.
   */
  leftOut?: (reply: JSONRPCMessage, bytes: number, total: number, limit: number) => JSONRPCMessage;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly limit: number;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while an oversized frame streams past: its ends and its length. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private started = false;
  /** The protocol version the server agreed to in its initialize reply; undefined before it. */
  private protocolVersion: string | undefined;
  private readonly batches = new BatchReplies();

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: GuardedStdioOptions,
  ) {
    this.limit = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  }

  private closed = false;

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  async close(): Promise<void> {
    // The SDK's server and the command's own shutdown may both close it: the close is reported once.
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    this.onclose?.();
  }

  /**
   * The client closed its end: a last message written without its newline
   * is still a message, read as the final line (never dropped unread).
   */
  flush(): void {
    if (this.skipping || this.size > 0) this.endFrame();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
    if (result && typeof result.protocolVersion === 'string' && result.serverInfo) this.protocolVersion = result.protocolVersion;
    // A reply to a request that came in a batch waits for the rest of its batch, and goes back with it as one array.
    const batch = this.batches.take(message);
    if (batch !== undefined && batch.length === 0) return Promise.resolve();
    return this.write(batch !== undefined ? this.batchLine(batch) : serializeMessage(message));
  }

  private batchLine(replies: readonly unknown[]): string {
    return batchLine(replies, this.limit, (reply, bytes, total) => (this.options.leftOut ?? leftOutOfBatch)(reply as JSONRPCMessage, bytes, total, this.limit));
  }

  private write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(line)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, from);
      this.take(chunk.subarray(from, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endFrame();
      from = newline + 1;
    }
  };

  /** Adds part of the current line, switching to skipping once the line passes the limit. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = lastBytes(piece.length >= EDGE_BYTES ? piece : Buffer.concat([this.skipping.tail, piece]));
      return;
    }
    if (this.size + piece.length <= this.limit) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    const sofar = Buffer.concat([...this.chunks, piece]);
    this.skipping = { head: Buffer.from(sofar.subarray(0, EDGE_BYTES)), tail: lastBytes(sofar), bytes: sofar.length };
    this.chunks = [];
    this.size = 0;
  }

  private endFrame(): void {
    if (this.skipping) {
      const { head, tail, bytes } = this.skipping;
      this.skipping = undefined;
      this.oversized(head, tail, bytes);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      if (line.trimStart().startsWith('[')) {
        const elements = JSON.parse(line) as unknown[];
        if (this.refuseRepeat(line, elements)) return;
        this.batch(elements);
        return;
      }
      message = deserializeMessage(line);
      if (this.refuseRepeat(line, message)) return;
    } catch (e) {
      const json = parsesAsJson(line);
      // Said in one line: a parse error's own words, or what JSON-RPC needs (not the schema library's dump).
      const why = json ? 'not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0" and a "method", or a "result"/"error" with an "id")' : `not JSON (${(e as Error).message.split('\n')[0].slice(0, 160)})`;
      this.onerror?.(new Error(`skipped a line that is ${why}: ${JSON.stringify(line.length > 120 ? `${line.slice(0, 117)}...` : line)}`));
      if (json) this.invalidRequest(line);
      else this.parseError(line);
      return;
    }
    // The version this session will speak, known from the request itself: a
    // batch sent right behind initialize (before its reply) is judged by it.
    // The server's reply confirms it (send, below).
    const init = message as { method?: unknown; params?: { protocolVersion?: unknown } };
    if (init.method === 'initialize' && typeof init.params?.protocolVersion === 'string') {
      this.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(init.params.protocolVersion) ? init.params.protocolVersion : LATEST_PROTOCOL_VERSION;
    }
    this.noteCancel(message);
    this.onmessage?.(message);
  }

  private oversized(head: Buffer, tail: Buffer, bytes: number): void {
    const [headText, tailText] = [head.toString('utf8'), tail.toString('utf8')];
    if (/^\s*\[/.test(headText)) {
      this.oversizedBatch(headText, tailText, bytes);
      return;
    }
    const frame = frameFacts(headText, tailText, bytes, this.limit);
    this.onerror?.(new Error(`skipped a ${bytes}-byte message${frame.method ? ` (${frame.method})` : ''}: the limit is ${this.limit} bytes per message`));
    if (frame.id === undefined) return; // a notification, or an id we cannot see: nobody waits for a reply
    const reply = this.options.refuse({ ...frame, id: frame.id });
    if (reply) this.send(reply).catch((e: Error) => this.onerror?.(e));
  }

  /**
   * A batch too large to read: its first and last requests (the ones its
   * ends show) are refused as an oversized request is — in one array where
   * the protocol has batches, else each with the no-batches error. The
   * requests between them cannot be seen, so they can only be logged.
   */
  private oversizedBatch(head: string, tail: string, bytes: number): void {
    const frames = batchFrameFacts(head, tail, bytes, this.limit);
    this.onerror?.(new Error(`skipped a ${bytes}-byte batch: the limit is ${this.limit} bytes per message; ${frames.length === 0 ? 'no request id shows at its ends, so nothing can be answered' : `answering the request(s) its ends show (id ${frames.map((f) => JSON.stringify(f.id)).join(', ')}); any between them go unanswered`}`));
    if (frames.length === 0) return;
    const version = this.protocolVersion;
    if (version === undefined || version >= '2025-06-18') {
      this.batch(frames.map((f) => ({ jsonrpc: '2.0', id: f.id, method: f.method ?? 'unknown' })));
      return;
    }
    const replies = frames.map((f) => this.options.refuse(f)).filter((r) => r !== undefined);
    if (replies.length > 0) this.write(this.batchLine(replies)).catch((e: Error) => this.onerror?.(e));
  }

  /** The elements of a batch, each handled as if it came on a line of its own — or refused, where the protocol has no batches. */
  private batch(elements: unknown[]): void {
    const version = this.protocolVersion;
    if (version === undefined || version >= '2025-06-18') {
      const why = `Invalid Request: JSON-RPC batches are not part of MCP protocol version ${version ?? '(not yet initialized)'}; send each request on a line of its own`;
      const ids = elements.map(requestId).filter((id) => id !== undefined);
      if (elements.length === 0 || ids.length === 0) this.onerror?.(new Error(`skipped a batch of ${elements.length} message(s) with no request id: ${why}`));
      for (const id of ids) this.reply({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: why } });
      return;
    }
    // JSON-RPC 2.0 §6: an empty batch is one Invalid Request; an invalid element is answered in the batch's array (id null when it shows none).
    const invalid = (id: unknown, message: string) => ({ jsonrpc: '2.0', id: id ?? null, error: { code: ErrorCode.InvalidRequest, message } });
    if (elements.length === 0) {
      this.write(`${JSON.stringify(invalid(null, 'Invalid Request: an empty batch'))}\n`).catch((e: Error) => this.onerror?.(e));
      return;
    }
    const messages: JSONRPCMessage[] = [];
    const errors: unknown[] = [];
    const ids: Array<string | number> = [];
    for (const element of elements) {
      const parsed = JSONRPCMessageSchema.safeParse(element);
      if (!parsed.success) {
        errors.push(invalid(requestId(element), 'Invalid Request: not a JSON-RPC 2.0 request (it needs "jsonrpc": "2.0", a "method" string and, if any, "params" as an object)'));
        continue;
      }
      messages.push(parsed.data);
      const id = 'method' in parsed.data ? requestId(parsed.data) : undefined;
      if (id !== undefined) ids.push(id);
    }
    const now = this.batches.open(ids, errors);
    if (now) this.write(`${JSON.stringify(now)}\n`).catch((e: Error) => this.onerror?.(e));
    for (const message of messages) {
      this.noteCancel(message);
      this.onmessage?.(message);
    }
  }

  /**
   * A message that repeats a key in one object is ambiguous (JSON keeps only
   * the last value), so an answer `{"n":1,"n":2}` would lose what the agent
   * also wrote: refused whole with Invalid Request, as the CLI and the
   * process adapters refuse such an answer, rather than carried out.
   */
  private refuseRepeat(line: string, data: unknown): boolean {
    const repeat = repeatedKeySaid(line, data, true);
    if (!repeat) return false;
    const why = `Invalid Request: the message ${repeat.said}; send each key once`;
    const ids = (Array.isArray(data) ? data : [data]).map(requestId).filter((id) => id !== undefined);
    this.onerror?.(new Error(`skipped a message that ${repeat.said}${ids.length === 0 ? ' (no request id to answer)' : ''}`));
    const replies = ids.map((id) => ({ jsonrpc: '2.0' as const, id, error: { code: ErrorCode.InvalidRequest, message: why } }));
    if (replies.length === 0) return true;
    const batches = this.protocolVersion !== undefined && this.protocolVersion < '2025-06-18';
    if (Array.isArray(data) && batches) this.write(this.batchLine(replies)).catch((e: Error) => this.onerror?.(e));
    else for (const reply of replies) this.reply(reply);
    return true;
  }

  /** A cancelled request gets no reply (MCP): the batch it came in is answered without it. */
  private noteCancel(message: JSONRPCMessage): void {
    const m = message as { method?: unknown; params?: { requestId?: unknown } };
    if (m.method !== 'notifications/cancelled') return;
    const ready = this.batches.cancel(m.params?.requestId);
    if (ready) this.write(this.batchLine(ready)).catch((e: Error) => this.onerror?.(e));
  }

  /** A line that parsed as JSON with an id but is not a JSON-RPC message gets -32600 rather than silence. */
  private invalidRequest(line: string | unknown): void {
    let parsed: unknown = line;
    if (typeof line === 'string') {
      try {
        parsed = JSON.parse(line);
      } catch {
        return; // not JSON at all: no id to answer
      }
    }
    const id = requestId(parsed);
    if (id === undefined) return;
    this.reply({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request (it needs "jsonrpc": "2.0", a "method" string and, if any, "params" as an object)' },
    });
  }

  /**
   * A line that is not JSON at all (cut short, say): JSON-RPC's Parse error,
   * sent to the id it names when one can still be read from it, so a
   * client waiting on that id is answered; with no id in sight nobody can be.
   * Only a top-level id counts (before params, or after it in a frame that
   * still ends as one): an "id" inside params belongs to another request or
   * to no request, and answering it would fail a call the server carries out.
   */
  private parseError(line: string): void {
    const id = frameFacts(line.slice(0, EDGE_BYTES), line.slice(-EDGE_BYTES), Buffer.byteLength(line), this.limit).id;
    if (id === undefined) return;
    this.reply({ jsonrpc: '2.0', id, error: { code: ErrorCode.ParseError, message: 'Parse error: the message is not valid JSON (one JSON-RPC message per line)' } });
  }

  private reply(message: JSONRPCMessage): void {
    this.send(message).catch((e: Error) => this.onerror?.(e));
  }
}

/** The id of something that looks like a request (not a reply of the client's, which needs no answer). */
function requestId(value: unknown): string | number | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || 'result' in value || 'error' in value) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function lastBytes(buffer: Buffer): Buffer {
  return Buffer.from(buffer.subarray(Math.max(0, buffer.length - EDGE_BYTES)));
}

function parsesAsJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** The default stand-in for a reply that does not fit in its batch's array. */
function leftOutOfBatch(reply: JSONRPCMessage, bytes: number, total: number, limit: number): JSONRPCMessage {
  const id = (reply as { id?: string | number }).id ?? null;
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: { code: ErrorCode.InternalError, message: `E_RESULT_TOO_LARGE: the replies to this batch are ${total} bytes together, more than the ${limit} bytes one message may hold, so this reply (${bytes} bytes) was left out; the request itself was carried out: read what it did with a request of its own (not by sending this one again)` },
  };
}
