// size: createStatelessHttpHandler and its request checks; split pending (#36)
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
 * - 400 -32700 not JSON; 400 -32600 not one JSON-RPC request/notification (responses refused).
 * - 400 -32022 `initialize` (a legacy client): the error names the supported versions.
 * - 400 -32602 request without `_meta` protocol version or client capabilities.
 * - 400 -32020 HeaderMismatch: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or
 *   `Mcp-Param-*` missing, malformed or not matching the body (./headers.ts).
 * - 400 -32022 protocol version not in `supportedVersions` (`data.supported`, `data.requested`).
 * - 404 when the answer is -32601 (method not found); 400 for -32021 and -32022 answers.
 * - 202 notification (a `notifications/cancelled` or `notifications/progress` is not delivered:
 *   it can name no request of its own POST); 200 JSON (`auto`: the response came first) or SSE.
 * `Mcp-Session-Id` and `Last-Event-ID` are ignored; no session id is minted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeComment, encodeEvent } from '../../../codec/sse.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { answerId, serializeMessage } from '../../../jsonrpc/message.js';
import { ownValue } from '../../../jsonrpc/own.js';
import { fetchExchange, type Exchange, type ResponseSink } from '../io/exchange.js';
import { corsNode, withCors, type CorsOptions } from '../io/cors.js';
import { checkRequestHeaders, paramHeaders, PROTOCOL_VERSION_META, type ParamHeader } from './headers.js';
import { RequestGuard, type HttpRefusal } from '../io/guard.js';
import { shapeProblem } from '../session/server.js';
import {
  JSON_HEADERS,
  NodeSink,
  PARSED_MESSAGE,
  type WithParsed,
  afterClosingResponse,
  parseJsonBody,
  readNodeBody,
  requestHeaders,
} from '../io/node.js';
import type { ReplyMode } from '../session/session.js';

import { type ProtocolTable, refuseOtherEra } from '../../../protocol/table.js';
import { protocolVersions } from '../../../protocol/versions.js';
export { PARSED_MESSAGE, parseJsonBody, readNodeBody } from '../io/node.js';
import type {
  AuthInfo,
  JSONRPCMessage,
  MessageInfo,
  SendOptions,
  Transport,
  TransportEvents,
} from '../../../jsonrpc/transport.js';
import type { Authorizer } from '../../../auth/types.js';
import { AUTHORIZED, type Authorized, authorizedBy, type WithAuthorized } from '../io/types.js';

type Id = string | number | bigint;
type Obj = Record<string, unknown>;

/** Options of {@link createStatelessHttpHandler}. */
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

/** HTTP status of a JSON-RPC error answer (draft streamable-http, Backward Compatibility). */
export function statusOfError(code: unknown): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.UnsupportedProtocolVersion ||
    code === ErrorCode.MissingRequiredClientCapability
  )
    return 400;
  return 200;
}

/** An error response's JSON; `id` null (none could be read) writes no `id` member (the error-id rule of ../../../jsonrpc/message.ts). */
function errorJson(id: Id | null, e: RpcError): string {
  const error: Obj = { code: e.code, message: e.message };
  if (e.data !== undefined) error.data = e.data;
  return serializeMessage(id === null ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error });
}

interface Stream {
  sink: ResponseSink;
  clientId: Id;
  sse: boolean;
  done: boolean;
  timer?: ReturnType<typeof setInterval>;
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const CLOSED_BY_CLIENT = 'response stream closed by the client';
/** The headers of every SSE response (the sinks copy them, never change them). */
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
});

/** Runs `f(a, b)` once the current tick's work is done: `process.nextTick` where there is one (Node, Bun, Deno), else a 0 ms timer. */
const afterTick: <A, B>(f: (a: A, b: B) => void, a: A, b: B) => void =
  typeof (globalThis as { process?: { nextTick?: unknown } }).process?.nextTick === 'function'
    ? (f, a, b) => process.nextTick(f, a, b)
    : (f, a, b) => void setTimeout(f, 0, a, b);

/** Keep-alive comments on SSE stream `s`, when it is still open (a reply that ended within the tick it opened in needs no timer). */
function startKeepAlive(s: Stream, keepAliveMs: number): void {
  if (s.done || s.timer) return;
  s.timer = setInterval(() => s.sink.write(encodeComment()), keepAliveMs);
  s.timer.unref?.();
}

