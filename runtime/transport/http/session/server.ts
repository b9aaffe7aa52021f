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
 *   refused, 2025-11-25 takes a single message); `initialize` carrying `Mcp-Session-Id`;
 *   any other request without `Mcp-Session-Id`; a request id already in flight on the session.
 * - 413 body over `maxBodyBytes`. 400 with -32700 for a body that is not JSON.
 * - 404 `Mcp-Session-Id` unknown or ended.
 * A GET ends the connection its stream had before (one connection per stream).
 * - 202 POST of notifications/responses; 200 JSON or SSE for requests; 204 DELETE.
 * Error bodies are JSON-RPC error responses with `id: null`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MemoryEventStore, type EventStore } from './event-store.js';
import { fetchExchange, nodeExchange, type Exchange, type HeaderMap } from '../io/exchange.js';
import { errorBody, HttpServerSession, type ReplyMode, type SessionSettings } from './session.js';
import type { JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';

import type { ProtocolTable } from '../../../protocol/table.js';
import { httpVersionFacts } from '../../../protocol/versions.js';
export { HttpServerSession, type ReplyMode } from './session.js';
export { MemoryEventStore, type EventStore, type MemoryEventStoreOptions } from './event-store.js';

/** Facts about a new session, passed to {@link StreamableHttpOptions.onSession}. */
export interface SessionInfo {
  sessionId: string;
  /** Headers of the POST that carried `initialize` (lower-case names). */
  headers: Readonly<Record<string, string | undefined>>;
}

/** Options of {@link createStreamableHttpHandler}. */
export interface StreamableHttpOptions {
  /**
   * Called once per new session, before its `initialize` request is delivered; attach the peer
   * engine here (it calls `transport.start(events)`). A throw answers the POST with 500.
   * Inbound messages then carry `MessageInfo` with `sessionId`, `headers` (lower-case),
   * `protocolVersion`, and for requests a `signal` described at
   * {@link HttpServerSession.acceptPost}.
   */
  onSession(transport: HttpServerSession, info: SessionInfo): void | Promise<void>;
  /**
   * How requests are answered: `'json'` one `application/json` body; `'sse'` an event stream
   * opened at once (primed, so resumable from the start); `'auto'` (default) JSON when the
   * response is the first message for the request, SSE as soon as a related notification or
   * request goes first.
   */
  replyMode?: ReplyMode;
  /** Offer the GET standalone stream for server-initiated messages. Default true (else 405). */
  standaloneStream?: boolean;
  /** Let clients end sessions with DELETE. Default true (else 405). */
  allowDelete?: boolean;
  /**
   * The generated tables of the revisions this endpoint serves (a server's table and its
   * `fallbackTables`): they give the accepted `MCP-Protocol-Version` values, the version assumed
   * for a request that names none (`table.http.assumedVersion`) and which versions get a
   * priming event on their SSE streams (`table.http.primesStreams`). One of `tables` and
   * `supportedProtocolVersions` is required (a TypeError otherwise).
   */
  tables?: readonly ProtocolTable[];
  /** Accepted `MCP-Protocol-Version` values, instead of those of `tables`. */
  supportedProtocolVersions?: readonly string[];
  /** Largest POST body in bytes. Default 4 MiB (4 194 304). */
  maxBodyBytes?: number;
  /**
   * Event storage per session for resumable streams; `false` turns resumability off (no event
   * IDs, no priming, `Last-Event-ID` ignored). Default: a {@link MemoryEventStore} per session.
   */
  eventStore?: false | ((sessionId: string) => EventStore);
  /** SSE `retry` in milliseconds, sent in priming events and before a server-side disconnect. */
  retryMs?: number;
  /** Keep-alive comment interval on open SSE connections, ms. Default 15000; 0 disables. */
  keepAliveMs?: number;
  /**
   * Standalone-stream messages kept for a GET without `Last-Event-ID` (oldest dropped first).
   * With an event store: those sent since the client last resumed, since a client that holds
   * no cursor has received none of them; without: those sent while no GET was connected.
   * Default 100.
   */
  maxBacklog?: number;
  /**
   * Accepted `Host` values: `'name'` (any port) or `'name:port'`, case-insensitive. `false`
   * turns the check off. Default: `localhost`, `127.0.0.1` and `[::1]` on the port the request
   * arrived on.
   */
  allowedHosts?: readonly string[] | false;
  /**
   * Accepted `Origin` values (`scheme://host[:port]`), checked only when the header is present.
   * `false` turns the check off. Default: http(s) origins on `localhost`, `127.0.0.1`, `[::1]`.
   */
  allowedOrigins?: readonly string[] | false;
  /** Makes session ids; each must be visible ASCII (0x21–0x7E). Default `crypto.randomUUID`. */
  sessionIdGenerator?: () => string;
  /** Problems that have no HTTP answer (a failed `onSession`, a bad session id). */
  onError?(error: Error): void;
}

/** The endpoint: a `node:http` request listener with a WHATWG form and session control. */
export interface StreamableHttpHandler {
  /**
   * `node:http` listener: `http.createServer(handler)`. Never rejects. Also works behind a
   * body-parsing middleware: a `req.body` already read (object, string or bytes) is used.
   */
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** WHATWG form: `Request` → `Response` (SSE bodies stream). Never rejects. */
  fetch(request: Request): Promise<Response>;
  /** Live sessions by id. */
  readonly sessions: ReadonlyMap<string, HttpServerSession>;
  /** Ends every session; a request still awaiting its response gets -32000 "server shutting down". */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** Decodes request bodies; stateless, so one serves all (fatal: bad UTF-8 is a parse error). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A bounded cache of verdicts by header value (emptied when full). */
class Memo<T> extends Map<string, T> {
  override set(key: string, value: T): this {
    if (this.size >= 256) this.clear();
    return super.set(key, value);
  }
}

/**
 * Creates the Streamable HTTP endpoint.
 * @example
 * const handler = createStreamableHttpHandler({ tables: [table, ...olderTables], onSession: (t) => engine.connect(t) });
 * http.createServer(handler).listen(3000, '127.0.0.1');
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  const sessions = new Map<string, HttpServerSession>();
  if (!options.tables && !options.supportedProtocolVersions) throw new TypeError('createStreamableHttpHandler: options.tables (the generated tables served) or options.supportedProtocolVersions is required');
  const facts = httpVersionFacts(options.tables ?? []);
  const versions = options.supportedProtocolVersions ?? facts.versions;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const standalone = options.standaloneStream ?? true;
  const allowDelete = options.allowDelete ?? true;
  const storeFor = options.eventStore === false ? undefined : (options.eventStore ?? (() => new MemoryEventStore()));
  const makeId = options.sessionIdGenerator ?? randomUUID;
  const allow = ['GET', 'POST', ...(allowDelete ? ['DELETE'] : [])].join(', ');

  const fail = (ex: Exchange, status: number, code: number, message: string, extra: HeaderMap = {}): void => {
    ex.sink.respond(status, { 'Content-Type': 'application/json', ...extra }, errorBody(code, message));
  };

  // Verdicts on header values a client repeats on every request, remembered (bounded).
  // Host verdicts hold for one local port (the one of the last request).
  const hostOk = new Memo<boolean>();
  let hostPort: number | undefined;
  const originOk = new Memo<boolean>();
  const acceptOk = new Memo<number>();

  async function handle(ex: Exchange): Promise<void> {
    const h = ex.headers;
    const host = h.host ?? '';
    if (ex.localPort !== hostPort) {
      hostOk.clear();
      hostPort = ex.localPort;
    }
    let hostVerdict = hostOk.get(host);
    if (hostVerdict === undefined) hostOk.set(host, (hostVerdict = hostAllowed(h.host, ex.localPort, options.allowedHosts)));
    if (!hostVerdict) return fail(ex, 403, -32000, 'Forbidden: Host not allowed');
    const origin = h.origin;
    if (origin !== undefined) {
      let originVerdict = originOk.get(origin);
      if (originVerdict === undefined) originOk.set(origin, (originVerdict = originAllowed(origin, options.allowedOrigins)));
      if (!originVerdict) return fail(ex, 403, -32000, 'Forbidden: Origin not allowed');
    }
    const method = ex.method === 'POST' || ex.method === 'GET' ? ex.method : ex.method.toUpperCase();
    const resuming = method === 'GET' && h['last-event-id'] !== undefined && storeFor !== undefined;
    if (
      (method !== 'POST' && method !== 'GET' && method !== 'DELETE') ||
      (method === 'GET' && !standalone && !resuming) ||
      (method === 'DELETE' && !allowDelete)
    ) {
      return fail(ex, 405, -32000, `Method not allowed: ${method}`, { Allow: allow });
    }
    const accept = h.accept ?? '';
    let accepted = acceptOk.get(accept);
    if (accepted === undefined) {
      accepted = (accepts(accept, 'application/json') ? 1 : 0) | (accepts(accept, 'text/event-stream') ? 2 : 0);
      acceptOk.set(accept, accepted);
    }
    if (method === 'POST' && accepted !== 3) {
      return fail(ex, 406, -32000, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    if (method === 'GET' && !(accepted & 2)) {
      return fail(ex, 406, -32000, 'Not Acceptable: Accept must list text/event-stream');
    }
    const contentType = h['content-type'];
    if (method === 'POST' && contentType !== 'application/json' && mediaType(contentType) !== 'application/json') {
      return fail(ex, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const version = h['mcp-protocol-version'];
    if (version !== undefined && !versions.includes(version)) {
      return fail(ex, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${versions.join(', ')})`);
    }
    const sid = h['mcp-session-id'];
    const session = sid === undefined ? undefined : sessions.get(sid);
    if (sid !== undefined && !session) return fail(ex, 404, -32000, 'Session not found');
    const sessionHeaders: HeaderMap = session ? { 'Mcp-Session-Id': session.sessionId } : {};
    const effective = version ?? session?.protocolVersion ?? facts.assumed;

    if (method !== 'POST') {
      if (!session) return fail(ex, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (method === 'DELETE') {
        await session.close();
        return ex.sink.respond(204, {});
      }
      return session.acceptGet(ex.sink, sessionHeaders, effective, resuming ? h['last-event-id'] : undefined);
    }

    const body = await ex.readBody(maxBody);
    if (body === 'too-large') return fail(ex, 413, -32000, `Payload Too Large: body exceeds ${maxBody} bytes`, { Connection: 'close' });
    let message: unknown;
    try {
      message = JSON.parse(utf8.decode(body));
    } catch {
      return fail(ex, 400, -32700, 'Parse error: body is not JSON');
    }
    const problem = shapeProblem(message);
    if (problem) return fail(ex, 400, -32600, `Invalid Request: ${problem}`);
    const msg = message as JSONRPCMessage;
    const info: MessageInfo = { headers: h };
    // a request gets the signal of its stream from the session; the others that of the exchange
    if (msg.method === undefined || msg.id === undefined) info.signal = ex.signal;

    if (msg.method === 'initialize' && 'id' in msg) {
      if (sid !== undefined) return fail(ex, 400, -32600, 'Bad Request: initialize must not carry Mcp-Session-Id');
      const params = msg.params as { protocolVersion?: unknown } | undefined;
      const newId = makeId();
      if (!VISIBLE_ASCII.test(newId) || sessions.has(newId)) {
        options.onError?.(new Error(`sessionIdGenerator returned an unusable id ${JSON.stringify(newId)}`));
        return fail(ex, 500, -32603, 'Internal error');
      }
      const fresh = new HttpServerSession(newId, settingsFor(newId), (s) => {
        if (sessions.get(s.sessionId) === s) sessions.delete(s.sessionId);
      });
      sessions.set(newId, fresh);
      try {
        await options.onSession(fresh, { sessionId: newId, headers: h });
      } catch (e) {
        options.onError?.(e instanceof Error ? e : new Error(String(e)));
        await fresh.close();
        return fail(ex, 500, -32603, 'Internal error');
      }
      info.sessionId = newId;
      info.protocolVersion = version ?? (typeof params?.protocolVersion === 'string' ? params.protocolVersion : effective);
      return fresh.acceptPost(msg, info, ex.sink, { 'Mcp-Session-Id': newId });
    }
    if (!session) return fail(ex, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    info.sessionId = session.sessionId;
    info.protocolVersion = effective;
    session.acceptPost(msg, info, ex.sink, sessionHeaders);
  }

  function settingsFor(sessionId: string): SessionSettings {
    return {
      replyMode: options.replyMode ?? 'auto',
      eventStore: storeFor?.(sessionId),
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs ?? 15000,
      maxBacklog: options.maxBacklog ?? 100,
      assumedVersion: facts.assumed,
      priming: facts.priming,
    };
  }

  async function safely(ex: Exchange): Promise<void> {
    try {
      await handle(ex);
    } catch (e) {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!ex.sink.started) fail(ex, 500, -32603, 'Internal error');
      else ex.sink.end();
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => safely(nodeExchange(req, res))) as StreamableHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: async (request: Request): Promise<Response> => {
        const { exchange, response } = fetchExchange(request);
        void safely(exchange);
        return response;
      },
    },
    sessions: { get: () => sessions },
    close: {
      value: async (): Promise<void> => {
        await Promise.all([...sessions.values()].map((s) => s.close('server shutting down')));
      },
    },
  });
  return handler;
}

/** Whether an Accept header lists `type` with a non-zero quality. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [range, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (range !== type) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0].trim().toLowerCase();
}

/** Splits `host[:port]` (IPv6 in brackets) into a lower-case name and a port. */
function splitHost(host: string): { name: string; port?: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return m ? { name: m[1], port: m[2] } : { name: host.toLowerCase() };
}

export function hostAllowed(host: string | undefined, localPort: number | undefined, allowed: readonly string[] | false | undefined): boolean {
  if (allowed === false) return true;
  if (!host) return false;
  const { name, port } = splitHost(host);
  if (allowed === undefined) {
    if (!LOOPBACK.has(name)) return false;
    return localPort === undefined || port === undefined || Number(port) === localPort;
  }
  return allowed.some((entry) => {
    const e = splitHost(entry);
    return e.name === name && (e.port === undefined || e.port === port);
  });
}

export function originAllowed(origin: string, allowed: readonly string[] | false | undefined): boolean {
  if (allowed === false) return true;
  if (allowed !== undefined) return allowed.some((o) => o.toLowerCase() === origin.toLowerCase());
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK.has(u.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** Why `m` is not one JSON-RPC 2.0 request, notification or response (undefined if it is). */
export function shapeProblem(m: unknown): string | undefined {
  if (Array.isArray(m)) return 'batches are not accepted; send one message per POST';
  if (typeof m !== 'object' || m === null) return 'body must be a JSON object';
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  const idOk = typeof o.id === 'string' || (typeof o.id === 'number' && Number.isFinite(o.id));
  if ('method' in o) {
    if (typeof o.method !== 'string') return 'method must be a string';
    if ('id' in o && !idOk) return 'id must be a string or a number';
    if ('params' in o && (typeof o.params !== 'object' || o.params === null)) return 'params must be an object or array';
    return undefined;
  }
  if ('result' in o || 'error' in o) {
    if ('result' in o && 'error' in o) return 'a response has either result or error';
    if (!idOk && o.id !== null) return 'response id must be a string, a number or null';
    return undefined;
  }
  return 'not a request, notification or response';
}
