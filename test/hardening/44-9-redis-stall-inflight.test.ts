/**
 * Issue 44, operations: a Redis that stalls (redis-server SIGSTOPped for 10 s) while calls run.
 * Their progress and results are written through the Redis event store, whose commands fail after
 * the command timeout (1 s here): a call already running is held for one timeout at most, not for
 * the stall's length; its events then go out on the live connection without an ID, and what a
 * client may not have got is stored once Redis answers again, so a client whose connection broke
 * during the stall resumes the stream and gets the call's result (no hang).
 * Over real node:http (`serveHttp`, the endpoint of `mcpgen serve --http --redis`) and a real
 * redis-server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestSession } from '../scale/support.js';
import { CutCall } from './cut-call.js';
import { suiteStepsServe } from './steps-serve.js';

type Obj = Record<string, unknown>;
const STALL_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const endpoint = suiteStepsServe(test, 'stall', 1000);

const progressOf = (events: Array<{ message: Obj }>): number[] =>
  events
    .filter((e) => e.message.method === 'notifications/progress')
    .map((e) => (e.message.params as Obj).progress as number);

test('a call running when Redis stalls ends long before the stall does, with all its progress and its result', async () => {
  const { redis, served } = endpoint();
  const s = new TestSession(served.url);
  await s.initialize();
  let continuedAt = 0;
  const stall = (async () => {
    await sleep(600);
    redis.pause(true);
    await sleep(STALL_MS);
    continuedAt = Date.now();
    redis.pause(false);
  })();
  // 12 steps of 250 ms: 3 s of work, the stall from 0.6 s to 10.6 s
  const ex = await s.request('tools/call', {
    name: 'steps',
    arguments: { key: 'k1', n: 12, ms: 250 },
    _meta: { progressToken: 'p1' },
  });
  const answeredAt = Date.now();
  await stall;
  assert.equal((ex.response as Obj).result, { content: [{ type: 'text', text: 'done k1' }] }, JSON.stringify(ex));
  assert.ok(answeredAt < continuedAt, `the result came ${answeredAt - continuedAt} ms after Redis answered again`);
  assert.equal(
    progressOf(ex.events),
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  assert.is(ex.resumed, 0);
  await s.close();
});

test('a connection that breaks during the stall: resumed after it, the stream gives the progress it missed and the result', async () => {
  const { redis, served } = endpoint();
  const s = new TestSession(served.url);
  await s.initialize();
  const call = await CutCall.post(served.url, s.sessionId!, 7, {
    name: 'steps',
    arguments: { key: 'k2', n: 8, ms: 250 },
    _meta: { progressToken: 'p2' },
  });
  // read up to the second progress notification (stored: it has an ID), then stall Redis and cut
  const seen: number[] = [];
  await call.readUntil((m) => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
    return seen.length >= 2;
  });
  assert.equal(seen, [1, 2]);
  assert.ok(call.lastEventId, 'an event ID to resume from');
  redis.pause(true);
  call.cut();
  // the tool ends during the stall (2 s of work); Redis answers again after it
  await sleep(4000);
  redis.pause(false);
  let response: Obj | undefined;
  const t0 = await call.resume((m) => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
    else if (m.id === 7) response = m;
    return response !== undefined;
  });
  assert.ok(Date.now() - t0 < 10_000, 'the resumed stream answered');
  assert.equal(response?.result, { content: [{ type: 'text', text: 'done k2' }] }, JSON.stringify(response));
  assert.equal(seen, [1, 2, 3, 4, 5, 6, 7, 8], 'each progress notification once, in order');
  await s.close();
});

test.run();
