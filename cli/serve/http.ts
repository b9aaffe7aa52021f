/**
 * The Streamable HTTP side of `mcpgen serve` and `mcpgen call` (2025-11-25 basic/transports).
 *
 * `mcpgen serve --rev <rev> --http <port> [--host 127.0.0.1] [--reply auto|json|sse]`: one MCP
 * endpoint at `/mcp` on node:http; every HTTP session is a session of one reference server
 * definition (reference/server.ts) on the revision's generated `Server`. Old
 * (2024-11-05 HTTP+SSE) clients are served too: GET `/sse` opens their stream, they POST to
 * `/messages?sessionId=…` (basic/transports, "Backwards Compatibility"). Host and Origin checks
 * are on (loopback names, plus `--host` when it is another name). `--session-idle-ms` and
 * `--max-sessions` bound the sessions (idle expiry, cap). With `--redis <url>` sessions, the events
 * of resumable streams and the notification bus live in that Redis (runtime/stores/redis/), so
 * several processes form one deployment. The endpoint URL goes to
 * stderr once listening; SIGINT/SIGTERM end every session and stop the listener.
 *
 * `mcpgen call --url <url> <method> [params-json]`: initializes a session over Streamable HTTP
 * (or the old HTTP+SSE transport when the URL speaks only that), sends one request, prints its result, then ends the session (DELETE).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@mcpgen/runtime/engine';
import { type ProtocolTable, batchProtocolVersions } from '@mcpgen/runtime/protocol';
import {
  createStreamableHttpHandler,
  type SharedSessions,
  type ReplyMode,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from '@mcpgen/runtime/http';
import { connectHttp, type FallbackHttpClientTransport } from '@mcpgen/runtime/http/legacy-sse';
import { parseJsonBody, readNodeBody } from '@mcpgen/runtime/http/stateless';
import { createLegacySseHandler, type LegacySseHandler } from '@mcpgen/runtime/http/legacy-sse';
import { answerClientError, continueAfterChecks, requestPath, respondNode } from '@mcpgen/runtime/http';
import type { SharedEventStore } from '@mcpgen/runtime/stores';
import { type ReferenceOptions, type ServerClass, referenceDefinition } from '../../reference/server.js';
import type { RedisStores } from '@mcpgen/runtime/stores/redis';
import { routeMetadata, serveAuth, type ServeAuthOptions } from './auth.js';
import { connectRedis, readyReason, redisState, redisUnavailable } from './redis.js';

/** A service `serve` was told to use (`--redis`) cannot be reached at start: `mcpgen serve` says so and exits 3. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];
/** The loopback names as a `Host` header writes them. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A running `serve --http`. */
export interface HttpServe {
  url: string;
  /** What clients are told the endpoint is: `--public-url`, else {@link url}; the audience of `--auth` tokens. */
  resource: string;
  /** From now on `/readyz` answers 503 (SIGTERM: the load balancer stops sending new work). */
  drain(): void;
  port: number;
  handler: StreamableHttpHandler;
  /** The old HTTP+SSE endpoints (GET /sse, POST /messages). */
  legacy: LegacySseHandler;
  /** URL of the old transport's SSE stream. */
  sseUrl: string;
  server: Server;
  close(): Promise<void>;
}

