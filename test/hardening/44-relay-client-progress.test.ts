/**
 * Issue 44, a shared deployment: the progress a client reports about a server-to-client request
 * (`notifications/progress` naming the request's `progressToken`, 2025-11-25
 * basic/utilities/progress) may be POSTed to any process of the deployment; it reaches the
 * process whose session object sent the request (the bus relays it, as it relays responses and
 * `notifications/cancelled`), once. Two endpoints sharing a real redis-server, over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startRedis, type RedisServer } from '../scale/support.js';
import { post, sleep } from '../runtime/transport/http/session/helpers.js';
import { headersOf, open, redisEndpoints } from './replay-kit.js';

test("a client's progress about a server-to-client request, POSTed to another process, reaches the sender once", async () => {
  let redis: RedisServer | undefined;
  let e: Awaited<ReturnType<typeof redisEndpoints>> | undefined;
  try {
    redis = await startRedis();
    e = await redisEndpoints(redis, 2, { prefix: `relay${Date.now()}:` }, { requestReplay: false });
    const { log, url } = e;
    const { sid } = await open(url(0));
    const sender = log.find((r) => r.message.method === 'initialize')!.session;
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
      log.filter((r) => r.message.method === 'notifications/progress' && r.session === sender).map((r) => r.message);
    for (let i = 0; i < 100 && atSender().length === 0; i++) await sleep(20);
    await sleep(100);
    assert.equal(atSender(), [progress]);
  } finally {
    await e?.close();
    await redis?.stop();
  }
});

test.run();
