/**
 * The exchange contract of the HTTP server transports: what they read from a request and write
 * to its response, whatever does the I/O (`node:http` in ./node.ts, WHATWG `Request` /
 * `Response` in ./exchange.ts). Types only; the adapters import it, it imports nothing.
 */

/** Response headers, by canonical name. */
export type HeaderMap = Record<string, string>;

/** The response side of an exchange: either one whole response, or an open stream. */
export interface ResponseSink {
  /** Sends a complete response (`body` UTF-8 text, or none). Ignored once anything was sent. */
  respond(status: number, headers: HeaderMap, body?: string): void;
  /**
   * Sends status and headers and keeps the body open for {@link ResponseSink.write}. When the
   * stream is opened, `afterTick(arg)` is called once the current tick's work is done (whether
   * the stream is still open then or not): the one deferred call a stream's opening costs.
   */
  open<A>(status: number, headers: HeaderMap, afterTick?: (arg: A) => void, arg?: A): void;
  /** Writes body text to an open stream; false when the connection is gone. */
  write(text: string): boolean;
  /** Ends the body. Idempotent. */
  end(): void;
  /** True once the connection closed or the body ended. */
  readonly closed: boolean;
  /** True once status and headers went out. */
  readonly started: boolean;
  /** Calls `listener` once when the connection closes (or the body ends). */
  onClose(listener: () => void): void;
}

/** Why a body was not read: over the limit, or not in within the time bound. */
export type BodyFailure = 'too-large' | 'timeout';

/** One HTTP request as the transports see it, whatever the server (node:http or fetch): method, headers, body reader and response writer. */
export interface Exchange {
  method: string;
  /** Request headers, lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>;
  /** The local port the request arrived on, when known (for Host validation). */
  localPort?: number;
  /** Aborted when the connection closes before the response completed. */
  signal: AbortSignal;
  /**
   * Reads the whole body, at most `limit` bytes, within `timeoutMs` (0 or undefined: no bound).
   * @returns the bytes, `'too-large'` when the body (or its Content-Length) exceeds `limit`, or
   * `'timeout'` when it did not end in time.
   */
  readBody(limit: number, timeoutMs?: number): Promise<Uint8Array | BodyFailure>;
  sink: ResponseSink;
}
