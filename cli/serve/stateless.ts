/**
 * The stateless-revision side of `mcpgen serve` and `mcpgen call` (draft, 2026-07-28).
 *
 * `mcpgen serve --rev draft --stdio|--http <port> [--modern-only]`: the reference server on the
 * revision's generated `Server`. Dual-era by default (draft basic/versioning, Backward
 * Compatibility): one reference server answers modern requests (per-request `_meta`), and
 * clients that open with `initialize` get a 2025-11-25 reference server (stdio: for the process;
 * HTTP: one per session, `Mcp-Session-Id`). `--modern-only` serves the stateless revision alone
 * (HTTP: GET and DELETE → 405, `initialize` → -32602 for missing `_meta`).
 *
 * `mcpgen call --rev draft --url <url>`: posts statelessly with the request metadata headers;
 * when the server answers the `server/discover` probe like a 2025 server, the client falls back
 * to `initialize` on a 2025-11-25 session (same over `--stdio`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@mcpgen/runtime/engine';
import { EraRouter, createDualEraHttpHandler } from '@mcpgen/runtime/stateless';
import { createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { StatelessHttpClientTransport } from '@mcpgen/runtime/http/stateless';
import { continueAfterChecks, requestPath, respondNode } from '@mcpgen/runtime/http';
import { createStreamableHttpHandler, type ReplyMode } from '@mcpgen/runtime/http';
import { type ProtocolTable, batchProtocolVersions } from '@mcpgen/runtime/protocol';
import type { Transport } from '@mcpgen/runtime/jsonrpc';
import { routeMetadata, serveAuth, type ServeAuthOptions } from './auth.js';
import { createReferenceServer, referenceDefinition, type ServerClass } from '../../reference/server.js';
import { type FrontOptions, healthEndpoints, listenHttp, servedTables } from './http.js';
import { connectRedis, redisUnavailable } from './redis.js';

/** What this module uses of a generated revision module. */
export interface ServedRevision {
  Server: ServerClass;
  table: unknown;
  /** Older handshake tables `initialize` also negotiates (a legacy revision's), newest first. */
  fallbackTables?: readonly unknown[];
}

/**
 * Serves the reference server of stateless revision `modern` over one connection (stdio), and
 * with `legacy` also 2025-era clients that open with `initialize`. Resolves once serving.
 */
export async function serveDualEraConnection(
  modern: ServedRevision,
  legacy: ServedRevision | undefined,
  transport: Transport,
  logger?: Logger,
  requestStateSecret?: string,
): Promise<void> {
  const m = createReferenceServer(modern.Server, { logger, table: modern.table as never, requestStateSecret }).server;
  if (!legacy) return m.connect(transport);
  const l = createReferenceServer(legacy.Server, {
    logger,
    table: legacy.table as never,
    fallbackTables: legacy.fallbackTables as never,
  }).server;
  const router = new EraRouter(transport);
  await m.connect(router.modern);
  await l.connect(router.legacy);
  await router.start();
}

export interface StatelessServeOptions {
  port: number;
  host?: string;
  replyMode?: ReplyMode;
  logger?: Logger;
  /** HMAC secret of `requestState` (≥ 32 bytes; default random per process). */
  requestStateSecret?: string;
  /** Idle expiry of the 2025-era sessions, ms (StreamableHttpOptions.sessionIdleMs). */
  sessionIdleMs?: number;
  /** Cap on the 2025-era sessions (StreamableHttpOptions.maxSessions). */
  maxSessions?: number;
  /** Origins of browser apps allowed by CORS (`--cors-origin`). */
  corsOrigins?: readonly string[];
  /**
   * `--redis <url>`: the processes of one deployment share, through this Redis, the changes their
   * `subscriptions/listen` streams report, and the 2025-era sessions (as `http.ts` does).
   */
  redis?: string;
  /** Protect `/mcp` (both eras) with bearer tokens of this issuer (`--auth`, ./auth.ts). */
  auth?: ServeAuthOptions;
  /** `--allowed-host` (repeatable) and `--public-url` (./http.ts {@link FrontOptions}). */
  allowedHosts?: FrontOptions['allowedHosts'];
  publicUrl?: FrontOptions['publicUrl'];
}

