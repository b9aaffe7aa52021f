/**
 * What the request replay tests (44-11-*) share: opening a session over raw HTTP, a POST that is
 * reset as soon as it was written (the client got nothing back), counting runs, and the answer to
 * `initialize` of a hand-written server that advertises request replay, and a runtime client with
 * its session initialized.
 */
import * as assert from 'uvu/assert';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import type { SharedEventStore } from '../../runtime/stores/events.js';
import { connectRedisStores, type RedisStores, type RedisStoresOptions } from '../../runtime/stores/redis/redis.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import type { HttpClientTransportOptions } from '../../runtime/transport/http/session/client-state.js';
import { HttpClientTransport as FetchHttpClientTransport } from '../../runtime/transport/http/session/fetch-client.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { SESSION_TABLES } from '../runtime/transport/http/tables.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import type { Test } from 'uvu';
import {
  ACCEPT_BOTH,
  answerInitialize as answerInit,
  echoPeer,
  handshake,
  initReq,
  MiniClient,
  messagesOf,
  post,
  readSse,
  sleep,
  V,
  type Received,
} from '../runtime/transport/http/session/helpers.js';

export type Obj = Record<string, unknown>;

/** Initializes a session; its id and the initialize result. */
export async function open(url: string): Promise<{ sid: string; result: Obj }> {
  const res = await post(url, initReq());
  const sid = res.headers.get('mcp-session-id')!;
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('event-stream') ? (messagesOf(await readSse(res))[0] as Obj) : ((await res.json()) as Obj);
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V },
  );
  await ack.text();
  return { sid, result: body.result as Obj };
}

/** POSTs `body` on a raw socket and resets the connection as soon as it was written (nothing read). */
export function postThenReset(port: number, sid: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        `Accept: ${ACCEPT_BOTH}`,
        'Content-Type: application/json',
        `Mcp-Session-Id: ${sid}`,
        `MCP-Protocol-Version: ${V}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        '',
      ].join('\r\n');
      socket.write(head + body, () => {
        socket.resetAndDestroy();
        resolve();
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    setTimeout(() => reject(new Error('postThenReset: no connection')), 5000).unref();
  });
}

/**
 * POSTs request `message` on session `sid` at `url` (fetch), waits until the endpoint's peer
 * received it (logged in `log`; polled every 20 ms, at most 1 s; asserts it did), then cuts the
 * POST's connection: the client read nothing, so it holds no event ID to resume from (the cut
 * request of request replay; CutCall in ./cut-call.ts cuts a reply after reading part of it).
 */
export async function postDispatchedThenCut(
  url: string,
  sid: string,
  message: JSONRPCMessage,
  log: Received[],
): Promise<void> {
  const id = message.id as number | string;
  const method = message.method as string;
  const abort = new AbortController();
  const first = post(url, message, headersOf(sid), abort.signal).then((r) => r.text());
  first.catch(() => undefined);
  for (let i = 0; i < 50 && runs(log, id, method) === 0; i++) await sleep(20);
  assert.is(runs(log, id, method), 1, `request ${id} dispatched`);
  abort.abort();
}

export const headersOf = (sid: string) => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });
export const runs = (log: Received[], id: number | string, method = 'stream'): number =>
  log.filter((r) => r.message.method === method && r.message.id === id).length;
export const responseOf = (messages: JSONRPCMessage[], id: number | string) =>
  messages.find((m) => !('method' in m) && m.id === id);

/** Answers `initialize` request `m` as a server advertising request replay would: session `s1`, protocol version V. */
export function answerInitialize(r: ServerResponse, m: JSONRPCMessage): void {
  answerInit(r, m.id, { 'mcp-session-id': 's1' }, { experimental: { 'mcpgen/requestReplay': {} } });
}

/**
 * A runtime HTTP client (node:http or fetch form) at `url` with its session initialized
 * (protocol version V); `options`: its retry and reconnect settings.
 */
export async function initialized(
  form: 'node:http' | 'fetch',
  url: string,
  options: Pick<HttpClientTransportOptions, 'retry' | 'reconnect'>,
) {
  const all = { url, standaloneStream: false, ...options };
  const transport =
    form === 'fetch' ? new FetchHttpClientTransport({ ...all, fetch: globalThis.fetch }) : new HttpClientTransport(all);
  const client = new MiniClient(transport);
  await handshake(client, transport);
  return { transport, client };
}

/** How {@link redisEndpoints} makes each endpoint's handler. */
export interface EndpointOptions {
  /** The event store each endpoint uses, made from its Redis one (default: that one). */
  wrap?: (events: SharedEventStore) => SharedEventStore;
  /** `StreamableHttpOptions.requestReplay` of each handler (default true). */
  requestReplay?: boolean;
}

/**
 * `n` endpoints sharing the stores of `redis` (each its own connection, one key prefix: the
 * options' or a new one), with request replay unless `endpoint.requestReplay` is false; each
 * session's peer echoes requests and logs what it received in `log`.
 */
export async function redisEndpoints(
  redis: RedisServer,
  n: number,
  options: RedisStoresOptions,
  endpoint: EndpointOptions = {},
) {
  const { wrap = (events: SharedEventStore) => events, requestReplay = true } = endpoint;
  const stores: RedisStores[] = [];
  const servers: Server[] = [];
  const ports: number[] = [];
  const log: Received[] = [];
  const prefix = options.prefix ?? `claims${Date.now()}${Math.random().toString(36).slice(2, 6)}:`;
  for (let i = 0; i < n; i++) {
    const s = await connectRedisStores(redis.url, { ...options, prefix });
    stores.push(s);
    const events = wrap(s.events);
    const server = createServer(
      createStreamableHttpHandler({
        tables: SESSION_TABLES,
        keepAliveMs: 0,
        requestReplay,
        shared: { sessions: s.sessions, bus: s.bus },
        eventStore: () => events,
        onSession: (t) => echoPeer(t, log),
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  return {
    prefix,
    log,
    ports,
    stores,
    url: (i: number) => `http://127.0.0.1:${ports[i]}/mcp`,
    async close() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
      for (const s of stores) await s.close();
    },
  };
}

/** A redis-server started before the tests of `suite` and stopped after them: the call returns it (from the first test on). */
export function suiteRedis(suite: Test): () => RedisServer {
  let redis: RedisServer | undefined;
  suite.before(async () => {
    redis = await startRedis();
  });
  suite.after(async () => {
    await redis?.stop();
  });
  return () => {
    if (!redis) throw new Error('suiteRedis: no redis-server before the first test');
    return redis;
  };
}
