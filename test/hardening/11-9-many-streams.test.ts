/**
 * Issue 11, finding 9: resumption holds however many SSE streams a session opens. The event
 * store never releases a live stream (nor its newest event), releases finished streams by age
 * and under a byte budget, and stays within that budget (2025-11-25 basic/transports,
 * Resumability and Redelivery). Over real node:http against the runtime's handler.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryEventStore } from '../../runtime/transport/http/session/event-store.js';
import {
  initialize,
  messagesOf,
  post,
  readSse,
  readSseUntil,
  req,
  startServer,
  V,
} from '../runtime/transport/http/session/helpers.js';

const S = (sid: string): Record<string, string> => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });

/** GET with `Last-Event-ID`: status and, when 200, the JSON-RPC messages of the whole stream. */
async function resume(
  url: string,
  sid: string,
  cursor: string,
): Promise<{ status: number; messages: ReturnType<typeof messagesOf> }> {
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': cursor, ...S(sid) } });
  if (res.status !== 200) {
    await res.text();
    return { status: res.status, messages: [] };
  }
  return { status: 200, messages: messagesOf(await readSse(res)) };
}

/** POSTs `method` on an SSE reply, reads events until `n` messages came (0: the priming event), drops the connection; the last event id. */
async function startThenDrop(
  url: string,
  sid: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
  n = 0,
): Promise<string> {
  const res = await post(url, req(id, method, params), S(sid));
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const events = await readSseUntil(res, (ev) => ev.length > 0 && messagesOf(ev).length >= n);
  const cursor = events[events.length - 1].id;
  assert.ok(cursor, 'the stream gave a cursor');
  return cursor!;
}

test('a long call still resumes after 70 quick calls on the same session', async () => {
  const srv = await startServer({ replyMode: 'sse' });
  try {
    const sid = await initialize(srv.url);
    const cursor = await startThenDrop(srv.url, sid, 1000, 'stream', { count: 2, gapMs: 1500 }, 1);
    for (let i = 0; i < 70; i++) {
      const res = await post(srv.url, req(i + 1, 'echo', { i }), S(sid));
      assert.equal(
        messagesOf(await readSse(res)).map((m) => m.id),
        [i + 1],
      );
    }
    const got = await resume(srv.url, sid, cursor);
    assert.is(got.status, 200, 'the live stream was kept');
    assert.equal(
      got.messages.map((m) => m.method ?? m.id),
      ['notifications/message', 1000],
    );
    assert.equal((got.messages[0].params as { data: unknown }).data, { id: 1000, i: 1 });
  } finally {
    await srv.close();
  }
});

test('80 concurrent streams, every connection dropped: every result is resumed', async () => {
  const srv = await startServer({ replyMode: 'sse' });
  try {
    const sid = await initialize(srv.url);
    const ids = Array.from({ length: 80 }, (_, i) => i + 1);
    const cursors = await Promise.all(ids.map((id) => startThenDrop(srv.url, sid, id, 'slow', { delayMs: 1200 })));
    const results = await Promise.all(cursors.map((c) => resume(srv.url, sid, c)));
    assert.equal(
      results.map((r) => r.status),
      ids.map(() => 200),
    );
    assert.equal(
      results.map((r) => r.messages.map((m) => m.id)),
      ids.map((id) => [id]),
      'each stream got its own result, once',
    );
  } finally {
    await srv.close();
  }
});

test('a byte budget: finished streams go first, memory stays within it, a live stream still resumes', async () => {
  const store = new MemoryEventStore({ maxBytes: 64 * 1024 });
  const srv = await startServer({ replyMode: 'sse', eventStore: () => store });
  try {
    const sid = await initialize(srv.url);
    const cursor = await startThenDrop(
      srv.url,
      sid,
      500,
      'stream',
      { count: 2, gapMs: 8000, pad: 'p'.repeat(4000) },
      1,
    );
    const big = 'x'.repeat(8 * 1024);
    let firstFinished: string | undefined;
    for (let i = 0; i < 40; i++) {
      const res = await post(srv.url, req(i + 1, 'echo', { big }), S(sid));
      const events = await readSse(res);
      firstFinished ??= events[0].id;
      assert.ok(store.size <= 64 * 1024, `store holds ${store.size} bytes after call ${i + 1}`);
    }
    assert.ok(store.size > 0);
    assert.is((await resume(srv.url, sid, firstFinished!)).status, 400, 'the oldest finished stream was released');
    const got = await resume(srv.url, sid, cursor);
    assert.is(got.status, 200, 'the live stream was kept');
    assert.equal(
      got.messages.map((m) => m.method ?? m.id),
      ['notifications/message', 500],
    );
  } finally {
    await srv.close();
  }
});

test("one store shared by all sessions: a flooding session sheds its own events, not the others'", async () => {
  const store = new MemoryEventStore({ maxSessionBytes: 32 * 1024, maxBytes: 1024 * 1024 });
  const srv = await startServer({ replyMode: 'sse', eventStore: () => store });
  try {
    const a = await initialize(srv.url);
    const b = await initialize(srv.url);
    const quiet = await post(srv.url, req(1, 'echo', { who: 'b' }), S(b));
    const bCursor = (await readSse(quiet))[0].id!;
    const big = 'x'.repeat(8 * 1024);
    for (let i = 0; i < 70; i++) await readSse(await post(srv.url, req(i + 1, 'echo', { big }), S(a)));
    const got = await resume(srv.url, b, bCursor);
    assert.is(got.status, 200, "B's finished stream is still there after A's 70 streams");
    assert.equal(
      got.messages.map((m) => m.id),
      [1],
    );
    assert.ok(store.sessionSize(a) <= 32 * 1024, `session A holds ${store.sessionSize(a)} bytes`);
    assert.ok(store.sessionSize(b) > 0);
    // a session's end releases its events, and only its own
    const del = await fetch(srv.url, { method: 'DELETE', headers: S(a) });
    assert.is(del.status, 204);
    assert.is(store.sessionSize(a), 0);
    assert.is(store.size, store.sessionSize(b) + store.sessionSize(srv.sessions[0].sessionId));
  } finally {
    await srv.close();
  }
});

test('a TTL: finished streams are released after it, a live stream keeps its newest event', async () => {
  let clock = 1_000_000;
  const store = new MemoryEventStore({ ttlMs: 60_000, now: () => clock });
  const srv = await startServer({ replyMode: 'sse', eventStore: () => store });
  try {
    const sid = await initialize(srv.url);
    const live = await startThenDrop(srv.url, sid, 77, 'stream', { count: 2, gapMs: 800 }, 1);
    const done = await post(srv.url, req(2, 'echo'), S(sid));
    const doneCursor = (await readSse(done))[0].id!;
    assert.is((await resume(srv.url, sid, doneCursor)).status, 200, 'resumable within the TTL');
    clock += 61_000;
    assert.is((await resume(srv.url, sid, doneCursor)).status, 400, 'released after the TTL');
    const got = await resume(srv.url, sid, live);
    assert.is(got.status, 200, 'the live stream outlives the TTL');
    assert.equal(
      got.messages.map((m) => m.method ?? m.id),
      ['notifications/message', 77],
    );
  } finally {
    await srv.close();
  }
});

test.run();
