import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpClientTransport, HttpStatusError } from '../../../../../runtime/transport/http/session/node-client.js';
import { initReq, MiniClient, sleep, startServer, V, type TestServer } from './helpers.js';

interface Seen {
  method: string;
  headers: Headers;
  body?: string;
}

/** fetch that records every request. */
function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    seen.push({ method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? init.body : undefined });
    return fetch(input, init);
  };
}

async function connect(srv: TestServer, options: Partial<ConstructorParameters<typeof HttpClientTransport>[0]> = {}) {
  const transport = new HttpClientTransport({ url: srv.url, reconnect: { initialDelayMs: 5 }, ...options });
  const client = new MiniClient(transport);
  await client.start();
  const result = (await client.request('initialize', initReq().params as Record<string, unknown>)) as {
    protocolVersion: string;
  };
  transport.setProtocolVersion(result.protocolVersion);
  await client.notify('notifications/initialized');
  return { transport, client };
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(5);
  }
}

test('end to end: JSON and SSE replies, standalone stream, DELETE on close', async () => {
  const srv = await startServer();
  // the server's answers to GETs (the standalone stream)
  const gets: ServerResponse[] = [];
  srv.server.prependListener('request', (req, res) => void (req.method === 'GET' && gets.push(res)));
  try {
    const seen: Seen[] = [];
    const { transport, client } = await connect(srv, { fetch: recordingFetch(seen) });
    assert.ok(transport.sessionId);
    assert.is(transport.protocolVersion, V);
    assert.equal(await client.request('tools/list'), { echo: null });
    assert.equal(await client.request('chatty', { count: 2 }), { echo: { count: 2 } });
    assert.is(client.notifications.length, 2);
    await until(() => seen.some((s) => s.method === 'GET'));
    // the server holds the standalone stream (answered 200, headers sent) before it notifies on it
    await until(() => gets.some((res) => res.statusCode === 200 && res.headersSent));
    assert.equal(await client.request('notify'), { echo: null });
    await until(() => client.notifications.some((n) => (n.params as { data?: unknown }).data === 'standalone'));
    await transport.close();
    assert.is(srv.handler.sessions.size, 0);
    const del = seen.find((s) => s.method === 'DELETE');
    assert.ok(del);
    assert.is(transport.sessionId, undefined);
    await assert.not.throws(() => transport.close());
    try {
      await transport.send({ jsonrpc: '2.0', method: 'x' });
      assert.unreachable();
    } catch (e) {
      assert.match(String(e), /closed/);
    }
  } finally {
    await srv.close();
  }
});

test('the transport tracks the standalone stream and the POST streams in flight: none is left once answered, close stops them all', async () => {
  const srv = await startServer();
  try {
    const seen: Seen[] = [];
    const { transport, client } = await connect(srv, { fetch: recordingFetch(seen) });
    const streams = () =>
      (
        transport as unknown as { core: { streams: { list(): Array<{ kind: string; aborted: boolean }> } } }
      ).core.streams.list();
    await until(() => seen.some((s) => s.method === 'GET'));
    assert.equal(
      streams().map((s) => s.kind),
      ['standalone'],
    );
    for (let i = 0; i < 20; i++) assert.equal(await client.request('chatty', { count: 1 }), { echo: { count: 1 } });
    // 8 at once: their streams join and leave around each other
    assert.equal(
      await Promise.all(Array.from({ length: 8 }, (_, i) => client.request('chatty', { count: i }))),
      Array.from({ length: 8 }, (_, i) => ({ echo: { count: i } })),
    );
    for (let i = 0; i < 20; i++) await client.request('chatty', { count: 1 });
    // (the last body ends just after its response was delivered)
    await until(() => streams().length === 1);
    assert.equal(
      streams().map((s) => s.kind),
      ['standalone'],
      'answered POST streams are let go',
    );
    // streams still sending are all there (joined behind the standalone stream, in order)
    const slow = [0, 1, 2].map((i) => client.request('stream', { count: 3, gapMs: 40, i }));
    await until(() => streams().length === 4);
    assert.equal(
      streams().map((s) => s.kind),
      ['standalone', 'post', 'post', 'post'],
    );
    await Promise.all(slow);
    await until(() => streams().length === 1);
    const standalone = streams()[0];
    await transport.close();
    assert.equal(streams(), []);
    assert.ok(standalone.aborted, 'the standalone stream was stopped');
  } finally {
    await srv.close();
  }
  // without a standalone stream (405 on GET) each POST stream is the first and the last one tracked
  const bare = await startServer({ standaloneStream: false });
  try {
    const seen: Seen[] = [];
    const { transport, client } = await connect(bare, { fetch: recordingFetch(seen) });
    const streams = () => (transport as unknown as { core: { streams: { list(): unknown[] } } }).core.streams.list();
    await until(() => seen.some((s) => s.method === 'GET'));
    for (let i = 0; i < 5; i++) await client.request('chatty', { count: 1 });
    await Promise.all(Array.from({ length: 4 }, () => client.request('chatty', { count: 1 })));
    await until(() => streams().length === 0);
    await transport.close();
  } finally {
    await bare.close();
  }
});

