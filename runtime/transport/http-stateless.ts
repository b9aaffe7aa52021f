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
 *   415 Content-Type not `application/json`. 413 body over `maxBodyBytes`.
 * - 400 -32700 not JSON; 400 -32600 not one JSON-RPC request/notification (responses refused).
 * - 400 -32022 `initialize` (a legacy client): the error names the supported versions.
 * - 400 -32602 request without `_meta` protocol version or client capabilities.
 * - 400 -32020 HeaderMismatch: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or
 *   `Mcp-Param-*` missing, malformed or not matching the body (./http-headers.ts).
 * - 400 -32022 protocol version not in `supportedVersions` (`data.supported`, `data.requested`).
 * - 404 when the answer is -32601 (method not found); 400 for -32021 and -32022 answers.
 * - 202 notification; 200 JSON (`auto`: the response came first) or SSE.
 * `Mcp-Session-Id` and `Last-Event-ID` are ignored; no session id is minted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeComment, encodeEvent } from '../codec/sse.js';
import { ErrorCode, RpcError } from '../errors.js';
import { fetchExchange, nodeExchange, type Exchange, type ResponseSink } from './http-exchange.js';
import { checkRequestHeaders, paramHeaders, PROTOCOL_VERSION_META, type ParamHeader } from './http-headers.js';
import { accepts, hostAllowed, mediaType, originAllowed, shapeProblem } from './http-server.js';
import type { ReplyMode } from './http-session.js';
import type { JSONRPCMessage, MessageInfo, SendOptions, Transport, TransportEvents } from './types.js';

type Id = string | number;
type Obj = Record<string, unknown>;

/** Options of {@link createStatelessHttpHandler}. */
export interface StatelessHttpOptions {
  /** Protocol versions served. Default `['2026-07-28']`. */
  supportedVersions?: readonly string[];
  /** `'json'`, `'sse'`, or `'auto'` (default): JSON unless a related notification goes first. */
  replyMode?: ReplyMode;
  /** The `inputSchema` of a tool, for `Mcp-Param-*` validation (none: no custom headers checked). */
  toolSchema?: (name: string) => unknown;
  /** As in the 2025 handler: accepted Host values, `false` off; default loopback on this port. */
  allowedHosts?: readonly string[] | false;
  /** As in the 2025 handler: accepted Origin values, `false` off; default loopback origins. */
  allowedOrigins?: readonly string[] | false;
  /** Largest POST body, bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Keep-alive comment interval on open SSE responses, ms. Default 15000; 0 disables. */
  keepAliveMs?: number;
  onError?(error: Error): void;
}

/** The stateless endpoint: a `node:http` listener with a WHATWG form and the shared transport. */
export interface StatelessHttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  fetch(request: Request): Promise<Response>;
  /** Connect one ServerSession of a stateless revision to this: `server.connect(handler.transport)`. */
  readonly transport: StatelessHttpServerTransport;
  /** Ends every open response stream and closes the transport. */
  close(): Promise<void>;
}

/** HTTP status of a JSON-RPC error answer (draft streamable-http, Backward Compatibility). */
export function statusOfError(code: unknown): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (code === ErrorCode.HeaderMismatch || code === ErrorCode.UnsupportedProtocolVersion || code === ErrorCode.MissingRequiredClientCapability) return 400;
  return 200;
}

