/**
 * Issue 16: idle expiry and the session cap hold with every store: the default (sessions in
 * the endpoint's memory), a shared `MemorySessionStore`, and the Redis stores shared by two
 * endpoints (as two processes would), where a session ended on one is 404 on the other. Redis
 * records carry TTLs: session records expire with the idle time, stream events after their TTL.
 * Over real node:http against `serveHttp` (the reference server of `mcpgen serve --http`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp, type HttpServe, type HttpServeOptions } from '../../cli/serve/http.js';
import { MemorySessionStore } from '../../runtime/stores/sessions.js';
import { MemoryNotificationBus } from '../../runtime/stores/bus.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { startRedis, TestSession, type RedisServer } from './support.js';

const IDLE = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: RedisServer;
test.before(async () => {
  redis = await startRedis();
});
test.after(async () => {
  await redis?.stop();
});

/** Status of a `ping` on `sessionId` at `url` (body read). */
async function ping(url: string, sessionId: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      'Mcp-Session-Id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await r.arrayBuffer();
  return r.status;
}

/** Two endpoints of one store kind (the same one twice when the store is not shared between processes). */
type Deployment = { a: HttpServe; b: HttpServe; stores: RedisStores[]; close(): Promise<void> };

async function deploy(
  kind: 'memory' | 'memory-store' | 'redis',
  bounds: Pick<HttpServeOptions, 'sessionIdleMs' | 'maxSessions'>,
): Promise<Deployment> {
  const mod = await loadRevision('2025-11-25');
  const stores: RedisStores[] = [];
  const prefix = `b${Date.now()}:`;
  const one = async (): Promise<HttpServe> => {
    if (kind === 'memory') return serveHttp(mod, { port: 0, ...bounds });
    if (kind === 'memory-store')
      return serveHttp(mod, {
        port: 0,
        ...bounds,
        shared: {
          sessions: new MemorySessionStore({ idleMs: bounds.sessionIdleMs, maxSessions: bounds.maxSessions }),
          bus: new MemoryNotificationBus(),
        },
      });
    const s = await connectRedisStores(redis.url, {
      prefix,
      sessionIdleMs: bounds.sessionIdleMs,
      maxSessions: bounds.maxSessions,
    });
    stores.push(s);
    return serveHttp(mod, { port: 0, ...bounds, shared: { sessions: s.sessions, bus: s.bus, events: s.events } });
  };
  const a = await one();
  const b = kind === 'redis' ? await one() : a;
  return {
    a,
    b,
    stores,
    async close() {
      await a.close();
      if (b !== a) await b.close();
      for (const s of stores) await s.close();
    },
  };
}

