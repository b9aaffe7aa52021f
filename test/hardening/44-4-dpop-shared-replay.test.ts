/**
 * Issue 44, finding 4: DPoP replay protection (RFC 9449 §11.1) spans the deployment. Each
 * process of a Redis deployment checks tokens on its own; the proof ids it accepted were kept
 * in its own memory, so a proof captured at one process was accepted at another. Here two
 * token checks stand for two processes, each with its own Redis connection to a real
 * `redis-server`: sharing `RedisStores.replay`, a proof accepted by one is refused by the other;
 * with the in-memory default it is not (the kind of fault, shown). Server nonces (§8): a check
 * configured for them refuses a proof without one with `use_dpop_nonce` and a `DPoP-Nonce`, and
 * a process given the same secret accepts the other's nonce. A replay store out of reach
 * accepts nothing: 503 with Retry-After.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerAuth } from '../../runtime/auth/resource.js';
import type { AuthVerdict } from '../../runtime/auth/types.js';
import { MemoryReplayStore, ReplayStoreFullError } from '../../runtime/auth/replay.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { accessToken, dpopHolder, issuer, jwks } from './auth-kit.js';

const resource = 'https://mcp.example.test/mcp';
let redis: RedisServer;
let one: RedisStores;
let two: RedisStores;

test.before(async () => {
  redis = await startRedis();
  one = await connectRedisStores(redis.url, { prefix: 'dp:' });
  two = await connectRedisStores(redis.url, { prefix: 'dp:', commandTimeoutMs: 500 });
});
test.after(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const holder = await dpopHolder();
const token = await accessToken(resource, 'frank', holder.jkt);
const request = (proof: string) => ({
  method: 'POST',
  headers: { authorization: `DPoP ${token}`, dpop: proof },
  url: '/mcp',
});
const subject = (v: AuthVerdict): string =>
  'auth' in v ? (v.auth.subject ?? '') : `${v.refusal.status} ${v.refusal.message}`;

test('a proof accepted by one process is refused by another that shares the Redis replay store', async () => {
  const atOne = bearerAuth({ resource, issuer, jwks, dpop: { replay: one.replay } });
  const atTwo = bearerAuth({ resource, issuer, jwks, dpop: { replay: two.replay } });
  for (let i = 0; i < 5; i++) {
    const proof = await holder.proof('POST', resource, token);
    assert.is(subject(await atOne(request(proof))), 'frank');
    const replayed = await atTwo(request(proof));
    assert.ok('refusal' in replayed);
    if ('refusal' in replayed) {
      assert.is(replayed.refusal.status, 401);
      assert.match(replayed.refusal.headers?.['WWW-Authenticate'] ?? '', /invalid_dpop_proof.*replayed/);
    }
  }
  // the key expires with the proof's acceptance window: Redis holds no more than that
  const keys = await one.client.keys('dp:j:*');
  assert.is(keys.length, 5);
  const ttl = await one.client.pttl(keys[0]);
  assert.ok(ttl > 0 && ttl <= 62_000, `ttl ${ttl}`);
});

test('the kind of fault: each process remembering alone accepts the captured proof twice', async () => {
  const atOne = bearerAuth({ resource, issuer, jwks, dpop: {} });
  const atTwo = bearerAuth({ resource, issuer, jwks, dpop: {} });
  const proof = await holder.proof('POST', resource, token);
  assert.is(subject(await atOne(request(proof))), 'frank');
  assert.is(subject(await atTwo(request(proof))), 'frank');
  // and each refuses its own replay
  assert.match(subject(await atOne(request(proof))), /^401 .*replayed/);
});

test('server nonces (RFC 9449 §8): use_dpop_nonce with a DPoP-Nonce; a nonce of one process is current at the other', async () => {
  const secret = 'a shared secret of at least thirty-two bytes';
  const atOne = bearerAuth({ resource, issuer, jwks, dpop: { replay: one.replay, nonce: { secret } } });
  const atTwo = bearerAuth({ resource, issuer, jwks, dpop: { replay: two.replay, nonce: { secret } } });
  const first = await atOne(request(await holder.proof('POST', resource, token)));
  assert.ok('refusal' in first);
  if (!('refusal' in first)) return;
  assert.is(first.refusal.status, 401);
  assert.match(
    first.refusal.headers?.['WWW-Authenticate'] ?? '',
    /^DPoP resource_metadata="[^"]*", error="use_dpop_nonce"/,
  );
  const nonce = first.refusal.headers?.['DPoP-Nonce'];
  assert.type(nonce, 'string');
  assert.is(subject(await atTwo(request(await holder.proof('POST', resource, token, nonce)))), 'frank');
  const wrong = await atTwo(request(await holder.proof('POST', resource, token, `${nonce}x`)));
  assert.match(subject(wrong), /^401 .*nonce is not current/);
  // another secret does not accept it
  const other = bearerAuth({
    resource,
    issuer,
    jwks,
    dpop: { nonce: { secret: 'another secret of at least thirty-two bytes' } },
  });
  assert.match(subject(await other(request(await holder.proof('POST', resource, token, nonce)))), /^401 /);
});

test('a replay store out of reach accepts nothing: 503 with Retry-After', async () => {
  const atTwo = bearerAuth({ resource, issuer, jwks, dpop: { replay: two.replay } });
  redis.pause(true);
  try {
    const v = await atTwo(request(await holder.proof('POST', resource, token)));
    assert.ok('refusal' in v);
    if ('refusal' in v) {
      assert.is(v.refusal.status, 503);
      assert.is(v.refusal.headers?.['Retry-After'], '5');
    }
  } finally {
    redis.pause(false);
  }
});

test('the memory store is bounded: full of unexpired ids it refuses (503) rather than forget one', async () => {
  const store = new MemoryReplayStore({ maxEntries: 2 });
  const later = Date.now() + 60_000;
  assert.is(await store.claim('a', later), true);
  assert.is(await store.claim('a', later), false);
  assert.is(await store.claim('b', later), true);
  try {
    await store.claim('c', later);
    assert.unreachable('a third value was claimed');
  } catch (e) {
    assert.instance(e, ReplayStoreFullError);
  }
  // expired values make room
  const soon = new MemoryReplayStore({ maxEntries: 1 });
  assert.is(await soon.claim('x', Date.now() + 20), true);
  await new Promise((r) => setTimeout(r, 40));
  assert.is(await soon.claim('y', Date.now() + 60_000), true);
  assert.is(soon.size, 1);
  const check = bearerAuth({ resource, issuer, jwks, dpop: { replay: store } });
  const v = await check(request(await holder.proof('POST', resource, token)));
  assert.match(subject(v), /^503 /);
});

test.run();
