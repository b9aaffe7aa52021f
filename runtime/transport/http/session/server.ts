/**
 * Streamable HTTP, server side (2025-11-25 basic/transports, "Streamable HTTP"): one MCP
 * endpoint answering POST, GET and DELETE, with sessions, JSON or SSE replies, resumable
 * streams and the Origin/Host checks the spec's security warning asks for.
 *
 * Status codes, in the order the checks run:
 * - 403 Host not allowed, or Origin present and not allowed (DNS-rebinding protection).
 * - 405 any other method; GET when the standalone stream is off (unless resuming); DELETE when
 *   session termination is off. `Allow` lists what is accepted.
 * - 406 POST whose Accept lacks `application/json` or `text/event-stream`; GET whose Accept
 *   lacks `text/event-stream`.
 * - 415 POST whose Content-Type is not `application/json`.
 * - 400 unsupported `MCP-Protocol-Version`; body not one JSON-RPC message (-32600; a batch is
 *   refused unless the session negotiated a revision with batches, `acceptsBatches`: then its
 *   entries are answered one by one, invalid ones with -32600, an empty one is refused); `initialize` carrying `Mcp-Session-Id`;
 *   any other request without `Mcp-Session-Id`; a request id already in flight on the session
 *   (-32600 with that id, the engine's words over stdio).
 * - 413 Content-Length over `maxBodyBytes` (the checks so far are those of ../io/guard.ts, all
 *   before the body is read); later a body that goes over it; 408 a body not in within
 *   `bodyTimeoutMs`. A refusal sent before the body ends the connection once delivered
 *   (../io/node.ts, respondNode). 400 with -32700 for a body that is not JSON.
 * - 404 `Mcp-Session-Id` unknown, ended or expired (idle longer than `sessionIdleMs`).
 * - 503 `initialize` when `maxSessions` sessions exist and none of them is idle (with
 *   `Retry-After`); an idle one is evicted instead when there is one (see `maxSessions`). With
 *   `shared` stores, the same for the deployment's cap (`SessionStore.makeRoom`).
 * A GET ends the connection its stream had before (one connection per stream).
 * - 202 POST of notifications/responses (a malformed notification too: accepted and ignored,
 *   field case 004); 200 JSON or SSE for requests; 204 DELETE.
 * Error bodies are JSON-RPC error responses with no `id` (none was read), except the -32600 of
 * a request whose id can be read, which carries that id (JSON-RPC 2.0 §5; `answerId` of jsonrpc).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fetchExchange, nodeExchange } from '../io/exchange.js';
import { corsNode, withCors } from '../io/cors.js';
import { afterClosingResponse } from '../io/node.js';
import { principalId } from '../../../auth/principal.js';
import type { AuthInfo } from '../../../jsonrpc/transport.js';
import type { StreamableHttpHandler, StreamableHttpOptions } from './server-options.js';
import { StreamableEndpoint } from './server-routing.js';

// the values beside the handler are exported by the entries from their own modules (./index.ts, ./web.ts)
export type { HttpServerSession, ReplyMode } from './session.js';
export type { EventStore, MemoryEventStore, MemoryEventStoreOptions } from './event-store.js';
export type { MemorySessionRegistry, SessionRegistry } from './registry.js';
export type { SessionInfo, SharedSessions, StreamableHttpHandler, StreamableHttpOptions } from './server-options.js';
export { shapeProblem } from './server-routing.js';

/** The principal a token speaks for (../../../auth/principal.ts `principalId`). */
export const principal: (auth: AuthInfo | undefined) => string | undefined = principalId;

/**
 * Creates the Streamable HTTP endpoint.
 * @example
 * const handler = createStreamableHttpHandler({ tables: [table, ...olderTables], onSession: (t) => engine.connect(t) });
 * // answerClientError: what node:http cannot parse gets a JSON-RPC error body, not a bare 400
 * http.createServer(handler).on('clientError', answerClientError).listen(3000, '127.0.0.1');
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  // the endpoint's parts: its state (./server-state.ts), shared-store adoption (./server-adoption.ts)
  // and request routing (./server-routing.ts)
  const endpoint = new StreamableEndpoint(options);
  const { guard } = endpoint;
  const handler = ((req: IncomingMessage, res: ServerResponse) =>
    afterClosingResponse(req) || corsNode(guard.cors, req, res)
      ? Promise.resolve()
      : endpoint.safely(nodeExchange(req, res))) as StreamableHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: (request: Request): Promise<Response> =>
        withCors(guard.cors, request, async (r) => {
          const { exchange, response } = fetchExchange(r);
          void endpoint.safely(exchange);
          return response;
        }),
    },
    sessions: { get: () => endpoint.sessions },
    guard: { value: guard },
    authorize: { value: options.authorize },
    close: { value: (): Promise<void> => endpoint.close() },
  });
  return handler;
}