test('405 on GET means no standalone stream, and nothing else changes', async () => {
  const srv = await startServer({ standaloneStream: false });
  try {
    const seen: Seen[] = [];
    const { client, transport } = await connect(srv, { fetch: recordingFetch(seen) });
    await until(() => seen.some((s) => s.method === 'GET'));
    await sleep(30);
    assert.is(seen.filter((s) => s.method === 'GET').length, 1);
    assert.equal(await client.request('ping'), { echo: null });
    assert.equal(client.errors, []);
    await transport.close();
  } finally {
    await srv.close();
  }
});

test('close() with POSTs not yet out: one that meets the DELETE fails as connection closed (not as an expired session), one still held is aborted', async () => {
  const srv = await startServer({ replyMode: 'json' });
  try {
    // POSTs of tools/call wait at a gate, so that close()'s DELETE goes out before them
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let held = 0;
    const early: Array<() => void> = [];
    const sentEarly: Array<Promise<void>> = [];
    /** Lets `n` of the held POSTs go now, and waits until they were answered. */
    const release = async (n: number): Promise<void> => {
      for (const go of early.splice(0, n)) go();
      await Promise.all(sentEarly.splice(0, n));
    };
    const gated: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"slow"')) {
        held++;
        let done!: () => void;
        sentEarly.push(new Promise<void>((r) => (done = r)));
        await Promise.race([gate, new Promise<void>((r) => early.push(r))]);
        try {
          return await fetch(input, init);
        } finally {
          done();
        }
      }
      if (init?.method === 'DELETE') {
        const res = await fetch(input, init);
        await deleted;
        return res;
      }
      return fetch(input, init);
    };
    // close() goes on (and aborts what is still in flight) once its DELETE is answered: held until then
    let answerDelete!: () => void;
    const deleted = new Promise<void>((r) => (answerDelete = r));
    const { transport, client } = await connect(srv, { fetch: gated });
    const calls = Array.from({ length: 5 }, (_, i) =>
      client.request('slow', { delayMs: 1, i }).then(
        () => 'answered',
        (e: Error) => e,
      ),
    );
    await until(() => held === 5);
    const closing = transport.close();
    await until(() => srv.handler.sessions.size === 0);
    // two of them go out now, after the DELETE (404); close() then aborts the other three
    await release(2);
    answerDelete();
    await closing;
    open();
    const outcomes = (await Promise.all(calls)) as Error[];
    for (const o of outcomes) assert.instance(o, Error);
    assert.equal(outcomes.map((o) => o.name).sort(), [
      'AbortError',
      'AbortError',
      'AbortError',
      'ConnectionClosedError',
      'ConnectionClosedError',
    ]);
    for (const o of outcomes.filter((x) => x.name === 'ConnectionClosedError'))
      assert.match(o.message, /POST slow: the transport was closed/);
    assert.is(client.errors.length, 0);
  } finally {
    await srv.close();
  }
});