/**
 * The one {@link Transport} behind a stateless endpoint. Messages the engine sends with
 * `relatedRequestId` (or responses) go to that request's POST; anything else has no stream in
 * this revision and is dropped. Server→client requests reject (MRTR carries them instead).
 *
 * Inbound requests reach the engine with an id of this transport's (a number, unique for its
 * lifetime). These inner ids are never reachable from outside: a POSTed
 * `notifications/cancelled` or `notifications/progress` does not reach the engine (202,
 * ignored: see `namesRequest`), so one client can never cancel another's request. When a response stream closes before its answer (the client went away or
 * cancelled by closing it), the engine gets `notifications/cancelled` for that id: the
 * handler's `ctx.signal` aborts with reason "response stream closed by the client" and its
 * answer is not sent. `MessageInfo.signal` is not set.
 */
export class StatelessHttpServerTransport implements Transport {
  #events: TransportEvents | undefined;
  readonly #streams = new Map<number, Stream>();
  #next = 0;
  #closed = false;
  /** Stateless revisions only: a server session of a handshake revision refuses this transport. */
  readonly lifecycle = 'stateless';
  constructor(private readonly settings: { replyMode: ReplyMode; keepAliveMs: number }) {}

  async start(events: TransportEvents): Promise<void> {
    this.#events = events;
  }

  /** Requests awaiting their response (listen streams included). */
  get inFlight(): number {
    return this.#streams.size;
  }

  /**
   * Hands one validated request or notification to the engine; the request's answer goes to
   * `sink`. The transport takes `message` over (a request's `id` is replaced by the inner one).
   */
  accept(message: JSONRPCMessage, sink: ResponseSink, info: MessageInfo): void {
    const events = this.#events;
    if (!events || this.#closed) {
      sink.respond(
        503,
        JSON_HEADERS,
        errorJson((message.id as Id) ?? null, new RpcError(ErrorCode.InternalError, 'server not connected')),
      );
      return;
    }
    if (message.id === undefined) {
      sink.respond(202, {});
      if (!namesRequest(message)) events.onMessage(message, info);
      return;
    }
    const inner = ++this.#next;
    const s: Stream = { sink, clientId: message.id as Id, sse: false, done: false };
    this.#streams.set(inner, s);
    sink.onClose(() => {
      if (s.done) return;
      this.#finish(inner, s);
      events.onMessage({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: inner, reason: CLOSED_BY_CLIENT },
      });
    });
    if (this.settings.replyMode === 'sse') this.#open(s);
    message.id = inner;
    info.requestId = s.clientId;
    events.onMessage(message, info);
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    const isResponse = !('method' in message);
    if (!isResponse && message.id !== undefined) {
      return Promise.reject(
        new RpcError(
          ErrorCode.MethodNotFound,
          `${String(message.method)}: servers send no requests over stateless Streamable HTTP (use input_required)`,
        ),
      );
    }
    const inner = isResponse ? message.id : options?.relatedRequestId;
    const s = typeof inner === 'number' ? this.#streams.get(inner) : undefined;
    if (!s || s.done) return Promise.resolve();
    if (!isResponse) {
      this.#open(s);
      const params = restoreIds(message.params, inner as number, s.clientId, true);
      s.sink.write(
        encodeEvent({ data: serializeMessage(params === message.params ? message : { ...message, params }) }),
      );
      return Promise.resolve();
    }
    // the envelope is written here with the client's id: neither the message nor its result is
    // copied; serialised before the stream is finished, so that a result JSON cannot express
    // (UnserializableMessageError) leaves the request open for the engine's -32603
    const id = serializeMessage(s.clientId);
    let text: string;
    try {
      text =
        'result' in message
          ? `{"jsonrpc":"2.0","id":${id},"result":${serializeMessage(restoreIds(message.result, inner as number, s.clientId, false))}}`
          : `{"jsonrpc":"2.0","id":${id},"error":${serializeMessage(message.error)}}`;
    } catch (e) {
      return Promise.reject(e);
    }
    this.#finish(inner as number, s);
    if (s.sse) {
      s.sink.write(encodeEvent({ data: text }));
      s.sink.end();
    } else {
      s.sink.respond(
        'error' in message ? statusOfError((message.error as Obj | undefined)?.code) : 200,
        JSON_HEADERS,
        text,
      );
    }
    return Promise.resolve();
  }

  /**
   * Closes the transport. A request still in flight is answered on its own response with
   * `{"jsonrpc":"2.0","id":<its id>,"error":{"code":-32000,"message":"server shutting down"}}`
   * (as JSON, or as the last event of its SSE stream) rather than an empty body.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const [inner, s] of this.#streams) {
      this.#finish(inner, s);
      const text = errorJson(s.clientId, new RpcError(ErrorCode.ConnectionClosed, 'server shutting down'));
      if (s.sse) {
        s.sink.write(encodeEvent({ data: text }));
        s.sink.end();
      } else s.sink.respond(200, JSON_HEADERS, text);
    }
    this.#events?.onClose();
  }

  #open(s: Stream): void {
    if (s.sse) return;
    s.sse = true;
    s.sink.open(200, SSE_HEADERS as Record<string, string>);
    if (this.settings.keepAliveMs > 0) afterTick(startKeepAlive, s, this.settings.keepAliveMs);
  }

  #finish(inner: number, s: Stream): void {
    s.done = true;
    if (s.timer) clearInterval(s.timer);
    this.#streams.delete(inner);
  }
}

/**
 * Whether a notification names a request or a progress token of the engine's
 * (`notifications/cancelled` `requestId`, `notifications/progress` `progressToken`). A POSTed
 * notification is an exchange of its own that carries no request: whatever id it names, it
 * names none of its exchange's, and the ids the engine knows are inner ones, never reachable
 * from outside. Such a notification is accepted (202) and ignored, as the cancellation page
 * asks for an unknown request id (draft basic/patterns/cancellation, Error Handling); on this
 * transport closing the response stream is the cancellation (streamable-http, Cancellation).
 */