export interface HttpServeOptions {
  port: number;
  host?: string;
  replyMode?: ReplyMode;
  logger?: Logger;
  /** Passed to the reference server (its progress and logging tools pause this long per step). */
  progressDelayMs?: number;
  /** Passed to the reference server: further tools, resources or prompts beside its own. */
  extend?: ReferenceOptions['extend'];
  /** SSE `retry` sent in priming events and before the server closes a connection, ms (default 500). */
  retryMs?: number;
  /** See {@link StreamableHttpOptions.sessionIdleMs} (`--session-idle-ms`). */
  sessionIdleMs?: number;
  /** See {@link StreamableHttpOptions.maxSessions} (`--max-sessions`). */
  maxSessions?: number;
  /** Origins of browser apps allowed by CORS (`--cors-origin`, repeatable). */
  corsOrigins?: readonly string[];
  /**
   * `--redis <url>`: keep sessions, stream events and the notification bus in this Redis, so
   * that several `serve` processes behind one load balancer form one deployment (session idle
   * expiry and cap then apply to the shared records).
   */
  redis?: string;
  /**
   * `--request-replay on|off`: with {@link redis} (or `shared.events`), answer a re-sent identical
   * request from its stream (runtime session-replay.ts). Default true; always off with
   * `replyMode: 'json'` (a replayed request is answered as SSE).
   */
  requestReplay?: boolean;
  /** Stores to share instead of `redis` (e.g. a `MemorySessionStore`, or Redis stores connected by the caller, who closes them). */
  shared?: SharedSessions & { events?: SharedEventStore };
  /** Protect `/mcp` with bearer tokens of this issuer (`--auth`, ./auth.ts); the HTTP+SSE endpoints are then not served. */
  auth?: ServeAuthOptions;
  /** `--allowed-host` and `--public-url`: see {@link FrontOptions}. */
  allowedHosts?: readonly string[];
  publicUrl?: string;
}

/**
 * How the endpoint is reached through a proxy or load balancer: `allowedHosts`, further `Host`
 * values accepted (`name` any port, `name:port`; `--allowed-host`, repeatable), besides this
 * process's own names on its port; `publicUrl`, the URL clients use for /mcp (`--public-url`):
 * the resource `--auth` tokens must name as audience and the protected resource metadata
 * names, so one token serves every process behind it; its host is accepted as `Host` and its
 * origin as `Origin`.
 */
export interface FrontOptions {
  allowedHosts?: readonly string[];
  publicUrl?: string;
}

/** Starts the reference server over Streamable HTTP; resolves once listening. */
/**
 * Listens on `host:port` (port 0: any free port) and returns the server, the port, the host as
 * written in a URL, and the Host/Origin allow-lists for the handlers: the handlers' loopback
 * defaults on a loopback or wildcard host, else that host's names on this port.
 */
export async function listenHttp(
  host: string,
  port: number,
  corsOrigins?: readonly string[],
  front: FrontOptions = {},
) {
  const server = createServer();
  // a request node:http cannot parse gets its 400 (431, 408) with a JSON-RPC body, not a bare one
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const wildcard = bare === '0.0.0.0' || bare === '::';
  const named = bare.includes(':') ? `[${bare}]` : bare;
  const local = LOOPBACK.includes(bare) || wildcard;
  const names = ['localhost', '127.0.0.1', '[::1]', named];
  /** The host to put in URLs: a wildcard bind is reached on 127.0.0.1. */
  const urlHost = wildcard ? '127.0.0.1' : named;
  // behind a proxy: its Host values (and the public URL's) besides this process's own names
  const publicUrl = front.publicUrl === undefined ? undefined : new URL(front.publicUrl);
  const extraHosts = [...(front.allowedHosts ?? []), ...(publicUrl ? [publicUrl.host] : [])];
  const ownNames = local ? LOOPBACK_NAMES : names;
  const guards = {
    allowedHosts: local && !extraHosts.length ? undefined : [...ownNames.map((h) => `${h}:${bound}`), ...extraHosts],
    allowedOrigins:
      local && !extraHosts.length
        ? undefined
        : [
            ...ownNames.flatMap((h) => [`http://${h}:${bound}`, `https://${h}:${bound}`]),
            ...extraHosts.flatMap((h) => [`http://${h}`, `https://${h}`]),
            ...(publicUrl ? [publicUrl.origin] : []),
          ],
    // browser apps served from these origins may call the endpoint (preflight, exposed headers)
    cors: corsOrigins?.length ? { allowedOrigins: corsOrigins } : undefined,
  };
  return { server, port: bound, urlHost, guards };
}

