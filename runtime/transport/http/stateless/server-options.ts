/** The options of a stateless endpoint (./server.ts). */
import type { Authorizer } from '../../../auth/types.js';
import type { ProtocolTable } from '../../../protocol/table.js';
import type { CorsOptions } from '../io/cors.js';
import type { ReplyMode } from '../session/session.js';

/** Options of `createStatelessHttpHandler` (./server.ts). */
export interface StatelessHttpOptions {
  /**
   * The generated tables of the stateless revisions served: their protocol versions are the
   * versions this endpoint accepts. One of `tables` and `supportedVersions` is required (a
   * TypeError otherwise).
   */
  tables?: readonly ProtocolTable[];
  /** Protocol versions served, instead of those of `tables`. */
  supportedVersions?: readonly string[];
  /** `'json'`, `'sse'`, or `'auto'` (default): JSON unless a related notification goes first. */
  replyMode?: ReplyMode;
  /** The `inputSchema` of a tool, for `Mcp-Param-*` validation (none: no custom headers checked). */
  toolSchema?: (name: string) => unknown;
  /** As in the 2025 handler: accepted Host values, `false` off; default loopback on this port. */
  allowedHosts?: readonly string[] | false;
  /** As in the 2025 handler: accepted Origin values, `false` off; default loopback origins. */
  allowedOrigins?: readonly string[] | false;
  /** CORS for browser apps on other origins (../io/cors.ts): preflight, allowed and exposed headers. Default: off. */
  cors?: CorsOptions;
  /** Largest POST body, bytes. Default 4 MiB; a Content-Length over it is refused before the body. */
  maxBodyBytes?: number;
  /** Longest time a POST body may take to arrive, ms (else 408 and the connection ends). Default 30 000. */
  bodyTimeoutMs?: number;
  /** Keep-alive comment interval on open SSE responses, ms. Default 15000; 0 disables. */
  keepAliveMs?: number;
  /**
   * The token check of a protected endpoint (../../../auth/resource.ts `bearerAuth`), after the
   * head checks and before the body is read: a refusal (401 / 403 with `WWW-Authenticate`) is
   * answered at once; an accepted request's principal is `MessageInfo.auth` (handlers:
   * `ctx.auth`). Default: none.
   */
  authorize?: Authorizer;
  onError?(error: Error): void;
}