function namesRequest(message: JSONRPCMessage): boolean {
  return message.method === 'notifications/cancelled' || message.method === 'notifications/progress';
}

/**
 * `o` with the client's id where the engine wrote the inner one: `_meta[subscriptionId]`, and
 * for notifications `requestId` (notifications/cancelled, progress of a listen). `o` itself
 * when there is nothing to change (the common case: no copy).
 */
function restoreIds(o: unknown, inner: number, clientId: Id, notification: boolean): unknown {
  if (typeof o !== 'object' || o === null) return o;
  const x = o as Obj;
  const meta = x._meta as Obj | undefined;
  const fixMeta = meta !== undefined && meta !== null && meta[SUBSCRIPTION_ID] === inner;
  const fixRequest = notification && x.requestId === inner;
  if (!fixMeta && !fixRequest) return o;
  const out = { ...x };
  if (fixMeta) out._meta = { ...meta, [SUBSCRIPTION_ID]: clientId };
  if (fixRequest) out.requestId = clientId;
  return out;
}

/** Why a request is refused before it reaches the engine: status, JSON-RPC error, extra headers. */
interface Refusal {
  status: number;
  id: Id | null;
  error: RpcError;
  headers?: Record<string, string>;
}
const refuse = (status: number, id: Id | null, error: RpcError, headers?: Record<string, string>): Refusal => ({
  status,
  id,
  error,
  headers,
});

/**
 * Creates the stateless endpoint.
 * @example
 * const handler = createStatelessHttpHandler({ tables: [table], toolSchema: (n) => features.inputSchema(n) });
 * await server.connect(handler.transport);
 * http.createServer(handler).on('clientError', answerClientError).listen(3000, '127.0.0.1'); // answerClientError from @mcpgen/runtime/http
 */