test('HTTP errors reject send with HttpStatusError; a JSON-RPC error body for the id is delivered as the response', async () => {
  const srv = await startServer({ supportedProtocolVersions: ['2025-11-25'] });
  try {
    const { client, transport } = await connect(srv);
    transport.setProtocolVersion('1999-01-01');
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.instance(e, HttpStatusError);
      assert.is((e as HttpStatusError).status, 400);
    }
    assert.ok(transport.sessionId, 'a 400 does not drop the session');
    transport.setProtocolVersion(V);
    const bad = await fetch(srv.url, { method: 'GET' });
    await bad.text();
    await transport.close();
  } finally {
    await srv.close();
  }
  const fake: typeof fetch = async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number };
    return new Response(
      JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32020, message: 'header mismatch' } }),
      { status: 400, headers: { 'Content-Type': 'application/json' } },
    );
  };
  const t = new HttpClientTransport({ url: 'http://127.0.0.1:1/mcp', fetch: fake });
  const c = new MiniClient(t);
  await c.start();
  try {
    await c.request('server/discover');
    assert.unreachable();
  } catch (e) {
    assert.is((e as { rpc?: { code: number } }).rpc?.code, -32020);
  }
});

test('a POST stream lost before any event id fails its request through onRequestError', async () => {
  const srv = await startServer({ eventStore: false, replyMode: 'sse' });
  try {
    const { client, transport } = await connect(srv);
    const call = client.request('stream', { count: 3, gapMs: 200 });
    // The POST's stream is open once its first notification arrived; the next comes 200 ms later.
    await until(() => client.notifications.some((n) => (n.params as { data?: { i?: number } }).data?.i === 0), 10_000);
    await srv.sessions[0].closeSseConnection(2);
    try {
      await call;
      assert.unreachable();
    } catch (e) {
      assert.match(
        String(e),
        // (the server ended the stream, with no error: the message says so, not "lost")
        /SSE response stream closed by the server before the response \(the request may have run\), and it cannot be resumed \(no event ID came\)$/,
      );
    }
    await transport.close();
  } finally {
    await srv.close();
  }
});

test("reconnection waits the server's retry; backoff grows by factor up to maxDelayMs; gives up after maxRetries", async () => {
  const srv = await startServer({ replyMode: 'sse', retryMs: 120, standaloneStream: false });
  try {
    const gets: number[] = [];
    const timed: typeof fetch = (input, init) => {
      if ((init?.method ?? 'GET') === 'GET' && new Headers(init?.headers).has('last-event-id')) gets.push(Date.now());
      return fetch(input, init);
    };
    const { client, transport } = await connect(srv, { fetch: timed, reconnect: { initialDelayMs: 1 } });
    const call = client.request('stream', { count: 3, gapMs: 300 });
    // cut the stream once its first event arrived (the answer is 600 ms of the server's gaps away)
    await until(() => client.notifications.some((n) => (n.params as { data?: { i?: number } }).data?.i === 0), 10_000);
    const dropped = Date.now();
    await srv.sessions[0].closeSseConnection(2);
    assert.equal(await call, { echo: { count: 3, gapMs: 300 } });
    assert.is(gets.length, 1);
    assert.ok(gets[0] - dropped >= 115, `reconnected after ${gets[0] - dropped} ms`);
    await transport.close();
  } finally {
    await srv.close();
  }
  const failing = await startServer();
  try {
    const gets: number[] = [];
    const broken: typeof fetch = async (input, init) => {
      if ((init?.method ?? 'GET') !== 'GET') return fetch(input, init);
      gets.push(Date.now());
      return new Response('busy', { status: 503 });
    };
    const { client, transport } = await connect(failing, {
      fetch: broken,
      reconnect: { initialDelayMs: 20, factor: 5, maxDelayMs: 500, maxRetries: 4 },
    });
    await until(() => client.errors.length > 0, 10_000);
    assert.is(gets.length, 5, 'first attempt and 4 retries');
    const waits = gets.slice(1).map((t, i) => t - gets[i]);
    // 20, 100, then capped at 500 (uncapped: 500, 2500). Timers only fire late, so the lower bounds
    // hold at any load; the upper one only tells the cap (500) from no cap (2500).
    const expected = [20, 100, 500, 500];
    waits.forEach((w, i) => {
      assert.ok(w >= expected[i] - 3, `wait ${i}: ${w} ms, expected ${expected[i]}`);
    });
    assert.ok(waits[3] < 2000, `wait 3: ${waits[3]} ms, the cap is 500`);
    assert.match(String(client.errors[0]), /after 4 retries/);
    await transport.close();
  } finally {
    await failing.close();
  }
});

