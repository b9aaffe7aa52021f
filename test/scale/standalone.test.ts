/**
 * Issue 16: the standalone GET stream spans the processes of a deployment. Three endpoints on
 * the Redis stores (each its own connections and process id, as `mcpgen serve --redis` would
 * be) behind the round-robin proxy of ./support.ts, one client session spread over them:
 * - the session's GET stream is held by one process; a log message and a tools list_changed
 *   sent on the two others, outside any request, arrive on it, in the order they were sent;
 * - a task created through another process: its `notifications/tasks/status` arrives there;
 * - the GET stream resumed with `Last-Event-ID` on a third process replays exactly what was
 *   delivered after that ID, each event once, then goes on live there;
 * - a GET on another process ends the one held before (one connection per stream across the
 *   processes, as on one): a message then goes out once, on the newer; two GETs at once on two
 *   processes leave exactly one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp, type HttpServe } from '../../cli/serve/http.js';
import { SseParser } from '../../runtime/codec/sse.js';
import { startProxy, startRedis, TestSession, V, type Proxy as TcpProxy, type RedisServer } from './support.js';

type Obj = Record<string, unknown>;
type Event = { id?: string; message: Obj };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: RedisServer;
let serves: HttpServe[] = [];
let proxy: TcpProxy;

test.before(async () => {
  redis = await startRedis();
  const mod = await loadRevision(V);
  serves = await Promise.all([0, 1, 2].map(() => serveHttp(mod, { port: 0, redis: redis.url })));
  proxy = await startProxy(serves.map((s) => s.url));
});

test.after(async () => {
  await proxy?.close();
  await Promise.all(serves.map((s) => s.close()));
  await redis?.stop();
});

/** An open GET stream through the proxy: the backend that holds it and the events it got. */
interface Listening {
  backend: number;
  events: Event[];
  abort: AbortController;
  /** The server ended the stream. */
  ended: boolean;
}

async function listen(session: TestSession, lastEventId?: string): Promise<Listening> {
  const abort = new AbortController();
  const r = await fetch(proxy.url, {
    headers: {
      Accept: 'text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Session-Id': session.sessionId!,
      ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
    },
    signal: abort.signal,
  });
  assert.is(r.status, 200, `GET: ${r.status}`);
  const l: Listening = { backend: Number(r.headers.get('x-backend')), events: [], abort, ended: false };
  void (async () => {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        for (const e of parser.push(decoder.decode(chunk, { stream: true })))
          l.events.push({ id: e.id, message: e.data ? (JSON.parse(e.data) as Obj) : {} });
      }
      l.ended = true;
    } catch {
      /* aborted */
    }
  })();
  return l;
}

/** Pings through the proxy until its next request goes to backend `k` (round-robin, nothing else in flight). */
async function steer(session: TestSession, k: number): Promise<void> {
  while (proxy.served.length % serves.length !== k) await session.request('ping');
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !ok(); await sleep(20))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

const messages = (events: Event[]) => events.filter((e) => e.message.method !== undefined);

test('messages for the GET stream reach it wherever it is held; a resumption elsewhere replays them once', async () => {
  const session = new TestSession(proxy.url);
  await session.initialize();
  const get = await listen(session);
  await until('the priming event', () => get.events.length > 0);
  const priming = get.events[0].id!;
  assert.ok(priming, 'the GET stream is primed');
  // every process now knows the session
  for (let i = 0; i < serves.length; i++) await session.request('ping');
  const others = [0, 1, 2].filter((i) => i !== get.backend);

  // a log message on one process, a list_changed on the other, outside any request
  const log = {
    jsonrpc: '2.0' as const,
    method: 'notifications/message',
    params: { level: 'info', logger: 'scale', data: `from process ${others[0]}` },
  };
  await serves[others[0]].handler.sessions.get(session.sessionId!)!.send(log);
  await serves[others[1]].handler.sessions
    .get(session.sessionId!)!
    .send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  await until('log and list_changed', () => messages(get.events).length >= 2);
  assert.equal(
    messages(get.events).map((e) => e.message.method),
    ['notifications/message', 'notifications/tools/list_changed'],
  );
  assert.equal(messages(get.events)[0].message, log);

  // a task created through another process: its status notifications come to this stream
  await steer(session, others[0]);
  const created = await session.request('tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 0.2 },
    task: { ttl: 60_000 },
  });
  assert.is(created.backends[0], others[0]);
  const taskId = (((created.response as Obj).result as Obj).task as Obj).taskId as string;
  const status = (e: Event) =>
    e.message.method === 'notifications/tasks/status' && (e.message.params as Obj).taskId === taskId;

  await until('the completed status', () =>
    get.events.some((e) => status(e) && (e.message.params as Obj).status === 'completed'),
  );

  // the GET ends; resumed from its priming event on a third process: the same events, once each
  await sleep(100);
  get.abort.abort();
  const live = messages(get.events);
  assert.ok(
    live.every((e) => e.id),
    'every message carries an event ID',
  );
  assert.is(new Set(live.map((e) => e.id)).size, live.length, 'no event twice on the live stream');
  const third = others[1];
  await steer(session, third);
  const resumed = await listen(session, priming);
  assert.is(resumed.backend, third);
  await until('the replay', () => messages(resumed.events).length >= live.length);
  await sleep(150);
  assert.equal(
    messages(resumed.events),
    live,
    'replayed: what the live stream got after the priming event, in order, once',
  );

  // and it goes on live on the third process, for messages sent on another
  const later = {
    jsonrpc: '2.0' as const,
    method: 'notifications/message',
    params: { level: 'info', logger: 'scale', data: 'after the resumption' },
  };
  await serves[get.backend].handler.sessions.get(session.sessionId!)!.send(later);
  await until('the later message', () => messages(resumed.events).length === live.length + 1);
  assert.equal(messages(resumed.events).at(-1)!.message, later);
  resumed.abort.abort();
  await session.close();
});

test('a GET on another process ends the one held before; a message then goes out once; two GETs at once leave one', async () => {
  const session = new TestSession(proxy.url);
  await session.initialize();
  for (let i = 0; i < serves.length; i++) await session.request('ping');
  const first = await listen(session);
  await until('the first priming event', () => first.events.length > 0);
  await steer(session, (first.backend + 1) % serves.length);
  const second = await listen(session);
  assert.is.not(second.backend, first.backend);
  await until('the first GET to end', () => first.ended);
  await until('the second priming event', () => second.events.length > 0);
  const third = [0, 1, 2].find((i) => i !== first.backend && i !== second.backend)!;
  const log = {
    jsonrpc: '2.0' as const,
    method: 'notifications/message',
    params: { level: 'info', logger: 'scale', data: 'once' },
  };
  await serves[third].handler.sessions.get(session.sessionId!)!.send(log);
  await until('the log on the second GET', () => messages(second.events).length === 1);
  assert.equal(messages(second.events)[0].message, log);
  assert.equal(messages(first.events), [], 'nothing on the ended GET');
  assert.not.ok(second.ended);

  // two at once, on two processes: one stays
  second.abort.abort();
  const both = await Promise.all([listen(session), listen(session)]);
  assert.is.not(both[0].backend, both[1].backend);
  await until('one of the two to end', () => both.some((l) => l.ended));
  await sleep(300);
  assert.is(both.filter((l) => !l.ended).length, 1, `open: ${both.map((l) => !l.ended)}`);
  for (const l of both) l.abort.abort();
  await session.close();
});

test.run();
