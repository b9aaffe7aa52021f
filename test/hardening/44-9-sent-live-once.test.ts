/**
 * Issue 44, a progress event delivered twice after a Redis stall: the store of an event times out
 * while redis-server is paused (SIGSTOP), so the server writes the event on the live connection
 * without an ID; Redis runs the queued command once it continues, so the event is in the stream's
 * log. A client that then resumes from the event ID before it must not get it a second time.
 * Over real node:http (`serveHttp`, the endpoint of `mcpgen serve --http --redis`) and a real
 * redis-server; the memory event store, which has no timeouts, for comparison.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestSession } from '../scale/support.js';
import { CutCall } from './cut-call.js';
import { suiteStepsServe } from './steps-serve.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const endpoint = suiteStepsServe(test, 'live', 500);

test('an event whose store timed out goes out live without an ID and is never replayed from the log', async () => {
  const { redis, served } = endpoint();
  const s = new TestSession(served.url);
  await s.initialize();
  // progress 1 at 0 s (stored), 2 at 2 s (its store times out: Redis paused), 3 at 4 s, result at 6 s
  const call = await CutCall.post(served.url, s.sessionId!, 9, {
    name: 'steps',
    arguments: { key: 'k', n: 3, ms: 2000 },
    _meta: { progressToken: 'p' },
  });
  const seen: number[] = [];
  await call.readUntil((m) => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
    return seen.length >= 1;
  });
  assert.ok(call.lastEventId, 'progress 1 stored: an event ID to resume from');
  const before = call.lastEventId;
  redis.pause(true);
  await call.readUntil((m) => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
    return seen.length >= 2;
  });
  assert.equal(seen, [1, 2]);
  assert.is(call.lastEventId, before, 'progress 2 went out without an ID');
  // Redis continues and runs the queued store of progress 2; then the connection breaks
  redis.pause(false);
  await sleep(500);
  call.cut();
  let response: Obj | undefined;
  await call.resume((m) => {
    if (m.method === 'notifications/progress') seen.push((m.params as Obj).progress as number);
    else if (m.id === 9) response = m;
    return response !== undefined;
  });
  assert.equal(response?.result, { content: [{ type: 'text', text: 'done k' }] }, JSON.stringify(response));
  assert.equal(seen, [1, 2, 3], 'each progress notification once, in order');
  await s.close();
});

test.run();