for (const kind of ['memory', 'memory-store', 'redis'] as const) {
  test(`${kind}: an idle session expires (404), an active one does not`, async () => {
    const d = await deploy(kind, { sessionIdleMs: IDLE });
    try {
      const idle = new TestSession(d.a.url);
      await idle.initialize();
      const active = new TestSession(d.a.url);
      await active.initialize();
      assert.is(await ping(d.b.url, idle.sessionId!), 200);
      for (let i = 0; i < 6; i++) {
        await sleep(IDLE / 4);
        assert.is(
          await ping(i % 2 ? d.a.url : d.b.url, active.sessionId!),
          200,
          'touched on either endpoint, it lives',
        );
      }
      assert.is(await ping(d.b.url, idle.sessionId!), 404);
      assert.is(await ping(d.a.url, idle.sessionId!), 404);
    } finally {
      await d.close();
    }
  });

  test(`${kind}: a busy session does not expire; its idle time starts when its work ends`, async () => {
    const d = await deploy(kind, { sessionIdleMs: IDLE });
    try {
      const s = new TestSession(d.a.url);
      await s.initialize();
      // its standalone stream is open on b: busy, though no request touches it
      const abort = new AbortController();
      const r = await fetch(d.b.url, {
        headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': s.sessionId! },
        signal: abort.signal,
      });
      assert.is(r.status, 200);
      await sleep(IDLE * 3);
      assert.is(await ping(d.a.url, s.sessionId!), 200, 'busy for three idle times: alive');
      await sleep(IDLE * 3);
      abort.abort();
      await sleep(IDLE / 2);
      assert.is(await ping(d.b.url, s.sessionId!), 200, 'its last request long ago, but busy until just now');
      await sleep(IDLE * 2.5);
      assert.is(await ping(d.a.url, s.sessionId!), 404, 'idle since');
      assert.is(await ping(d.b.url, s.sessionId!), 404);
    } finally {
      await d.close();
    }
  });

  test(`${kind}: the cap evicts the least recently used session`, async () => {
    const d = await deploy(kind, { maxSessions: 2 });
    try {
      const s1 = new TestSession(d.a.url);
      await s1.initialize();
      const s2 = new TestSession(d.b.url);
      await s2.initialize();
      assert.is(await ping(d.a.url, s1.sessionId!), 200);
      // s2 is now the least recently used
      const s3 = new TestSession(d.a.url);
      await s3.initialize();
      assert.is(await ping(d.a.url, s2.sessionId!), 404);
      assert.is(await ping(d.b.url, s2.sessionId!), 404);
      assert.is(await ping(d.b.url, s1.sessionId!), 200);
      assert.is(await ping(d.a.url, s3.sessionId!), 200);
    } finally {
      await d.close();
    }
  });

  test(`${kind}: the cap counts the end of a session's work as its last use`, async () => {
    const d = await deploy(kind, { maxSessions: 2 });
    try {
      const s1 = new TestSession(d.a.url);
      await s1.initialize();
      const s2 = new TestSession(d.b.url);
      await s2.initialize();
      const abort = new AbortController();
      const r = await fetch(d.b.url, {
        headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': s1.sessionId! },
        signal: abort.signal,
      });
      assert.is(r.status, 200);
      await sleep(20);
      assert.is(await ping(d.a.url, s2.sessionId!), 200);
      await sleep(20);
      // s1's stream ends after s2's last request: s2 is now the least recently used
      abort.abort();
      await sleep(200);
      const s3 = new TestSession(d.a.url);
      await s3.initialize();
      assert.is(await ping(d.b.url, s2.sessionId!), 404);
      assert.is(await ping(d.a.url, s1.sessionId!), 200);
      assert.is(await ping(d.b.url, s3.sessionId!), 200);
    } finally {
      await d.close();
    }
  });

  test(`${kind}: the cap never evicts a busy session: 503 with Retry-After, then the idle one goes`, async () => {
    const d = await deploy(kind, { maxSessions: 2 });
    const streams: AbortController[] = [];
    /** Opens the standalone GET of `s` on `url` (a connected stream keeps a session busy). */
    const listen = async (url: string, s: TestSession): Promise<AbortController> => {
      const abort = new AbortController();
      const r = await fetch(url, {
        headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': s.sessionId! },
        signal: abort.signal,
      });
      assert.is(r.status, 200);
      streams.push(abort);
      return abort;
    };
    const initialize = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
    try {
      const s1 = new TestSession(d.a.url);
      await s1.initialize();
      const s2 = new TestSession(d.b.url);
      await s2.initialize();
      const g1 = await listen(d.b.url, s1);
      await listen(d.a.url, s2);
      await sleep(50);
      const refused = await initialize(d.a.url);
      assert.is(refused.status, 503);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')}`);
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /session limit \(2\)/);
      assert.is(await ping(d.b.url, s1.sessionId!), 200, 'nothing was evicted');
      assert.is(await ping(d.a.url, s2.sessionId!), 200);
      // s1's stream ends: it is idle (once its process reported so), and the least recently used
      g1.abort();
      let status = 0;
      for (const deadline = Date.now() + 3000; Date.now() < deadline; await sleep(100)) {
        const r = await initialize(d.a.url);
        await r.arrayBuffer();
        status = r.status;
        if (status === 200) break;
      }
      assert.is(status, 200);
      assert.is(await ping(d.a.url, s1.sessionId!), 404);
      assert.is(await ping(d.b.url, s1.sessionId!), 404);
      assert.is(await ping(d.b.url, s2.sessionId!), 200, 'the busy session lives on');
    } finally {
      for (const a of streams) a.abort();
      await d.close();
    }
  });
}

