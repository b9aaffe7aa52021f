/**
 * Issue 44, request replay at its edges (runtime session-replay.ts, the stores' claimRequest):
 * a claim lasts as long as its request runs (however long past the store's TTL), a bound on
 * claims refuses new requests (503, nothing ran) instead of forgetting a claim, claims hold a
 * hash of the request id (never the id) and count in the byte budgets, and a re-send whose
 * stream is no longer kept learns that the request ran (-32000), not a header error. Over real
 * sockets: the memory event store, and endpoints sharing a real redis-server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import { type AddressInfo, connect, createServer as createNetServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { MemoryEventStore, type MemoryEventStoreOptions } from '../../runtime/stores/events-memory.js';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import type { HttpServerSession } from '../../runtime/transport/http/session/session.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import {
  messagesOf,
  post,
  readSse,
  req,
  sleep,
  startServer,
  type TestServer,
} from '../runtime/transport/http/session/helpers.js';
import { SESSION_TABLES } from '../runtime/transport/http/tables.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { headersOf, open, redisEndpoints, responseOf, runs } from './replay-kit.js';

/** The messages of a POST's answer, JSON or SSE; with its status. */
async function answer(
  res: Response,
): Promise<{ status: number; messages: JSONRPCMessage[]; retryAfter: string | null }> {
  const type = res.headers.get('content-type') ?? '';
  const messages = type.includes('event-stream')
    ? messagesOf(await readSse(res))
    : [(await res.json()) as JSONRPCMessage];
  return { status: res.status, messages, retryAfter: res.headers.get('retry-after') };
}

/** POSTs `message` and drops the connection `ms` later, whatever came back (the server got it whole). */
async function postThenAbort(url: string, sid: string, message: JSONRPCMessage, ms: number): Promise<void> {
  const abort = new AbortController();
  const res = post(url, message, headersOf(sid), abort.signal).then((r) => r.text());
  res.catch(() => undefined);
  await sleep(ms);
  abort.abort();
}

/** A server with request replay over one memory event store made with `options`. */
async function memoryServer(options: MemoryEventStoreOptions): Promise<TestServer & { store: MemoryEventStore }> {
  const store = new MemoryEventStore(options);
  const server = await startServer({ requestReplay: true, eventStore: () => store });
  return Object.assign(server, { store });
}

test('memory store: a claim lasts until its request finished and the TTL after: a re-send then replays it, run once', async () => {
  const server = await memoryServer({ ttlMs: 400 });
  try {
    const { sid } = await open(server.url);
    const message = req(1, 'slow', { delayMs: 600 });
    await postThenAbort(server.url, sid, message, 100);
    assert.is(runs(server.log, 1, 'slow'), 1, 'dispatched before the reset');
    // finished at 600 ms, re-sent at 800: past the TTL since dispatch, within it since the finish
    await sleep(700);
    const again = await answer(await post(server.url, message, headersOf(sid)));
    assert.is(again.status, 200);
    assert.equal(responseOf(again.messages, 1), { jsonrpc: '2.0', id: 1, result: { echo: message.params } });
    assert.is(runs(server.log, 1, 'slow'), 1);
  } finally {
    await server.close();
  }
});

test('memory store: the claim expires the TTL after its stream finished, not before', () => {
  let now = 0;
  const store = new MemoryEventStore({ ttlMs: 100, now: () => now });
  const priming = store.storeEvent('s', 'a.1', null);
  assert.is(store.claimRequest('s', 'k1', `d ${priming}`, 'a.1'), undefined);
  now = 1000;
  assert.is(store.claimRequest('s', 'k1', 'other', 'a.2'), `d ${priming}`, 'running: kept');
  store.streamFinished('s', 'a.1');
  now = 1099;
  assert.is(store.claimRequest('s', 'k1', 'other', 'a.2'), `d ${priming}`, 'finished 99 ms ago: kept');
  now = 1100;
  assert.is(store.claimRequest('s', 'k1', 'other', 'a.2'), undefined, 'finished 100 ms ago: gone');
});

test('memory store: past 1000 claims none is forgotten: the re-send of the first of 1001 is replayed, not run again', async () => {
  const server = await memoryServer({});
  try {
    const { sid } = await open(server.url);
    for (let next = 1; next <= 1001; ) {
      const batch = [];
      for (let i = 0; i < 16 && next <= 1001; i++, next++)
        batch.push(post(server.url, req(next, 'slow', { delayMs: 0 }), headersOf(sid)).then((r) => r.text()));
      await Promise.all(batch);
    }
    const again = await answer(await post(server.url, req(1, 'slow', { delayMs: 0 }), headersOf(sid)));
    assert.is(again.status, 200);
    assert.ok(responseOf(again.messages, 1));
    assert.is(runs(server.log, 1, 'slow'), 1);
  } finally {
    await server.close();
  }
});

