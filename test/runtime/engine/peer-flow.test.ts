import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Peer, type PeerOptions, type RequestContext } from '../../../runtime/engine/peer.js';
import { ErrorCode, RequestAbortedError, RequestTimeoutError, RpcError } from '../../../runtime/jsonrpc/errors.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { Progress } from '../../../runtime/engine/progress.js';
import type { CarrierWatch } from '../../../runtime/engine/cancellation.js';
import { recordingLogger, settle, sleep, table, wire, type Msg } from '../support.js';

const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0.0.1' } };

async function start(side: 'client' | 'server', options: Partial<PeerOptions> = {}) {
  const w = await wire();
  const logger = recordingLogger();
  const errors: Error[] = [];
  const peer = new Peer({ side, table, transport: w.transport, logger, onError: (e) => errors.push(e), ...options });
  await peer.start();
  return { peer, w, logger, errors };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(2);
  }
}

test('007 cancellation: a cancelled request gets no response and no more progress; unknown and late cancels are ignored', async () => {
  let handlerSignal: AbortSignal | undefined;
  const { w, logger } = await start('server', {
    requestHandlers: {
      'tools/call': async (params: { arguments: { text: string } }, ctx: RequestContext) => {
        handlerSignal = ctx.signal;
        let n = 0;
        while (!ctx.signal.aborted) {
          await ctx.sendProgress(++n, undefined, 'working');
          await sleep(5);
        }
        await ctx.sendProgress(++n); // after cancellation: must not be sent
        await ctx.sendNotification('notifications/message', { level: 'info', data: 'late' });
        return { content: [{ type: 'text', text: params.arguments.text }] };
      },
    },
  });
  await w.send({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'slow_echo', arguments: { text: 'hi', delayMs: 5000 }, _meta: { progressToken: 'p7' } },
  });
  await until(() => w.received.length >= 3);
  await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user aborted' } });
  await w.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
  await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345 } });
  await w.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
  await until(() => w.received.some((m) => m.id === 9));
  await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } });
  await sleep(30);
  assert.not.ok(
    w.received.some((m) => m.id === 7),
    'nothing written for id 7',
  );
  const ping8 = w.received.findIndex((m) => m.id === 8);
  assert.ok(ping8 > 0);
  assert.ok(
    w.received.slice(ping8).every((m) => m.method !== 'notifications/progress'),
    'no progress after the cancel',
  );
  assert.ok(
    w.received.slice(0, ping8).every((m) => m.method === 'notifications/progress' && m.params.progressToken === 'p7'),
  );
  assert.equal(
    w.received.filter((m) => 'id' in m).map((m) => [m.id, m.result]),
    [
      [8, {}],
      [9, {}],
    ],
  );
  assert.ok(handlerSignal?.aborted);
  assert.is(handlerSignal?.reason, 'user aborted');
  assert.ok(logger.entries.some((e) => e.message === 'ignored notifications/cancelled' && e.data?.requestId === 12345));
  assert.ok(logger.entries.some((e) => e.message === 'ignored notifications/cancelled' && e.data?.requestId === 9));
});

test('007 cancellation: aborting a call rejects at once, sends notifications/cancelled, drops the late response', async () => {
  const delivered: unknown[] = [];
  const { peer, w, logger, errors } = await start('client', {
    notificationHandlers: { 'notifications/message': (p) => void delivered.push(p) },
  });
  const ac = new AbortController();
  const call = peer.request(
    'tools/call',
    { name: 'slow_echo', arguments: { text: 'hi' } },
    { signal: ac.signal, onProgress: () => undefined },
  );
  const req = await w.next();
  let early: unknown = 'pending';
  call.catch((e: unknown) => (early = e));
  ac.abort('user aborted');
  await Promise.resolve(); // one microtask: no I/O turn, no response needed
  await Promise.resolve();
  assert.instance(early, RequestAbortedError);
  assert.is((early as RpcError).code, ErrorCode.RequestAborted);
  assert.is((early as Error).cause, 'user aborted');
  assert.equal(await w.next(), {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: req.id, reason: 'user aborted' },
  });
  await w.send({ jsonrpc: '2.0', id: req.id, error: { code: 0, message: 'Request cancelled' } });
  await w.send({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: req.params._meta.progressToken, progress: 1 },
  });
  await w.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'still here' } });
  await settle();
  assert.equal(delivered, [{ level: 'info', data: 'still here' }]);
  assert.ok(
    logger.entries.some((e) => e.level === 'debug' && e.message.includes('unknown id') && e.data?.id === req.id),
  );
  assert.not.ok(peer.closed);
  assert.equal(errors, []);
  // an already-aborted signal sends nothing at all
  const before = w.received.length;
  assert.instance(
    await rejection(peer.request('ping', undefined, { signal: AbortSignal.abort() })),
    RequestAbortedError,
  );
  await settle();
  assert.is(w.received.length, before);
});

