/**
 * Issue 44, a progress event delivered twice after a dropped Redis connection: Redis runs the
 * store of progress 2 but its reply never arrives (a TCP proxy holds it), then the proxy cuts the
 * connection, so the store fails, the event goes out live without an ID, and its discard cannot
 * be sent while the connection is down (it stays down for longer than the command timeout). Once ioredis has reconnected, the discard is sent again:
 * a client that resumes from the event ID before progress 2 does not get it a second time.
 * Over real node:http (`serveHttp`, the endpoint of `mcpgen serve --http --redis`), a real
 * redis-server behind a real TCP proxy.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp, type HttpServe } from '../../cli/serve/http.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, TestSession, V, type RedisServer } from '../scale/support.js';
import { CutCall } from './cut-call.js';
import { steps } from './steps-serve.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP proxy to `port` on 127.0.0.1 that can hold what the server sends back, and cut every connection. */
class CuttingProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private holding = false;
  private refuseUntil = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: number): Promise<CuttingProxy> {
    let proxy!: CuttingProxy;
    const server = createServer((client) => {
      if (Date.now() < proxy.refuseUntil) return void client.destroy();
      const upstream = new (client.constructor as typeof Socket)();
      upstream.connect(target, '127.0.0.1');
      const pair: [Socket, Socket] = [client, upstream];
      proxy.pairs.add(pair);
      const end = (): void => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (d) => upstream.write(d));
      // while holding, replies are dropped: they never reach the client
      upstream.on('data', (d) => proxy.holding || client.write(d));
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    proxy = new CuttingProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** From now on, what Redis answers is dropped. */
  hold(): void {
    this.holding = true;
  }

  /** Cuts every connection and refuses new ones for `refuseMs` ms; after that they pass everything again. */
  cut(refuseMs = 0): void {
    this.holding = false;
    this.refuseUntil = Date.now() + refuseMs;
    for (const [c, u] of [...this.pairs]) {
      c.destroy();
      u.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let redis: RedisServer | undefined;
let proxy: CuttingProxy | undefined;
let stores: RedisStores | undefined;
let served: HttpServe | undefined;
let direct: Redis | undefined;
const prefix = `drop${Date.now()}:`;

test.before(async () => {
  redis = await startRedis();
  proxy = await CuttingProxy.start(redis.port);
  direct = new Redis(redis.url);
  stores = await connectRedisStores(`redis://127.0.0.1:${proxy.port}`, { prefix, commandTimeoutMs: 500 });
  served = await serveHttp(await loadRevision(V), {
    port: 0,
    shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
    extend: steps,
    logger: { warn: () => undefined },
  });
});

test.after(async () => {
  await served?.close();
  await stores?.close();
  await proxy?.close();
  direct?.disconnect();
  await redis?.stop();
});

/** Whether Redis holds, in a stream under the prefix, an event carrying progress `n`. */
async function stored(n: number): Promise<boolean> {
  for (const key of await direct!.keys(`${prefix}e:*`))
    for (const [, fields] of await direct!.xrange(key, '-', '+'))
      if (fields.some((f) => f.includes(`"progress":${n},`))) return true;
  return false;
}

test('an event stored just before the connection dropped is discarded once it is back, never replayed', async () => {
  const s = new TestSession(served!.url);
  await s.initialize();
  // progress 1 at 0 s (stored), 2 at 4 s (stored by Redis, its reply lost in the cut), 3 at 8 s, result at 12 s
  const call = await CutCall.post(served!.url, s.sessionId!, 9, {
    name: 'steps',
    arguments: { key: 'k', n: 3, ms: 4000 },
    _meta: { progressToken: 'p' },
  });
  const seen: number[] = [];
  const progress = (m: Obj): void => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
  };
  await call.readUntil((m) => {
    progress(m);
    return seen.length >= 1;
  });
  assert.ok(call.lastEventId, 'progress 1 stored: an event ID to resume from');
  const before = call.lastEventId;
  proxy!.hold();
  const deadline = Date.now() + 15_000;
  while (!(await stored(2))) {
    assert.ok(Date.now() < deadline, 'Redis received the store of progress 2');
    await sleep(20);
  }
  // cut, and Redis unreachable for 1.5 s: the store fails (timed out) while disconnected, and so
  // does the discard of progress 2 sent after it
  proxy!.cut(1500);
  await call.readUntil((m) => {
    progress(m);
    return seen.length >= 2;
  });
  assert.equal(seen, [1, 2]);
  assert.is(call.lastEventId, before, 'progress 2 went out without an ID');
  // ioredis reconnects (within a second of the 1.5 s); then the client's connection breaks
  while (stores!.client.status !== 'ready') {
    assert.ok(Date.now() < deadline, 'the command connection is back');
    await sleep(20);
  }
  await sleep(200);
  call.cut();
  let response: Obj | undefined;
  await call.resume((m) => {
    progress(m);
    if (m.id === 9) response = m;
    return response !== undefined;
  });
  assert.equal(response?.result, { content: [{ type: 'text', text: 'done k' }] }, JSON.stringify(response));
  // (progress 3, sent while the client is away, may be lost if its store fails under load: at most once)
  assert.equal(seen.slice(0, 2), [1, 2]);
  assert.equal(seen, [...new Set(seen)].sort(), 'each progress notification at most once, in order');
  assert.not.ok(await stored(2), 'progress 2 discarded from the log');
  await s.close();
});

test.run();