/** Wraps fetch so that SSE bodies break after a random number of bytes (mid-event too). */
function droppingFetch(rand: () => number, drops: { count: number }, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!(res.headers.get('content-type') ?? '').includes('event-stream') || !res.body) return res;
    const reader = res.body.getReader();
    // A POST reply cut before its priming event cannot be resumed by any client (no cursor):
    // there, count the budget from the end of the first event.
    let primed = init?.method !== 'POST';
    let budget = 1 + Math.floor(rand() * maxBytes);
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        const { done, value } = await reader.read();
        if (done) return c.close();
        if (!primed) {
          const text = new TextDecoder().decode(value);
          const end = text.indexOf('\n\n');
          if (end === -1) return c.enqueue(value);
          primed = true;
          budget += end + 2;
        }
        if (value.byteLength >= budget) {
          c.enqueue(value.subarray(0, budget));
          drops.count++;
          await reader.cancel();
          c.error(new Error('connection dropped'));
          return;
        }
        budget -= value.byteLength;
        c.enqueue(value);
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('resumption: connections dropped at random points, every event arrives exactly once, in order', async () => {
  const srv = await startServer({ replyMode: 'sse', retryMs: 1, standaloneStream: false });
  try {
    const rand = seeded(20251125);
    const drops = { count: 0 };
    const { client, transport } = await connect(srv, {
      fetch: droppingFetch(rand, drops, 400),
      reconnect: { initialDelayMs: 1, maxRetries: 50 },
    });
    const count = 150;
    // Server-side drops as well: close the connection (keeping the stream) at random times.
    let serverDrops = 0;
    const chaos = setInterval(() => {
      if (rand() < 0.5) {
        serverDrops++;
        void srv.sessions[0]?.closeSseConnection(2);
      }
    }, 3);
    const result = await client.request('stream', { count, gapMs: 1 });
    clearInterval(chaos);
    assert.equal(result, { echo: { count, gapMs: 1 } });
    const got = client.notifications.map((n) => (n.params as { data: { i: number } }).data.i);
    assert.equal(
      got,
      Array.from({ length: count }, (_, i) => i),
    );
    assert.ok(drops.count + serverDrops > 20, `only ${drops.count} client and ${serverDrops} server drops`);
    // Several requests at once, each on its own resumable stream.
    client.notifications.length = 0;
    const many = await Promise.all([3, 4, 5].map(() => client.request('stream', { count: 40 })));
    assert.is(many.length, 3);
    const byId = new Map<unknown, number[]>();
    for (const n of client.notifications) {
      const d = (n.params as { data: { id: unknown; i: number } }).data;
      byId.set(d.id, [...(byId.get(d.id) ?? []), d.i]);
    }
    assert.is(byId.size, 3);
    for (const seq of byId.values())
      assert.equal(
        seq,
        Array.from({ length: 40 }, (_, i) => i),
      );
    await transport.close();
  } finally {
    await srv.close();
  }
});

test('resumption of the standalone stream after drops: nothing lost, nothing twice', async () => {
  const srv = await startServer({ retryMs: 1 });
  let opened: HttpClientTransport | undefined;
  try {
    const rand = seeded(7);
    const drops = { count: 0 };
    const { client, transport } = await connect(srv, {
      fetch: droppingFetch(rand, drops, 300),
      reconnect: { initialDelayMs: 1, maxRetries: 50 },
    });
    opened = transport;
    await until(() => srv.sessions[0] !== undefined);
    const total = 120;
    for (let i = 0; i < total; i++) {
      await srv.sessions[0].send({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { i } },
      });
      if (i % 10 === 0) await sleep(2);
    }
    // a bound on a hang, not a timing: about a hundred resumed GETs take seconds on a loaded machine
    await until(() => client.notifications.length >= total, 60_000);
    // a last message on the same stream: once it is in, anything sent twice before it would be too
    await srv.sessions[0].send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'end' },
    });
    await until(() => client.notifications.some((n) => (n.params as { data: unknown }).data === 'end'), 60_000);
    assert.equal((client.notifications.pop()!.params as { data: unknown }).data, 'end');
    assert.equal(
      client.notifications.map((n) => (n.params as { data: { i: number } }).data.i),
      Array.from({ length: total }, (_, i) => i),
    );
    assert.ok(drops.count > 5, `only ${drops.count} drops`);
    await transport.close();
  } finally {
    // a failed check must not leave the client resuming its stream (the run would never end)
    await opened?.close();
    await srv.close();
  }
});

test.run();