test('007 cancellation: initialize is never cancelled, neither on timeout nor on abort', async () => {
  const { peer, w } = await start('client');
  const started = Date.now();
  const e = await rejection(peer.request('initialize', initParams, { timeout: 40 }));
  assert.instance(e, RequestTimeoutError);
  assert.is((e as RequestTimeoutError).timeoutMs, 40);
  assert.is((e as RequestTimeoutError).method, 'initialize');
  assert.ok(Date.now() - started >= 35);
  const ac = new AbortController();
  const aborted = peer.request('initialize', initParams, { signal: ac.signal });
  await settle();
  ac.abort();
  assert.instance(await rejection(aborted), RequestAbortedError);
  await settle();
  assert.equal(
    w.received.map((m) => m.method),
    ['initialize', 'initialize'],
  );
});

test('007 cancellation: closing the carrying stream (transport signal) aborts the handler and nothing is written', async () => {
  let aborted = false;
  const { w } = await start('server', {
    requestHandlers: {
      'tools/call': (_p: unknown, ctx: RequestContext) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => ((aborted = true), resolve({ content: [] }))),
        ),
    },
  });
  const stream = new AbortController();
  await w.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } }, { signal: stream.signal });
  await w.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  await settle();
  stream.abort();
  await settle();
  assert.ok(aborted);
  assert.equal(
    w.received.map((m) => m.id),
    [2],
  );
});

test('007 cancellation: a transport that watches the carrier cancels through the request handle; a finished request stays answered', async () => {
  let aborted = false;
  const { w } = await start('server', {
    requestHandlers: {
      'tools/call': (p: { name: string }, ctx: RequestContext) =>
        p.name !== 'slow'
          ? { content: [] }
          : new Promise((resolve) =>
              ctx.signal.addEventListener(
                'abort',
                () => ((aborted = ctx.signal.reason instanceof Error), resolve({ content: [] })),
              ),
            ),
    },
  });
  const handles: Array<{ cancel(reason: unknown): void }> = [];
  const info = { watchCarrier: (h: { cancel(reason: unknown): void }) => handles.push(h) } as CarrierWatch;
  await w.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } }, info);
  await w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fast' } }, info);
  await settle();
  assert.is(handles.length, 2);
  handles[1].cancel(new Error('HTTP connection closed'));
  handles[0].cancel(new Error('HTTP connection closed'));
  await settle();
  assert.ok(aborted);
  assert.equal(
    w.received.map((m) => m.id),
    [2],
  );
});

test('007 cancellation: a timeout sends notifications/cancelled with the reason and rejects with RequestTimeoutError', async () => {
  const { peer, w } = await start('client');
  const e = await rejection(peer.request('tools/list', {}, { timeout: 20 }));
  assert.instance(e, RequestTimeoutError);
  assert.is((e as RpcError).code, ErrorCode.RequestTimeout);
  await settle();
  assert.equal(w.received[1], {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: 0, reason: 'Request timed out after 20 ms' },
  });
});

