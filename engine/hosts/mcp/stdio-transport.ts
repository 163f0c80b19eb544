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
 * carries an id gets an Invalid Request error rather than silence, so the
 * client does not wait for an answer that never comes.
 */
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The same limit the SDK applies, per frame here rather than per buffer. */
export const MAX_FRAME_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** How much of each end of an oversized frame is kept: enough for `"method"` at the start and `"id"` at either end. */
const EDGE_BYTES = 512;

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

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: GuardedStdioOptions,
  ) {
    this.limit = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
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
      message = deserializeMessage(line);
    } catch (e) {
      this.onerror?.(new Error(`skipped a line that is not a JSON-RPC message: ${(e as Error).message.slice(0, 200)}`));
      this.invalidRequest(line);
      return;
    }
    this.onmessage?.(message);
  }

  private oversized(head: Buffer, tail: Buffer, bytes: number): void {
    const frame = frameFacts(head.toString('utf8'), tail.toString('utf8'), bytes, this.limit);
    this.onerror?.(new Error(`skipped a ${bytes}-byte message${frame.method ? ` (${frame.method})` : ''}: the limit is ${this.limit} bytes per message`));
    if (frame.id === undefined) return; // a notification, or an id we cannot see: nobody waits for a reply
    const reply = this.options.refuse({ ...frame, id: frame.id });
    if (reply) this.send(reply).catch((e: Error) => this.onerror?.(e));
  }

  /** A line that parsed as JSON with an id but is not a JSON-RPC message gets -32600 rather than silence. */
  private invalidRequest(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return; // not JSON at all: no id to answer
    }
    if (parsed === null || typeof parsed !== 'object' || 'result' in parsed || 'error' in parsed) return; // a reply of the client's: nothing to answer
    const id = (parsed as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const reply: JSONRPCMessage = {
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request (it needs "jsonrpc": "2.0", a "method" string and, if any, "params" as an object)' },
    };
    this.send(reply).catch((e: Error) => this.onerror?.(e));
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return Buffer.from(buffer.subarray(Math.max(0, buffer.length - EDGE_BYTES)));
}

const ID_VALUE = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")';
// The SDK's clients write {"method", "params", "jsonrpc", "id"}: the id ends the frame. Others put it first.
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID_VALUE}\\s*\\}\\s*$`);
const ID_AT_START = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID_VALUE}`);
const METHOD_AT_START = /^\s*\{\s*(?:"(?:jsonrpc|id)"\s*:\s*(?:"[^"]*"|-?\d+)\s*,\s*)*"method"\s*:\s*"([^"]+)"/;

/** What the ends of an oversized frame say about it. Only top-level positions are trusted, never a match inside params. */
export function frameFacts(head: string, tail: string, bytes: number, limit: number): OversizedFrame {
  const raw = ID_AT_END.exec(tail.replace(/\r$/, ''))?.[1] ?? ID_AT_START.exec(head)?.[1];
  const method = METHOD_AT_START.exec(head)?.[1];
  return { ...(raw !== undefined ? { id: JSON.parse(raw) as string | number } : {}), ...(method ? { method } : {}), bytes, limit };
}
