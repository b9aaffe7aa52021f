/**
 * Issue 44, request replay when Redis stalls (runtime/stores/redis/events.ts claims, the
 * server's session-replay.ts): a claim whose owner is alive outlives a Redis stall longer than
 * its TTL, so that a re-send after the stall (to the same process or another) is answered from
 * the running request's stream and never runs it a second time; the claim of a process that is
 * gone is taken over once its lease lapsed (kill -9: the request may run again then, as before).
 * Real redis-server (SIGSTOP/SIGCONT), endpoints in this process sharing it, real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import type { SharedEventStore } from '../../runtime/stores/events.js';
import { ABANDONED_MAX } from '../../runtime/transport/http/session/session-replay.js';
import { messagesOf, post, readSse, req, sleep } from '../runtime/transport/http/session/helpers.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { headersOf, open, postDispatchedThenCut, redisEndpoints, responseOf, runs } from './replay-kit.js';

/** The status and messages of a POST's answer (JSON or SSE). */
async function answer(res: Response): Promise<{ status: number; messages: JSONRPCMessage[] }> {
  const type = res.headers.get('content-type') ?? '';
  const messages = type.includes('event-stream')
    ? messagesOf(await readSse(res))
    : [(await res.json()) as JSONRPCMessage];
  return { status: res.status, messages };
}

/** POSTs `message` until it is not refused 503 (nothing ran: the client sends again), at most `tries` times. */
async function sendUntilAccepted(url: string, sid: string, message: JSONRPCMessage, tries = 20) {
  let last: Awaited<ReturnType<typeof answer>> | undefined;
  for (let i = 0; i < tries; i++) {
    last = await answer(await post(url, message, headersOf(sid), AbortSignal.timeout(20_000)));
    if (last.status !== 503) return last;
    await sleep(250);
  }
  return last!;
}

let redis: RedisServer | undefined;
test.before(async () => {
  redis = await startRedis();
});
test.after(async () => {
  await redis?.stop();
});

for (const target of ['the same process', 'another process'] as const) {
  test(`Redis stalled 2 s (eventTtlMs 1000) while a 3-s call runs: its re-send to ${target} after the stall is answered from its stream, run once`, async () => {
    const errors: Error[] = [];
    const e = await redisEndpoints(redis!, 2, {
      eventTtlMs: 1000,
      commandTimeoutMs: 400,
      onError: (err) => errors.push(err),
    });
    try {
      const { sid } = await open(e.url(0));
      const message = req(51, 'slow', { delayMs: 3000 });
      // the client's connection is cut once the request was dispatched: it holds no cursor
      await postDispatchedThenCut(e.url(0), sid, message, e.log);
      redis!.pause(true);
      try {
        await sleep(2000);
      } finally {
        redis!.pause(false);
      }
      const again = await sendUntilAccepted(e.url(target === 'the same process' ? 0 : 1), sid, message);
      assert.is(again.status, 200);
      assert.equal(responseOf(again.messages, 51), { jsonrpc: '2.0', id: 51, result: { echo: message.params } });
      assert.is(runs(e.log, 51, 'slow'), 1, 'run once');
    } finally {
      redis!.pause(false);
      await e.close();
    }
  });
}

test('Redis: after a stall the owner re-asserts a claim that lapsed (its renewal failed): the claim key is back with its text', async () => {
  const e = await redisEndpoints(redis!, 1, { eventTtlMs: 1000, commandTimeoutMs: 400 });
  const probe = new Redis(redis!.port, '127.0.0.1');
  try {
    const { sid } = await open(e.url(0));
    await postDispatchedThenCut(e.url(0), sid, req(52, 'slow', { delayMs: 3500 }), e.log);
    const [claimKey] = await probe.keys(`${e.prefix}rq:*`);
    assert.ok(claimKey, 'claimed');
    const text = await probe.get(claimKey);
    redis!.pause(true);
    try {
      await sleep(2000);
    } finally {
      redis!.pause(false);
    }
    // the owner's next renewal (every third of the TTL) holds it again
    await sleep(800);
    assert.is(await probe.get(claimKey), text);
    assert.ok((await probe.zscore(`${e.prefix}rqs:${sid}`, claimKey.slice(claimKey.lastIndexOf(':') + 1))) !== null);
  } finally {
    redis!.pause(false);
    probe.disconnect();
    await e.close();
  }
});

