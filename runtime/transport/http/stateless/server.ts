/**
 * Streamable HTTP, server side, stateless revisions (draft basic/transports/streamable-http):
 * one MCP endpoint taking POST only, no sessions. Every request is its own POST, answered with
 * one JSON object or an SSE stream scoped to it (related notifications, then the response);
 * `subscriptions/listen` is such a stream that stays open. Closing a response stream cancels
 * its request: the handler's `ctx.signal` aborts and nothing more is sent for it.
 *
 * All POSTs feed one {@link StatelessHttpServerTransport}, which a ServerSession of a stateless
 * revision connects to once. Request ids are unique per POST only, so the transport gives each
 * request an id of its own inside and restores the client's on the way out (also in
 * `_meta["io.modelcontextprotocol/subscriptionId"]` and `notifications/cancelled` `requestId`).
 *
 * Status codes, in the order the checks run:
 * - 403 Host or Origin not allowed. 405 anything but POST (`Allow: POST`; GET and DELETE of
 *   the 2025 revisions included). 406 Accept lacks `application/json` or `text/event-stream`.
 *   415 Content-Type not `application/json`. 413 Content-Length over `maxBodyBytes`: these
 *   are ../io/guard.ts, before the body is read. Then 413 a body that goes over the limit,
 *   408 a body not in within `bodyTimeoutMs`.
 * - 400 -32700 not UTF-8 JSON ("Parse error: body is not JSON"), or nested deeper than 512
 *   levels ("Parse error: JSON nested deeper than 512 levels", not parsed: ../../../codec/json-depth.ts),
 *   the words of the session endpoint; 400 -32600 not one JSON-RPC request/notification (responses refused),
 *   with the request's id when it can be read (JSON-RPC 2.0 §5).
 * - 400 -32022 `initialize` (a legacy client): the error names the supported versions.
 * - 400 -32602 request with by-position (array) `params` ("Invalid params: params must be an
 *   object", the engine's answer over stdio); request without `_meta` protocol version.
 * - 400 -32020 HeaderMismatch: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or
 *   `Mcp-Param-*` missing, malformed or not matching the body (./headers.ts).
 * - 400 -32022 protocol version not in `supportedVersions` (`data.supported`, `data.requested`).
 * - 400 -32602 request without `_meta` client capabilities.
 * - 404 when the answer is -32601 (method not found); 400 for -32021 and -32022 answers.
 * - 202 notification (a `notifications/cancelled` or `notifications/progress` is not delivered:
 *   it can name no request of its own POST); 200 JSON (`auto`: the response came first) or SSE.
 * `Mcp-Session-Id` and `Last-Event-ID` are ignored; no session id is minted.
 *
 * In parts: ./server-checks.ts the checks before the engine (head, token, body, `_meta`
 * version, headers, version served, capabilities), ./server-transport.ts the transport that carries each request to the
 * engine and its answer back; this file reads each request (node:http or WHATWG) through them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorizer } from '../../../auth/types.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { AuthInfo, JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { refuseOtherEra } from '../../../protocol/table.js';
import { corsNode, withCors } from '../io/cors.js';
import { type Exchange, fetchExchange, type ResponseSink } from '../io/exchange.js';
import type { RequestGuard } from '../io/guard.js';
import {
  afterClosingResponse,
  NodeSink,
  PARSED_MESSAGE,
  readNodeBody,
  requestHeaders,
  type WithParsed,
} from '../io/node.js';
import { AUTHORIZED, type WithAuthorized } from '../io/types.js';
import { failSink, isRefusal, refuse, StatelessChecks } from './server-checks.js';
import type { StatelessHttpOptions } from './server-options.js';
import { StatelessHttpServerTransport } from './server-transport.js';

export { PARSED_MESSAGE, parseJsonBody, readNodeBody } from '../io/node.js';
export type { StatelessHttpOptions } from './server-options.js';
export { StatelessHttpServerTransport, statusOfError } from './server-transport.js';

/** The stateless endpoint: a `node:http` listener with a WHATWG form and the shared transport. */
export interface StatelessHttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  fetch(request: Request): Promise<Response>;
  /** Connect one ServerSession of a stateless revision to this: `server.connect(handler.transport)`. */
  readonly transport: StatelessHttpServerTransport;
  /** The head checks this endpoint runs before it reads a body (a front that routes by body runs them first). */
  readonly guard: RequestGuard;
  /** The token check of {@link StatelessHttpOptions.authorize}, when set. */
  readonly authorize?: Authorizer;
  /** Ends every open response stream and closes the transport. */
  close(): Promise<void>;
}