function errorJson(id: Id | null, e: RpcError): string {
  const error: Obj = { code: e.code, message: e.message };
  if (e.data !== undefined) error.data = e.data;
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

interface Stream {
  sink: ResponseSink;
  clientId: Id;
  mode: ReplyMode;
  sse: boolean;
  done: boolean;
  abort: AbortController;
  timer?: ReturnType<typeof setInterval>;
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/**
 * The one {@link Transport} behind a stateless endpoint. Messages the engine sends with
 * `relatedRequestId` (or responses) go to that request's POST; anything else has no stream in
 * this revision and is dropped. Server→client requests reject (MRTR carries them instead).
 */
export class StatelessHttpServerTransport implements Transport {
  #events: TransportEvents | undefined;
  readonly #streams = new Map<string, Stream>();
  #next = 0;
  #closed = false;
  constructor(private readonly settings: { replyMode: ReplyMode; keepAliveMs: number }) {}

  async start(events: TransportEvents): Promise<void> {
    this.#events = events;
  }

  /** Requests awaiting their response (listen streams included). */
  get inFlight(): number {
    return this.#streams.size;
  }

  /** Hands one validated request or notification to the engine; the request's answer goes to `sink`. */
  accept(message: JSONRPCMessage, sink: ResponseSink, info: MessageInfo): void {
    if (!this.#events || this.#closed) {
      sink.respond(503, { 'Content-Type': 'application/json' }, errorJson((message.id as Id) ?? null, new RpcError(ErrorCode.InternalError, 'server not connected')));
      return;
    }
    if (message.id === undefined) {
      sink.respond(202, {});
      this.#events.onMessage(message, info);
      return;
    }
    const inner = `h${++this.#next}`;
    const s: Stream = { sink, clientId: message.id as Id, mode: this.settings.replyMode, sse: false, done: false, abort: new AbortController() };
    this.#streams.set(inner, s);
    sink.onClose(() => {
      if (s.done) return;
      this.#finish(inner, s);
      s.abort.abort(new Error('response stream closed by the client'));
    });
    if (s.mode === 'sse') this.#open(s);
    this.#events.onMessage({ ...message, id: inner }, { ...info, signal: s.abort.signal });
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    const isResponse = !('method' in message);
    if (!isResponse && message.id !== undefined) {
      return Promise.reject(new RpcError(ErrorCode.MethodNotFound, `${String(message.method)}: servers send no requests over stateless Streamable HTTP (use input_required)`));
    }
    const inner = String(isResponse ? message.id : (options?.relatedRequestId ?? ''));
    const s = this.#streams.get(inner);
    if (!s || s.done) return Promise.resolve();
    const out = restore(message, inner, s.clientId, isResponse);
    if (!isResponse) {
      this.#open(s);
      s.sink.write(encodeEvent({ data: JSON.stringify(out) }));
      return Promise.resolve();
    }
    this.#finish(inner, s);
    if (s.sse) {
      s.sink.write(encodeEvent({ data: JSON.stringify(out) }));
      s.sink.end();
    } else {
      const status = 'error' in out ? statusOfError((out.error as Obj | undefined)?.code) : 200;
      s.sink.respond(status, { 'Content-Type': 'application/json' }, JSON.stringify(out));
    }
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const [inner, s] of this.#streams) {
      this.#finish(inner, s);
      s.sink.end();
    }
    this.#events?.onClose();
  }

  #open(s: Stream): void {
    if (s.sse) return;
    s.sse = true;
    s.sink.open(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    if (this.settings.keepAliveMs > 0) {
      s.timer = setInterval(() => s.sink.write(encodeComment()), this.settings.keepAliveMs);
      s.timer.unref?.();
    }
  }

  #finish(inner: string, s: Stream): void {
    s.done = true;
    if (s.timer) clearInterval(s.timer);
    this.#streams.delete(inner);
  }
}

/** Puts the client's id back where the engine wrote the inner one. */
function restore(message: JSONRPCMessage, inner: string, clientId: Id, isResponse: boolean): JSONRPCMessage {
  const fix = (o: unknown): unknown => {
    if (typeof o !== 'object' || o === null) return o;
    const x = { ...(o as Obj) };
    const meta = x._meta as Obj | undefined;
    if (meta?.[SUBSCRIPTION_ID] === inner) x._meta = { ...meta, [SUBSCRIPTION_ID]: clientId };
    if (!isResponse && x.requestId === inner) x.requestId = clientId;
    return x;
  };
  if (isResponse) return { ...message, id: clientId, ...('result' in message ? { result: fix(message.result) } : {}) } as JSONRPCMessage;
  return 'params' in message ? ({ ...message, params: fix(message.params) } as JSONRPCMessage) : message;
}

/**
 * Creates the stateless endpoint.
 * @example
 * const handler = createStatelessHttpHandler({ toolSchema: (n) => features.inputSchema(n) });
 * await server.connect(handler.transport);
 * http.createServer(handler).listen(3000, '127.0.0.1');
 */
