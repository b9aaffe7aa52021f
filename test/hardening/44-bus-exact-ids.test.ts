/**
 * Issue 44, the Redis notification bus: a JSON-RPC message that crosses to another process
 * keeps its integer ids beyond ±(2^53 − 1) exact. A client's `notifications/cancelled` for
 * request 9007199254740993 must cancel that request in the process that runs it (not …992),
 * and its answer to a server → client request must complete the request of that id. Two
 * connections of a real redis-server, one publishing and one listening, as two processes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BusMessage } from '../../runtime/stores/bus.js';
import { exactField, exactIds } from '../../runtime/jsonrpc/message.js';
import { connectRedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis } from '../scale/support.js';

/** A message as an endpoint parses it from a peer's text: exact ids kept. */
function parsed(text: string): Record<string, unknown> {
  const m = JSON.parse(text) as Record<string, unknown>;
  exactIds(m, text);
  return m;
}

const BIG = '9007199254740993';

test('Redis bus: a cancellation, an answer and a standalone message keep ids beyond 2^53 exact across processes', async () => {
  const redis = await startRedis();
  const a = await connectRedisStores(redis.url);
  const b = await connectRedisStores(redis.url);
  try {
    const got: BusMessage[] = [];
    const off = b.bus.subscribe((m) => {
      if (m.from === a.bus.processId) got.push(m);
    });
    // the subscription is live once a message of its own comes back
    for (let seen = false; !seen; ) {
      const mine = new Promise<void>((r) => {
        const o = b.bus.subscribe((m) => m.topic === 'probe' && (o(), r()));
      });
      await b.bus.publish({ topic: 'probe', sessionId: 's' });
      seen = await Promise.race([mine.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
    }
    const cancelled = parsed(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${BIG},"reason":"x"}}`,
    );
    const answer = parsed(`{"jsonrpc":"2.0","id":${BIG},"result":{"action":"accept"}}`);
    const progress = parsed(
      `{"jsonrpc":"2.0","method":"tools/call","id":-${BIG},"params":{"name":"t","_meta":{"progressToken":${BIG}}}}`,
    );
    await a.bus.publish({ topic: 'inbound', sessionId: 's', payload: cancelled });
    await a.bus.publish({ topic: 'inbound', sessionId: 's', payload: answer });
    await a.bus.publish({ topic: 'standalone', sessionId: 's', payload: { eventId: 'e1', message: progress } });
    await a.bus.publish({ topic: 'inbound', sessionId: 's', payload: parsed('{"jsonrpc":"2.0","id":7,"result":{}}') });
    const deadline = Date.now() + 5000;
    while (got.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    off();
    assert.is(got.length, 4);
    const [c, r, s, small] = got.map((m) => m.payload as Record<string, unknown>);
    assert.is(exactField(c.params as Record<string, unknown>, 'requestId'), BigInt(BIG));
    assert.is((c.params as Record<string, unknown>).reason, 'x');
    assert.is(r.id, BigInt(BIG));
    assert.equal(r.result, { action: 'accept' });
    const inner = s.message as Record<string, unknown>;
    assert.is(s.eventId, 'e1');
    assert.is(inner.id, -BigInt(BIG));
    const meta = (inner.params as Record<string, unknown>)._meta as Record<string, unknown>;
    assert.is(exactField(meta, 'progressToken'), BigInt(BIG));
    assert.is(small.id, 7, 'a safe id stays a number');
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

test.run();
