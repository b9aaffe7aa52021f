import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CarrierWatch } from '../../../../../runtime/engine/cancellation.js';
import { MemoryEventStore } from '../../../../../runtime/transport/http/session/event-store.js';
import {
  ACCEPT_BOTH,
  initialize,
  initReq,
  messagesOf,
  post,
  readSse,
  readSseUntil,
  req,
  sleep,
  startServer,
  waitFor,
  V,
} from './helpers.js';

const S = (sid: string): Record<string, string> => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });

test('replies: auto gives JSON, or SSE when notifications come first; sse mode primes the stream', async () => {
  const srv = await startServer({ retryMs: 250 });
  try {
    const sid = await initialize(srv.url);
    const chatty = await post(srv.url, req(2, 'chatty', { count: 3 }), S(sid));
    assert.match(chatty.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.is(chatty.headers.get('mcp-session-id'), sid);
    const events = await readSse(chatty);
    assert.is(events[0].data, '', 'priming event first');
    assert.ok(events[0].id);
    assert.is(events[0].retry, 250);
    const msgs = messagesOf(events);
    assert.equal(
      msgs.map((m) => m.method ?? m.id),
      ['notifications/message', 'notifications/message', 'notifications/message', 2],
    );
    assert.ok(events.slice(1).every((e) => e.id && e.id !== events[0].id));
  } finally {
    await srv.close();
  }
  const sse = await startServer({ replyMode: 'sse' });
  try {
    const init = await post(sse.url, initReq());
    assert.match(init.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = await readSse(init);
    assert.is(events[0].data, '');
    assert.is(messagesOf(events)[0].id, 1);
  } finally {
    await sse.close();
  }
  const json = await startServer({ replyMode: 'json' });
  try {
    const sid = await initialize(json.url);
    const res = await post(json.url, req(2, 'chatty', { count: 2 }), S(sid));
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.is(((await res.json()) as { id: number }).id, 2);
  } finally {
    await json.close();
  }
});

test('no priming for clients older than 2025-11-25; no event ids with eventStore: false', async () => {
  const srv = await startServer({ replyMode: 'sse' });
  try {
    const res = await post(srv.url, initReq(1, { protocolVersion: '2025-06-18' }));
    const events = await readSse(res);
    assert.is(events.length, 1);
    assert.is(messagesOf(events)[0].id, 1);
  } finally {
    await srv.close();
  }
  const plain = await startServer({ replyMode: 'sse', eventStore: false });
  try {
    const events = await readSse(await post(plain.url, initReq()));
    assert.equal(
      events.map((e) => e.id),
      [undefined],
    );
  } finally {
    await plain.close();
  }
});

test('standalone GET: server-initiated messages, held messages, one connection per session', async () => {
  const srv = await startServer({ eventStore: false });
  try {
    const sid = await initialize(srv.url);
    // Sent before any GET: held, then sent when the GET opens.
    await srv.sessions[0].send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const first = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    assert.is(first.status, 200);
    assert.equal(
      messagesOf(await readSseUntil(first, (ev) => ev.length >= 1)).map((m) => m.method),
      ['notifications/tools/list_changed'],
    );
    const get = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    assert.is(get.status, 200);
    const notify = await post(srv.url, req(2, 'notify'), S(sid));
    assert.is(((await notify.json()) as { id: number }).id, 2);
    const events = await readSseUntil(get, (ev) => messagesOf(ev).length >= 1);
    assert.equal(
      messagesOf(events).map((m) => m.method),
      ['notifications/message'],
    );
  } finally {
    await srv.close();
  }
  const resumable = await startServer();
  try {
    const sid = await initialize(resumable.url);
    const first = await fetch(resumable.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    const second = await fetch(resumable.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    assert.is(second.status, 200);
    // The first connection was ended when the second replaced it.
    assert.is(messagesOf(await readSse(first)).length, 0);
    await resumable.sessions[0].send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    assert.equal(
      messagesOf(await readSseUntil(second, (ev) => messagesOf(ev).length >= 1)).map((m) => m.method),
      ['notifications/prompts/list_changed'],
    );
  } finally {
    await resumable.close();
  }
});

test('Last-Event-ID replays only the missed events of that stream, then continues it', async () => {
  const srv = await startServer({ replyMode: 'sse' });
  try {
    const sid = await initialize(srv.url);
    const ac = new AbortController();
    const res = await post(srv.url, req(2, 'stream', { count: 6, gapMs: 30 }), S(sid), ac.signal);
    const first = await readSseUntil(res, (ev) => messagesOf(ev).length >= 2);
    ac.abort();
    const cursor = first[first.length - 1].id as string;
    // Unrelated traffic on the standalone stream must not leak into the replay.
    await srv.sessions[0].send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    await sleep(40);
    const resumed = await fetch(srv.url, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': cursor, ...S(sid) },
    });
    assert.is(resumed.status, 200);
    const rest = await readSse(resumed);
    const all = [...messagesOf(first), ...messagesOf(rest)];
    assert.equal(
      all.map((m) => (m.method ? (m.params as { data: { i: number } }).data.i : `response ${m.id}`)),
      [0, 1, 2, 3, 4, 5, 'response 2'],
    );
    // Replaying a finished stream again from the same cursor gives the same events and ends.
    const again = await readSse(
      await fetch(srv.url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': cursor, ...S(sid) } }),
    );
    assert.equal(messagesOf(again), messagesOf(rest).slice(0, messagesOf(again).length));
    const unknown = await fetch(srv.url, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'bogus_99', ...S(sid) },
    });
    assert.is(unknown.status, 400);
    await unknown.text();
  } finally {
    await srv.close();
  }
});

test('concurrent POSTs on one session: each stream carries exactly its own messages', async () => {
  const srv = await startServer();
  try {
    const sid = await initialize(srv.url);
    const n = 24;
    const results = await Promise.all(
      Array.from({ length: n }, async (_, k) => {
        const id = k % 2 ? `r${k}` : 1000 + k;
        const method = k % 3 === 0 ? 'slow' : 'stream';
        const res = await post(
          srv.url,
          req(id, method, { count: 1 + (k % 4), gapMs: (k * 7) % 13, delayMs: (k * 5) % 17 }),
          S(sid),
        );
        const type = res.headers.get('content-type') ?? '';
        const msgs = type.includes('event-stream')
          ? messagesOf(await readSse(res))
          : [(await res.json()) as Record<string, unknown>];
        return { id, method, msgs, k };
      }),
    );
    for (const { id, method, msgs, k } of results) {
      const last = msgs[msgs.length - 1];
      assert.is(last.id, id);
      const notes = msgs.slice(0, -1);
      if (method === 'stream') {
        assert.equal(
          notes.map((m) => (m.params as { data: { id: unknown; i: number } }).data),
          Array.from({ length: 1 + (k % 4) }, (_, i) => ({ id, i })),
        );
      } else assert.is(notes.length, 0);
    }
  } finally {
    await srv.close();
  }
});

test('MessageInfo: sessionId, headers, protocolVersion, and a signal aborted when the POST connection closes', async () => {
  const srv = await startServer();
  try {
    const sid = await initialize(srv.url);
    const ac = new AbortController();
    const pending = post(srv.url, req(9, 'slow', { delayMs: 300 }), { ...S(sid), 'X-Trace': 'abc' }, ac.signal).catch(
      () => undefined,
    );
    await waitFor('the server to hold request 9', () => srv.log.some((x) => x.message.id === 9));
    const entry = srv.log.find((x) => x.message.id === 9);
    assert.ok(entry?.info);
    assert.is(entry.info.sessionId, sid);
    assert.is(entry.info.headers?.['x-trace'], 'abc');
    assert.is(entry.info.protocolVersion, V);
    assert.is(entry.info.signal?.aborted, false);
    ac.abort();
    await pending;
    await waitFor("request 9's signal to abort", () => entry.info?.signal?.aborted === true);
    assert.is(entry.info.signal?.aborted, true);
    const done = srv.log.find((x) => x.message.method === 'notifications/initialized');
    assert.is(done?.info?.signal?.aborted, false);
  } finally {
    await srv.close();
  }
});

test('MessageInfo.watchCarrier: the engine handle of a request is cancelled with its stream, at once when the stream already died', async () => {
  const srv = await startServer();
  try {
    const sid = await initialize(srv.url);
    const ac = new AbortController();
    const pending = post(srv.url, req(21, 'slow', { delayMs: 300 }), S(sid), ac.signal).catch(() => undefined);
    await waitFor('the server to hold request 21', () => srv.log.some((x) => x.message.id === 21));
    const info = srv.log.find((x) => x.message.id === 21)?.info as CarrierWatch | undefined;
    assert.type(info?.watchCarrier, 'function');
    const cancelled: unknown[] = [];
    info!.watchCarrier({ cancel: (reason) => cancelled.push(reason) });
    assert.is(cancelled.length, 0);
    ac.abort();
    await pending;
    await waitFor('the carrier to be cancelled', () => cancelled.length > 0);
    assert.is(cancelled.length, 1);
    assert.instance(cancelled[0], Error);
    assert.is(info!.signal?.reason, cancelled[0]);
    const late: unknown[] = [];
    info!.watchCarrier({ cancel: (reason) => late.push(reason) });
    assert.equal(late, cancelled);
  } finally {
    await srv.close();
  }
});

test('MessageInfo.signal: a disconnection the client can resume from is not a cancellation; session end is', async () => {
  const srv = await startServer({ replyMode: 'sse' });
  // whether the server saw each POST's response close (its listener runs before the handler's)
  const postClosed: boolean[] = [];
  srv.server.prependListener('request', (req, res) => {
    if (req.method !== 'POST') return;
    const i = postClosed.push(false) - 1;
    res.once('close', () => (postClosed[i] = true));
  });
  try {
    const sid = await initialize(srv.url);
    const ac = new AbortController();
    const res = await post(srv.url, req(11, 'slow', { delayMs: 150 }), S(sid), ac.signal);
    const primed = await readSseUntil(res, (ev) => ev.length >= 1);
    ac.abort();
    // the server has seen the disconnection (request 11's response closed) before we look at its signal
    await waitFor('the server to see the POST of request 11 close', () => postClosed.at(-1) === true);
    const entry = srv.log.find((x) => x.message.id === 11);
    assert.is(entry?.info?.signal?.aborted, false);
    const resumed = await fetch(srv.url, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': primed[0].id as string, ...S(sid) },
    });
    assert.equal(
      messagesOf(await readSse(resumed)).map((m) => m.id),
      [11],
    );
    assert.is(entry?.info?.signal?.aborted, false);
    const stuck = post(srv.url, req(12, 'slow', { delayMs: 400 }), S(sid)).then((r) => r.text());
    await waitFor('the server to hold request 12', () => srv.log.some((x) => x.message.id === 12));
    await fetch(srv.url, { method: 'DELETE', headers: S(sid) });
    assert.is(srv.log.find((x) => x.message.id === 12)?.info?.signal?.aborted, true);
    await stuck;
  } finally {
    await srv.close();
  }
});

test('WHATWG form: Request → Response, JSON and streamed SSE', async () => {
  const srv = await startServer();
  try {
    const headers = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', Host: `127.0.0.1:${srv.port}` };
    const init = await srv.handler.fetch(
      new Request(srv.url, { method: 'POST', headers, body: JSON.stringify(initReq()) }),
    );
    assert.is(init.status, 200);
    const sid = init.headers.get('mcp-session-id') as string;
    assert.ok(sid);
    assert.is(((await init.json()) as { id: number }).id, 1);
    const chatty = await srv.handler.fetch(
      new Request(srv.url, {
        method: 'POST',
        headers: { ...headers, ...S(sid) },
        body: JSON.stringify(req(2, 'chatty', { count: 2 })),
      }),
    );
    assert.match(chatty.headers.get('content-type') ?? '', /event-stream/);
    assert.equal(
      messagesOf(await readSse(chatty)).map((m) => m.method ?? m.id),
      ['notifications/message', 'notifications/message', 2],
    );
    const bad = await srv.handler.fetch(
      new Request('http://evil.example/mcp', {
        method: 'POST',
        headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
    assert.is(bad.status, 403);
    const note = await srv.handler.fetch(
      new Request(srv.url, {
        method: 'POST',
        headers: { ...headers, ...S(sid) },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'x' }),
      }),
    );
    assert.is(note.status, 202);
    assert.is(note.body, null);
  } finally {
    await srv.close();
  }
});

test('keep-alive comments on idle SSE connections', async () => {
  const srv = await startServer({ keepAliveMs: 20 });
  try {
    const sid = await initialize(srv.url);
    const get = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    const reader = (get.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const until = Date.now() + 2000;
    while (!text.includes(':\n\n:\n\n') && Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    assert.ok(text.includes(':\n\n:\n\n'), JSON.stringify(text));
  } finally {
    await srv.close();
  }
});

test('keep-alive comments on a POST stream that outlives its tick, over node:http and the WHATWG form; none on a reply that ends within it', async () => {
  const srv = await startServer({ keepAliveMs: 20, replyMode: 'sse' });
  try {
    const sid = await initialize(srv.url);
    const comments = (text: string): number => text.split('\n\n').filter((block) => block === ':').length;
    // the slow request's stream opens at once (priming event) and stays open for 200 ms
    const node = await (await post(srv.url, req(2, 'slow', { delayMs: 200 }), S(sid))).text();
    const headers = {
      Accept: ACCEPT_BOTH,
      'Content-Type': 'application/json',
      Host: `127.0.0.1:${srv.port}`,
      ...S(sid),
    };
    const web = await (
      await srv.handler.fetch(
        new Request(srv.url, { method: 'POST', headers, body: JSON.stringify(req(3, 'slow', { delayMs: 200 })) }),
      )
    ).text();
    for (const [name, text, id] of [
      ['node:http', node, 2],
      ['fetch', web, 3],
    ] as const) {
      assert.ok(comments(text) >= 2, `${name}: ${JSON.stringify(text)}`);
      assert.ok(
        text.endsWith(`"id":${id},"result":{"echo":{"delayMs":200}}}\n\n`),
        `${name}: the reply last: ${JSON.stringify(text)}`,
      );
    }
    // a quick reply is written and ended in the tick that opened its stream: no comment, no timer left
    const quick = await (await post(srv.url, req(4, 'echo', { x: 1 }), S(sid))).text();
    assert.is(comments(quick), 0, JSON.stringify(quick));
    assert.ok(quick.includes('"id":4'), JSON.stringify(quick));
  } finally {
    await srv.close();
  }
});

test('MemoryEventStore: per-stream bound, discarded cursor refused, priming never replayed', async () => {
  const store = new MemoryEventStore({ maxEventsPerStream: 3, maxStreams: 2 });
  const m = (i: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { i } });
  const p = store.storeEvent('s', 'a', null);
  const ids = [1, 2, 3, 4].map((i) => store.storeEvent('s', 'a', m(i)));
  const seen: unknown[] = [];
  assert.is(await store.replayEventsAfter('s', ids[1], (_id, msg) => void seen.push(msg.params)), 'a');
  assert.equal(seen, [{ i: 3 }, { i: 4 }]);
  assert.is(
    await store.replayEventsAfter('s', p, () => undefined),
    undefined,
    'events after the cursor were discarded',
  );
  assert.is(
    await store.replayEventsAfter('s', ids[0], () => undefined),
    'a',
    'cursor just before the oldest kept event',
  );
  store.storeEvent('s', 'b', m(5));
  store.storeEvent('s', 'c', m(6));
  // the stream bound counts finished streams (a live one is never released)
  for (const id of ['a', 'b', 'c']) store.streamFinished('s', id);
  assert.is(await store.replayEventsAfter('s', ids[3], () => undefined), undefined, 'stream a evicted');
  assert.is(await store.replayEventsAfter('s', 'c_x', () => undefined), undefined);
});

test.run();
