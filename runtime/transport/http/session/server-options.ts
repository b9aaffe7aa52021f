/**
 * What the Streamable HTTP endpoint (./server.ts) is configured with and what it returns: its
 * options, the facts a new session is created with, the stores a shared deployment's processes
 * have in common, and the handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorizer } from '../../../auth/types.js';
import type { ProtocolTable } from '../../../protocol/table.js';
import type { NotificationBus } from '../../../stores/bus.js';
import type { SessionRecord, SessionStore } from '../../../stores/sessions.js';
import type { CorsOptions } from '../io/cors.js';
import type { RequestGuard } from '../io/guard.js';
import type { EventStore } from './event-store.js';
import type { SessionRegistry } from './registry.js';
import type { HttpServerSession, ReplyMode } from './session.js';

/** Facts about a new session, passed to {@link StreamableHttpOptions.onSession}. */
export interface SessionInfo {
  sessionId: string;
  /** Headers of the POST that carried `initialize` (lower-case names), or of the request that restored it. */
  headers: Readonly<Record<string, string | undefined>>;
  /**
   * Shared deployments: the session was initialized by another process and is continued here.
   * The server attaches as for a new session, then adopts this outcome of the handshake
   * (`ServerSession.adoptHandshake`); no `initialize` follows.
   */
  restored?: SessionRecord;
}

/**
 * What the processes of one deployment share (see ../../../stores/): with it, a session
 * initialized on one process is continued on any other (requests, the standalone GET, and
 * `Last-Event-ID` resumption of streams begun elsewhere, when `eventStore` returns a
 * `SharedEventStore`), and a client's answer to a server → client request reaches the process
 * awaiting it, wherever it was POSTed.
 */
export interface SharedSessions {
  /** Session records: a request whose `Mcp-Session-Id` it does not know gets 404; one it cannot reach, 503. */
  sessions: SessionStore;
  /** Carries responses, the client's `notifications/progress` and `notifications/cancelled`, and session ends between the processes. */
  bus: NotificationBus;
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
  /** Largest POST body in bytes. Default 4 MiB (4 194 304); a Content-Length over it is refused before the body. */
  maxBodyBytes?: number;
  /** Longest time a POST body may take to arrive, ms (else 408 and the connection ends). Default 30 000. */
  bodyTimeoutMs?: number;
  /**
   * Event storage for resumable streams, by session id: a store per session, or one shared by
   * all (every call names its session, and a replay never crosses sessions or streams).
   * `false` turns resumability off (no event IDs, no priming, `Last-Event-ID` ignored).
   * Default: one {@link MemoryEventStore} shared by the endpoint's sessions, with its default
   * bounds (64 MiB in all, 4 MiB per session, events replayable for 5 minutes).
   */
  eventStore?: false | ((sessionId: string) => EventStore);
  /**
   * Request replay (./session-replay.ts): advertise `capabilities.experimental
   * ["mcpgen/requestReplay"]`, claim each request in the event store before dispatching it
   * (answered as a primed SSE stream), and answer a re-sent identical request from its stream
   * instead of running it again, so that a client cut after writing a request but before any
   * event ID came back learns its outcome. Identical means the same session, the same id and the
   * same `JSON.stringify` of the parsed message (its SHA-256 is kept): key order counts,
   * whitespace and escapes do not; other content under a claimed id gets 400 "already in use".
   * Only in sessions whose protocol version primes its streams (2025-11-25): elsewhere
   * (2025-03-26 and its JSON-RPC batches, 2025-06-18) nothing is claimed or advertised, and a
   * re-send runs again. Needs an event store with `claimRequest` (the memory
   * and Redis stores); otherwise off. Default false. With `replyMode: 'json'` it is a TypeError
   * (every request of a replaying session is answered as SSE).
   */
  requestReplay?: boolean;
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
  /** CORS for browser apps on other origins (../io/cors.ts): preflight, allowed and exposed headers. Default: off. */
  cors?: CorsOptions;
  /**
   * A session that stays idle this long, ms, ends: later requests carrying its id get 404
   * (2025-11-25 basic/transports, Session Management 3) and the client starts a new one. Idle
   * means no request awaiting its response or with its body still arriving, no open stream
   * connection (a connected GET keeps a session alive) and no send queued; idle time counts from the last POST or GET,
   * response, or closed connection. Checked on every request to the session and by one sweep
   * (an unref'd timer, every quarter of this, at most every minute). 0 turns expiry off.
   * Default 1 800 000 (30 minutes).
   */
  sessionIdleMs?: number;
  /**
   * Most sessions at once. An `initialize` beyond it evicts the least recently used idle
   * session (ended as on expiry: its id then gets 404), so a flood of sessions cannot lock new
   * clients out; when every session is busy it is refused with 503 and `Retry-After`, so work
   * under way is never cut. `Infinity` turns the cap off. Default 10 000.
   */
  maxSessions?: number;
  /** Where sessions are kept. Default: a {@link MemorySessionRegistry}. */
  sessionRegistry?: SessionRegistry<HttpServerSession>;
  /**
   * Several processes behind one load balancer: the stores they share. Then the
   * `sessionRegistry` is this process's cache of live session objects (its idle expiry and cap
   * drop only the local object: the session goes on while its record lives), and the
   * `SessionStore`'s own idle expiry and cap decide when a session ends for every process (404
   * from then on): this endpoint marks its busy sessions there (`markBusy`), so the cap
   * evicts an idle session of any process, or refuses `initialize` with 503 and `Retry-After`. Default: none (one process; sessions live in memory).
   */
  shared?: SharedSessions;
  /**
   * Whether a session that negotiated `protocolVersion` takes JSON-RPC batches (one JSON array
   * per POST, answered as the 2025-03-26 transport page says: 202 for notifications and
   * responses only, else one JSON array or one SSE stream of the responses). Derive it from the
   * revisions' tables (`table.batches`, see `batchProtocolVersions` in ../../../protocol/table.ts). Default: no
   * batches (400 with -32600).
   */
  acceptsBatches?: (protocolVersion: string) => boolean;
  /** Makes session ids; each must be visible ASCII (0x21–0x7E). Default `crypto.randomUUID`. */
  sessionIdGenerator?: () => string;
  /**
   * The token check of a protected endpoint (../../../auth/resource.ts `bearerAuth`), run on
   * every request after the head checks above and before the body is read: a refusal (401 /
   * 403 with `WWW-Authenticate`) is answered at once; an accepted request's principal is
   * `MessageInfo.auth` (handlers: `ctx.auth`). A session belongs to the principal
   * (../../../auth/principal.ts `principalId`: issuer and subject, else client) that
   * initialized it, recorded as the `owner` of its shared record too, so that every process
   * knows it; a restored record without an owner is refused. Requests of another principal carrying
   * its id get 404, as for an unknown session. Default: none (no token is asked for).
   */
  authorize?: Authorizer;
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
  /** Live sessions by id, least recently used first. */
  readonly sessions: ReadonlyMap<string, HttpServerSession>;
  /** The head checks this endpoint runs before it reads a body (a front that routes by body runs them first). */
  readonly guard: RequestGuard;
  /** The token check of {@link StreamableHttpOptions.authorize}, when set (a front runs it before the body too). */
  readonly authorize?: Authorizer;
  /** Ends every session; a request still awaiting its response gets -32000 "server shutting down". */
  close(): Promise<void>;
}
