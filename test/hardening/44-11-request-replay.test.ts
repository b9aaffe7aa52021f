/**
 * Issue 44, a call cut after its POST was written but before any event ID came back (the
 * client holds no cursor): with request replay on (runtime session-replay.ts) the server
 * advertises `capabilities.experimental["mcpgen/requestReplay"]`, claims each request before
 * dispatching it, and answers an identical re-send (same id, same session) from the request's
 * stream — never running it again; a re-send with other content keeps "already in use". Over
 * real sockets: the memory event store in one process, and two endpoints sharing a real
 * redis-server (a re-send reaching the other process follows the stream from the store).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import {
  type Obj,
  answerInitialize,
  headersOf,
  initialized,
  open,
  postThenReset,
  responseOf,
  runs,
} from './replay-kit.js';
import { ConnectionClosedError, RequestNotProcessedError } from '../../runtime/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import {
  initReq,
  messagesOf,
  post,
  readSse,
  req,
  sleep,
  startServer,
  type TestServer,
} from '../runtime/transport/http/session/helpers.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { echoPeer, MiniClient, type Received } from '../runtime/transport/http/session/helpers.js';
import { SESSION_TABLES } from '../runtime/transport/http/tables.js';

let memory: TestServer;
let plain: TestServer;
test.before(async () => {
  // (the clients' tests reach them through a proxy on another port)
  memory = await startServer({ requestReplay: true, allowedHosts: ['127.0.0.1'] });
  plain = await startServer({ allowedHosts: ['127.0.0.1'] });
});
test.after(async () => {
  await memory?.close();
  await plain?.close();
});

test('advertised in the initialize result only when on', async () => {
  const on = await open(memory.url);
  assert.equal((on.result.capabilities as Obj).experimental, { 'mcpgen/requestReplay': {} });
  const off = await open(plain.url);
  assert.is((off.result.capabilities as Obj).experimental, undefined);
});

test('memory store: a request cut after it was written runs once; its re-send gets the events and the response', async () => {
  const { sid } = await open(memory.url);
  const message = req(7, 'stream', { count: 3, gapMs: 80 });
  await postThenReset(memory.port, sid, JSON.stringify(message));
  await sleep(60);
  // while it runs: answered from its stream (no second run)
  const again = await post(memory.url, message, headersOf(sid));
  assert.is(again.status, 200);
  assert.match(again.headers.get('content-type') ?? '', 'text/event-stream');
  const messages = messagesOf(await readSse(again));
  assert.equal(responseOf(messages, 7), { jsonrpc: '2.0', id: 7, result: { echo: message.params } });
  assert.is(messages.filter((m) => m.method === 'notifications/message').length, 3);
  // after it finished: the same, from the store
  const late = await post(memory.url, message, headersOf(sid));
  const lateMessages = messagesOf(await readSse(late));
  assert.equal(responseOf(lateMessages, 7), { jsonrpc: '2.0', id: 7, result: { echo: message.params } });
  await sleep(50);
  assert.is(runs(memory.log, 7), 1);
});

test('a re-send with other content under a claimed id: 400 "already in use", not run', async () => {
  const { sid } = await open(memory.url);
  const first = await post(memory.url, req(9, 'stream', { count: 1 }), headersOf(sid));
  assert.ok(responseOf(messagesOf(await readSse(first)), 9));
  const other = await post(memory.url, req(9, 'stream', { count: 2 }), headersOf(sid));
  assert.is(other.status, 400);
  assert.match(
    ((await other.json()) as { error: { message: string } }).error.message,
    'Invalid Request: request id 9 is already in use',
  );
  assert.is(runs(memory.log, 9), 1);
});

test('without request replay a finished request id is free again: why a client re-sends only when advertised', async () => {
  const { sid } = await open(plain.url);
  for (let i = 0; i < 2; i++) {
    const res = await post(plain.url, req(3, 'slow', { delayMs: 1 }), headersOf(sid));
    await res.text();
  }
  assert.is(runs(plain.log, 3, 'slow'), 2);
});

test('Redis, two endpoints of one deployment: a re-send reaching the other one follows the stream, run once', async () => {
  let redis: RedisServer | undefined;
  const stores: RedisStores[] = [];
  const servers: Array<ReturnType<typeof createServer>> = [];
  try {
    redis = await startRedis();
    const prefix = `replay${Date.now()}:`;
    const log: Received[] = [];
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await connectRedisStores(redis.url, { prefix });
      stores.push(s);
      const handler = createStreamableHttpHandler({
        tables: SESSION_TABLES,
        keepAliveMs: 0,
        requestReplay: true,
        shared: { sessions: s.sessions, bus: s.bus },
        eventStore: () => s.events,
        onSession: (t) => echoPeer(t, log),
      });
      const server = createServer(handler);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
      ports.push((server.address() as AddressInfo).port);
    }
    const url = (i: number) => `http://127.0.0.1:${ports[i]}/mcp`;
    const { sid, result } = await open(url(0));
    assert.equal((result.capabilities as Obj).experimental, { 'mcpgen/requestReplay': {} });
    const message = req(11, 'stream', { count: 3, gapMs: 150 });
    await postThenReset(ports[0], sid, JSON.stringify(message));
    await sleep(100);
    const again = await post(url(1), message, headersOf(sid));
    assert.is(again.status, 200);
    const messages = messagesOf(await readSse(again));
    assert.equal(responseOf(messages, 11), { jsonrpc: '2.0', id: 11, result: { echo: message.params } });
    assert.is(messages.filter((m) => m.method === 'notifications/message').length, 3);
    // a re-send with other content, on either endpoint: refused, not run
    const other = await post(url(1), req(11, 'stream', { count: 1 }), headersOf(sid));
    assert.is(other.status, 400);
    await other.text();
    await sleep(50);
    assert.is(log.filter((r) => r.message.method === 'stream' && r.message.id === 11).length, 1);
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
    for (const s of stores) await s.close();
    await redis?.stop();
  }
});

/**
 * A TCP proxy to `port` that, once armed, lets the next POST carrying `marker` through whole
 * and resets its connection as the server's first byte back arrives (the client got nothing).
 */