test('memory store: over maxClaims a new request is refused 503 -32000 with Retry-After, not run; the claimed ones stay replayable', async () => {
  const server = await memoryServer({ maxClaims: 2, ttlMs: 200 });
  try {
    const { sid } = await open(server.url);
    const first = post(server.url, req(1, 'slow', { delayMs: 300 }), headersOf(sid));
    const second = post(server.url, req(2, 'slow', { delayMs: 300 }), headersOf(sid));
    await sleep(100);
    const third = await post(server.url, req(3, 'slow', { delayMs: 0 }), headersOf(sid));
    assert.is(third.status, 503);
    assert.is(third.headers.get('retry-after'), '1');
    const body = (await third.json()) as { error: { code: number; message: string } };
    assert.is(body.error.code, -32000);
    assert.match(body.error.message, 'too many requests in flight');
    assert.is(runs(server.log, 3, 'slow'), 0);
    const again = await answer(await post(server.url, req(1, 'slow', { delayMs: 300 }), headersOf(sid)));
    assert.ok(responseOf(again.messages, 1));
    await (await first).text();
    await (await second).text();
    assert.is(runs(server.log, 1, 'slow'), 1);
    // the claims expire the TTL after their streams finished: room again
    await sleep(250);
    const later = await answer(await post(server.url, req(3, 'slow', { delayMs: 0 }), headersOf(sid)));
    assert.ok(responseOf(later.messages, 3));
    assert.is(runs(server.log, 3, 'slow'), 1);
  } finally {
    await server.close();
  }
});

test('memory store: a claim holds a hash of the id, counted in the byte budgets; claims past maxSessionBytes are refused', () => {
  const store = new MemoryEventStore({ maxSessionBytes: 1000 });
  const texts: string[] = [];
  let refused: unknown;
  for (let i = 0; i < 20 && refused === undefined; i++) {
    try {
      const priming = store.storeEvent('s', `t.${i}`, null);
      texts.push(`${'d'.repeat(43)} ${priming}`);
      store.claimRequest('s', `${'k'.repeat(42)}${i % 10}${i}`, texts[i], `t.${i}`);
      // (finished: its events may be shed, the newest event of a live stream is always kept)
      store.streamFinished('s', `t.${i}`);
    } catch (e) {
      refused = e;
      // (as the server does with the stream of a refused request)
      store.streamFinished('s', `t.${i}`);
    }
  }
  assert.is((refused as Error | undefined)?.name, 'ClaimLimitError');
  // (the refused request's priming event, 64 bytes, is shed on the next write)
  assert.ok(store.sessionSize('s') <= 1000 + 64, `session bytes ${store.sessionSize('s')}`);
  assert.ok(store.sessionSize('s') >= 4 * (64 + 43 + texts[0].length), 'the claims are counted');
});

