/**
 * `node:http` input and output of the stateless endpoint (../stateless/server.ts) and the dual-era
 * front (../../../stateless/dual-era.ts): the response sink written for it, and reading and parsing POST bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResponseSink } from './types.js';

/** The headers of a JSON answer; {@link NodeSink.respond} recognises this object and adds the length. */
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json' };

/** Strict UTF-8, one decoder for every body (`decode()` without `stream` keeps no state): invalid bytes fail instead of becoming U+FFFD. */
export const UTF8 = new TextDecoder('utf-8', { fatal: true });


/**
 * The response side of a `node:http` exchange as a {@link ResponseSink}: a JSON answer goes out in
 * one write (header block and body together). Subclasses mark `gone` when the response closed
 * and decide who hears of it (`onClose`).
 */
export abstract class NodeResponseSink implements ResponseSink {
  /** The response closed (finished, or the connection was lost). */
  protected gone = false;
  constructor(protected readonly res: ServerResponse) {}
  respond(status: number, headers: Record<string, string>, body?: string): void {
    const res = this.res;
    if (res.headersSent || this.gone) return;
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    res.writeHead(status, headers === JSON_HEADERS ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : { ...headers, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
  open(status: number, headers: Record<string, string>): void {
    if (this.res.headersSent || this.gone) return;
    this.res.writeHead(status, headers);
    this.res.flushHeaders();
  }
  write(text: string): boolean {
    if (this.gone || this.res.writableEnded) return false;
    this.res.write(text);
    return true;
  }
  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
  get closed(): boolean {
    return this.gone || this.res.writableEnded;
  }
  get started(): boolean {
    return this.res.headersSent;
  }
  abstract onClose(listener: () => void): void;
}

/**
 * The sink of the stateless endpoint: no copy of the request headers, no AbortSignal, one
 * close listener (the transport's).
 */
export class NodeSink extends NodeResponseSink {
  #listener: (() => void) | undefined;
  constructor(res: ServerResponse) {
    super(res);
    res.once('close', () => {
      this.gone = true;
      const l = this.#listener;
      this.#listener = undefined;
      l?.();
    });
  }
  /** One listener (the transport's), called when the connection closes or the response ended. */
  onClose(listener: () => void): void {
    if (this.gone) listener();
    else this.#listener = listener;
  }
}

/**
 * Where a front handler that already read and parsed a POST body (../../../stateless/dual-era.ts) leaves the
 * parsed message on the `IncomingMessage`, so that this endpoint does not decode and parse it
 * again. Only set for a body that was valid UTF-8 and JSON.
 */
export const PARSED_MESSAGE: unique symbol = Symbol('mcpgen.parsedMessage');
export type WithParsed = IncomingMessage & { [PARSED_MESSAGE]?: unknown };

/** Parses UTF-8 JSON bytes (invalid UTF-8 is refused, not replaced); `undefined` when either fails. */
export function parseJsonBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(UTF8.decode(body));
  } catch {
    return undefined;
  }
}

/**
 * The whole body of a `node:http` request, at most `limit` bytes (else `'too-large'`, and the
 * connection is not kept alive). A body a middleware already read (`req.body`, e.g.
 * express.json()) is taken as it is: bytes, text, or a parsed value serialized again.
 */
export function readNodeBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Uint8Array | 'too-large'> | Uint8Array | 'too-large' {
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limit && /^[0-9]+$/.test(length)) {
    res.shouldKeepAlive = false;
    return 'too-large';
  }
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded) {
    const bytes = parsed instanceof Uint8Array ? parsed : Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
    return bytes.byteLength > limit ? 'too-large' : bytes;
  }
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return; // refused already: the rest is drained and dropped
      size += chunk.byteLength;
      if (size > limit) {
        res.shouldKeepAlive = false;
        resolve('too-large');
      } else if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    req.once('end', () => resolve(more ? Buffer.concat(more) : (first ?? Buffer.alloc(0))));
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('HTTP request aborted before its body ended'));
    });
  });
}
