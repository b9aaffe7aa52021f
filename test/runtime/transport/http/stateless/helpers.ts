/**
 * Fixtures of the stateless Streamable HTTP tests: a generated draft Server with a few tools
 * behind the stateless endpoint (or the dual-era one) on a real node:http server on 127.0.0.1,
 * and raw POST helpers using fetch.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../../../runtime/features/server-features.js';
import { createDualEraHttpHandler } from '../../../../../runtime/stateless/dual-era.js';
import {
  createStatelessHttpHandler,
  type StatelessHttpHandler,
} from '../../../../../runtime/transport/http/stateless/server.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { createStreamableHttpHandler } from '../../../../../runtime/transport/http/session/server.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { SseParser } from '../../../../../runtime/codec/sse.js';
import { SESSION_TABLES, STATELESS_TABLES } from '../tables.js';

export const V = '2026-07-28';
export const ACCEPT = 'application/json, text/event-stream';
export const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** What the tools saw: aborted handlers, by tool call. */
export interface Probe {
  aborted: string[];
  started: string[];
}

/**
 * Tools: `echo` (returns its arguments as text), `sql` (`region` is `x-mcp-header: Region`,
 * `limit` is `x-mcp-header: Limit` integer, `opts.tenant` nested `x-mcp-header: Tenant`),
 * `slow` (waits `ms`, sends progress each 20 ms; records an abort), `boom` (throws).
 */
export function features(probe: Probe = { aborted: [], started: [] }): ServerFeatures {
  const f = new ServerFeatures();
  f.tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: (a: { text?: string }) => a.text ?? '',
  });
  f.tool({
    name: 'sql',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        opts: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
        query: { type: 'string' },
      },
      required: ['query'],
    },
    handler: (a: Record<string, unknown>) => JSON.stringify(a),
  });
  f.tool({
    name: 'slow',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
    handler: async (a: { ms?: number }, ctx) => {
      probe.started.push(String(ctx.requestId));
      const end = Date.now() + (a.ms ?? 200);
      while (Date.now() < end) {
        if (ctx.signal.aborted) {
          probe.aborted.push(String(ctx.requestId));
          throw new Error('aborted');
        }
        await ctx.sendProgress(end - Date.now(), a.ms);
        await new Promise((r) => setTimeout(r, 20));
      }
      return 'done';
    },
  });
  return f;
}

export interface Running {
  url: string;
  http: HttpServer;
  features: ServerFeatures;
  probe: Probe;
  close(): Promise<void>;
}

async function listen(handler: (req: never, res: never) => unknown): Promise<{ http: HttpServer; url: string }> {
  const http = createServer(handler as never);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

const stop = async (http: HttpServer) => {
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
};

/** The draft Server behind the stateless endpoint only. */
export async function startModern(
  options: { replyMode?: 'json' | 'sse' | 'auto' } = {},
): Promise<Running & { handler: StatelessHttpHandler; server: draft.Server }> {
  const probe: Probe = { aborted: [], started: [] };
  const f = features(probe);
  const handler = createStatelessHttpHandler({
    tables: STATELESS_TABLES,
    toolSchema: (n) => f.inputSchema(n),
    replyMode: options.replyMode,
  });
  const server = new draft.Server({
    serverInfo: { name: 'modern', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table: draft.table }) as never,
  });
  f.attach(server);
  await server.connect(handler.transport);
  const { http, url } = await listen(handler);
  return {
    url,
    http,
    features: f,
    probe,
    handler,
    server,
    close: async () => {
      await server.close();
      await stop(http);
    },
  };
}

/** What {@link startDualEra} may change in both eras' servers. */
export interface DualEraOptions {
  /** Request handlers put over the features' own, in both eras (e.g. a `tools/call` answering `{}`). */
  handlers?: Record<string, (...args: never[]) => unknown>;
  /** Both eras' servers' logger. */
  logger?: { error?: (message: string) => void };
}

