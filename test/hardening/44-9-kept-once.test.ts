/**
 * Issue 44, operations: the events a session kept while its event store failed are stored by one
 * pass at a time (session-streams.ts storeKept). An event kept while a pass waits on a slow store
 * schedules the next retry; that retry must not start a second pass over the same kept events,
 * which stored each of them again and wrote it twice to a connection that resumed the stream
 * (seen in 44-9-redis-stall-inflight under load: a progress notification and the result twice).
 * A real node:http endpoint; its event store a memory store behind a gate the test holds.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import type { EventStore } from '../../runtime/stores/events.js';
import { MemoryEventStore } from '../../runtime/stores/events-memory.js';
import { setTimeout as sleep } from 'node:timers/promises';
import * as http from '../runtime/transport/http/session/helpers.js';
import { headersOf, open, runs } from './replay-kit.js';

/** A memory event store that fails while `mode` is 'down' and holds each store call while 'held' until `release()`. */
function gatedStore() {
  const inner = new MemoryEventStore();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const state = { mode: 'up' as 'up' | 'down' | 'held', held: [] as string[], release };
  const store: EventStore = {
    async storeEvent(sessionId, streamId, message) {
      if (state.mode === 'down') throw new Error('store down');
      if (state.mode === 'held') {
        state.held.push(message === null ? '' : JSON.stringify(message.params));
        await gate;
      }
      return inner.storeEvent(sessionId, streamId, message);
    },
    replayEventsAfter: (...a) => inner.replayEventsAfter(...a),
    streamFinished: (...a) => inner.streamFinished(...a),
    clear: (...a) => inner.clear(...a),
  };
  return { store, state };
}

test('events kept while the store failed are stored once each, however slow the store is when it answers again; a resumed stream gets each once', async () => {
  const { store, state } = gatedStore();
  const server = await http.startServer({ eventStore: () => store, replyMode: 'sse' });
  try {
    const { sid } = await open(server.url);
    const session = server.log.find((r) => r.message.method === 'initialize')!.session;
    // a call whose connection is cut after its priming event (the client holds a cursor)
    const abort = new AbortController();
    const res = await http.post(server.url, http.req(1, 'slow', { delayMs: 3000 }), headersOf(sid), abort.signal);
    const head = await http.readSseUntil(res, (events) => events.some((e) => e.id));
    const cursor = head.find((e) => e.id)!.id!;
    for (let i = 0; i < 50 && runs(server.log, 1, 'slow') === 0; i++) await sleep(20);
    abort.abort();
    await sleep(200);
    const note = (n: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: n },
    });
    // the store fails: A is kept (its connection is gone), to be stored within a second
    state.mode = 'down';
    await session.send(note(1), { relatedRequestId: 1 });
    // it answers again, slowly: the first pass holds on A; B is kept meanwhile (its retry a second later)
    state.mode = 'held';
    for (let i = 0; i < 100 && state.held.length === 0; i++) await sleep(20);
    assert.equal(state.held, [JSON.stringify(note(1).params)], 'the first pass stores A');
    await session.send(note(2), { relatedRequestId: 1 });
    // past B's retry: no second pass over A
    await sleep(1500);
    state.release();
    assert.equal(state.held, [JSON.stringify(note(1).params)], 'A offered to the store once while held');
    // the resumed stream: A, B and the response, each once
    let messages: JSONRPCMessage[] = [];
    for (let i = 0; i < 50; i++) {
      const g = await fetch(server.url, {
        headers: { ...headersOf(sid), Accept: 'text/event-stream', 'Last-Event-ID': cursor },
        signal: AbortSignal.timeout(10_000),
      });
      if (g.status === 200) {
        messages = http.messagesOf(await http.readSse(g));
        break;
      }
      await g.arrayBuffer();
      await sleep(100);
    }
    assert.equal(
      messages.map((m) => (m.method ? (m.params as { data: number }).data : `response ${m.id}`)),
      [1, 2, 'response 1'],
    );
  } finally {
    state.release();
    await server.close();
  }
});

test.run();