/** The tables a revision's server negotiates with (its own, then its fallbacks): what its HTTP endpoints serve. */
export function servedTables(rev: { table: unknown; fallbackTables?: readonly unknown[] }): ProtocolTable[] {
  return [rev.table, ...(rev.fallbackTables ?? [])] as ProtocolTable[];
}

/**
 * Serves `mod` (its `fallbackTables`: older handshake tables, newest first, that `initialize`
 * also negotiates, on /mcp and /sse alike).
 */
export async function serveHttp(
  mod: { Server: ServerClass; table: unknown; fallbackTables?: readonly unknown[] },
  options: HttpServeOptions,
): Promise<HttpServe> {
  const host = options.host ?? '127.0.0.1';
  const stores: RedisStores | undefined =
    options.redis === undefined ? undefined : await connectRedis(options.redis, options);
  const { server, port, urlHost, guards } = await listenHttp(host, options.port, options.corsOrigins, options).catch(
    async (e: unknown) => {
      await stores?.close();
      throw e;
    },
  );
  const url = `http://${urlHost}:${port}/mcp`;
  const resource = options.publicUrl ?? url;
  const auth = options.auth && serveAuth(resource, options.auth, stores?.replay, options.logger);
  // one definition per endpoint, shared by all its sessions (JSON replies have no SSE connection to close)
  const streamable = referenceDefinition(mod.Server, {
    logger: options.logger,
    table: mod.table as never,
    fallbackTables: mod.fallbackTables as never,
    progressDelayMs: options.progressDelayMs,
    extend: options.extend,
    ...(stores ? { taskStore: stores.tasks } : {}),
    closeSseConnection:
      options.replyMode === 'json'
        ? undefined
        : (id, ctx) => handler.sessions.get(ctx.info?.sessionId ?? '')?.closeSseConnection(id) ?? Promise.resolve(),
  });
  const old = referenceDefinition(mod.Server, {
    logger: options.logger,
    table: mod.table as never,
    fallbackTables: mod.fallbackTables as never,
    progressDelayMs: options.progressDelayMs,
  });
  const batches = batchProtocolVersions([mod.table, ...(mod.fallbackTables ?? [])] as ProtocolTable[]);
  const handler = createStreamableHttpHandler({
    replyMode: options.replyMode,
    // MCP-Protocol-Version: whatever initialize can negotiate (own table and fallbacks)
    tables: servedTables(mod),
    // batches where the negotiated revision's schema has them
    acceptsBatches: (v) => batches.includes(v),
    ...guards,
    retryMs: options.retryMs ?? 500,
    sessionIdleMs: options.sessionIdleMs,
    maxSessions: options.maxSessions,
    // a deployment of several processes answers a re-sent request from its stream (a client cut
    // before any event ID came back learns its outcome; runtime session-replay.ts)
    // (off with JSON replies: a replayed request is answered as SSE; `serve` says so on stderr)
    requestReplay:
      options.requestReplay !== false &&
      options.replyMode !== 'json' &&
      (stores !== undefined || options.shared?.events !== undefined),
    ...(stores ? { shared: { sessions: stores.sessions, bus: stores.bus }, eventStore: () => stores.events } : {}),
    ...(options.shared
      ? { shared: options.shared, ...(options.shared.events ? { eventStore: () => options.shared!.events! } : {}) }
      : {}),
    onSession: async (transport, info) => {
      const session = streamable.createSession();
      await session.connect(transport);
      if (info.restored) session.adoptHandshake(info.restored);
    },
    authorize: auth?.authorize,
    // (the session store's failures while Redis is known down or stalled were named once already)
    onError: (e) => {
      if (!redisUnavailable(stores, e, options.logger)) options.logger?.warn?.(`http: ${e.message}`);
    },
  });
  const legacy = createLegacySseHandler({
    ...guards,
    maxSessions: options.maxSessions,
    onSession: (transport) => old.createSession().connect(transport),
    onError: (e) => options.logger?.warn?.(`http+sse: ${e.message}`),
  });
  const health = healthEndpoints(stores, options.logger);
  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const path = requestPath(req.url);
    if (health.route(path, req, res, () => void handler(req, res))) return;
    if (routeMetadata(auth?.metadata, req, res)) return;
    // the old HTTP+SSE transport has no token check: not served on a protected server
    if (!auth && legacy.handles(req)) return void legacy(req, res);
    if (path !== '/mcp') {
      respondNode(res, 404, { 'Content-Type': 'text/plain' }, 'Not Found: the MCP endpoint is /mcp\n');
      return;
    }
    void handler(req, res);
  };
  server.on('request', route);
  server.on('checkContinue', continueAfterChecks(route));
  return {
    url,
    resource,
    drain: health.drain,
    sseUrl: `http://${urlHost}:${port}/sse`,
    port,
    handler,
    legacy,
    server,
    async close() {
      await Promise.all([handler.close(), legacy.close()]);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await stores?.close();
    },
  };
}