test('Redis: the claim of a process that is gone (its stores stopped, as by kill -9) is followed (-32000 "ended before answering") until its lease lapsed, then taken over', async () => {
  const e = await redisEndpoints(redis!, 2, { eventTtlMs: 3000, livenessMs: 300 });
  const probe = new Redis(redis!.port, '127.0.0.1');
  try {
    const { sid } = await open(e.url(0));
    const message = req(53, 'slow', { delayMs: 6000 });
    await postDispatchedThenCut(e.url(0), sid, message, e.log);
    const [claimKey] = await probe.keys(`${e.prefix}rq:${sid}:*`);
    assert.ok(claimKey, 'claimed');
    /** When the claim's lease ends (ms, as Date.now()); 0 when it holds none. */
    const leaseEnd = async () =>
      Number((await probe.zscore(`${e.prefix}rqs:${sid}`, claimKey.slice(claimKey.lastIndexOf(':') + 1))) ?? 0);
    // the owner stops renewing and beating (close() also drops its liveness record at once)
    await e.stores[0].close();
    const endedBeforeAnswering = async (what: string) => {
      const lost = await answer(await post(e.url(1), message, headersOf(sid), AbortSignal.timeout(10_000)));
      const error = (responseOf(lost.messages, 53) as { error?: { code: number; message: string } }).error;
      assert.is(error?.code, -32000, what);
      assert.match(error?.message ?? '', 'ended before answering', what);
      assert.is(runs(e.log, 53, 'slow'), 1, what);
    };
    // followed until process 1 found the owner gone (two checks livenessMs apart)
    await endedBeforeAnswering('a re-send as the owner went');
    // the owner is known gone now, but the lease (3 s after its last renewal) still holds: not taken over
    assert.ok((await leaseEnd()) > Date.now() + 500, 'the lease still holds');
    await endedBeforeAnswering('a re-send within the lease, the owner gone');
    // the lease lapsed and the owner is gone: the id is free again
    for (let i = 0; i < 100 && (await leaseEnd()) > Date.now() - 50; i++) await sleep(50);
    const again = await answer(await post(e.url(1), message, headersOf(sid), AbortSignal.timeout(10_000)));
    assert.equal(responseOf(again.messages, 53), { jsonrpc: '2.0', id: 53, result: { echo: message.params } });
    assert.is(runs(e.log, 53, 'slow'), 2);
  } finally {
    probe.disconnect();
    await e.close();
  }
});

/**
 * The Redis event store of an endpoint whose claim replies are lost while `down.on` (the claim
 * is stored, the caller gets an error, as after a command timeout) and whose releases fail then.
 */
function losingReplies(down: { on: boolean }) {
  return (events: SharedEventStore): SharedEventStore => ({
    storeEvent: (...a) => events.storeEvent(...a),
    replayEventsAfter: (...a) => events.replayEventsAfter(...a),
    streamFinished: (...a) => events.streamFinished!(...a),
    clear: (...a) => events.clear?.(...a),
    streamOpened: (...a) => events.streamOpened(...a),
    follow: (...a) => events.follow(...a),
    async claimRequest(...a) {
      const prior = await events.claimRequest!(...a);
      if (down.on) throw new Error('Command timed out');
      return prior;
    },
    async releaseClaim(...a) {
      if (down.on) throw new Error('Command timed out');
      return events.releaseClaim!(...a);
    },
  });
}

test(`Redis: past ${ABANDONED_MAX} claims whose reply was lost in a session, new requests are refused 503 (nothing claimed) and none is forgotten: each re-send then runs once`, async () => {
  const down = { on: false };
  const e = await redisEndpoints(redis!, 1, {}, { wrap: losingReplies(down) });
  const probe = new Redis(redis!.port, '127.0.0.1');
  try {
    const { sid } = await open(e.url(0));
    down.on = true;
    const n = ABANDONED_MAX + 4;
    for (let next = 1; next <= n; ) {
      const batch = [];
      for (let i = 0; i < 16 && next <= n; i++, next++)
        batch.push(post(e.url(0), req(next, 'slow', { delayMs: 0 }), headersOf(sid)).then(answer));
      for (const a of await Promise.all(batch)) assert.is(a.status, 503);
    }
    assert.is(e.log.filter((r) => r.message.method === 'slow').length, 0, 'nothing ran');
    const claims = (await probe.keys(`${e.prefix}rq:${sid}:*`)).length;
    assert.is(claims, ABANDONED_MAX, 'no claim past the bound');
    down.on = false;
    for (const id of [1, 2, ABANDONED_MAX, n]) {
      const again = await answer(
        await post(e.url(0), req(id, 'slow', { delayMs: 0 }), headersOf(sid), AbortSignal.timeout(5000)),
      );
      assert.is(again.status, 200, `re-send of ${id}`);
      assert.equal(responseOf(again.messages, id), { jsonrpc: '2.0', id, result: { echo: { delayMs: 0 } } });
      assert.is(runs(e.log, id, 'slow'), 1);
    }
  } finally {
    probe.disconnect();
    await e.close();
  }
});

test.run();