test('009 progress after response: progress is delivered before the result only; late and stray progress are dropped', async () => {
  const { peer, w, logger, errors } = await start('client');
  const seen: Progress[] = [];
  const settledAt: number[] = [];
  const call = peer
    .request('tools/call', { name: 'x' }, { onProgress: (p) => seen.push(p) })
    .then((r) => (settledAt.push(seen.length), r));
  const ping = peer.request('ping');
  const req = await w.next();
  await w.next();
  const token = req.params._meta.progressToken;
  assert.ok(typeof token === 'number' || typeof token === 'string');
  await w.send({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: token, progress: 5, total: 10 },
  });
  await w.send({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: 'done' }] } });
  await w.send({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: token, progress: 10, total: 10 },
  });
  await w.send({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'never-issued', progress: 1 },
  });
  await w.send({ jsonrpc: '2.0', id: 1, result: {} });
  assert.equal(await call, { content: [{ type: 'text', text: 'done' }] });
  assert.equal(await ping, {});
  await settle();
  assert.equal(seen, [{ progress: 5, total: 10 }]);
  assert.equal(settledAt, [1]);
  assert.equal(errors, []);
  assert.not.ok(peer.closed);
  assert.is(logger.entries.filter((e) => e.message === 'dropped progress (unknown-token)').length, 2);
  assert.ok(logger.entries.every((e) => e.level === 'debug'));
});

test('009 progress after response: tokens are unique per request, caller tokens are kept, params are not mutated', async () => {
  const { peer, w } = await start('client');
  const params = { name: 'x', _meta: { progressToken: 'mine', other: 1 } };
  const calls = [
    peer.request('tools/call', params, { onProgress: () => undefined }),
    peer.request('tools/call', { name: 'y' }, { onProgress: () => undefined }),
    peer.request('tools/call', { name: 'z' }, { onProgress: () => undefined }),
  ].map((c) => c.catch((e: unknown) => e));
  const [a, b, c] = [await w.next(), await w.next(), await w.next()];
  assert.equal(a.params._meta, { progressToken: 'mine', other: 1 });
  assert.equal(params._meta, { progressToken: 'mine', other: 1 });
  assert.is.not(b.params._meta.progressToken, c.params._meta.progressToken);
  // a token routed outside a request (a task's lifetime) keeps receiving until released
  const got: number[] = [];
  const off = peer.onProgressToken('task-1', (p) => got.push(p.progress));
  await w.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'task-1', progress: 1 } });
  await settle();
  off();
  await w.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'task-1', progress: 2 } });
  await settle();
  assert.equal(got, [1]);
  await peer.close();
  for (const e of await Promise.all(calls)) assert.is((e as RpcError).code, ErrorCode.ConnectionClosed);
});

test('009 progress after response: a server writes all progress before the response and none after (1,000 runs)', async () => {
  const { w } = await start('server', {
    requestHandlers: {
      'tools/call': async (_p: unknown, ctx: RequestContext) => {
        for (let i = 1; i <= 10; i++) void ctx.sendProgress(i, 10);
        void ctx.sendProgress(10, 10); // not increasing: dropped
        setImmediate(() => void ctx.sendProgress(11, 10)); // after completion: dropped
        return { content: [] };
      },
    },
  });
  const runs = 1000;
  for (let i = 0; i < runs; i++) {
    await w.send({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'p', _meta: { progressToken: `t${i}` } },
    });
  }
  await until(() => w.received.filter((m) => 'id' in m).length === runs, 10_000);
  await settle();
  const perToken = new Map<string, Msg[]>();
  for (const m of w.received) {
    const key = m.method ? m.params.progressToken : `t${m.id}`;
    perToken.set(key, [...(perToken.get(key) ?? []), m]);
  }
  assert.is(perToken.size, runs);
  for (const [token, list] of perToken) {
    assert.is(list.length, 11, token);
    assert.equal(
      list.slice(0, 10).map((m) => m.params.progress),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      token,
    );
    assert.ok('result' in list[10], token);
  }
});