/**
 * A new HTTP client transport for `call --url`: Streamable HTTP, falling back to the old
 * HTTP+SSE transport when the URL serves only that (e.g. `call --url http://host/sse`); the
 * standalone GET stream is opened, so messages a server sends outside a request print too.
 */
export function httpClientTransport(url: string, fetch?: typeof globalThis.fetch): FallbackHttpClientTransport {
  return connectHttp(url, { fetch });
}

/**
 * `GET /healthz` (liveness: 200 while the process serves) and `GET /readyz` (readiness: 200 when
 * this process takes new work: not draining and, with `--redis`, Redis answers a PING within 1 s;
 * else 503 with `Retry-After` and `{"status":"draining"}` or `{"status":"unavailable","reason":"redis
 * unavailable"}`), for a load balancer's health checks. Neither needs a token nor passes the Host
 * check: they carry no data (Redis's host:port and why it is down go to `logger`, once per change,
 * not to the client). Once draining
 * (SIGTERM; the listener stays open for the grace period), every response whose head is sent
 * from then on carries `Connection: close` (one to a request that came before too), and new work gets 503 with `Retry-After: 1` and JSON-RPC -32000 before it
 * runs: a request that would begin a session (a POST to /mcp without `Mcp-Session-Id`, a GET of
 * the old transport's /sse), a GET of /mcp that opens a new stream (no `Last-Event-ID`), and a POST of a running session whose body holds a JSON-RPC request
 * (read first, up to 4 MiB; one sent with `Expect: 100-continue` is refused before its body).
 * Nothing of it ran, so a client may send it again (to another process). A POST of responses and
 * notifications only (an answer to the server, a cancellation) goes on to the endpoint, through
 * `next`, its body already read.
 */
