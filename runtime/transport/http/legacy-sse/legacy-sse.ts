/**
 * The deprecated HTTP+SSE transport of protocol version 2024-11-05, kept for old peers
 * (2025-11-25 basic/transports, "Backwards Compatibility").
 *
 * Server: GET `ssePath` opens an SSE stream whose first event is `endpoint`, carrying
 * `<postPath>?sessionId=<id>`; the client POSTs each message there (202 Accepted; 404 unknown
 * session; 400 with -32700 for a body that is not JSON, -32600 for one that is not a JSON-RPC
 * message, an id that is not a string or an integer included (with the request's id when it can
 * be read, JSON-RPC 2.0 §5); 404 when the stream closed while
 * the body was arriving; 413 over `maxBodyBytes`; 408 a body not in within `bodyTimeoutMs`; 415
 * not `application/json`); server messages go out as `message` events on the stream. Closing the
 * stream ends the session. Host, Origin, method, Content-Type and Content-Length are checked
 * before the body as on the Streamable HTTP endpoint (../io/guard.ts: 403, 405, 415, 413).
 * A GET beyond `maxSessions` open streams gets 503 (every session holds a live stream, so none
 * is idle to evict).
 *
 * Client: {@link LegacySseClientTransport} opens the stream, waits for `endpoint`, POSTs there.
 * {@link FallbackHttpClientTransport} follows the spec's client procedure: POST `initialize`
 * to the URL as Streamable HTTP; on 400, 404 or 405 GET the same URL, and when the first event
 * is `endpoint` use the old transport for the rest of the connection.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeComment, encodeEvent, SseDecoderStream, type SseEvent } from '../../../codec/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { nodeExchange } from '../io/exchange.js';
import { HttpStatusError, type HttpReply, readBody } from '../io/request.js';
import { RequestGuard } from '../io/guard.js';
import { afterClosingResponse, refuseNode, requestPath, respondNode } from '../io/node.js';
import type { SessionInfo } from '../session/server.js';
import { postedMessage } from '../session/server-routing.js';
import { exactIds, serializeMessage } from '../../../jsonrpc/message.js';
import type {
  JSONRPCMessage,
  MessageInfo,
  SendOptions,
  Transport,
  TransportEvents,
} from '../../../jsonrpc/transport.js';
import { parsePeerJson } from '../../../codec/json-depth.js';

/** Options of {@link createLegacySseHandler}. */
export interface LegacySseOptions {
  /** Called once per GET stream, before `endpoint` is sent; attach the peer engine here. */
  onSession(transport: LegacySseServerTransport, info: SessionInfo): void | Promise<void>;
  /** Path of the SSE stream. Default `/sse`. */
  ssePath?: string;
  /** Path the client POSTs to. Default `/messages`. */
  postPath?: string;
  /** Largest POST body in bytes. Default 4 MiB; a Content-Length over it is refused before the body. */
  maxBodyBytes?: number;
  /** Longest time a POST body may take to arrive, ms (else 408 and the connection ends). Default 30 000. */
  bodyTimeoutMs?: number;
  /** Keep-alive comment interval, ms. Default 15000; 0 disables. */
  keepAliveMs?: number;
  /** As `StreamableHttpOptions.allowedHosts` of `@mcpgen/runtime/http`. */
  allowedHosts?: readonly string[] | false;
  /** As `StreamableHttpOptions.allowedOrigins` of `@mcpgen/runtime/http`. */
  allowedOrigins?: readonly string[] | false;
  /**
   * Most sessions (open streams) at once; a GET beyond it gets 503 with `Retry-After` and a
   * JSON-RPC error. `Infinity` turns the cap off. Default 10 000.
   */
  maxSessions?: number;
  sessionIdGenerator?: () => string;
  onError?(error: Error): void;
}

/** A `node:http` listener for both paths, with session control. */
export interface LegacySseHandler {
  /** Answers GET `ssePath` and POST `postPath`; anything else gets 404 (405 wrong method). */
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Whether `req` targets one of the two paths. */
  handles(req: IncomingMessage): boolean;
  readonly sessions: ReadonlyMap<string, LegacySseServerTransport>;
  close(): Promise<void>;
}

