// size: createStreamableHttpHandler around its closed-over state; split into routing and adoption pending (#36)
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
 *   any other request without `Mcp-Session-Id`; a request id already in flight on the session.
 * - 413 Content-Length over `maxBodyBytes` (the checks so far are those of ../io/guard.ts, all
 *   before the body is read); later a body that goes over it; 408 a body not in within
 *   `bodyTimeoutMs`. A refusal sent before the body ends the connection once delivered
 *   (../io/node.ts, respondNode). 400 with -32700 for a body that is not JSON.
 * - 404 `Mcp-Session-Id` unknown, ended or expired (idle longer than `sessionIdleMs`).
 * - 503 `initialize` when `maxSessions` sessions exist and none of them is idle (with
 *   `Retry-After`); an idle one is evicted instead when there is one (see `maxSessions`). With
 *   `shared` stores, the same for the deployment's cap (`SessionStore.makeRoom`).
 * A GET ends the connection its stream had before (one connection per stream).
 * - 202 POST of notifications/responses; 200 JSON or SSE for requests; 204 DELETE.
 * Error bodies are JSON-RPC error responses with no `id` (none was read).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MemoryEventStore, type EventStore } from './event-store.js';
import { fetchExchange, nodeExchange, type Exchange, type HeaderMap } from '../io/exchange.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { corsNode, withCors, type CorsOptions } from '../io/cors.js';
import { afterClosingResponse } from '../io/node.js';
import { refusalBody, refusalHeaders, RequestGuard } from '../io/guard.js';
import type { Authorizer } from '../../../auth/types.js';
import { authorizedBy } from '../io/types.js';
import { principalId } from '../../../auth/principal.js';
import type { AuthInfo } from '../../../jsonrpc/transport.js';
import { errorBody, HttpServerSession, type ReplyMode, type SessionSettings } from './session.js';
import { errorResponse, exactIds, isRequestId } from '../../../jsonrpc/message.js';
import { MemorySessionRegistry, type SessionRegistry } from './registry.js';
import type { JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';

import { type ProtocolTable, refuseOtherEra } from '../../../protocol/table.js';
import { SessionLimitError, type SessionRecord, type SessionStore } from '../../../stores/sessions.js';
import type { BusMessage, NotificationBus } from '../../../stores/bus.js';
import { httpVersionFacts } from '../../../protocol/versions.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export { HttpServerSession, type ReplyMode } from './session.js';
export { MemoryEventStore, type EventStore, type MemoryEventStoreOptions } from './event-store.js';
export { accepts, hostAllowed, mediaType, originAllowed } from '../io/guard.js';
export { MemorySessionRegistry, type SessionRegistry } from './registry.js';

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
  /** Carries responses, `notifications/cancelled` and session ends between the processes. */
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

/** The principal a token speaks for (../../../auth/principal.ts `principalId`). */
export const principal: (auth: AuthInfo | undefined) => string | undefined = principalId;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** Decodes request bodies; stateless, so one serves all (fatal: bad UTF-8 is a parse error). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Creates the Streamable HTTP endpoint.
 * @example
 * const handler = createStreamableHttpHandler({ tables: [table, ...olderTables], onSession: (t) => engine.connect(t) });
 * // answerClientError: what node:http cannot parse gets a JSON-RPC error body, not a bare 400
 * http.createServer(handler).on('clientError', answerClientError).listen(3000, '127.0.0.1');
 */
// size: closed-over state of the endpoint; split pending (#36)
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  const sessions = options.sessionRegistry ?? new MemorySessionRegistry<HttpServerSession>();
  const idleMs = Math.max(0, options.sessionIdleMs ?? 30 * 60 * 1000);
  const maxSessions = Math.max(1, options.maxSessions ?? 10_000);
  const sweepMs = Math.max(1, Math.min(60_000, Math.ceil(idleMs / 4)));
  let sweeper: ReturnType<typeof setInterval> | undefined;
  /** Sessions inside `onSession`: their `initialize` is not delivered yet, so they are not idle. */
  const opening = new Set<HttpServerSession>();
  /** Whether `s` is past its idle time at `now` (then it should end). */
  const expired = (s: HttpServerSession, now: number): boolean =>
    idleMs > 0 && s.idle && now - s.lastActive >= idleMs && !opening.has(s);
  const sweep = (): void => {
    const now = Date.now();
    for (const s of [...sessions.values()]) if (expired(s, now)) void s.close();
  };
  const removed = (s: HttpServerSession): void => {
    if (sessions.get(s.sessionId) === s) sessions.delete(s.sessionId);
    if (sessions.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const added = (s: HttpServerSession): void => {
    sessions.set(s.sessionId, s);
    if (idleMs > 0 && !sweeper) {
      sweeper = setInterval(sweep, sweepMs);
      sweeper.unref?.();
    }
  };
  if (!options.tables && !options.supportedProtocolVersions)
    throw new TypeError(
      'createStreamableHttpHandler: options.tables (the generated tables served) or options.supportedProtocolVersions is required',
    );
  // a stateless table here would refuse its own clients at run time
  refuseOtherEra('createStreamableHttpHandler', 'handshake', options.tables ?? []);
  const facts = httpVersionFacts(options.tables ?? []);
  const versions = options.supportedProtocolVersions ?? facts.versions;
  const standalone = options.standaloneStream ?? true;
  const allowDelete = options.allowDelete ?? true;
  let sharedStore: MemoryEventStore | undefined;
  const storeFor =
    options.eventStore === false ? undefined : (options.eventStore ?? (() => (sharedStore ??= new MemoryEventStore())));
  const makeId = options.sessionIdGenerator ?? (() => globalThis.crypto.randomUUID());
  const shared = options.shared;
  const restoring = new Map<string, Promise<HttpServerSession | undefined>>();
  /** Standalone GETs opened here whose claim (`standalone-opened`) has not come back over the bus yet: session id → token. */
  const claims = new Map<string, number>();
  let claimed = 0;
  // messages of the bus for sessions this process holds: answers POSTed elsewhere, ends decided elsewhere
  const unsubscribe = shared?.bus.subscribe((m: BusMessage) => {
    // the claims of standalone GETs: the bus delivers them in one order to every process (as
    // Redis pub/sub does), so a claim that comes after this process's own is the newer one
    if (m.topic === 'standalone-opened' && m.from === shared.bus.processId) {
      if (isObject(m.payload) && claims.get(m.sessionId) === m.payload.token) claims.delete(m.sessionId);
      return;
    }
    const local = sessions.get(m.sessionId);
    if (!local) return;
    if (m.topic === 'ended') void local.close();
    else if (m.topic === 'standalone-opened') {
      if (!claims.has(m.sessionId)) void local.dropStandalone().catch((e: Error) => options.onError?.(e));
    } else if (m.topic === 'inbound' && m.from !== shared.bus.processId && isObject(m.payload))
      local.deliverRemote(m.payload as unknown as JSONRPCMessage);
    else if (
      m.topic === 'standalone' &&
      m.from !== shared.bus.processId &&
      isObject(m.payload) &&
      isObject(m.payload.message)
    ) {
      const eventId = typeof m.payload.eventId === 'string' ? m.payload.eventId : undefined;
      void local
        .deliverStandalone(eventId, m.payload.message as unknown as JSONRPCMessage)
        .catch((e: Error) => options.onError?.(e));
    }
  });
  const allow = ['GET', 'POST', ...(allowDelete ? ['DELETE'] : [])].join(', ');

  const fail = (ex: Exchange, status: number, code: number, message: string, extra: HeaderMap = {}): void => {
    ex.sink.respond(status, { 'Content-Type': 'application/json', ...extra }, errorBody(code, message));
  };

  /** Who initialized each session (protected endpoints only). */
  const owners = new WeakMap<HttpServerSession, string | undefined>();
  const guard = new RequestGuard(options, {
    serves: (m, h) =>
      m === 'POST' ||
      (m === 'GET' && (standalone || (h['last-event-id'] !== undefined && storeFor !== undefined))) ||
      (m === 'DELETE' && allowDelete),
    allow,
  });

  // size: request routing by method and session; split pending (#36)
  async function handle(ex: Exchange): Promise<void> {
    const h = ex.headers;
    const refused = guard.check(ex.method, h, ex.localPort);
    if (refused) return void ex.sink.respond(refused.status, refusalHeaders(refused), refusalBody(refused));
    const method = ex.method === 'POST' || ex.method === 'GET' ? ex.method : ex.method.toUpperCase();
    let auth: AuthInfo | undefined;
    // a front that checked the token already (the dual-era front) left its verdict: one check per request
    if (options.authorize && !(auth = authorizedBy(options.authorize, ex.authorized))) {
      const verdict = await options.authorize({ method, headers: h, url: ex.url });
      if ('refusal' in verdict)
        return void ex.sink.respond(
          verdict.refusal.status,
          refusalHeaders(verdict.refusal),
          refusalBody(verdict.refusal),
        );
      auth = verdict.auth;
    }
    const resuming = method === 'GET' && h['last-event-id'] !== undefined && storeFor !== undefined;
    const sent = h['mcp-protocol-version'];
    // the served version's own string from here on, not the header's copy: the maps and sets
    // keyed by version (priming, tables) then find it without hashing a new string per request
    const version = sent === undefined ? undefined : versions[versions.indexOf(sent)];
    if (sent !== undefined && version === undefined) {
      return fail(
        ex,
        400,
        ErrorCode.ServerError,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(sent)} (supported: ${versions.join(', ')})`,
      );
    }
    const sid = h['mcp-session-id'];
    let session = sid === undefined ? undefined : sessions.get(sid);
    // the time the request arrived, read once (an expired session, and then the session's activity)
    let now: number | undefined;
    if (session && expired(session, (now = Date.now()))) {
      void session.close();
      session = undefined;
    }
    if (sid !== undefined && shared) {
      let record: SessionRecord | undefined;
      try {
        record = await shared.sessions.touch(sid);
      } catch (e) {
        options.onError?.(new Error(`session store: ${(e as Error).message}`));
        return fail(ex, 503, ErrorCode.ServerError, 'Service Unavailable: the session store cannot be reached', {
          'Retry-After': '1',
        });
      }
      if (!record) {
        if (session) void session.close();
        session = undefined;
      } else if (!session) {
        session = await restore(sid, record, h);
        if (!session) return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      }
    }
    // a session of another principal is, to this one, no session at all
    if (session && options.authorize && (!owners.has(session) || owners.get(session) !== principal(auth)))
      session = undefined;
    if (sid !== undefined && !session) return fail(ex, 404, ErrorCode.ServerError, 'Session not found');
    if (session) {
      session.touch(now);
      sessions.touch(session.sessionId);
    }
    const sessionHeaders: HeaderMap = session ? session.responseHeaders : {};
    const effective = version ?? session?.protocolVersion ?? facts.assumed;

    if (method !== 'POST') {
      if (!session) return fail(ex, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      if (method === 'DELETE') {
        if (shared) {
          try {
            await shared.sessions.delete(session.sessionId);
            await ended(session.sessionId);
          } catch (e) {
            options.onError?.(new Error(`session store: ${(e as Error).message}`));
            return fail(ex, 503, ErrorCode.ServerError, 'Service Unavailable: the session store cannot be reached', {
              'Retry-After': '1',
            });
          }
        }
        await session.close();
        return ex.sink.respond(204, {});
      }
      return session.acceptGet(ex.sink, sessionHeaders, effective, resuming ? h['last-event-id'] : undefined);
    }

    // a session reading a body is busy: it cannot expire or be evicted meanwhile
    session?.reading(true);
    let body: Awaited<ReturnType<typeof ex.readBody>>;
    try {
      body = await ex.readBody(guard.maxBodyBytes, guard.bodyTimeoutMs);
    } finally {
      session?.reading(false);
    }
    if (typeof body === 'string') {
      const r = guard.bodyRefusal(body);
      return ex.sink.respond(r.status, refusalHeaders(r, sessionHeaders), refusalBody(r));
    }
    let message: unknown;
    try {
      const text = utf8.decode(body);
      message = JSON.parse(text);
      exactIds(message, text);
    } catch {
      return fail(ex, 400, ErrorCode.ParseError, 'Parse error: body is not JSON');
    }
    if (Array.isArray(message)) {
      // a batch: only in a session whose negotiated revision has them (2025-03-26)
      const negotiated = session?.protocolVersion;
      if (!session || negotiated === undefined || !options.acceptsBatches?.(negotiated)) {
        return fail(
          ex,
          400,
          ErrorCode.InvalidRequest,
          `Invalid Request: batches are not accepted${negotiated ? ` in protocol version ${negotiated}` : ''}; send one message per POST`,
        );
      }
      if (message.length === 0) return fail(ex, 400, ErrorCode.InvalidRequest, 'Invalid Request: empty batch');
      const valid: JSONRPCMessage[] = [];
      const errors: JSONRPCMessage[] = [];
      for (const entry of message as unknown[]) {
        const why =
          shapeProblem(entry) ??
          (isObject(entry) && 'method' in entry && 'id' in entry && !isRequestId(entry.id)
            ? 'request id must be a string or an integer'
            : undefined);
        if (!why) valid.push(entry as JSONRPCMessage);
        // an invalid request or unreadable entry gets -32600 (its id when readable); a malformed response none
        else if (!(isObject(entry) && !('method' in entry) && ('result' in entry || 'error' in entry))) {
          // no id member when none can be read (the error-id rule of ../../../jsonrpc/message.ts)
          const id = isObject(entry) && isRequestId(entry.id) ? entry.id : undefined;
          errors.push(errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${why}`));
        }
      }
      return session.acceptBatch(
        valid,
        errors,
        { headers: h, sessionId: session.sessionId, protocolVersion: effective, signal: ex.signal, auth },
        ex.sink,
        sessionHeaders,
      );
    }
    const problem = shapeProblem(message);
    if (problem) return fail(ex, 400, ErrorCode.InvalidRequest, `Invalid Request: ${problem}`);
    const msg = message as JSONRPCMessage;
    const info: MessageInfo = auth ? { headers: h, auth } : { headers: h };
    // a request gets the signal of its stream from the session; the others that of the exchange
    if (msg.method === undefined || msg.id === undefined) info.signal = ex.signal;

    if (msg.method === 'initialize' && 'id' in msg) {
      if (sid !== undefined)
        return fail(ex, 400, ErrorCode.InvalidRequest, 'Bad Request: initialize must not carry Mcp-Session-Id');
      const params = msg.params as { protocolVersion?: unknown } | undefined;
      if (sessions.size >= maxSessions && !(await evictIdle())) {
        return fail(ex, 503, ErrorCode.ServerError, `Service Unavailable: session limit (${maxSessions}) reached`, {
          'Retry-After': String(Math.ceil(sweepMs / 1000)),
        });
      }
      if (shared) {
        // the deployment's cap: room made now (an idle session evicted), or 503 while all are busy
        try {
          for (const id of await shared.sessions.makeRoom())
            void ended(id).catch((e: Error) => options.onError?.(new Error(`bus: ${e.message}`)));
        } catch (e) {
          if (e instanceof SessionLimitError)
            return fail(
              ex,
              503,
              ErrorCode.ServerError,
              `Service Unavailable: session limit (${e.maxSessions}) reached`,
              { 'Retry-After': String(Math.max(1, Math.ceil(e.retryAfterMs / 1000))) },
            );
          options.onError?.(new Error(`session store: ${(e as Error).message}`));
          return fail(ex, 503, ErrorCode.ServerError, 'Service Unavailable: the session store cannot be reached', {
            'Retry-After': '1',
          });
        }
      }
      const newId = makeId();
      if (!VISIBLE_ASCII.test(newId) || sessions.has(newId)) {
        options.onError?.(new Error(`sessionIdGenerator returned an unusable id ${JSON.stringify(newId)}`));
        return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      }
      const fresh: HttpServerSession = new HttpServerSession(
        newId,
        settingsFor(
          newId,
          shared
            ? recorder(
                newId,
                params as Record<string, unknown> | undefined,
                () => fresh.standaloneStreamId,
                options.authorize ? principal(auth) : undefined,
              )
            : undefined,
        ),
        removed,
      );
      if (options.authorize) owners.set(fresh, principal(auth));
      added(fresh);
      opening.add(fresh);
      try {
        await options.onSession(fresh, { sessionId: newId, headers: h });
      } catch (e) {
        options.onError?.(e instanceof Error ? e : new Error(String(e)));
        opening.delete(fresh);
        await fresh.close();
        return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      }
      opening.delete(fresh);
      info.sessionId = newId;
      info.protocolVersion =
        version ?? (typeof params?.protocolVersion === 'string' ? params.protocolVersion : effective);
      return fresh.acceptPost(msg, info, ex.sink, { 'Mcp-Session-Id': newId });
    }
    if (!session) return fail(ex, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
    info.sessionId = session.sessionId;
    info.protocolVersion = effective;
    session.acceptPost(msg, info, ex.sink, sessionHeaders);
    // an answer to a server → client request, or a cancellation, may be awaited by another process
    if (shared && (msg.method === undefined || msg.method === 'notifications/cancelled')) {
      shared.bus
        .publish({ topic: 'inbound', sessionId: session.sessionId, payload: msg })
        .catch((e: Error) => options.onError?.(new Error(`bus: ${e.message}`)));
    }
  }

  /** Makes the local session object of a session another process initialized (one at a time per id). */
  function restore(
    sessionId: string,
    record: SessionRecord,
    headers: SessionInfo['headers'],
  ): Promise<HttpServerSession | undefined> {
    let pending = restoring.get(sessionId);
    if (pending) return pending;
    pending = (async () => {
      const fresh = new HttpServerSession(
        sessionId,
        settingsFor(sessionId, undefined, record.standaloneStreamId),
        removed,
      );
      fresh.protocolVersion = record.protocolVersion;
      if (record.owner !== undefined) owners.set(fresh, record.owner);
      added(fresh);
      opening.add(fresh);
      try {
        await options.onSession(fresh, { sessionId, headers, restored: record });
        return fresh;
      } catch (e) {
        options.onError?.(e instanceof Error ? e : new Error(String(e)));
        await fresh.close();
        return undefined;
      } finally {
        opening.delete(fresh);
        restoring.delete(sessionId);
      }
    })();
    restoring.set(sessionId, pending);
    return pending;
  }

  /** Records a session once its `initialize` succeeded; sessions the cap evicted end everywhere. */
  function recorder(
    sessionId: string,
    params: Record<string, unknown> | undefined,
    standaloneStreamId: () => string,
    owner: string | undefined,
  ): (response: JSONRPCMessage) => Promise<void> {
    return async (response) => {
      const result = response.result as { protocolVersion?: unknown } | undefined;
      const record: SessionRecord = {
        protocolVersion: typeof result?.protocolVersion === 'string' ? result.protocolVersion : (facts.assumed ?? ''),
        capabilities: isObject(params?.capabilities) ? params.capabilities : {},
        createdAt: Date.now(),
        standaloneStreamId: standaloneStreamId(),
      };
      if (isObject(params?.clientInfo)) record.clientInfo = params.clientInfo;
      if (owner !== undefined) record.owner = owner;
      const evicted = await shared!.sessions.create(sessionId, record);
      for (const id of evicted) void ended(id).catch((e: Error) => options.onError?.(new Error(`bus: ${e.message}`)));
    };
  }

  /** Session `sessionId` ended for every process: its streams' events go, every process drops it. */
  async function ended(sessionId: string): Promise<void> {
    const store = storeFor?.(sessionId) as { dropSession?(id: string): Promise<void> } | undefined;
    await store?.dropSession?.(sessionId);
    await shared!.bus.publish({ topic: 'ended', sessionId });
  }

  /** Ends the least recently used idle session; false when every session is busy. */
  async function evictIdle(): Promise<boolean> {
    // the least recently used: the idle one whose last activity (a request, or its work ending) is oldest
    let victim: HttpServerSession | undefined;
    for (const s of sessions.values()) {
      if (!s.idle || opening.has(s)) continue;
      if (!victim || s.lastActive < victim.lastActive) victim = s;
    }
    if (!victim) return false;
    await victim.close();
    return true;
  }

  /** The settings of every session when they name no session (one deployment process, the default event store). */
  let common: SessionSettings | undefined;
  function settingsFor(
    sessionId: string,
    onNegotiated?: SessionSettings['onNegotiated'],
    standaloneId?: string,
  ): SessionSettings {
    const alike =
      !shared && onNegotiated === undefined && standaloneId === undefined && typeof options.eventStore !== 'function';
    if (alike && common) return common;
    const made: SessionSettings = {
      // the standalone stream spans the processes: a message sent where its GET is not held goes over the bus
      standalone: shared
        ? {
            id: standaloneId,
            relay: (eventId, message) => {
              shared.bus
                .publish({ topic: 'standalone', sessionId, payload: { eventId, message } })
                .catch((e: Error) => options.onError?.(new Error(`bus: ${e.message}`)));
            },
            // the other processes end their connection of the stream, unless theirs is newer
            opened: () => {
              const token = ++claimed;
              claims.set(sessionId, token);
              shared.bus.publish({ topic: 'standalone-opened', sessionId, payload: { token } }).catch((e: Error) => {
                if (claims.get(sessionId) === token) claims.delete(sessionId);
                options.onError?.(new Error(`bus: ${e.message}`));
              });
            },
          }
        : undefined,
      onNegotiated,
      // sessions with work under way here are not evicted by the deployment's cap
      onIdleChange: shared ? (idle) => shared.sessions.markBusy(sessionId, !idle) : undefined,
      onStoreError: (e) => options.onError?.(new Error(`event store: ${e.message}`)),
      replyMode: options.replyMode ?? 'auto',
      eventStore: storeFor?.(sessionId),
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs ?? 15000,
      maxBacklog: options.maxBacklog ?? 100,
      assumedVersion: facts.assumed,
      priming: facts.priming,
    };
    if (alike) common = made;
    return made;
  }

  async function safely(ex: Exchange): Promise<void> {
    try {
      await handle(ex);
    } catch (e) {
      options.onError?.(e instanceof Error ? e : new Error(String(e)));
      if (!ex.sink.started) fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      else ex.sink.end();
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) =>
    afterClosingResponse(req) || corsNode(guard.cors, req, res)
      ? Promise.resolve()
      : safely(nodeExchange(req, res))) as StreamableHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: (request: Request): Promise<Response> =>
        withCors(guard.cors, request, async (r) => {
          const { exchange, response } = fetchExchange(r);
          void safely(exchange);
          return response;
        }),
    },
    sessions: { get: () => sessions },
    guard: { value: guard },
    authorize: { value: options.authorize },
    close: {
      value: async (): Promise<void> => {
        if (sweeper) clearInterval(sweeper);
        sweeper = undefined;
        unsubscribe?.();
        await Promise.all([...sessions.values()].map((s) => s.close('server shutting down')));
      },
    },
  });
  return handler;
}

/**
 * Why `m` is not one JSON-RPC 2.0 request, notification or response (undefined if it is). Ids
 * are checked with {@link isRequestId}, the engine's definition (a string or an integer: `1.5`,
 * `true` or an object are refused here with 400 -32600 rather than reaching the engine).
 */
export function shapeProblem(m: unknown): string | undefined {
  if (Array.isArray(m)) return 'batches are not accepted; send one message per POST';
  if (typeof m !== 'object' || m === null) return 'body must be a JSON object';
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  // the engine's own definition of an id (../../../jsonrpc/message.ts): a request the transport admits is one
  // the engine answers with that id, so its answer always finds the POST that carried it
  const idOk = isRequestId(o.id);
  if ('method' in o) {
    if (typeof o.method !== 'string') return 'method must be a string';
    if ('id' in o && !idOk) return 'id must be a string or an integer';
    if ('params' in o && (typeof o.params !== 'object' || o.params === null))
      return 'params must be an object or array';
    return undefined;
  }
  if ('result' in o || 'error' in o) {
    if ('result' in o && 'error' in o) return 'a response has either result or error';
    if (!idOk && o.id !== null) return 'response id must be a string, an integer or null';
    return undefined;
  }
  return 'not a request, notification or response';
}
