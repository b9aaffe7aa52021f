/**
 * Issue 11, finding 3: with one event store shared by every session (`eventStore: () =>
 * shared`), a `Last-Event-ID` is honoured only in the session and on the stream it came from
 * (2025-11-25 basic/transports, Resumability and Redelivery: "MUST NOT replay messages that
 * would have been delivered on a different stream"), whatever the store; event ids name their
 * session (the standalone stream's included), and one session ending leaves the others' events.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SseEvent } from '../../runtime/codec/sse.js';
import { MemoryEventStore } from '../../runtime/transport/http/session/event-store.js';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import {
  initialize,
  messagesOf,
  post,
  readSse,
  readSseUntil,
  req,
  startServer,
  V,
  type TestServer,
} from '../runtime/transport/http/session/helpers.js';

const S = (sid: string): Record<string, string> => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });

/** GET with `Last-Event-ID` on `sid`: status and body text. */
async function resume(url: string, sid: string, lastEventId: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': lastEventId, ...S(sid) } });
  return { status: res.status, text: await res.text() };
}

/** A tool call on `sid` that sends 2 notifications carrying `secret` and then its result; all its events. */
async function secretCall(srv: TestServer, sid: string, secret: string): Promise<SseEvent[]> {
  const res = await post(srv.url, req(5, 'chatty', { count: 2, secret }), S(sid));
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  return readSse(res);
}

/** The standalone stream of `sid` after `secret` was sent on it: its events until that message. */
async function standaloneWith(srv: TestServer, sid: string, secret: string): Promise<SseEvent[]> {
  const get = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
  assert.is(get.status, 200);
  const session = srv.sessions.find((s) => s.sessionId === sid)!;
  const primed = readSseUntil(get, (ev) => messagesOf(ev).some((m) => JSON.stringify(m).includes(secret)));
  await session.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: secret } });
  return primed;
}

/**
 * A store written as the simplest user store would be: one map of event ids, blind to sessions.
 * It takes the arguments of either store API (with or without the session id in front).
 */
function naiveStore() {
  const events: Array<{ id: string; stream: string; message: JSONRPCMessage | null }> = [];
  let n = 0;
  return {
    storeEvent(...args: unknown[]): string {
      const message = args[args.length - 1] as JSONRPCMessage | null;
      const stream = args[args.length - 2] as string;
      const id = `e${++n}`;
      events.push({ id, stream, message });
      return id;
    },
    async replayEventsAfter(...args: unknown[]): Promise<string | undefined> {
      const send = args[args.length - 1] as (id: string, m: JSONRPCMessage) => void;
      const last = args[args.length - 2] as string;
      const at = events.findIndex((e) => e.id === last);
      if (at < 0) return undefined;
      for (const e of events.slice(at + 1)) if (e.stream === events[at].stream && e.message) send(e.id, e.message);
      return events[at].stream;
    },
  };
}

for (const [name, makeStore] of [
  ['a shared MemoryEventStore', () => new MemoryEventStore()],
  ['a shared store blind to sessions', naiveStore],
] as const) {
  test(`${name}: session B cannot replay session A's POST or standalone stream`, async () => {
    const shared = makeStore();
    const srv = await startServer({ replyMode: 'sse', eventStore: () => shared as never });
    try {
      const a = await initialize(srv.url);
      const b = await initialize(srv.url);
      const posted = await secretCall(srv, a, 'A-secret-post');
      assert.ok(messagesOf(posted).length === 3, 'A got its 2 notifications and its result');
      const standalone = await standaloneWith(srv, a, 'A-secret-standalone');
      const cursors = [...posted, ...standalone].map((e) => e.id).filter((id): id is string => !!id);
      assert.ok(cursors.length >= 5);
      for (const cursor of cursors) {
        const got = await resume(srv.url, b, cursor);
        assert.is(got.status, 400, `B presenting A's ${cursor}`);
        assert.not.match(got.text, /A-secret/);
      }
      // A itself resumes its own POST stream: what followed the priming event, nothing else
      const own = await resume(srv.url, a, posted[0].id!);
      assert.is(own.status, 200);
      assert.match(own.text, /A-secret-post/);
      assert.not.match(own.text, /A-secret-standalone/);
    } finally {
      await srv.close();
    }
  });
}

test('event ids of the standalone stream differ per session and name it (not one constant)', async () => {
  const shared = new MemoryEventStore();
  const srv = await startServer({ eventStore: () => shared });
  try {
    const a = await initialize(srv.url);
    const b = await initialize(srv.url);
    const evA = await standaloneWith(srv, a, 'to-a');
    const evB = await standaloneWith(srv, b, 'to-b');
    const stream = (id: string): string => id.slice(0, id.lastIndexOf('_'));
    const idsA = evA.map((e) => e.id!).filter(Boolean);
    const idsB = evB.map((e) => e.id!).filter(Boolean);
    assert.ok(idsA.length >= 2 && idsB.length >= 2);
    assert.is(new Set(idsA.map(stream)).size, 1, 'one stream in A');
    assert.is.not(stream(idsA[0]), stream(idsB[0]), 'each session has its own standalone stream id');
    assert.not.ok(idsA[0].includes(a) || idsB[0].includes(b), 'event ids do not carry the session id itself');
    assert.ok(stream(idsA[0]).length >= 16, 'stream ids carry a random per-session part');
  } finally {
    await srv.close();
  }
});

test('a shared store: one session ending releases only its own events', async () => {
  const shared = new MemoryEventStore();
  const srv = await startServer({ replyMode: 'sse', eventStore: () => shared });
  try {
    const a = await initialize(srv.url);
    const b = await initialize(srv.url);
    // B: a call still running, its connection lost after the first notification
    const call = await post(srv.url, req(9, 'stream', { count: 3, gapMs: 400 }), S(b));
    const head = await readSseUntil(call, (ev) => messagesOf(ev).length >= 1);
    const cursor = head[head.length - 1].id!;
    const del = await fetch(srv.url, { method: 'DELETE', headers: S(a) });
    assert.is(del.status, 204);
    const rest = await fetch(srv.url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': cursor, ...S(b) } });
    assert.is(rest.status, 200, "B's stream survived A's end");
    const msgs = messagesOf(await readSse(rest));
    assert.equal(
      msgs.map((m) => m.method ?? m.id),
      ['notifications/message', 'notifications/message', 9],
    );
  } finally {
    await srv.close();
  }
});

test.run();