/** One old-transport session: its SSE stream and the messages POSTed for it. */
export class LegacySseServerTransport implements Transport {
  private events: TransportEvents | undefined;
  private closed = false;
  /** The negotiated version (from the `initialize` result); none before it. */
  private version: string | undefined;
  /** The id of the session's first `initialize` until it is answered; later ones change nothing. */
  private initId: unknown;
  private initSeen = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly sessionId: string,
    private readonly res: ServerResponse,
    private readonly signal: AbortSignal,
    private readonly onEnd: (t: LegacySseServerTransport) => void,
  ) {}

  /** False once the stream closed (the session ended). */
  get active(): boolean {
    return !this.closed && !this.res.writableEnded;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('LegacySseServerTransport already started');
    this.events = events;
  }

  async send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    if (this.closed || this.res.writableEnded) throw new Error('LegacySseServerTransport is closed');
    if (this.initId !== undefined && message.id === this.initId && !('method' in message)) {
      this.initId = undefined;
      const v = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (typeof v === 'string') this.version = v;
    }
    this.res.write(encodeEvent({ event: 'message', data: serializeMessage(message) }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    if (!this.res.writableEnded) this.res.end();
    this.onEnd(this);
    this.events?.onClose();
  }

  /** @internal Opens the stream and announces the POST endpoint. */
  open(endpoint: string, keepAliveMs: number): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    });
    this.res.write(encodeEvent({ event: 'endpoint', data: endpoint }));
    if (keepAliveMs > 0) {
      this.timer = setInterval(() => this.res.write(encodeComment()), keepAliveMs);
      this.timer.unref();
    }
    this.res.on('close', () => void this.close());
  }

  /** @internal One POSTed message. */
  receive(message: JSONRPCMessage, headers: MessageInfo['headers']): void {
    // the version is the one the engine answers the session's first initialize with (a repeated
    // initialize is refused by the engine and must not change it mid-session)
    if (message.method === 'initialize' && !this.initSeen && message.id !== undefined) {
      this.initSeen = true;
      this.initId = message.id;
    }
    this.events?.onMessage(message, {
      sessionId: this.sessionId,
      headers,
      signal: this.signal,
      protocolVersion: this.version,
    });
  }
}

/**
 * Creates the old-transport endpoint pair.
 * @example
 * const legacy = createLegacySseHandler({ onSession: (t) => engine.connect(t) });
 * http.createServer((req, res) => (legacy.handles(req) ? legacy(req, res) : modern(req, res)));
 */
export function createLegacySseHandler(options: LegacySseOptions): LegacySseHandler {
  const sessions = new Map<string, LegacySseServerTransport>();
  const ssePath = options.ssePath ?? '/sse';
  const postPath = options.postPath ?? '/messages';
  const makeId = options.sessionIdGenerator ?? randomUUID;
  const maxSessions = Math.max(1, options.maxSessions ?? 10_000);
  const report = (e: unknown): void => options.onError?.(e instanceof Error ? e : new Error(String(e)));
  const fail = (
    res: ServerResponse,
    status: number,
    code: number,
    message: string,
    extra?: Record<string, string>,
  ): void => refuseNode(res, { status, code, message, headers: extra });
  // the head checks of ../io/guard.ts, one endpoint per path (no Accept rules: 2024-11-05 has none)
  const streamGuard = new RequestGuard(options, { serves: (m) => m === 'GET', allow: 'GET', checkAccept: false });
  const postGuard = new RequestGuard(options, { serves: (m) => m === 'POST', allow: 'POST', checkAccept: false });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ex = nodeExchange(req, res);
    const h = ex.headers;
    const path = requestPath(req.url);
    if (path !== ssePath && path !== postPath) return fail(res, 404, ErrorCode.ServerError, 'Not Found');
    const guard = path === ssePath ? streamGuard : postGuard;
    const refused = guard.check(ex.method, h, ex.localPort);
    if (refused) return refuseNode(res, refused);

    if (path === ssePath) {
      if (sessions.size >= maxSessions)
        return fail(res, 503, ErrorCode.ServerError, `Service Unavailable: session limit (${maxSessions}) reached`, {
          'Retry-After': '5',
        });
      const id = makeId();
      const transport = new LegacySseServerTransport(id, res, ex.signal, (t) => {
        if (sessions.get(t.sessionId) === t) sessions.delete(t.sessionId);
      });
      sessions.set(id, transport);
      try {
        await options.onSession(transport, { sessionId: id, headers: h });
      } catch (e) {
        report(e);
        sessions.delete(id);
        return fail(res, 500, ErrorCode.InternalError, 'Internal error');
      }
      return transport.open(`${postPath}?sessionId=${encodeURIComponent(id)}`, options.keepAliveMs ?? 15000);
    }

    const sid = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId');
    if (!sid) return fail(res, 400, ErrorCode.ServerError, 'Bad Request: sessionId query parameter is required');
    const session = sessions.get(sid);
    if (!session) return fail(res, 404, ErrorCode.ServerError, 'Session not found');
    const body = await ex.readBody(guard.maxBodyBytes, guard.bodyTimeoutMs);
    if (typeof body === 'string') return refuseNode(res, guard.bodyRefusal(body));
    const posted = postedMessage(body, false);
    if (posted.status === 202) return respondNode(res, 202, { 'Content-Type': 'text/plain' }, 'Accepted');
    if (posted.status !== undefined) return respondNode(res, 400, { 'Content-Type': 'application/json' }, posted.body);
    // the stream may have closed while the body was arriving: nothing would answer on it
    if (!session.active) return fail(res, 404, ErrorCode.ServerError, 'Session not found');
    respondNode(res, 202, { 'Content-Type': 'text/plain' }, 'Accepted');
    session.receive(posted.message as JSONRPCMessage, h);
  }

  const handler = (async (req: IncomingMessage, res: ServerResponse) => {
    if (afterClosingResponse(req)) return;
    try {
      await handle(req, res);
    } catch (e) {
      report(e);
      fail(res, 500, ErrorCode.InternalError, 'Internal error');
    }
  }) as LegacySseHandler;
  Object.defineProperties(handler, {
    handles: {
      value: (req: IncomingMessage) => {
        const path = requestPath(req.url);
        return path === ssePath || path === postPath;
      },
    },
    sessions: { get: () => sessions },
    close: { value: async () => void (await Promise.all([...sessions.values()].map((s) => s.close()))) },
  });
  return handler;
}

