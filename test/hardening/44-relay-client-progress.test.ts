/**
 * Issue 44, a shared deployment: the progress a client reports about a server-to-client request
 * (`notifications/progress` naming the request's `progressToken`, 2025-11-25
 * basic/utilities/progress) may be POSTed to any process of the deployment; it reaches the
 * process whose session object sent the request (the bus relays it, as it relays responses and
 * `notifications/cancelled`), once. Two endpoints sharing a real redis-server, over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { echoPeer, post, sleep, type Received } from '../runtime/transport/http/session/helpers.js';
import { SESSION_TABLES } from '../runtime/transport/http/tables.js';
import { headersOf, open } from './replay-kit.js';

test("a client's progress about a server-to-client request, POSTed to another process, reaches the sender once", async () => {
  let redis: RedisServer | undefined;
  const stores: RedisStores[] = [];
  const servers: Array<ReturnType<typeof createServer>> = [];
  try {
    redis = await startRedis();
    const prefix = `relay${Date.now()}:`;
    const logs: Received[][] = [[], []];
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await connectRedisStores(redis.url, { prefix });
      stores.push(s);
      const log = logs[i];
      const handler = createStreamableHttpHandler({
        tables: SESSION_TABLES,
        keepAliveMs: 0,
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
    const { sid } = await open(url(0));
    const sender = logs[0].find((r) => r.message.method === 'initialize')!.session;
    // process 0 asks the client something, with a progress token (ids are unique per process)
    const id = `${sender.requestIdPrefix ?? ''}1`;
    await sender.send({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { progressToken: id } } });
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: id, progress: 1, total: 2 },
    };
    const res = await post(url(1), progress, headersOf(sid));
    assert.is(res.status, 202);
    await res.text();
    const atSender = () =>
      logs[0]
        .filter((r) => r.message.method === 'notifications/progress' && r.session === sender)
        .map((r) => r.message);
    for (let i = 0; i < 100 && atSender().length === 0; i++) await sleep(20);
    await sleep(100);
    assert.equal(atSender(), [progress]);
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
    for (const s of stores) await s.close();
    await redis?.stop();
  }
});

test.run();
