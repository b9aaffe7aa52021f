/**
 * The contract between the HTTP server transports and an authorization check, types only: the
 * transports call an {@link Authorizer} on a request's head, before one byte of the body is
 * read; ./resource.ts makes one from a JWKS or an introspection callback.
 */
import type { AuthInfo } from '../jsonrpc/transport.js';

export type { AuthInfo };

/** An HTTP refusal of the authorization check: status, JSON-RPC error code and message, headers (`WWW-Authenticate`). */
export interface AuthRefusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

/** What an {@link Authorizer} decides: the verified principal, or the refusal to answer with. */
export type AuthVerdict = { auth: AuthInfo } | { refusal: AuthRefusal };

/**
 * The head of a request as the check sees it (`method` upper-case, header names lower-case,
 * repeated headers joined with `, ` as the Fetch standard joins them, `Authorization` too).
 */
export interface AuthRequest {
  method: string;
  headers: Readonly<Record<string, string | undefined>>;
  /**
   * The request target: its path and query (`node:http`), or the whole URL (WHATWG `Request`);
   * the check refuses an access token in the query (2025-11-25 basic/authorization, "Access
   * Token Usage": never in the URI query string). Undefined when the caller does not know it.
   */
  url?: string;
}

/**
 * Decides on a request from its head alone. Must not throw for bad input (a bad token is a
 * refusal); a throw is answered with 500 by the transport.
 */
export type Authorizer = (request: AuthRequest) => Promise<AuthVerdict>;