/** Options of {@link LegacySseClientTransport}. */
export interface LegacySseClientOptions {
  /** The SSE endpoint (GET). */
  url: string | URL;
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Largest SSE event accepted, in characters. Default 16 MiB. */
  maxEventSize?: number;
}

/** The client side of the old transport. `start` resolves once `endpoint` arrived. */
export class LegacySseClientTransport implements Transport {
  private events: TransportEvents | undefined;
  private endpoint: URL | undefined;
  private readonly abort = new AbortController();
  private closed = false;
  private readonly fetchFn: typeof globalThis.fetch;

  constructor(private readonly opts: LegacySseClientOptions) {
    this.fetchFn = opts.fetch ?? globalThis.fetch;
  }

  /** The session id from the `endpoint` URL's `sessionId` parameter, if it has one. */
  get sessionId(): string | undefined {
    return this.endpoint?.searchParams.get('sessionId') ?? undefined;
  }

  /**
   * GETs the stream and waits for `endpoint`.
   * @throws HttpStatusError when the GET fails; Error when the stream is not SSE, ends before
   * `endpoint`, its first event is another one, or the endpoint is on another origin.
   */
  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('LegacySseClientTransport already started');
    this.events = events;
    const url = new URL(this.opts.url);
    const res = await this.fetchFn(url, {
      headers: { ...this.opts.headers, Accept: 'text/event-stream' },
      signal: this.abort.signal,
    });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      throw new HttpStatusError(res.status, text, 'GET (HTTP+SSE stream)');
    }
    if (!(res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
      await res.body.cancel().catch(() => undefined);
      throw new Error('GET (HTTP+SSE stream): the response is not text/event-stream');
    }
    const reader = res.body.pipeThrough(new SseDecoderStream({ maxEventSize: this.opts.maxEventSize })).getReader();
    try {
      const first = await reader.read();
      if (first.done) throw new Error('GET (HTTP+SSE stream): the stream ended before the endpoint event');
      if (first.value.event !== 'endpoint')
        throw new Error(`GET (HTTP+SSE stream): first event is ${JSON.stringify(first.value.event)}, not endpoint`);
      const endpoint = new URL(first.value.data, url);
      if (endpoint.origin !== url.origin)
        throw new Error(`GET (HTTP+SSE stream): endpoint origin ${endpoint.origin} differs from ${url.origin}`);
      this.endpoint = endpoint;
    } catch (e) {
      this.abort.abort();
      void reader.cancel().catch(() => undefined);
      throw e;
    }
    void this.read(reader);
  }

  /** Delivers the stream's `message` events after `endpoint` until it ends; `onClose` then. */
  private async read(reader: ReadableStreamDefaultReader<SseEvent>): Promise<void> {
    let error: Error | undefined;
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const e = next.value;
        if (e.event !== 'message') continue;
        try {
          const m = parsePeerJson(e.data) as JSONRPCMessage;
          exactIds(m, e.data);
          if (!this.closed) this.events?.onMessage(m);
        } catch {
          this.events?.onError?.(new Error(`SSE event is not JSON: ${e.data.slice(0, 80)}`));
        }
      }
    } catch (e) {
      if (!this.abort.signal.aborted) error = e instanceof Error ? e : new Error(String(e));
    }
    if (this.closed) return;
    this.closed = true;
    this.events?.onClose(error ?? new Error('HTTP+SSE stream ended'));
  }

  /** POSTs one message to the endpoint. @throws HttpStatusError unless 2xx. */
  async send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    if (this.closed || !this.endpoint)
      throw new Error(this.closed ? 'LegacySseClientTransport is closed' : 'LegacySseClientTransport not started');
    const res = await this.fetchFn(this.endpoint, {
      method: 'POST',
      headers: { ...this.opts.headers, 'Content-Type': 'application/json' },
      body: serializeMessage(message),
      signal: this.abort.signal,
    });
    // an error's body parsed when it is JSON, as ../io/request.ts reads one (it takes only `text()`
    // of the reply); a 2xx body read and dropped
    if (!res.ok)
      throw new HttpStatusError(
        res.status,
        await readBody(res as unknown as HttpReply),
        `POST ${String(message.method ?? 'response')}`,
      );
    await res.text().catch(() => '');
  }

  /** Closes the stream (which ends the session on the server); `onClose` fires once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.events?.onClose();
  }
}