async function cuttingProxy(port: number, marker: string) {
  let armed = 0;
  let cuts = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = createNetServer((down) => {
    const up = connect(port, '127.0.0.1');
    sockets.add(down).add(up);
    let cutNext = false;
    down.on('data', (d: Buffer) => {
      if (armed > 0 && d.toString('latin1').includes(marker)) {
        armed--;
        cutNext = true;
      }
      up.write(d);
    });
    up.on('data', (d: Buffer) => {
      if (cutNext) {
        cuts++;
        down.resetAndDestroy();
        up.destroy();
        return;
      }
      down.write(d);
    });
    for (const s of [down, up]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        down.destroy();
        up.destroy();
      });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    arm(n = 1) {
      armed = n;
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

for (const form of ['node:http', 'fetch'] as const) {
  test(`client (${form}): a request reset after it was written, before any byte back, is re-sent and answered; run once`, async () => {
    const proxy = await cuttingProxy(memory.port, '"method":"stream"');
    const before = memory.log.length;
    try {
      const { transport, client } = await initialized(form, proxy.url, { retry: { initialDelayMs: 20 } });
      proxy.arm(2);
      const result = await client.request('stream', { count: 2, gapMs: 50 });
      assert.equal(result, { echo: { count: 2, gapMs: 50 } });
      assert.is(proxy.cuts, 2);
      await sleep(50);
      const ran = memory.log.slice(before).filter((r) => r.message.method === 'stream');
      assert.is(ran.length, 1);
      await transport.close();
    } finally {
      await proxy.close();
    }
  });

  test(`client (${form}): a server without the capability gets no re-send: ConnectionClosedError, run once`, async () => {
    const proxy = await cuttingProxy(plain.port, '"method":"stream"');
    const before = plain.log.length;
    try {
      const { transport, client } = await initialized(form, proxy.url, { retry: { initialDelayMs: 20 } });
      proxy.arm(1);
      const error = await client.request('stream', { count: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(error, ConnectionClosedError);
      await sleep(100);
      assert.is(plain.log.slice(before).filter((r) => r.message.method === 'stream').length, 1);
      await transport.close();
    } finally {
      await proxy.close();
    }
  });
}

test('a re-send refused (503 with Retry-After) after the first POST was cut: ConnectionClosedError (it may have run), never RequestNotProcessedError', async () => {
  let posts = 0;
  const server = createServer((q, r) => {
    let body = '';
    q.on('data', (d: Buffer) => (body += d.toString()));
    q.on('end', () => {
      if (q.method !== 'POST') return void r.writeHead(q.method === 'DELETE' ? 204 : 405).end();
      const m = JSON.parse(body) as JSONRPCMessage;
      if (m.method === 'initialize') return answerInitialize(r, m);
      if (m.id === undefined) return void r.writeHead(202).end();
      if (posts++ === 0) return void q.socket.resetAndDestroy();
      r.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      r.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Service Unavailable' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const transport = new HttpClientTransport({
      url,
      standaloneStream: false,
      retry: { maxRetries: 2, initialDelayMs: 10 },
    });
    const client = new MiniClient(transport);
    await client.start();
    await client.request('initialize', initReq().params as Record<string, unknown>);
    await client.notify('notifications/initialized');
    const error = await client.request('stream', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, ConnectionClosedError);
    assert.not.instance(error, RequestNotProcessedError);
    assert.ok(posts >= 2, `re-sent: ${posts} POSTs`);
    await transport.close();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