test('redis: last use is the order Redis ran the touches in, within one millisecond and whatever a process clock says', async () => {
  const prefix = `order${Date.now()}:`;
  const a = await connectRedisStores(redis.url, { prefix, maxSessions: 6 });
  const b = await connectRedisStores(redis.url, { prefix, maxSessions: 6 });
  const inspect = new Redis(redis.url);
  const realNow = Date.now;
  try {
    const record = { protocolVersion: '2025-11-25', capabilities: {}, createdAt: realNow() };
    // ids in reverse lexical order, so that tied scores (sorted by member) would put them backwards
    const ids = ['s5', 's4', 's3', 's2', 's1', 's0'];
    for (const [i, id] of ids.entries()) await (i % 2 ? b : a).sessions.create(id, record);
    // touched in this order, alternating processes; process b's clock runs a minute ahead
    const order = ['s2', 's5', 's0', 's3', 's1', 's4'];
    for (const [i, id] of order.entries()) {
      if (i % 2) Date.now = () => realNow() + 60_000;
      const touched = (i % 2 ? b : a).sessions.touch(id);
      Date.now = realNow;
      assert.ok(await touched, id);
    }
    assert.equal(await inspect.zrange(`${prefix}sessions`, '0', '-1'), order);
    const scores = (await inspect.zrange(`${prefix}sessions`, '0', '-1', 'WITHSCORES'))
      .filter((_, i) => i % 2)
      .map(Number);
    for (let i = 1; i < scores.length; i++)
      assert.ok(scores[i] > scores[i - 1], `scores strictly increase: ${scores.join(' ')}`);
    const [time] = await inspect.time();
    assert.ok(Math.abs(scores.at(-1)! - Number(time) * 1000) < 5000, 'scores are the Redis clock in ms');
    // each new session evicts the least recently used one, in the order they were touched
    assert.equal(await b.sessions.create('n0', record), ['s2']);
    assert.equal(await a.sessions.create('n1', record), ['s5']);
    assert.equal(await b.sessions.create('n2', record), ['s0']);
    assert.is(await a.sessions.touch('s2'), undefined);
    assert.is(await a.sessions.size(), 6);
    // a score ahead of the Redis clock (its clock stepped back): later touches still sort after it
    await inspect.zadd(`${prefix}sessions`, String(Number(time) * 1000 + 3_600_000), 's1');
    assert.ok(await a.sessions.touch('s3'));
    assert.ok(await b.sessions.touch('n0'));
    assert.equal((await inspect.zrange(`${prefix}sessions`, '0', '-1')).slice(-3), ['s1', 's3', 'n0']);
    assert.equal(await a.sessions.create('n3', record), ['s4']);
  } finally {
    Date.now = realNow;
    inspect.disconnect();
    await a.close();
    await b.close();
  }
});

test("redis: a busy mark holds whatever the marking process's clock says", async () => {
  const prefix = `skew${Date.now()}:`;
  const a = await connectRedisStores(redis.url, { prefix, maxSessions: 2 });
  const b = await connectRedisStores(redis.url, { prefix, maxSessions: 2 });
  const realNow = Date.now;
  try {
    const record = { protocolVersion: '2025-11-25', capabilities: {}, createdAt: realNow() };
    await a.sessions.create('x', record);
    await a.sessions.create('y', record);
    // x, the least recently used, is busy on a, whose clock is ten seconds behind
    Date.now = () => realNow() - 10_000;
    a.sessions.markBusy('x', true);
    Date.now = realNow;
    await a.sessions.size();
    assert.equal(await b.sessions.create('z', record), ['y'], 'the idle one goes, not the busy one');
    Date.now = () => realNow() + 10_000;
    a.sessions.markBusy('x', false);
    Date.now = realNow;
    await a.sessions.size();
    assert.equal(await b.sessions.create('w', record), ['z'], 'x was used last when its mark was cleared');
  } finally {
    Date.now = realNow;
    await a.close();
    await b.close();
  }
});