/** Starts the reference server of a stateless revision over HTTP at `/mcp` (dual-era with `legacy`). */
export async function serveStatelessHttp(
  modern: ServedRevision,
  legacy: ServedRevision | undefined,
  options: StatelessServeOptions,
) {
  const stores = options.redis === undefined ? undefined : await connectRedis(options.redis, options);
  const { server, port, urlHost, guards } = await listenHttp(
    options.host ?? '127.0.0.1',
    options.port,
    options.corsOrigins,
    options,
  ).catch(async (e: unknown) => {
    await stores?.close();
    throw e;
  });
  const url = `http://${urlHost}:${port}/mcp`;
  const resource = options.publicUrl ?? url;
  const auth = options.auth && serveAuth(resource, options.auth, stores?.replay, options.logger);
  const ref = createReferenceServer(modern.Server, {
    logger: options.logger,
    table: modern.table as never,
    requestStateSecret: options.requestStateSecret,
    ...(stores ? { listenBus: stores.bus } : {}),
  });
  const stateless = createStatelessHttpHandler({
    ...guards,
    replyMode: options.replyMode,
    tables: servedTables(modern),
    toolSchema: (name) => ref.features.inputSchema(name),
    authorize: auth?.authorize,
    onError: (e) => {
      if (!redisUnavailable(stores, e, options.logger)) options.logger?.warn?.(`http: ${e.message}`);
    },
  });
  await ref.server.connect(stateless.transport);
  // the 2025-era sessions share one reference definition
  const legacyDefinition =
    legacy &&
    referenceDefinition(legacy.Server, {
      logger: options.logger,
      table: legacy.table as never,
      fallbackTables: legacy.fallbackTables as never,
      ...(stores ? { taskStore: stores.tasks } : {}),
    });
  const sessions = legacyDefinition
    ? createStreamableHttpHandler({
        ...guards,
        replyMode: options.replyMode,
        tables: servedTables(legacy),
        sessionIdleMs: options.sessionIdleMs,
        maxSessions: options.maxSessions,
        acceptsBatches: (v) =>
          batchProtocolVersions([legacy.table, ...(legacy.fallbackTables ?? [])] as ProtocolTable[]).includes(v),
        ...(stores ? { shared: { sessions: stores.sessions, bus: stores.bus }, eventStore: () => stores.events } : {}),
        onSession: async (t, info) => {
          const session = legacyDefinition.createSession();
          await session.connect(t);
          if (info.restored) session.adoptHandshake(info.restored);
        },
        authorize: auth?.authorize,
        onError: (e) => {
          if (!redisUnavailable(stores, e, options.logger)) options.logger?.warn?.(`http: ${e.message}`);
        },
      })
    : undefined;
  const handler = sessions ? createDualEraHttpHandler({ modern: stateless, legacy: sessions }) : stateless;
  const health = healthEndpoints(stores, options.logger);
  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const path = requestPath(req.url);
    if (health.route(path, req, res, () => void handler(req, res))) return;
    if (routeMetadata(auth?.metadata, req, res)) return;
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
    port,
    server,
    async close() {
      await handler.close();
      await ref.server.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await stores?.close();
    },
  };
}

/** The client transport of `call --url` for a stateless revision (falls back to a 2025 session on `initialize`). */
export function statelessClientTransport(url: string, fetch?: typeof globalThis.fetch): StatelessHttpClientTransport {
  return new StatelessHttpClientTransport({ url, fetch });
}

/** Whether a loaded revision is stateless. */
export function isStateless(mod: { table: unknown }): boolean {
  return (mod.table as ProtocolTable).lifecycle === 'stateless';
}
