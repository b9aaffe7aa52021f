/**
 * Issue 44, request replay: the bound on a session's request claims counts the requests in
 * flight only. A finished request's claim is kept (`ttlMs`, for its re-sends) but holds no
 * slot, so that a session that ran many requests is not refused "too many requests in flight"
 * for the claims' lifetime; requests still running are bounded as before. The memory event
 * store, and the Redis one on a real redis-server; the refusal's `Retry-After` (RFC 9110
 * §10.2.3) says when a live claim's lease ends (whole seconds, 1 to 30), over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClaimLimitError } from '../../runtime/stores/events.js';
import { MemoryEventStore } from '../../runtime/stores/events-memory.js';
import type { RedisEventStore } from '../../runtime/stores/redis/events.js';
import { connectRedisStores } from '../../runtime/stores/redis/redis.js';
import { post, req, sleep } from '../runtime/transport/http/session/helpers.js';
import { headersOf, open, redisEndpoints, runs, suiteRedis } from './replay-kit.js';

test('memory store: finished requests hold no claim slot; running ones are bounded by maxClaims', () => {
  let now = 0;
  const store = new MemoryEventStore({ ttlMs: 60_000, maxClaims: 2, now: () => now });
  // five requests one after another, each finished before the next: none is refused
  for (let i = 1; i <= 5; i++) {
    const primed = store.storeEvent('s', `a.${i}`, null);
    assert.is(store.claimRequest('s', `k${i}`, `d ${primed}`, `a.${i}`), undefined, `request ${i} claimed`);
    now += 10;
    store.streamFinished('s', `a.${i}`);
  }
  // their claims are kept for re-sends
  assert.is(typeof store.claimRequest('s', 'k1', 'other', 'a.9'), 'string', 'a finished claim still answers');
  // two running: a third is refused, nothing claimed
  const p6 = store.storeEvent('s', 'a.6', null);
  const p7 = store.storeEvent('s', 'a.7', null);
  assert.is(store.claimRequest('s', 'k6', `d ${p6}`, 'a.6'), undefined);
  assert.is(store.claimRequest('s', 'k7', `d ${p7}`, 'a.7'), undefined);
  const p8 = store.storeEvent('s', 'a.8', null);
  assert.throws(
    () => store.claimRequest('s', 'k8', `d ${p8}`, 'a.8'),
    (e: Error) => e instanceof ClaimLimitError,
  );
  // one finishes: room again
  store.streamFinished('s', 'a.6');
  assert.is(store.claimRequest('s', 'k8', `d ${p8}`, 'a.8'), undefined);
  // a session cleared and begun again starts with no live claim
  store.clear('s');
  const q1 = store.storeEvent('s', 'b.1', null);
  const q2 = store.storeEvent('s', 'b.2', null);
  assert.is(store.claimRequest('s', 'm1', `d ${q1}`, 'b.1'), undefined);
  assert.is(store.claimRequest('s', 'm2', `d ${q2}`, 'b.2'), undefined);
});

const redis = suiteRedis(test);

test('Redis store: finished requests hold no claim slot (kept for re-sends); running ones are bounded by maxClaims', async () => {
  const stores = await connectRedisStores(redis().url, { maxClaims: 2, eventTtlMs: 60_000, prefix: 'live1:' });
  const events = stores.events as RedisEventStore;
  try {
    for (let i = 1; i <= 5; i++) {
      const primed = await events.storeEvent('s', `a.${i}`, null);
      assert.is(await events.claimRequest('s', `k${i}`, `d ${primed}`, `a.${i}`), undefined, `request ${i} claimed`);
      await events.streamFinished('s', `a.${i}`);
    }
    const first = await events.claimRequest('s', 'k1', 'other', 'a.9');
    assert.ok(first?.startsWith('d a.1_'), 'a finished claim still answers');
    const p6 = await events.storeEvent('s', 'a.6', null);
    const p7 = await events.storeEvent('s', 'a.7', null);
    assert.is(await events.claimRequest('s', 'k6', `d ${p6}`, 'a.6'), undefined);
    assert.is(await events.claimRequest('s', 'k7', `d ${p7}`, 'a.7'), undefined);
    const p8 = await events.storeEvent('s', 'a.8', null);
    let refused: unknown;
    await events.claimRequest('s', 'k8', `d ${p8}`, 'a.8').catch((e: unknown) => (refused = e));
    assert.instance(refused, ClaimLimitError);
    await events.streamFinished('s', 'a.6');
    assert.is(await events.claimRequest('s', 'k8', `d ${p8}`, 'a.8'), undefined);
  } finally {
    await stores.close();
  }
});

test("Redis store: a refused claim's retryAfterMs is the time until the soonest live lease ends", async () => {
  const stores = await connectRedisStores(redis().url, { maxClaims: 1, eventTtlMs: 10_000, prefix: 'live2:' });
  try {
    const t0 = Date.now();
    // no stream given: its lease is not renewed, it ends 10 s after the claim
    assert.is(await (stores.events as RedisEventStore).claimRequest('s', 'k1', 'd x_1'), undefined);
    let refused: ClaimLimitError | undefined;
    await (stores.events as RedisEventStore)
      .claimRequest('s', 'k2', 'd x_2')
      .catch((e: ClaimLimitError) => (refused = e));
    const t2 = Date.now();
    assert.instance(refused, ClaimLimitError);
    const ms = refused!.retryAfterMs!;
    assert.ok(ms <= 10_000 && ms >= 10_000 - (t2 - t0), `retryAfterMs ${ms}, ${t2 - t0} ms after the claim`);
  } finally {
    await stores.close();
  }
});

for (const [ttl, expect] of [
  [20_000, 'the seconds until the running claim lease ends (renewed every third of it)'],
  [120_000, 'bounded: 30'],
] as const) {
  test(`Redis endpoint, maxClaims 1, eventTtlMs ${ttl}: the 503 refusal's Retry-After is ${expect}`, async () => {
    const e = await redisEndpoints(redis(), 1, { maxClaims: 1, eventTtlMs: ttl });
    try {
      const { sid } = await open(e.url(0));
      const first = post(e.url(0), req(1, 'slow', { delayMs: 1500 }), headersOf(sid)).then((r) => r.text());
      first.catch(() => undefined);
      for (let i = 0; i < 50 && runs(e.log, 1, 'slow') === 0; i++) await sleep(20);
      assert.is(runs(e.log, 1, 'slow'), 1, 'dispatched');
      const refused = await post(e.url(0), req(2, 'slow', { delayMs: 0 }), headersOf(sid));
      await refused.text();
      assert.is(refused.status, 503);
      const seconds = Number(refused.headers.get('retry-after'));
      if (ttl === 20_000) assert.ok(seconds > 1 && seconds <= 20, `Retry-After ${seconds}`);
      else assert.is(seconds, 30);
      assert.is(runs(e.log, 2, 'slow'), 0);
      await first;
    } finally {
      await e.close();
    }
  });
}

test.run();
