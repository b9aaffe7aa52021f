/**
 * Shared fixtures for the HTTP transport tests: a real `node:http` server on 127.0.0.1 running
 * the Streamable HTTP handler with a scriptable echo peer, raw request helpers, and a minimal
 * client-side request correlator.
 */
import { subscribe } from 'node:diagnostics_channel';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SseParser, type SseEvent } from '../../../../../runtime/codec/sse.js';
import {
  createStreamableHttpHandler,
  type HttpServerSession,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from '../../../../../runtime/transport/http/session/server.js';
import type { JSONRPCMessage, MessageInfo, Transport } from '../../../../../runtime/jsonrpc/transport.js';
import { SESSION_TABLES } from '../tables.js';

export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const V = '2025-11-25';

export interface Received {
  message: JSONRPCMessage;
  info?: MessageInfo;
  session: HttpServerSession;
}

/**
 * Echo peer. Requests: `initialize` → InitializeResult (error when `params.fail`); `slow` →
 * waits `params.delayMs`; `chatty` → `params.count` related `notifications/message` first;
 * `stream` → `params.count` related notifications, `params.gapMs` apart; `notify` → one
 * notification on the standalone stream first; anything else → `{ echo: params }`.
 */
export function echoPeer(session: HttpServerSession, log: Received[]): void {
  void session.start({
    onMessage(message, info) {
      log.push({ message, info, session });
      if (typeof message.method !== 'string' || message.id === undefined) return;
      void respond(session, message).catch(() => undefined);
    },
    onClose() {},
  });
}

async function respond(session: HttpServerSession, m: JSONRPCMessage): Promise<void> {
  const id = m.id as string | number;
  const params = (m.params ?? {}) as Record<string, unknown>;
  const related = { relatedRequestId: id };
  const note = (data: unknown): JSONRPCMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data },
  });
  switch (m.method) {
    case 'initialize':
      if (params.fail) {
        await session.send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'unsupported' } });
        return;
      }
      await session.send({
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params.protocolVersion ?? V,
          capabilities: {},
          serverInfo: { name: 'echo', version: '1' },
        },
      });
      return;
    case 'slow':
      await sleep(Number(params.delayMs ?? 10));
      break;
    case 'chatty':
      for (let i = 0; i < Number(params.count ?? 1); i++) await session.send(note({ id, i }), related);
      break;
    case 'stream':
      for (let i = 0; i < Number(params.count ?? 1); i++) {
        await session.send(note({ id, i }), related);
        if (params.gapMs) await sleep(Number(params.gapMs));
      }
      break;
    case 'notify':
      await session.send(note('standalone'));
      break;
    default:
      break;
  }
  await session.send({ jsonrpc: '2.0', id, result: { echo: m.params ?? null } }, related);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `cond` every 5 ms until it holds; throws `timed out waiting for <what>` after `boundMs`
 * (ms): a bound on a hang, not a timing to rely on.
 */
export async function waitFor(what: string, cond: () => boolean, boundMs = 10_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

// Every client socket this process opens (fetch's pool among them), by the port it connected to,
// until it closes: lets a test wait for the client to have seen a server's connections close.
const clientSockets = new Map<Socket, number>();
subscribe('net.client.socket', (message) => {
  const socket = (message as { socket: Socket }).socket;
  socket.once('connect', () => {
    if (!socket.destroyed) clientSockets.set(socket, socket.remotePort as number);
  });
  socket.once('close', () => clientSockets.delete(socket));
});

/**
 * Resolves once every client socket of this process connected to `port` on 127.0.0.1 has closed,
 * so that fetch's pool holds none of them; rejects after `boundMs` (ms) naming how many are open.
 * Use it after a server's `close()` and before the next request to that port.
 */
export async function clientSocketsClosed(port: number, boundMs = 10_000): Promise<void> {
  const open = [...clientSockets].filter(([, p]) => p === port).map(([s]) => s);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${open.filter((s) => !s.closed).length} client socket(s) to port ${port} still open`)),
      boundMs,
    );
  });
  try {
    await Promise.race([
      Promise.all(open.map((s) => (s.closed ? undefined : new Promise((r) => s.once('close', r))))),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface TestServer {
  url: string;
  port: number;
  handler: StreamableHttpHandler;
  log: Received[];
  sessions: HttpServerSession[];
  server: Server;
  close(): Promise<void>;
}

export async function startServer(options: Partial<StreamableHttpOptions> = {}, port = 0): Promise<TestServer> {
  const log: Received[] = [];
  const sessions: HttpServerSession[] = [];
  const handler = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    keepAliveMs: 0,
    ...options,
    onSession(t, info) {
      sessions.push(t);
      if (options.onSession) return options.onSession(t, info);
      echoPeer(t, log);
    },
  });
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const p = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${p}/mcp`,
    port: p,
    handler,
    log,
    sessions,
    server,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const req = (id: string | number, method: string, params?: Record<string, unknown>): JSONRPCMessage =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

export const initReq = (id: string | number = 1, params: Record<string, unknown> = {}): JSONRPCMessage =>
  req(id, 'initialize', { protocolVersion: V, capabilities: {}, clientInfo: { name: 't', version: '1' }, ...params });

/** POST with the headers a conforming client sends (override or drop with `undefined`). */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', ...headers })) {
    if (v !== undefined) h[k] = v;
  }
  return fetch(url, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

/** Initializes a session; returns its id. */
export async function initialize(url: string): Promise<string> {
  const res = await post(url, initReq());
  const sid = res.headers.get('mcp-session-id');
  await res.text();
  if (res.status !== 200 || !sid) throw new Error(`initialize failed: ${res.status}`);
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V },
  );
  await ack.text();
  return sid;
}

