/**
 * Issue 11, finding 10: one stdio connection served dual-era (`mcpgen serve --stdio --rev
 * draft`, runtime/stateless/dual-era.ts EraRouter). A request's route is released however the request
 * ends (answered, cancelled, failed, connection closed), the table is bounded, and a cancel goes
 * to the request currently using that id, whichever era it belongs to.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../generated/draft/index.js';
import * as v2025 from '../../generated/2025-11-25/index.js';
import { EraRouter } from '../../runtime/stateless/dual-era.js';
import { ServerFeatures } from '../../runtime/features/server-features.js';
import { SubscriptionHub, SubscriptionRouter } from '../../runtime/stateless/subscriptions.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';
import type { JSONRPCMessage, Transport } from '../../runtime/jsonrpc/transport.js';
import { DRAFT, StdioServe, meta } from './era-serve.js';

type Obj = Record<string, any>;
const M = meta(draft.protocolVersion, {});
const cancel = (requestId: string | number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'test' },
});
const slow = (id: string | number, seconds: number, modern: boolean) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow_compute', arguments: { seconds }, ...(modern ? { _meta: M } : {}) },
});

async function initialized(s: StdioServe): Promise<void> {
  const init = await s.request('init', 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'legacy', version: '1' },
  });
  assert.is(init.result?.protocolVersion, '2025-11-25', JSON.stringify(init));
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

test('serve --stdio --rev draft: after a modern request 7 was cancelled, a cancel of a legacy request 7 reaches the legacy request', async () => {
  const s = new StdioServe(['--rev', DRAFT]);
  try {
    await initialized(s);
    // modern request 7, cancelled: it ends without an answer
    s.send(slow(7, 60, true));
    s.send(cancel(7));
    // legacy request 7 (1 s), cancelled: it must end without an answer too
    s.send(slow(7, 1, false));
    s.send(cancel(7));
    // a longer legacy request started after it: were 7 still running it would answer first
    const marker = await s.request(8, 'tools/call', slow(8, 3, false).params);
    assert.match(JSON.stringify(marker.result?.content), /Computed sum/);
    assert.equal(s.answersTo(7), [], 'the cancelled legacy request 7 was answered: its cancel went to the other era');
    // the reverse: a legacy request 9 cancelled, then a modern 9 cancelled
    s.send(slow(9, 60, false));
    s.send(cancel(9));
    s.send(slow(9, 1, true));
    s.send(cancel(9));
    const marker2 = await s.request(10, 'tools/call', slow(10, 3, true).params);
    assert.match(JSON.stringify(marker2.result?.content), /slow_compute: done after 3 s/);
    assert.equal(s.answersTo(9), []);
  } finally {
    await s.close();
  }
});

// ---- the router used directly ----

/** A raw client end of a memory pair: send messages, collect what comes back. */
async function rawEnd(t: Transport): Promise<{ send: (m: Obj) => Promise<void>; received: Obj[] }> {
  const received: Obj[] = [];
  await t.start({ onMessage: (m) => void received.push(m), onClose: () => undefined });
  return { send: (m) => t.send(m as JSONRPCMessage), received };
}

const until = async (ok: () => boolean, what: string, ms = 30_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** A dual-era router over a memory pair with a `wait` tool (ends only when cancelled) and `quick`. */
async function routed(maxRoutes?: number) {
  const aborted = { modern: [] as unknown[], legacy: [] as unknown[] };
  const started = { modern: 0, legacy: 0 };
  const make = (era: 'modern' | 'legacy') => {
    const f = new ServerFeatures();
    f.tool({
      name: 'wait',
      handler: (_a, ctx) =>
        new Promise<string>((_r, reject) => {
          started[era]++;
          ctx.signal.addEventListener(
            'abort',
            () => {
              aborted[era].push(ctx.requestId);
              reject(new Error('aborted'));
            },
            { once: true },
          );
        }),
    });
    f.tool({ name: 'quick', handler: () => 'ok' });
    f.tool({
      name: 'fail',
      handler: () => {
        throw new Error('nope');
      },
    });
    return f;
  };
  const [a, b] = createMemoryPair();
  const router = new EraRouter(b, maxRoutes === undefined ? {} : { maxRoutes });
  const fm = make('modern');
  const fl = make('legacy');
  await new draft.Server({
    serverInfo: { name: 'm', version: '1' },
    capabilities: fm.capabilities(),
    handlers: fm.handlers({ table: draft.table }) as never,
  }).connect(router.modern);
  await new v2025.Server({
    serverInfo: { name: 'l', version: '1' },
    capabilities: fl.capabilities(),
    handlers: fl.handlers({ table: v2025.table }) as never,
  }).connect(router.legacy);
  await router.start();
  const client = await rawEnd(a);
  await client.send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await until(() => client.received.some((m) => m.id === 'init'), 'initialize');
  const call = (id: number | string, name: string, modern: boolean) =>
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {}, ...(modern ? { _meta: M } : {}) },
    });
  return { router, client, call, aborted, started, close: () => a.close() };
}