test('dispatch: plain results, promises, foreign thenables, rejections and a throwing then getter each get exactly one answer', async () => {
  const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
  const { w } = await start('server', {
    requestHandlers: {
      'tools/call': (p: { name: string }) => {
        switch (p.name) {
          case 'plain':
            return text('plain');
          case 'promise':
            return Promise.resolve(text('promise'));
          case 'thenable':
            return { then: (ok: (v: unknown) => void) => ok(text('thenable')) };
          case 'rejects':
            return Promise.reject(new RpcError(-32042, 'nope'));
          case 'getter':
            return Object.defineProperty({}, 'then', {
              get() {
                throw new Error('boom');
              },
            });
          default:
            throw new Error('unknown');
        }
      },
    },
  });
  const names = ['plain', 'promise', 'thenable', 'rejects', 'getter', 'other'];
  for (const [i, name] of names.entries())
    await w.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name } });
  await until(() => w.received.length >= names.length);
  await settle();
  const byId = new Map(w.received.map((m) => [m.id, m]));
  assert.is(w.received.length, names.length);
  assert.equal(byId.get(0)!.result, text('plain'));
  assert.equal(byId.get(1)!.result, text('promise'));
  assert.equal(byId.get(2)!.result, text('thenable'));
  assert.equal(byId.get(3)!.error, { code: -32042, message: 'nope' });
  assert.equal(byId.get(4)!.error, { code: ErrorCode.InternalError, message: 'Internal error: tool getter failed' });
  assert.equal(byId.get(5)!.error, { code: ErrorCode.InternalError, message: 'Internal error: tool other failed' });
});

test('timeouts: progress resets the clock when asked, and maxTotalTimeout caps it', async () => {
  const { peer, w } = await start('client');
  const call = peer.request(
    'tools/call',
    { name: 'x' },
    { timeout: 150, resetTimeoutOnProgress: true, onProgress: () => undefined },
  );
  const req = await w.next();
  const token = req.params._meta.progressToken;
  for (let i = 1; i <= 10; i++) {
    await sleep(25);
    await w.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i } });
  }
  await w.send({ jsonrpc: '2.0', id: req.id, result: { content: [] } });
  assert.equal(await call, { content: [] }, 'kept alive past 150 ms by progress');

  const capped = peer.request(
    'tools/call',
    { name: 'y' },
    { timeout: 40, resetTimeoutOnProgress: true, maxTotalTimeout: 70, onProgress: () => undefined },
  );
  const req2 = await w.next();
  const feeding = (async () => {
    for (let i = 1; i <= 10; i++) {
      await sleep(15);
      await w
        .send({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: req2.params._meta.progressToken, progress: i },
        })
        .catch(() => undefined);
    }
  })();
  const e = await rejection(capped);
  assert.instance(e, RequestTimeoutError);
  assert.is((e as RequestTimeoutError).timeoutMs, 70, 'the cap fired, not the 40 ms clock');
  assert.match((e as Error).message, /maximum total timeout/);
  await feeding;
});

test('end to end: client and server peers over a memory pair, with progress, nested requests and cancellation', async () => {
  const [ct, st] = createMemoryPair();
  let serverSignal: AbortSignal | undefined;
  const server = new Peer({
    side: 'server',
    table,
    transport: st,
    capabilities: { tools: {} },
    requestHandlers: {
      'tools/call': async (p: { name: string }, ctx: RequestContext) => {
        if (p.name === 'ask') {
          const r = await ctx.sendRequest<{ model: string }>('sampling/createMessage', { messages: [], maxTokens: 5 });
          return { content: [{ type: 'text', text: r.model }] };
        }
        serverSignal = ctx.signal;
        await ctx.sendProgress(1, 2, 'half');
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return { content: [] };
      },
    },
  });
  const client = new Peer({
    side: 'client',
    table,
    transport: ct,
    capabilities: { sampling: {} },
    requestHandlers: {
      'sampling/createMessage': () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm-1' }),
    },
  });
  await server.start();
  await client.start();
  assert.equal(await client.request('tools/call', { name: 'ask' }), { content: [{ type: 'text', text: 'm-1' }] });
  const ac = new AbortController();
  const progress: Progress[] = [];
  const slow = client.request(
    'tools/call',
    { name: 'slow' },
    { signal: ac.signal, onProgress: (x) => (progress.push(x), ac.abort('stop')) },
  );
  assert.instance(await rejection(slow), RequestAbortedError);
  await until(() => serverSignal?.aborted === true);
  assert.equal(progress, [{ progress: 1, total: 2, message: 'half' }]);
  assert.is(serverSignal!.reason, 'stop');
  const unknown = await rejection(client.request('example/none'));
  assert.is((unknown as RpcError).code, -32601);
  await client.close();
  await settle();
  assert.ok(server.closed);
});

test.run();
