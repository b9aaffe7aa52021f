/**
 * Issue 44, the search bound of the Redis event store's discard (`RedisEventStore.discardEvent`,
 * script DISCARD): the entry of an event whose store failed is found by its store call's token
 * however many events were stored on the stream after it (other processes on the shared
 * standalone stream, this one before a discard retried after a reconnection), up to the
 * stream's cap. Real redis-server, the store's own calls.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, type RedisServer } from '../scale/support.js';

let redis: RedisServer | undefined;
let stores: RedisStores | undefined;
const prefix = `bound${Date.now()}:`;

test.before(async () => {
  redis = await startRedis();
  stores = await connectRedisStores(redis.url, { prefix, maxEventsPerStream: 1000 });
});

test.after(async () => {
  await stores?.close();
  await redis?.stop();
});

const progress = (n: number): JSONRPCMessage =>
  ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: n } }) as JSONRPCMessage;

/** The progress numbers stored on stream `streamId` of session `s`, oldest first. */
async function storedProgress(s: string, streamId: string): Promise<number[]> {
  const out: number[] = [];
  for (const [, fields] of await stores!.client.xrange(`${prefix}e:${s}:${streamId}`, '-', '+')) {
    const m = fields[fields.indexOf('m') + 1];
    if (m) out.push((JSON.parse(m) as { params: { progress: number } }).params.progress);
  }
  return out;
}

test('an event with 300 stored after it (more than the newest 256 once looked through) is discarded, the others kept', async () => {
  const first = progress(0);
  await stores!.events.storeEvent('s', 'st', first);
  for (let i = 1; i <= 300; i++) await stores!.events.storeEvent('s', 'st', progress(i));
  await stores!.events.discardEvent!('s', 'st', first);
  const left = await storedProgress('s', 'st');
  assert.is(left.length, 300);
  assert.is(left[0], 1, 'progress 0 discarded');
  assert.is(left[299], 300);
});

test('an event 999 entries back in a stream of 1000 (its cap) is discarded', async () => {
  const kept = progress(-1);
  await stores!.events.storeEvent('s', 'full', kept);
  for (let i = 1; i <= 999; i++) await stores!.events.storeEvent('s', 'full', progress(i));
  await stores!.events.discardEvent!('s', 'full', kept);
  const left = await storedProgress('s', 'full');
  assert.is(left.length, 999);
  assert.is(left[0], 1, 'progress -1, the oldest of 1000, discarded');
});

test.run();