/** One definition served to both eras: a draft Server (stateless) and a 2025-11-25 Server per session. */
export async function startDualEra(options: DualEraOptions = {}): Promise<Running & { legacySessions: () => number }> {
  const probe: Probe = { aborted: [], started: [] };
  const f = features(probe);
  const modern = createStatelessHttpHandler({ tables: STATELESS_TABLES, toolSchema: (n) => f.inputSchema(n) });
  const server = new draft.Server({
    serverInfo: { name: 'dual', version: '1' },
    capabilities: f.capabilities(),
    handlers: { ...f.handlers({ table: draft.table }), ...options.handlers } as never,
    logger: options.logger,
  });
  f.attach(server);
  await server.connect(modern.transport);
  const legacy = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    onSession: async (t) => {
      const s = new v2025.Server({
        serverInfo: { name: 'dual', version: '1' },
        capabilities: f.capabilities(),
        handlers: { ...f.handlers({ table: v2025.table }), ...options.handlers } as never,
        logger: options.logger,
      });
      f.attach(s);
      await s.connect(t);
    },
  });
  const { http, url } = await listen(createDualEraHttpHandler({ modern, legacy }));
  return {
    url,
    http,
    features: f,
    probe,
    legacySessions: () => legacy.sessions.size,
    close: async () => {
      await legacy.close();
      await server.close();
      await stop(http);
    },
  };
}

/**
 * The dual-era endpoint (startDualEra) behind a front: each request's body is read whole and
 * `front(method, req, res, message)` called with the JSON-RPC method it names and the parsed
 * message (both undefined for a body-less request); unless it returns true (it answered, or cut
 * the connection), the request goes on to the endpoint with the body already read.
 */
export async function startDualEraBehind(
  front: (method: string | undefined, req: IncomingMessage, res: ServerResponse, message: any) => boolean | undefined,
): Promise<Running & { legacySessions: () => number }> {
  const s = await startDualEra();
  const inner = s.http.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  s.http.removeAllListeners('request');
  s.http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const message = bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
      if (front(message?.method, req, res, message) === true) return;
      (req as IncomingMessage & { body?: unknown }).body = new Uint8Array(bytes);
      inner(req, res);
    });
  });
  return s;
}

/** Headers of a well-formed draft POST for `method` (`name` for Mcp-Name). */
export function headersFor(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: ACCEPT,
    'MCP-Protocol-Version': V,
    'Mcp-Method': method,
  };
  if (name !== undefined) h['Mcp-Name'] = name;
  return h;
}

export interface Raw {
  status: number;
  headers: Headers;
  /** The JSON body, or for SSE the messages in order. */
  body: any;
  messages: any[];
}

/** POSTs `body` with `headers` (fetch) and reads the whole answer. */
export async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  init: { method?: string } = {},
): Promise<Raw> {
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers,
    body: init.method && init.method !== 'POST' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (type.startsWith('text/event-stream')) {
    const messages = new SseParser()
      .push(text)
      .filter((e) => e.data !== '')
      .map((e) => JSON.parse(e.data));
    return { status: res.status, headers: res.headers, body: messages.at(-1), messages };
  }
  const parsed = text === '' ? undefined : JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, messages: parsed === undefined ? [] : [parsed] };
}

/** A draft request body. */
export function request(
  id: string | number,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = META,
) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
}

/**
 * A Client of `era` (the 2025-11-25 session Client, or the draft Client for the stateless
 * transport) and its transport to `url` in `form` (node:http, or fetch), not yet connected;
 * `extra` (a logger) goes into the Client's options.
 */
export function eraClient(era: 'session' | 'stateless', form: 'node:http' | 'fetch', url: string, extra = {}) {
  const options = { url, ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}) };
  const info = { clientInfo: { name: 'c', version: '1' }, ...extra };
  return {
    c: era === 'session' ? new v2025.Client(info) : new draft.Client(info),
    transport: era === 'session' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options),
  };
}

/** The error `p` rejects with; undefined when it resolves. */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (x: unknown) => x as Error,
  );

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
