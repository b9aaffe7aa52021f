/**
 * Issue 16, stateless revisions: two `mcpgen serve --rev 2026-07-28 --http 0 --redis <url>`
 * processes; a `subscriptions/listen` stream on either hears a list change made through the
 * other, once (the process that made it does not hear it again from the bus).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser } from '../../runtime/codec/sse.js';
import { startHttpServeProcess, type Served } from '../runtime/tasks/serve-process.js';
import { headersFor, request, V } from '../runtime/transport/http/stateless/helpers.js';
import { startRedis, type RedisServer } from './support.js';

type Obj = Record<string, unknown>;
let redis: RedisServer;
let serves: Served[] = [];

test.before(async () => {
  redis = await startRedis();
  serves = await Promise.all([0, 1].map(() => startHttpServeProcess(['--rev', V, '--redis', redis.url])));
});
test.after(async () => {
  await Promise.all(serves.map((s) => s.stop()));
  await redis?.stop();
});

/** Opens a listen stream for tools list changes at `url`; collects its messages. */
async function listen(url: string, id: string): Promise<{ got: Obj[]; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: headersFor('subscriptions/listen'),
    body: JSON.stringify(request(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
    signal: abort.signal,
  });
  assert.is(res.status, 200);
  const got: Obj[] = [];
  const parser = new SseParser();
  const reader = res.body!.getReader();
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        got.push(
          ...parser
            .push(value)
            .filter((e) => e.data !== '')
            .map((e) => JSON.parse(e.data) as Obj),
        );
      }
    } catch {
      /* closed */
    }
  })();
  const end = Date.now() + 10_000;
  while (!got.some((m) => m.method === 'notifications/subscriptions/acknowledged')) {
    if (Date.now() > end) throw new Error('no acknowledgement');
    await new Promise((r) => setTimeout(r, 10));
  }
  return { got, close: () => abort.abort() };
}

const changes = (got: Obj[]) => got.filter((m) => m.method === 'notifications/tools/list_changed').length;

test('a list change made through one process reaches the listen streams of both, once each', async () => {
  const [a, b] = serves;
  const onA = await listen(a.url, 'LA');
  const onB = await listen(b.url, 'LB');
  try {
    const r = await fetch(a.url, {
      method: 'POST',
      headers: headersFor('tools/call', 'test_trigger_tool_change'),
      body: JSON.stringify(request(1, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })),
    });
    const text = await r.text();
    assert.match(text, /test_dynamic_tool added/);
    for (const end = Date.now() + 5000; changes(onB.got) < 1 && Date.now() < end; )
      await new Promise((res) => setTimeout(res, 10));
    assert.is(changes(onB.got), 1, 'heard on the other process');
    // the other way round
    const r2 = await fetch(b.url, {
      method: 'POST',
      headers: headersFor('tools/call', 'test_trigger_tool_change'),
      body: JSON.stringify(request(2, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })),
    });
    assert.match(await r2.text(), /test_dynamic_tool added/);
    for (const end = Date.now() + 5000; changes(onA.got) < 2 && Date.now() < end; )
      await new Promise((res) => setTimeout(res, 10));
    await new Promise((res) => setTimeout(res, 300));
    assert.is(changes(onA.got), 2, "A: its own change, then B's, once each");
    assert.is(changes(onB.got), 2, "B: A's change, then its own, once each");
  } finally {
    onA.close();
    onB.close();
  }
});

test.run();