test('EraRouter: routes are released when requests are answered, fail, or are cancelled; none are left behind', async () => {
  const r = await routed();
  const N = 300;
  for (let i = 0; i < N; i++) await r.call(i, 'wait', i % 2 === 0);
  await until(() => r.started.modern + r.started.legacy === N, 'handlers started');
  assert.is(r.router.routes, N);
  for (let i = 0; i < N; i++) await r.client.send(cancel(i));
  await until(() => r.aborted.modern.length + r.aborted.legacy.length === N, 'every request cancelled');
  assert.is(r.aborted.modern.length, N / 2);
  assert.is(r.router.routes, 0, 'cancelled requests left routing entries');
  for (let i = 0; i < N; i++) await r.call(`q${i}`, i % 3 === 0 ? 'fail' : 'quick', i % 2 === 0);
  await until(() => r.client.received.filter((m) => String(m.id).startsWith('q')).length === N, 'answers');
  assert.is(r.router.routes, 0);
  // no answer went out for a cancelled request
  assert.is(r.client.received.filter((m) => typeof m.id === 'number').length, 0);
  await r.close();
});

test('EraRouter: a reused id is cancelled on the era of the request now using it, both ways', async () => {
  const r = await routed();
  for (const [first, second] of [
    [true, false],
    [false, true],
  ] as const) {
    const id = first ? 41 : 42;
    await r.call(id, 'wait', first);
    await r.client.send(cancel(id));
    await r.call(id, 'wait', second);
    await until(() => r.started.modern + r.started.legacy === (first ? 2 : 4), 'both started');
    await r.client.send(cancel(id));
    const era = second ? 'modern' : 'legacy';
    await until(() => r.aborted[era].includes(id), `the ${era} request ${id} cancelled`, 10_000);
  }
  assert.equal(r.aborted.modern, [41, 42]);
  assert.equal(r.aborted.legacy, [41, 42]);
  assert.is(r.router.routes, 0);
  await r.close();
});

test('EraRouter: the table is bounded; a cancel of an id past the bound still reaches its request; close empties it', async () => {
  const r = await routed(50);
  const N = 200;
  for (let i = 0; i < N; i++) await r.call(i, 'wait', i % 2 === 1);
  await until(() => r.started.modern + r.started.legacy === N, 'handlers started');
  assert.ok(r.router.routes <= 50, `routes ${r.router.routes}`);
  for (let i = 0; i < N; i++) await r.client.send(cancel(i));
  await until(() => r.aborted.modern.length + r.aborted.legacy.length === N, 'every request cancelled');
  assert.equal(
    [...r.aborted.modern].sort((x, y) => Number(x) - Number(y)),
    Array.from({ length: N / 2 }, (_, i) => 2 * i + 1),
  );
  for (let i = 0; i < 20; i++) await r.call(i, 'wait', true);
  await until(() => r.router.routes === 20, 'routes');
  await r.close();
  await until(() => r.router.routes === 0, 'routes cleared on close');
});

// ---- the same kind elsewhere: entries keyed by a request id released however the request ends ----

const settledWithin = <T>(p: Promise<T>, ms = 5_000): Promise<T | 'pending'> =>
  Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

test('SubscriptionHub: a listen request already cancelled when its handler runs opens no subscription and ends', async () => {
  const hub = new SubscriptionHub({ capabilities: () => ({ tools: { listChanged: true } }) });
  const sent: string[] = [];
  const ctx = {
    requestId: 5,
    method: 'subscriptions/listen',
    signal: AbortSignal.abort('carrier gone'),
    meta: undefined,
    info: undefined,
    sendNotification: (m: string) => (sent.push(m), Promise.resolve()),
  };
  const outcome = await settledWithin(hub.handler({ notifications: { toolsListChanged: true } }, ctx as never));
  assert.is(outcome, undefined, 'the listen handler of a cancelled request never ended');
  assert.is(hub.size, 0);
  assert.is(hub.publish('notifications/tools/list_changed'), 0);
  // a live one still opens, and ends with its request
  const ac = new AbortController();
  const live = hub.handler({ notifications: { toolsListChanged: true } }, {
    ...ctx,
    requestId: 6,
    signal: ac.signal,
  } as never);
  assert.is(hub.size, 1);
  ac.abort();
  assert.is(await settledWithin(live), undefined);
  assert.is(hub.size, 0);
});

test('SubscriptionRouter: a listen whose send throws at once ends its subscription and releases its entry', async () => {
  const router = new SubscriptionRouter();
  const sub = router.open(3, { toolsListChanged: true }, {}, () => {
    throw new Error('transport closed');
  });
  const end = await settledWithin(sub.closed);
  assert.ok(end !== 'pending', 'the subscription never ended');
  assert.is((end as { by: string }).by, 'server');
  assert.is(
    router.route('notifications/subscriptions/acknowledged', {
      notifications: {},
      _meta: { 'io.modelcontextprotocol/subscriptionId': 3 },
    }),
    false,
    'the entry of the failed listen is still routed',
  );
});

test.run();