export function healthEndpoints(
  stores: { client: { ping(): Promise<unknown> } } | undefined,
  logger?: Logger,
): {
  route(path: string, req: IncomingMessage, res: ServerResponse, next?: () => void): boolean;
  drain(): void;
} {
  let draining = false;
  /** The cause of the last failed readiness check that was logged (undefined after a pass). */
  let told: string | undefined;
  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>): void => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
    if (status === 503) headers['Retry-After'] = '5';
    respondNode(res, status, headers, `${JSON.stringify(body)}\n`);
  };
  const refuse = (res: ServerResponse): void =>
    respondNode(
      res,
      503,
      { 'Content-Type': 'application/json', 'Retry-After': '1', Connection: 'close' },
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Service Unavailable: the server is shutting down' },
      }),
    );
  // the responses not finished when the drain starts: those whose head is not sent yet get
  // `Connection: close` too (one listener function for all, no closure per request)
  const open = new Set<ServerResponse>();
  function finished(this: ServerResponse): void {
    open.delete(this);
  }
  return {
    drain: () => {
      draining = true;
      for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
      open.clear();
    },
    route(path, req, res, next) {
      // (a kept-alive connection is told it ends with this response, then closed: none is cut idle)
      if (draining) res.shouldKeepAlive = false;
      else {
        open.add(res);
        res.once('close', finished);
      }
      if (draining && newWork(path, req)) return (refuse(res), true);
      if (draining && next && path === '/mcp' && (req.method ?? '').toUpperCase() === 'POST') {
        if (req.headers.expect !== undefined) return (refuse(res), true);
        void readNodeBody(req, DRAIN_BODY_BYTES, DRAIN_BODY_MS).then(
          (bytes) => {
            if (typeof bytes === 'string' || holdsRequest(bytes)) return refuse(res);
            (req as IncomingMessage & { body?: Uint8Array }).body = bytes;
            next();
          },
          () => refuse(res),
        );
        return true;
      }
      if (path !== '/healthz' && path !== '/readyz') return false;
      const method = (req.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && method !== 'HEAD') {
        respondNode(res, 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }, 'Method Not Allowed\n');
        return true;
      }
      if (path === '/healthz') return (answer(res, 200, { status: 'ok' }), true);
      if (draining) return (answer(res, 503, { status: 'draining' }), true);
      if (!stores) return (answer(res, 200, { status: 'ready' }), true);
      // a stalled Redis answers no PING until the command timeout (5 s): a probe gets its 503
      // after READY_PING_MS instead, before a probe's own timeout
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to PING within ${READY_PING_MS} ms`)), READY_PING_MS);
      });
      Promise.race([stores.client.ping(), stalled])
        .then(
          () => {
            told = undefined;
            answer(res, 200, { status: 'ready' });
          },
          (e: unknown) => {
            // the cause stays in the log, once per change (an outage or stall ./redis.ts named already is not repeated)
            const state = redisState(stores);
            const why = readyReason(state, e as Error);
            if (why !== told && state?.down === undefined && !state?.stalled) logger?.warn?.(`redis: /readyz: ${why}`);
            told = why;
            answer(res, 503, { status: 'unavailable', reason: 'redis unavailable' });
          },
        )
        .finally(() => clearTimeout(timer));
      return true;
    },
  };
}

/** How long `/readyz` waits for Redis's PING answer before it answers 503, ms. */
const READY_PING_MS = 1000;

/** The largest body a draining endpoint reads to tell requests from answers, bytes; its read's time bound, ms. */
const DRAIN_BODY_BYTES = 4 * 1024 * 1024;
const DRAIN_BODY_MS = 10_000;

/**
 * Whether a POST body holds a JSON-RPC request (own `method` and `id`), alone or in a batch; a
 * body that is no UTF-8 JSON, or nests deeper than the runtime's bound (512 levels), counts as one.
 */
function holdsRequest(bytes: Uint8Array): boolean {
  const parsed = parseJsonBody(bytes);
  if (parsed === undefined) return true;
  const isRequest = (m: unknown): boolean =>
    typeof m !== 'object' || m === null || (Object.hasOwn(m, 'method') && Object.hasOwn(m, 'id'));
  return Array.isArray(parsed) ? parsed.some(isRequest) : isRequest(parsed);
}

/**
 * Whether `req` is new work a draining endpoint refuses before reading a body: a POST to /mcp
 * without `Mcp-Session-Id` (a new session), a GET of /sse (the old transport's new session), a
 * GET of /mcp without `Last-Event-ID` (a new stream, which the close would cut: the client opens
 * it again at another process). A GET with `Last-Event-ID` resumes the stream of a call that may
 * still be running here, and is served.
 */
function newWork(path: string, req: IncomingMessage): boolean {
  const method = (req.method ?? '').toUpperCase();
  if (path === '/mcp')
    return method === 'POST'
      ? req.headers['mcp-session-id'] === undefined
      : method === 'GET' && req.headers['last-event-id'] === undefined;
  return path === '/sse' && method === 'GET';
}