export function createStatelessHttpHandler(options: StatelessHttpOptions = {}): StatelessHttpHandler {
  const versions = options.supportedVersions ?? ['2026-07-28'];
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const transport = new StatelessHttpServerTransport({ replyMode: options.replyMode ?? 'auto', keepAliveMs: options.keepAliveMs ?? 15000 });
  const schemas = new WeakMap<object, ParamHeader[] | Error>();
  const json = { 'Content-Type': 'application/json' };
  const fail = (ex: Exchange, status: number, id: Id | null, e: RpcError, extra: Record<string, string> = {}): void =>
    ex.sink.respond(status, { ...json, ...extra }, errorJson(id, e));

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

  async function handle(ex: Exchange): Promise<void> {
    const h = ex.headers;
    if (!hostAllowed(h.host, ex.localPort, options.allowedHosts)) return fail(ex, 403, null, new RpcError(-32000, 'Forbidden: Host not allowed'));
    if (h.origin !== undefined && !originAllowed(h.origin, options.allowedOrigins)) return fail(ex, 403, null, new RpcError(-32000, 'Forbidden: Origin not allowed'));
    const method = ex.method.toUpperCase();
    if (method !== 'POST') return fail(ex, 405, null, new RpcError(-32000, `Method not allowed: ${method} (this endpoint takes POST only)`), { Allow: 'POST' });
    if (!(accepts(h.accept, 'application/json') && accepts(h.accept, 'text/event-stream'))) {
      return fail(ex, 406, null, new RpcError(-32000, 'Not Acceptable: Accept must list application/json and text/event-stream'));
    }
    if (mediaType(h['content-type']) !== 'application/json') return fail(ex, 415, null, new RpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json'));
    const body = await ex.readBody(maxBody);
    if (body === 'too-large') return fail(ex, 413, null, new RpcError(-32000, `Payload Too Large: body exceeds ${maxBody} bytes`), { Connection: 'close' });
    let message: unknown;
    try {
      message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    } catch {
      return fail(ex, 400, null, new RpcError(ErrorCode.ParseError, 'Parse error: body is not JSON'));
    }
    serveMessage(ex, message);
  }

  /** The checks after the body was parsed, then delivery. */
  function serveMessage(ex: Exchange, message: unknown): void {
    const problem = shapeProblem(message) ?? ((message as Obj).method === undefined ? 'clients send no responses' : undefined);
    if (problem) return fail(ex, 400, null, new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${problem}`));
    const msg = message as JSONRPCMessage;
    const id = (msg.id as Id | undefined) ?? null;
    const info: MessageInfo = { headers: ex.headers, signal: ex.signal };
    // (an initialize carrying the modern `_meta` is just an unknown method: 404 -32601)
    if (id !== null && msg.method === 'initialize' && typeof ((msg.params as Obj | undefined)?._meta as Obj | undefined)?.[PROTOCOL_VERSION_META] !== 'string') {
      // versioning, Backward Compatibility: name the supported versions to a legacy client
      const requested = (msg.params as Obj | undefined)?.protocolVersion;
      return fail(ex, 400, id, new RpcError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: this endpoint serves ${versions.join(', ')} (no initialize)`, { supported: [...versions], requested }));
    }
    if (id !== null) {
      const params = (msg.params ?? {}) as Obj;
      const meta = params._meta as Obj | undefined;
      const version = meta?.[PROTOCOL_VERSION_META];
      if (typeof version !== 'string') return fail(ex, 400, id, new RpcError(ErrorCode.InvalidParams, `missing _meta["${PROTOCOL_VERSION_META}"]`));
      if (typeof meta?.['io.modelcontextprotocol/clientCapabilities'] !== 'object' || meta['io.modelcontextprotocol/clientCapabilities'] === null) {
        return fail(ex, 400, id, new RpcError(ErrorCode.InvalidParams, 'missing _meta["io.modelcontextprotocol/clientCapabilities"]'));
      }
      const tool = msg.method === 'tools/call' ? toolHeaders(params.name) : undefined;
      const mismatch = checkRequestHeaders(msg, ex.headers, tool);
      if (mismatch) return fail(ex, 400, id, mismatch);
      if (!versions.includes(version)) {
        return fail(ex, 400, id, new RpcError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', { supported: [...versions], requested: version }));
      }
      info.protocolVersion = version;
    }
    transport.accept(msg, ex.sink, info);
  }

  async function safely(ex: Exchange, run: (ex: Exchange) => Promise<void> | void): Promise<void> {
    try {
      await run(ex);
    } catch (e) {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!ex.sink.started) fail(ex, 500, null, new RpcError(ErrorCode.InternalError, 'Internal error'));
      else ex.sink.end();
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => safely(nodeExchange(req, res), handle)) as StatelessHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: async (request: Request): Promise<Response> => {
        const { exchange, response } = fetchExchange(request);
        void safely(exchange, handle);
        return response;
      },
    },
    transport: { value: transport },
    close: { value: () => transport.close() },
  });
  return handler;
}
