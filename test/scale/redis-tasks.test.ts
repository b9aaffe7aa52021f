/**
 * The Redis task store against a real `redis-server`: owners kept apart, the lifecycle enforced
 * atomically (a change out of a terminal status refused, nothing changed), outcomes kept only
 * with a terminal status, `list` paged oldest first with opaque cursors (a bad one -32602),
 * every change published to subscribers of another connection, records expiring with `ttl`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { InvalidCursorError, TaskTransitionError, type TaskEvent } from '../../runtime/stores/tasks.js';
import { startRedis, type RedisServer } from './support.js';

let redis: RedisServer;
let a: RedisStores;
let b: RedisStores;
test.before(async () => {
  redis = await startRedis();
  a = await connectRedisStores(redis.url, { prefix: 'tk:' });
  b = await connectRedisStores(redis.url, { prefix: 'tk:' });
});
test.after(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

test('lifecycle, outcomes, owners and events across two connections', async () => {
  const events: TaskEvent[] = [];
  const off = b.tasks.subscribe((e) => events.push(e));
  await new Promise((r) => setTimeout(r, 50)); // the subscription is in place
  const t = await a.tasks.create('o1', { ttl: 60_000, pollInterval: 500 });
  assert.is(t.status, 'working');
  assert.equal(await b.tasks.get('o1', t.taskId), t);
  assert.is(await b.tasks.get('o2', t.taskId), undefined, 'another owner sees nothing');
  assert.is(await b.tasks.outcome('o1', t.taskId), undefined);
  const done = await b.tasks.update('o1', t.taskId, {
    status: 'completed',
    statusMessage: 'ok',
    outcome: { kind: 'result', result: { n: 1 } },
  });
  assert.is(done.status, 'completed');
  assert.is(done.statusMessage, 'ok');
  assert.equal(await a.tasks.outcome('o1', t.taskId), { kind: 'result', result: { n: 1 } });
  try {
    await a.tasks.update('o1', t.taskId, { status: 'cancelled' });
    assert.unreachable('a terminal task was changed');
  } catch (e) {
    assert.instance(e, TaskTransitionError);
    assert.is((e as TaskTransitionError).code, -32602);
  }
  assert.is((await a.tasks.get('o1', t.taskId))?.status, 'completed', 'nothing changed');
  for (const end = Date.now() + 2000; events.length < 2 && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(
    events.map((e) => [e.type, e.owner, e.task.status]),
    [
      ['created', 'o1', 'working'],
      ['updated', 'o1', 'completed'],
    ],
  );
  off();
});

test('list: oldest first, paged by opaque cursors; expired tasks leave it', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await a.tasks.create('lister', { ttl: 60_000 })).taskId);
  const short = await a.tasks.create('lister', { ttl: 150 });
  const p1 = await b.tasks.list('lister', { limit: 2 });
  assert.equal(
    p1.tasks.map((t) => t.taskId),
    ids.slice(0, 2),
  );
  const p2 = await b.tasks.list('lister', { limit: 2, cursor: p1.nextCursor });
  assert.equal(
    p2.tasks.map((t) => t.taskId),
    ids.slice(2, 4),
  );
  await new Promise((r) => setTimeout(r, 250));
  const p3 = await b.tasks.list('lister', { limit: 2, cursor: p2.nextCursor });
  assert.equal(
    p3.tasks.map((t) => t.taskId),
    ids.slice(4),
    'the expired task is gone',
  );
  assert.is(p3.nextCursor, undefined);
  assert.is(await a.tasks.get('lister', short.taskId), undefined);
  assert.is(await a.tasks.expired('lister', short.taskId), true);
  try {
    await a.tasks.list('lister', { cursor: 'not-a-cursor' });
    assert.unreachable('a bad cursor was accepted');
  } catch (e) {
    assert.instance(e, InvalidCursorError);
  }
});

test.run();
