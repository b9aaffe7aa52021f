/**
 * The exchange contract of the HTTP server transports: what they read from a request and write
 * to its response, whatever does the I/O (`node:http` in ./node.ts, WHATWG `Request` /
 * `Response` in ./exchange.ts). Types, and the one symbol {@link AUTHORIZED}; it imports types only.
 */
import type { AuthInfo } from '../../../jsonrpc/transport.js';
import type { Authorizer } from '../../../auth/types.js';

/**
 * Where a front that ran the token check of a request (the dual-era front runs it before reading
 * the body that decides the era) leaves its verdict for the handler it hands the request to: the
 * `node:http` request or the WHATWG `Request` carries `{ authorize, auth }` under this symbol,
 * and a handler whose own `authorize` is that same function takes `auth` instead of checking the
 * token again. One check per request: a DPoP proof's `jti` is accepted once (RFC 9449 §11.1),
 * so a second check would refuse it as replayed. A symbol: nothing from the wire can set it.
 */
export const AUTHORIZED: unique symbol = Symbol('mcpgen.authorized');

/** The verdict a front left under {@link AUTHORIZED}. */
export interface Authorized {
  /** The check that accepted the request. */
  authorize: Authorizer;
  /** The principal it verified. */
  auth: AuthInfo;
}

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
  /** The verdict of a front's token check of this request (see {@link AUTHORIZED}), when one ran. */
  readonly authorized?: Authorized;
  /** The request target: path and query (`node:http`), or the whole URL (WHATWG); for the token check. */
  readonly url?: string;
}

/** A request (`node:http` or WHATWG) that may carry a front's verdict under {@link AUTHORIZED}. */
export type WithAuthorized = { [AUTHORIZED]?: Authorized };

/**
 * The principal of a request for a handler whose token check is `authorize`: the front's
 * `verdict` when that same check made it (see {@link AUTHORIZED}), else undefined (the handler checks).
 */
export function authorizedBy(authorize: Authorizer, verdict: Authorized | undefined): AuthInfo | undefined {
  return verdict?.authorize === authorize ? verdict.auth : undefined;
}