// size: the stateless endpoint and its request checks; split pending (#36)
export function createStatelessHttpHandler(options: StatelessHttpOptions = {}): StatelessHttpHandler {
  if (!options.tables && !options.supportedVersions)
    throw new TypeError(
      'createStatelessHttpHandler: options.tables (the generated tables served) or options.supportedVersions is required',
    );
  // a table of the handshake era (2025-11-25) here would refuse its own clients at run time
  refuseOtherEra('createStatelessHttpHandler', 'stateless', options.tables ?? []);
  const versions = options.supportedVersions ?? protocolVersions(options.tables ?? []);
  // the served revision's code for an unsupported version (the first table naming one: -32022 in
  // 2026-07-28, -32602 in the 2026-05-14 draft); without tables, 2026-07-28's
  const unsupported =
    (options.tables ?? [])
      .map((t) => ownValue(t.errorCodes, 'UNSUPPORTED_PROTOCOL_VERSION'))
      .find((c) => typeof c === 'number') ?? ErrorCode.UnsupportedProtocolVersion;
  const transport = new StatelessHttpServerTransport({
    replyMode: options.replyMode ?? 'auto',
    keepAliveMs: options.keepAliveMs ?? 15000,
  });
  const schemas = new WeakMap<object, ParamHeader[] | Error>();

  /** The annotations of a tool's schema (cached per schema object); an invalid schema has none checked. */
  const toolHeaders = (name: unknown): ParamHeader[] | undefined => {
    if (typeof name !== 'string' || !options.toolSchema) return undefined;
    const schema = options.toolSchema(name);
    if (typeof schema !== 'object' || schema === null) return undefined;
    let got = schemas.get(schema);
    if (!got) {
      try {
        got = paramHeaders(schema);
      } catch (e) {
        got = e as Error;
        options.onError?.(new Error(`tool ${name}: ${got.message}`));
      }
      schemas.set(schema, got);
    }
    return got instanceof Error ? undefined : got;
  };

  // Host, Origin, method, Accept, Content-Type and Content-Length, before the body (../io/guard.ts)
  const guard = new RequestGuard(options, { serves: (m) => m === 'POST', allow: 'POST' });
  const headRefusal = (
    method: string,
    h: Readonly<Record<string, string | undefined>>,
    localPort: number | undefined,
  ): Refusal | undefined => {
    const r = guard.check(method, h, localPort);
    return r && asRefusal(r);
  };
  const asRefusal = (r: HttpRefusal): Refusal => {
    const message = r.status === 405 ? `${r.message} (this endpoint takes POST only)` : r.message;
    return refuse(r.status, null, new RpcError(r.code, message), r.headers);
  };

  /**
   * The token check: undefined when the endpoint has none, else the principal or the refusal.
   * A front that checked the token already (the dual-era front) left its verdict on the request
   * (`front`, see ../io/types.ts AUTHORIZED): taken as it is, one check per request.
   */
  const authorized = async (
    method: string,
    headers: Readonly<Record<string, string | undefined>>,
    url: string | undefined,
    front: Authorized | undefined,
  ): Promise<AuthInfo | Refusal | undefined> => {
    if (!options.authorize) return undefined;
    const checked = authorizedBy(options.authorize, front);
    if (checked) return checked;
    const verdict = await options.authorize({ method: method.toUpperCase(), headers, url });
    if ('auth' in verdict) return verdict.auth;
    const r = verdict.refusal;
    return refuse(r.status, null, new RpcError(r.code, r.message), r.headers);
  };

  /** Decodes and parses the body (integer ids beyond 2^53 exact); PARSE_FAILED when it is not UTF-8 JSON. */
  function parse(body: Uint8Array): unknown {
    const message = parseJsonBody(body);
    return message === undefined ? PARSE_FAILED : message;
  }

  /**
   * The checks after the body was parsed. Returns the refusal, or the MessageInfo to deliver
   * the message with (`protocolVersion` set for requests).
   */
  function checkMessage(
    message: unknown,
    headers: Readonly<Record<string, string | undefined>>,
  ): Refusal | MessageInfo {
    if (message === PARSE_FAILED)
      return refuse(400, null, new RpcError(ErrorCode.ParseError, 'Parse error: body is not JSON'));
    const problem =
      shapeProblem(message) ?? ((message as Obj).method === undefined ? 'clients send no responses' : undefined);
    // the request's id when it can be read (JSON-RPC 2.0 §5), else none
    if (problem)
      return refuse(
        400,
        answerId(message) ?? null,
        new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`),
      );
    const msg = message as JSONRPCMessage;
    const id = (msg.id as Id | undefined) ?? null;
    if (id === null) return { headers };
    const params = (msg.params ?? EMPTY) as Obj;
    const meta = params._meta as Obj | undefined;
    const version = meta?.[PROTOCOL_VERSION_META];
    // (an initialize carrying the modern `_meta` is just an unknown method: 404 -32601)
    if (msg.method === 'initialize' && typeof version !== 'string') {
      // versioning, Backward Compatibility: name the supported versions to a legacy client
      return refuse(
        400,
        id,
        new RpcError(
          unsupported,
          `Unsupported protocol version: this endpoint serves ${versions.join(', ')} (no initialize)`,
          { supported: [...versions], requested: params.protocolVersion },
        ),
      );
    }
    if (typeof version !== 'string')
      return refuse(400, id, new RpcError(ErrorCode.InvalidParams, `missing _meta["${PROTOCOL_VERSION_META}"]`));
    const capabilities = meta![CLIENT_CAPABILITIES_META];
    if (typeof capabilities !== 'object' || capabilities === null) {
      return refuse(400, id, new RpcError(ErrorCode.InvalidParams, `missing _meta["${CLIENT_CAPABILITIES_META}"]`));
    }
    const tool = msg.method === 'tools/call' ? toolHeaders(params.name) : undefined;
    const mismatch = checkRequestHeaders(msg, headers, tool);
    if (mismatch) return refuse(400, id, mismatch);
    if (!versions.includes(version)) {
      return refuse(
        400,
        id,
        new RpcError(unsupported, 'Unsupported protocol version', {
          supported: [...versions],
          requested: version,
        }),
      );
    }
    return { headers, protocolVersion: version };
  }

  const isRefusal = (x: Refusal | MessageInfo): x is Refusal => 'error' in x;
  const failSink = (sink: ResponseSink, r: Refusal): void =>
    sink.respond(r.status, r.headers ? { ...JSON_HEADERS, ...r.headers } : JSON_HEADERS, errorJson(r.id, r.error));

  /** The WHATWG path (also any other Exchange). */
  async function handle(ex: Exchange): Promise<void> {
    const refusal = headRefusal(ex.method, ex.headers, ex.localPort);
    if (refusal) return failSink(ex.sink, refusal);
    const auth = options.authorize ? await authorized(ex.method, ex.headers, ex.url, ex.authorized) : undefined;
    if (auth && 'status' in auth) return failSink(ex.sink, auth);
    const body = await ex.readBody(guard.maxBodyBytes, guard.bodyTimeoutMs);
    if (typeof body === 'string') return failSink(ex.sink, asRefusal(guard.bodyRefusal(body)));
    const message = parse(body);
    const checked = checkMessage(message, ex.headers);
    if (isRefusal(checked)) return failSink(ex.sink, checked);
    if (auth) checked.auth = auth;
    transport.accept(message as JSONRPCMessage, ex.sink, checked);
  }

  async function safely(ex: Exchange, run: (ex: Exchange) => Promise<void> | void): Promise<void> {
    try {
      await run(ex);
    } catch (e) {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!ex.sink.started)
        failSink(ex.sink, refuse(500, null, new RpcError(ErrorCode.InternalError, 'Internal error')));
      else ex.sink.end();
    }
  }

  /** The `node:http` path: headers read in place, the body gathered from its events. */
  async function handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (afterClosingResponse(req) || corsNode(guard.cors, req, res)) return;
    const sink = new NodeSink(res);
    try {
      const headers = requestHeaders(req);
      const refusal = headRefusal(req.method ?? 'GET', headers, req.socket?.localPort);
      if (refusal) return failSink(sink, refusal);
      // (no await without a token check: a request goes on in the same tick)
      const auth = options.authorize
        ? await authorized(req.method ?? 'GET', headers, req.url, (req as WithAuthorized)[AUTHORIZED])
        : undefined;
      if (auth && 'status' in auth) return failSink(sink, auth);
      const handed = (req as WithParsed)[PARSED_MESSAGE];
      let message: unknown;
      if (handed !== undefined && req.readableEnded) message = handed;
      else {
        const body = await readNodeBody(req, guard.maxBodyBytes, guard.bodyTimeoutMs);
        if (typeof body === 'string') return failSink(sink, asRefusal(guard.bodyRefusal(body)));
        message = parse(body);
      }
      const checked = checkMessage(message, headers);
      if (isRefusal(checked)) return failSink(sink, checked);
      if (auth) checked.auth = auth;
      transport.accept(message as JSONRPCMessage, sink, checked);
    } catch (e) {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!sink.started) failSink(sink, refuse(500, null, new RpcError(ErrorCode.InternalError, 'Internal error')));
      else sink.end();
    }
  }

  const handler = handleNode as StatelessHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: (request: Request): Promise<Response> =>
        withCors(guard.cors, request, async (r) => {
          const { exchange, response } = fetchExchange(r);
          void safely(exchange, handle);
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

const PARSE_FAILED = Symbol('parse failed');
const EMPTY: Obj = {};
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