test('redis: a busy record does not expire: it outlives the beats, a touch does not shorten it, the idle cut passes it; idle from when its last mark is cleared', async () => {
  const prefix = `busy${Date.now()}:`;
  const idle = 300;
  const live = 900; // marks renewed every 300 ms
  const a = await connectRedisStores(redis.url, { prefix, sessionIdleMs: idle, livenessMs: live });
  const b = await connectRedisStores(redis.url, { prefix, sessionIdleMs: idle, livenessMs: live });
  const inspect = new Redis(redis.url);
  const ttl = (id: string) => inspect.pttl(`${prefix}s:${id}`);
  try {
    const record = { protocolVersion: '2025-11-25', capabilities: {}, createdAt: Date.now() };
    await a.sessions.create('x', record);
    await a.sessions.create('y', record);
    a.sessions.markBusy('x', true);
    await a.sessions.size(); // after the mark, on the same connection
    assert.ok((await ttl('x')) > idle, `busy: TTL ${await ttl('x')} beyond the idle time`);
    assert.ok(await b.sessions.touch('x'));
    assert.ok((await ttl('x')) > idle, `a touch keeps a busy TTL: ${await ttl('x')}`);
    await sleep(live * 2);
    assert.is(await a.sessions.size(), 1);
    assert.equal(
      await inspect.zrange(`${prefix}sessions`, '0', '-1'),
      ['x'],
      'y expired, busy x lives on through the beats',
    );
    assert.ok((await ttl('x')) > idle, `renewed: TTL ${await ttl('x')}`);
    // a score older than the idle time (as between beats when the idle time is shorter): still busy
    await inspect.zadd(`${prefix}sessions`, '1', 'x');
    assert.is(await b.sessions.size(), 1, 'the idle cut passes a record another process marks busy');
    assert.ok(await inspect.exists(`${prefix}s:x`));
    // b marks it too, a clears its mark: still busy
    b.sessions.markBusy('x', true);
    await b.sessions.size();
    a.sessions.markBusy('x', false);
    await a.sessions.size();
    assert.ok((await ttl('x')) > idle, `busy on b: TTL ${await ttl('x')}`);
    const before = Number(await inspect.zscore(`${prefix}sessions`, 'x'));
    b.sessions.markBusy('x', false);
    await b.sessions.size();
    const t = await ttl('x');
    assert.ok(t > 0 && t <= idle, `idle from now: TTL ${t}`);
    assert.ok(Number(await inspect.zscore(`${prefix}sessions`, 'x')) > before, 'used until its last mark was cleared');
    await sleep(idle * 2);
    assert.is(await a.sessions.touch('x'), undefined);
    assert.is(await a.sessions.size(), 0);
  } finally {
    inspect.disconnect();
    await a.close();
    await b.close();
  }
});

test('redis: a Last-Event-ID whose stream id Redis cannot hold is unknown (400), not a Redis error', async () => {
  const prefix = `xid${Date.now()}:`;
  const stores = await connectRedisStores(redis.url, { prefix });
  const errors: string[] = [];
  const served = await serveHttp(await loadRevision('2025-11-25'), {
    port: 0,
    shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
    logger: { warn: (m: string) => errors.push(m), error: (m: string) => errors.push(m) },
  });
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const ex = await s.request('tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 't' },
    });
    const real = ex.events.find((e) => e.id)?.id;
    assert.ok(real, 'a stored event');
    const stream = real.slice(0, real.lastIndexOf('_'));
    const resume = (id: string) =>
      fetch(served.url, {
        headers: {
          Accept: 'text/event-stream',
          'MCP-Protocol-Version': '2025-11-25',
          'Mcp-Session-Id': s.sessionId!,
          'Last-Event-ID': id,
        },
      });
    for (const xid of [
      '18446744073709551616-0',
      '1-18446744073709551616',
      '99999999999999999999-0',
      '123456789012345678901-0',
    ]) {
      const r = await resume(`${stream}_${xid}`);
      assert.is(r.status, 400, xid);
      assert.match(((await r.json()) as { error: { message: string } }).error.message, /Last-Event-ID/);
    }
    // the largest stream id Redis has is still a well-formed one: unknown here
    const r = await resume(`${stream}_18446744073709551615-18446744073709551615`);
    assert.is(r.status, 400);
    await r.arrayBuffer();
    assert.equal(errors, []);
  } finally {
    await served.close();
    await stores.close();
  }
});