/** Reads a whole SSE body. */
export async function readSse(res: Response): Promise<SseEvent[]> {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(...parser.push(value));
  }
  out.push(...parser.end());
  return out;
}

/** Reads SSE events until `stop` says so, then cancels the body. */
export async function readSseUntil(res: Response, stop: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  while (!stop(out)) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(...parser.push(value));
  }
  await reader.cancel().catch(() => undefined);
  return out;
}

/** The JSON-RPC messages of SSE events (priming events skipped). */
export const messagesOf = (events: SseEvent[]): JSONRPCMessage[] =>
  events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as JSONRPCMessage);

/** A raw `node:http` request, for headers fetch will not let us set (Host). */
export function raw(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers,
        setHost: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    r.on('error', reject);
    r.end(options.body);
  });
}

/** A minimal client-side engine over a transport: request/response correlation only. */
/**
 * Answers an `initialize` request with id `id` as a test server: 200, `head` (e.g. its
 * `mcp-session-id`) and a JSON body with protocol version {@link V}, `capabilities` and
 * serverInfo `name` (version 1).
 */
export function answerInitialize(
  res: ServerResponse,
  id: unknown,
  head: Record<string, string>,
  capabilities: Record<string, unknown>,
  name = 'x',
): void {
  res.writeHead(200, { ...head, 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { protocolVersion: V, capabilities, serverInfo: { name, version: '1' } },
    }),
  );
}

/**
 * Starts `client` and initializes its session over `transport` (the client's own): `initialize`,
 * then the transport's `MCP-Protocol-Version` set to {@link V}, then `notifications/initialized`.
 */
export async function handshake(client: MiniClient, transport: { setProtocolVersion(v: string): void }): Promise<void> {
  await client.start();
  await client.request('initialize', initReq().params as Record<string, unknown>);
  transport.setProtocolVersion(V);
  await client.notify('notifications/initialized');
}

export class MiniClient {
  private next = 1;
  private readonly waiting = new Map<
    string | number | bigint,
    { resolve(v: unknown): void; reject(e: unknown): void }
  >();
  readonly notifications: JSONRPCMessage[] = [];
  readonly errors: Error[] = [];
  constructor(
    readonly transport: Transport,
    private readonly idPrefix = '',
  ) {}

  async start(): Promise<void> {
    await this.transport.start({
      onMessage: (m) => {
        const id = m.id as string | number | undefined;
        if (typeof m.method === 'string') {
          this.notifications.push(m);
          return;
        }
        const w = id === undefined ? undefined : this.waiting.get(id);
        if (!w || id === undefined) return;
        this.waiting.delete(id);
        if ('error' in m)
          w.reject(Object.assign(new Error((m.error as { message: string }).message), { rpc: m.error }));
        else w.resolve(m.result);
      },
      onRequestError: (id, error) => {
        const w = this.waiting.get(id);
        this.waiting.delete(id);
        w?.reject(error);
      },
      onError: (e) => this.errors.push(e),
      onClose: () => undefined,
    });
  }

  request(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.idPrefix ? `${this.idPrefix}${this.next++}` : this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.transport.send(req(id, method, params)).catch((e: unknown) => {
        this.waiting.delete(id);
        reject(e);
      });
    });
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.transport.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }
}