test('memory store: 40 requests with 1 MiB ids keep no id once answered (heap)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const store = new MemoryEventStore({});
  const handler = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    keepAliveMs: 0,
    requestReplay: true,
    eventStore: () => store,
    onSession(t: HttpServerSession) {
      void t.start({
        onMessage(m) {
          if (typeof m.method === 'string' && m.id !== undefined)
            void t.send({ jsonrpc: '2.0', id: m.id as string, result: {} }).catch(() => undefined);
        },
        onClose() {},
      });
    },
  });
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  try {
    const { sid } = await open(url);
    const send = async (i: number) => {
      const id = `${i}:${'x'.repeat(1024 * 1024)}`;
      const res = await post(url, req(id, 'ping'), headersOf(sid));
      assert.is(res.status, 200);
      await res.text();
    };
    await send(0);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 1; i <= 40; i++) await send(i);
    await sleep(50);
    gc();
    const grew = (process.memoryUsage().heapUsed - before) / (1024 * 1024);
    // the answers are events within the session's 4 MiB budget; the claims hold 43-character keys
    assert.ok(grew < 16, `heap grew ${grew.toFixed(1)} MiB for 40 answered requests with 1 MiB ids`);
    assert.ok(store.sessionSize(sid) <= 4 * 1024 * 1024);
  } finally {
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('memory store: a re-send whose stream is no longer kept (more finished streams than kept) is told it ran: 200, -32000, not run again', async () => {
  const server = await memoryServer({ maxStreams: 1 });
  try {
    const { sid } = await open(server.url);
    for (const id of [1, 2, 3]) await (await post(server.url, req(id, 'slow', { delayMs: 0 }), headersOf(sid))).text();
    const again = await answer(await post(server.url, req(1, 'slow', { delayMs: 0 }), headersOf(sid)));
    assert.is(again.status, 200);
    const error = (responseOf(again.messages, 1) as { error?: { code: number; message: string } }).error;
    assert.is(error?.code, -32000);
    assert.match(error?.message ?? '', /^Request 1 ran/);
    assert.is(runs(server.log, 1, 'slow'), 1);
  } finally {
    await server.close();
  }
});

test('memory store: a re-send of a request whose priming event was dropped (maxEventsPerStream) is told it ran', async () => {
  const server = await memoryServer({ maxEventsPerStream: 2 });
  try {
    const { sid } = await open(server.url);
    const message = req(4, 'stream', { count: 3 });
    await (await post(server.url, message, headersOf(sid))).text();
    const again = await answer(await post(server.url, message, headersOf(sid)));
    assert.is(again.status, 200);
    const error = (responseOf(again.messages, 4) as { error?: { code: number; message: string } }).error;
    assert.is(error?.code, -32000);
    assert.match(error?.message ?? '', /^Request 4 ran/);
    assert.is(runs(server.log, 4), 1);
  } finally {
    await server.close();
  }
});

let redis: RedisServer | undefined;
test.before(async () => {
  redis = await startRedis();
});
test.after(async () => {
  await redis?.stop();
});

test('Redis (eventTtlMs 1000): a 2.5-s call re-sent on the other process after 1.4 s follows it, run once', async () => {
  const e = await redisEndpoints(redis!, 2, { eventTtlMs: 1000 });
  try {
    const { sid } = await open(e.url(0));
    const message = req(21, 'slow', { delayMs: 2500 });
    await postThenAbort(e.url(0), sid, message, 200);
    assert.is(runs(e.log, 21, 'slow'), 1, 'dispatched before the reset');
    await sleep(1200);
    const again = await answer(await post(e.url(1), message, headersOf(sid)));
    assert.is(again.status, 200);
    assert.equal(responseOf(again.messages, 21), { jsonrpc: '2.0', id: 21, result: { echo: message.params } });
    assert.is(runs(e.log, 21, 'slow'), 1);
  } finally {
    await e.close();
  }
});

test('Redis: claims store no request id (hashed keys) and maxClaims refuses a new request 503 -32000, not run', async () => {
  const e = await redisEndpoints(redis!, 1, { maxClaims: 2 });
  const probe = new Redis(redis!.port, '127.0.0.1');
  try {
    const { sid } = await open(e.url(0));
    const long = (n: number) => `${n}:${'y'.repeat(10_000)}`;
    const first = post(e.url(0), req(long(1), 'slow', { delayMs: 300 }), headersOf(sid));
    const second = post(e.url(0), req(long(2), 'slow', { delayMs: 300 }), headersOf(sid));
    await sleep(150);
    const keys = await probe.keys(`${e.prefix}rq*`);
    assert.is(keys.length, 3, keys.join(' '));
    for (const k of keys) assert.ok(k.length < 200, `key of ${k.length} characters`);
    const members = await probe.zrange(`${e.prefix}rqs:${sid}`, '0', '-1');
    assert.equal(
      members.map((m) => m.length),
      [43, 43],
    );
    for (const k of keys) if (!k.includes('rqs:')) assert.ok((await probe.get(k))!.length < 200);
    const third = await post(e.url(0), req(3, 'slow', { delayMs: 0 }), headersOf(sid));
    assert.is(third.status, 503);
    const body = (await third.json()) as { error: { code: number; message: string } };
    assert.is(body.error.code, -32000);
    assert.match(body.error.message, 'too many requests in flight');
    await (await first).text();
    await (await second).text();
    assert.is(runs(e.log, 3, 'slow'), 0);
  } finally {
    probe.disconnect();
    await e.close();
  }
});

/**
 * A TCP proxy to `port` (Redis) that, once armed, forwards the next command carrying `marker`,
 * drops every reply on that connection after it and cuts the connection `cutMs` later: a claim
 * Redis stored but whose reply never came (a stall past the command timeout).
 */
async function stallingProxy(port: number, marker: string, cutMs: number) {
  let armed = false;
  let stalls = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = createNetServer((down) => {
    const up = connect(port, '127.0.0.1');
    sockets.add(down).add(up);
    let stalled = false;
    down.on('data', (d: Buffer) => {
      if (armed && d.toString('latin1').includes(marker)) {
        armed = false;
        stalled = true;
        stalls++;
        setTimeout(() => {
          down.destroy();
          up.destroy();
        }, cutMs);
      }
      up.write(d);
    });
    up.on('data', (d: Buffer) => {
      if (!stalled) down.write(d);
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
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm() {
      armed = true;
    },
    get stalls() {
      return stalls;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('Redis: a claim stored whose reply was lost (503, nothing ran) is run by the identical re-send, once, with its answer', async () => {
  const proxy = await stallingProxy(redis!.port, 'rq:', 600);
  const e = await redisEndpoints({ ...redis!, url: proxy.url }, 1, { commandTimeoutMs: 300 });
  const probe = new Redis(redis!.port, '127.0.0.1');
  try {
    const { sid } = await open(e.url(0));
    // (the claim script is loaded now: the stalled command is the claim itself)
    await (await post(e.url(0), req(30, 'slow', { delayMs: 0 }), headersOf(sid))).text();
    proxy.arm();
    const message = req(31, 'slow', { delayMs: 50 });
    const first = await post(e.url(0), message, headersOf(sid));
    assert.is(first.status, 503);
    await first.text();
    assert.is(proxy.stalls, 1);
    assert.is((await probe.keys(`${e.prefix}rq:*`)).length, 2, 'the claim was stored');
    assert.is(runs(e.log, 31, 'slow'), 0);
    let again: Awaited<ReturnType<typeof answer>> | undefined;
    for (let i = 0; i < 20; i++) {
      await sleep(200);
      again = await answer(await post(e.url(0), message, headersOf(sid)));
      if (again.status !== 503) break;
    }
    assert.is(again?.status, 200);
    assert.equal(responseOf(again!.messages, 31), { jsonrpc: '2.0', id: 31, result: { echo: message.params } });
    // and a later re-send replays it
    const late = await answer(await post(e.url(0), message, headersOf(sid)));
    assert.equal(responseOf(late.messages, 31), { jsonrpc: '2.0', id: 31, result: { echo: message.params } });
    assert.is(runs(e.log, 31, 'slow'), 1);
  } finally {
    probe.disconnect();
    await e.close();
    await proxy.close();
  }
});

test('Redis: such a claim re-sent to another process: told it did not run (-32000) once the first process releases it; the next re-send runs it, once', async () => {
  const proxy = await stallingProxy(redis!.port, 'rq:', 600);
  const p = await redisEndpoints({ ...redis!, url: proxy.url }, 1, { commandTimeoutMs: 300 });
  const q = await redisEndpoints(redis!, 1, { prefix: p.prefix });
  try {
    const { sid } = await open(p.url(0));
    await (await post(p.url(0), req(40, 'slow', { delayMs: 0 }), headersOf(sid))).text();
    proxy.arm();
    const message = req(41, 'slow', { delayMs: 50 });
    const first = await post(p.url(0), message, headersOf(sid));
    assert.is(first.status, 503);
    await first.text();
    // at once, while the claim stands: the other process follows its stream
    const told = await answer(await post(q.url(0), message, headersOf(sid), AbortSignal.timeout(10_000)));
    assert.is(told.status, 200);
    const error = (responseOf(told.messages, 41) as { error?: { code: number; message: string } }).error;
    assert.is(error?.code, -32000);
    assert.match(error?.message ?? '', 'did not run');
    assert.is(runs(p.log, 41, 'slow') + runs(q.log, 41, 'slow'), 0);
    const again = await answer(await post(q.url(0), message, headersOf(sid)));
    assert.equal(responseOf(again.messages, 41), { jsonrpc: '2.0', id: 41, result: { echo: message.params } });
    assert.is(runs(p.log, 41, 'slow') + runs(q.log, 41, 'slow'), 1);
  } finally {
    await q.close();
    await p.close();
    await proxy.close();
  }
});

test('Redis: a request whose integer id is beyond 2^53 is answered with that exact id when a re-send on another process replays it', async () => {
  const e = await redisEndpoints(redis!, 2, {});
  try {
    const { sid } = await open(e.url(0));
    // JSON.parse would read 9007199254740993 as …992 (another request's id)
    const cases = ['9007199254740993', '-9007199254740993', '123456789012345678901234567890'];
    for (const id of cases) {
      const text = `{"jsonrpc":"2.0","id":${id},"method":"stream","params":{"n":1}}`;
      const first = await rawPost(e.url(0), sid, text);
      assert.ok(first.includes(`"id":${id},"result"`), `first answer of id ${id}:\n${first}`);
      const again = await rawPost(e.url(1), sid, text);
      assert.ok(again.includes(`"id":${id},"result"`), `replayed answer of id ${id}:\n${again}`);
    }
    assert.is(
      e.log.filter((r) => r.message.method === 'stream').length,
      cases.length,
      'each request ran once (the re-sends were replayed)',
    );
  } finally {
    await e.close();
  }
});

/** POSTs `text` as it is (its ids not re-written by JSON.stringify) in session `sid`; the answer's body as text. */
async function rawPost(url: string, sid: string, text: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headersOf(sid) },
    body: text,
  });
  assert.is(res.status, 200);
  return res.text();
}

test.run();