test('redis: a Redis that stops answering: requests get 503 after the command timeout, not a wait; all works once it answers again', async () => {
  const prefix = `stall${Date.now()}:`;
  const stores = await connectRedisStores(redis.url, { prefix, commandTimeoutMs: 300 });
  const served = await serveHttp(await loadRevision('2025-11-25'), {
    port: 0,
    shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
    logger: { warn: () => undefined },
  });
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    redis.pause(true);
    try {
      const t0 = Date.now();
      const r = await fetch(served.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-11-25',
          'Mcp-Session-Id': s.sessionId!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        signal: AbortSignal.timeout(5000),
      });
      const took = Date.now() - t0;
      assert.is(r.status, 503);
      assert.is(r.headers.get('retry-after'), '1');
      assert.is(((await r.json()) as { error: { code: number } }).error.code, -32000);
      assert.ok(took >= 250 && took < 3000, `answered after ${took} ms`);
    } finally {
      redis.pause(false);
    }
    assert.is(await ping(served.url, s.sessionId!), 200, 'the session lives on');
  } finally {
    await served.close();
    await stores.close();
  }
});

test('connectRedisStores: a URL path that is no database number, a query string, a database Redis lacks: rejected, naming the URL', async () => {
  for (const [suffix, why] of [
    ['/abc', /path must be a database number/],
    ['?db=3', /no query string/],
    ['/2?keyPrefix=zz:', /no query string/],
    ['/99', /has no database 99/],
  ] as const) {
    const url = `${redis.url}${suffix}`;
    const e = await connectRedisStores(url, { connectTimeoutMs: 2000 }).then(
      (s) => s.close().then(() => undefined),
      (x: Error) => x,
    );
    assert.ok(e instanceof Error, `${suffix} was accepted`);
    assert.match(e.message, why);
    assert.ok(e.message.includes(url), e.message);
  }
  const ok = await connectRedisStores(`${redis.url}/3`);
  try {
    await ok.client.set('db-probe', '1');
    const inspect = new Redis(`${redis.url}/3`);
    assert.is(await inspect.get('db-probe'), '1');
    inspect.disconnect();
  } finally {
    await ok.close();
  }
});

test('redis: session records and stream events carry TTLs', async () => {
  const prefix = `ttl${Date.now()}:`;
  const stores = await connectRedisStores(redis.url, { prefix, sessionIdleMs: 60_000, eventTtlMs: 30_000 });
  const served = await serveHttp(await loadRevision('2025-11-25'), {
    port: 0,
    sessionIdleMs: 60_000,
    shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
  });
  const inspect = new Redis(redis.url);
  try {
    const s = new TestSession(served.url);
    await s.initialize();
    const ex = await s.request('tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 't' },
    });
    assert.ok('result' in (ex.response ?? {}));
    const keys = await inspect.keys(`${prefix}*`);
    assert.ok(keys.includes(`${prefix}s:${s.sessionId}`), keys.join(' '));
    assert.ok(
      keys.some((k) => k.startsWith(`${prefix}e:${s.sessionId}:`)),
      keys.join(' '),
    );
    for (const k of keys) {
      const ttl = await inspect.pttl(k);
      if (k === `${prefix}sessions`) continue; // the index of records, trimmed by score on every create
      assert.ok(
        ttl > 0 && ttl <= (k.startsWith(`${prefix}s:`) ? 60_000 : k.startsWith(`${prefix}p:`) ? 3000 : 30_000),
        `${k}: ttl ${ttl}`,
      );
    }
    await s.close();
    // DELETE ends it everywhere and releases its events
    assert.equal(
      (await inspect.keys(`${prefix}*`)).filter((k) => k.includes(s.sessionId!)),
      [],
    );
  } finally {
    inspect.disconnect();
    await served.close();
    await stores.close();
  }
});

test.run();