/**
 * Creates the stateless endpoint.
 * @example
 * const handler = createStatelessHttpHandler({ tables: [table], toolSchema: (n) => features.inputSchema(n) });
 * await server.connect(handler.transport);
 * http.createServer(handler).on('clientError', answerClientError).listen(3000, '127.0.0.1'); // answerClientError from @mcpgen/runtime/http
 */
export function createStatelessHttpHandler(options: StatelessHttpOptions = {}): StatelessHttpHandler {
  if (!options.tables && !options.supportedVersions)
    throw new TypeError(
      'createStatelessHttpHandler: options.tables (the generated tables served) or options.supportedVersions is required',
    );
  // a table of the handshake era (2025-11-25) here would refuse its own clients at run time
  refuseOtherEra('createStatelessHttpHandler', 'stateless', options.tables ?? []);
  const transport = new StatelessHttpServerTransport({
    replyMode: options.replyMode ?? 'auto',
    keepAliveMs: options.keepAliveMs ?? 15000,
  });
  const checks = new StatelessChecks(options);
  const { guard } = checks;

  /** The checks after the body, then the request handed to the transport (both paths). */
  function deliver(sink: ResponseSink, message: unknown, headers: HeaderRecord, auth: AuthInfo | undefined): void {
    const checked = checks.message(message, headers);
    if (isRefusal(checked)) return failSink(sink, checked);
    if (auth) checked.auth = auth;
    transport.accept(message as JSONRPCMessage, sink, checked);
  }

  /** A throw of either path: reported, answered 500 (or a started response ended). */
  function failed(sink: ResponseSink, e: unknown): void {
    options.onError?.(e instanceof Error ? e : new Error(String(e)));
    if (!sink.started) failSink(sink, refuse(500, null, new RpcError(ErrorCode.InternalError, 'Internal error')));
    else sink.end();
  }

  /** The WHATWG path (also any other Exchange). */
  async function handle(ex: Exchange): Promise<void> {
    const refusal = checks.head(ex.method, ex.headers, ex.localPort);
    if (refusal) return failSink(ex.sink, refusal);
    const auth = options.authorize ? await checks.authorized(ex.method, ex.headers, ex.url, ex.authorized) : undefined;
    if (auth && 'status' in auth) return failSink(ex.sink, auth);
    const body = await ex.readBody(guard.maxBodyBytes, guard.bodyTimeoutMs);
    if (typeof body === 'string') return failSink(ex.sink, checks.body(body));
    deliver(ex.sink, checks.parse(body), ex.headers, auth);
  }

  /** The `node:http` path: headers read in place, the body gathered from its events. */
  async function handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (afterClosingResponse(req) || corsNode(guard.cors, req, res)) return;
    const sink = new NodeSink(res);
    try {
      const headers = requestHeaders(req);
      const refusal = checks.head(req.method ?? 'GET', headers, req.socket?.localPort);
      if (refusal) return failSink(sink, refusal);
      // (no await without a token check: a request goes on in the same tick)
      const auth = options.authorize
        ? await checks.authorized(req.method ?? 'GET', headers, req.url, (req as WithAuthorized)[AUTHORIZED])
        : undefined;
      if (auth && 'status' in auth) return failSink(sink, auth);
      const handed = (req as WithParsed)[PARSED_MESSAGE];
      let message: unknown;
      if (handed !== undefined && req.readableEnded) message = handed;
      else {
        const body = await readNodeBody(req, guard.maxBodyBytes, guard.bodyTimeoutMs);
        if (typeof body === 'string') return failSink(sink, checks.body(body));
        message = checks.parse(body);
      }
      deliver(sink, message, headers, auth);
    } catch (e) {
      failed(sink, e);
    }
  }

  const handler = handleNode as StatelessHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: (request: Request): Promise<Response> =>
        withCors(guard.cors, request, async (r) => {
          const { exchange, response } = fetchExchange(r);
          handle(exchange).catch((e: unknown) => failed(exchange.sink, e));
          return response;
        }),
    },
    transport: { value: transport },
    guard: { value: guard },
    authorize: { value: options.authorize },
    close: { value: () => transport.close() },
  });
  return handler;
}

type HeaderRecord = Readonly<Record<string, string | undefined>>;
