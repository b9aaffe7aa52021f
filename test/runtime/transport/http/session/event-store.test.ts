import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryEventStore } from '../../../../../runtime/transport/http/session/event-store.js';

const m = (i: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { i } });

/** Which of `streams` (each `[session, stream, an event ID of it]`) can still be resumed. */
async function kept(store: MemoryEventStore, streams: Array<[string, string, string]>): Promise<string[]> {
  const out: string[] = [];
  for (const [session, stream, id] of streams)
    if ((await store.replayEventsAfter(session, id, () => undefined)) === stream) out.push(`${session}/${stream}`);
  return out;
}

test("MemoryEventStore: maxStreams releases each session's longest finished stream; a stream written after finishing is live again", async () => {
  const store = new MemoryEventStore({ maxStreams: 2 });
  const streams: Array<[string, string, string]> = [];
  // two sessions finishing streams in turn: each keeps its own two most recent
  for (const n of [1, 2, 3]) {
    for (const s of ['x', 'y']) {
      streams.push([s, `${s}${n}`, store.storeEvent(s, `${s}${n}`, m(n))]);
      store.streamFinished(s, `${s}${n}`);
    }
  }
  assert.equal(await kept(store, streams), ['x/x2', 'y/y2', 'x/x3', 'y/y3']);
  // x2 written again: live, so not counted; x4 finishing then leaves x3 and x4
  store.storeEvent('x', 'x2', m(20));
  streams.push(['x', 'x4', store.storeEvent('x', 'x4', m(4))]);
  store.streamFinished('x', 'x4');
  assert.equal(await kept(store, streams), ['x/x2', 'y/y2', 'x/x3', 'y/y3', 'x/x4']);
  // x2 finishes again: now the newest finished of x, so x3 (finished longest ago) goes
  store.streamFinished('x', 'x2');
  assert.equal(await kept(store, streams), ['x/x2', 'y/y2', 'y/y3', 'x/x4']);
  const seen: unknown[] = [];
  await store.replayEventsAfter('x', streams[2][2], (_id, msg) => void seen.push(msg.params));
  assert.equal(seen, [{ i: 20 }], 'x2 replays what it got after it first finished');
});

test('MemoryEventStore: the TTL releases finished streams oldest first across sessions; clear() of one session leaves the others in order', async () => {
  let clock = 0;
  const store = new MemoryEventStore({ ttlMs: 100, now: () => clock });
  const streams: Array<[string, string, string]> = [];
  for (const [at, s, id] of [
    [0, 'x', 'a'],
    [10, 'y', 'b'],
    [20, 'x', 'c'],
    [30, 'y', 'd'],
  ] as const) {
    clock = at;
    streams.push([s, id, store.storeEvent(s, id, m(at))]);
    store.streamFinished(s, id);
  }
  clock = 115; // a and b are past the TTL, c and d are not
  store.storeEvent('z', 'live', m(0));
  assert.equal(await kept(store, streams), ['x/c', 'y/d']);
  store.clear('x');
  assert.equal(await kept(store, streams), ['y/d']);
  assert.is(store.sessionSize('x'), 0);
  clock = 131;
  store.storeEvent('z', 'live', m(1));
  assert.equal(await kept(store, streams), [], 'd expired after c was cleared');
  assert.is(store.size, store.sessionSize('z'), 'only the live stream is held');
});

test('MemoryEventStore: a session over its byte budget sheds its finished streams longest finished first, others untouched', async () => {
  const text = 'x'.repeat(1000);
  const big = (i: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { i, text } });
  const store = new MemoryEventStore({ maxSessionBytes: 3500 });
  const streams: Array<[string, string, string]> = [];
  streams.push(['y', 'y1', store.storeEvent('y', 'y1', big(0))]);
  store.streamFinished('y', 'y1');
  for (const n of [1, 2, 3]) {
    streams.push(['x', `x${n}`, store.storeEvent('x', `x${n}`, big(n))]);
    store.streamFinished('x', `x${n}`);
  }
  assert.equal(await kept(store, streams), ['y/y1', 'x/x1', 'x/x2', 'x/x3']);
  // a fourth event of ~1060 bytes goes over 3500: x1 (finished first) is released, then x2 would be kept
  streams.push(['x', 'x4', store.storeEvent('x', 'x4', big(4))]);
  assert.equal(await kept(store, streams), ['y/y1', 'x/x2', 'x/x3', 'x/x4']);
  assert.ok(store.sessionSize('x') <= 3500);
});

test('MemoryEventStore: replays the JSON texts as they went out, after a priming event or a message, and parses them for replayEventsAfter (a bigint id exact)', async () => {
  const store = new MemoryEventStore();
  const priming = store.storeEvent('x', 's', null);
  const big = {
    jsonrpc: '2.0' as const,
    id: 2n ** 60n + 1n,
    result: { content: [{ type: 'text', text: 'é "quoted"' }] },
  };
  const text =
    '{"jsonrpc":"2.0","id":1152921504606846977,"result":{"content":[{"type":"text","text":"é \\"quoted\\""}]}}';
  const first = store.storeEvent('x', 's', m(1));
  const second = store.storeEvent('x', 's', big, text);
  const texts: Array<[string, string]> = [];
  assert.is(
    store.replayTextsAfter('x', priming, (id, t) => void texts.push([id, t])),
    's',
  );
  assert.equal(
    texts,
    [
      [first, '{"jsonrpc":"2.0","method":"n","params":{"i":1}}'],
      [second, text],
    ],
    'no event for the priming one',
  );
  const messages: unknown[] = [];
  assert.is(await store.replayEventsAfter('x', first, (_id, msg) => void messages.push(msg)), 's');
  assert.equal(messages.length, 1);
  assert.is((messages[0] as { id: unknown }).id, 2n ** 60n + 1n, 'the id beyond 2^53 comes back exact');
  assert.equal((messages[0] as { result: unknown }).result, big.result);
  assert.is(
    store.replayTextsAfter('y', priming, () => assert.unreachable('another session')),
    undefined,
  );
  assert.is(
    store.replayTextsAfter('x', 's_999', () => assert.unreachable('unknown sequence')),
    undefined,
  );
  assert.is(
    store.size,
    3 * 64 + '{"jsonrpc":"2.0","method":"n","params":{"i":1}}'.length + text.length,
    'bytes: 64 per event plus each text',
  );
});

test("MemoryEventStore: finished streams are found by a scan of the session's kept ones (replay, a store after finishing), live ones by id; `fresh` makes a stream without a lookup", async () => {
  const store = new MemoryEventStore();
  const ids: string[] = [];
  for (let n = 1; n <= 300; n++) {
    ids.push(store.storeEvent('x', `x.${n}`, null, undefined, true));
    store.storeEvent('x', `x.${n}`, m(n));
    store.storeEvent('y', `y.${n}`, m(n));
    store.streamFinished('x', `x.${n}`);
  }
  const replayed = async (id: string) => {
    const out: unknown[] = [];
    const stream = await store.replayEventsAfter('x', id, (_id, msg) => void out.push(msg.params));
    return [stream, out];
  };
  assert.equal(await replayed(ids[299]), ['x.300', [{ i: 300 }]], 'the newest finished stream');
  assert.equal(await replayed(ids[44]), ['x.45', [{ i: 45 }]], 'the oldest of the 256 kept');
  assert.equal(await replayed(ids[43]), [undefined, []], 'released: past maxStreams');
  // stored again after it finished: live, and its events in order
  store.storeEvent('x', 'x.100', m(1000));
  assert.equal(await replayed(ids[99]), ['x.100', [{ i: 100 }, { i: 1000 }]]);
  // y's 300 streams never finished: all live, each found by id
  const live: unknown[] = [];
  assert.is(
    store.replayTextsAfter('y', store.storeEvent('y', 'y.7', null), (_id, text) => void live.push(text)),
    'y.7',
  );
  assert.equal(live, []);
  store.clear('x');
  assert.is(store.sessionSize('x'), 0);
  assert.equal(await replayed(ids[299]), [undefined, []]);
  assert.is(store.size, store.sessionSize('y'), 'only y is held after clear(x)');
});

test('MemoryEventStore: finished streams kept as bytes give back every text exactly, through buffer growth, compaction and streams written again in between', async () => {
  let clock = 0;
  const store = new MemoryEventStore({ maxStreams: 40, ttlMs: 1000, now: () => clock });
  const texts = ['é "quoted" \\ back', '𝄞 clef, 中文, emoji 😀', '', 'x'.repeat(3000)];
  const expected = new Map<string, string[]>();
  const firsts = new Map<string, string>();
  for (let n = 1; n <= 200; n++) {
    const id = `s.${n}`;
    firsts.set(id, store.storeEvent('x', id, null, undefined, true));
    const mine: string[] = [];
    for (let k = 0; k < 1 + (n % 3); k++) {
      const text = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n, k, t: texts[(n + k) % texts.length] } });
      store.storeEvent('x', id, JSON.parse(text), text);
      mine.push(text);
    }
    expected.set(id, mine);
    store.streamFinished('x', id);
    // every 7th stream: one kept earlier is written again (live again, dead in the middle of the records) and finishes again
    if (n % 7 === 0 && n > 20) {
      const again = `s.${n - 10}`;
      const text = JSON.stringify({ jsonrpc: '2.0', method: 'again', params: { n } });
      store.storeEvent('x', again, JSON.parse(text), text);
      expected.get(again)!.push(text);
      store.streamFinished('x', again);
    }
  }
  const replay = (id: string): string[] | undefined => {
    const out: string[] = [];
    return store.replayTextsAfter('x', firsts.get(id)!, (_e, t) => void out.push(t)) === id ? out : undefined;
  };
  // the 40 that finished last are kept: each with its texts, in order
  const kept = [...expected.keys()].filter((id) => replay(id) !== undefined);
  assert.is(kept.length, 40);
  for (const id of kept) assert.equal(replay(id), expected.get(id), id);
  assert.is(replay('s.1'), undefined);
  const held = kept.reduce(
    (sum, id) => sum + [null, ...expected.get(id)!].reduce((b, t) => b + 64 + (t?.length ?? 0), 0),
    0,
  );
  assert.is(store.size, held, 'bytes: 64 per event (priming included) plus each text');
  // the TTL still releases them in the order they finished
  clock = 1500;
  store.storeEvent('y', 'live', null);
  assert.equal(
    kept.filter((id) => replay(id) !== undefined),
    [],
  );
  assert.is(store.sessionSize('x'), 0);
  assert.is(store.size, 64, 'only the live stream of y');
});

test('MemoryEventStore: under a steady load the order of finished streams stays bounded by what is kept', () => {
  const store = new MemoryEventStore({ maxStreams: 4 });
  for (let n = 0; n < 20_000; n++) {
    const session = `s${n % 8}`;
    store.storeEvent(session, `${session}.${n}`, null, undefined, true);
    store.storeEvent(session, `${session}.${n}`, m(n));
    store.streamFinished(session, `${session}.${n}`);
  }
  // 8 sessions × 4 kept: the ring (private) holds at most a few times that, not the 20,000 that finished
  const ring = (store as unknown as { order: { sessions: unknown[] } }).order.sessions;
  assert.ok(ring.length <= 128, `ring of ${ring.length} entries`);
  let held = 0;
  for (let n = 20_000 - 32; n < 20_000; n++) held += 2 * 64 + JSON.stringify(m(n)).length;
  assert.is(store.size, held, 'the 4 newest of each session, priming and message');
});

test('MemoryEventStore: stream ids that UTF-8 alone would change (a leading U+FEFF, a lone surrogate) are found once finished, and stored to again', async () => {
  const store = new MemoryEventStore();
  for (const id of ['\uFEFFa', 'a\uD800', '\uDC00', 'é😀']) {
    const priming = store.storeEvent('x', id, null);
    const first = store.storeEvent('x', id, m(1));
    store.streamFinished('x', id);
    const texts: string[] = [];
    assert.is(
      store.replayTextsAfter('x', priming, (_e, t) => void texts.push(t)),
      id,
      JSON.stringify(id),
    );
    assert.equal(texts, [JSON.stringify(m(1))]);
    // stored again: the same stream, live, then finished again
    store.storeEvent('x', id, m(2));
    store.streamFinished('x', id);
    const again: string[] = [];
    assert.is(
      store.replayTextsAfter('x', first, (_e, t) => void again.push(t)),
      id,
    );
    assert.equal(again, [JSON.stringify(m(2))]);
  }
});

test('MemoryEventStore: texts of every kind come back from a finished stream exactly (short and long, ASCII, non-ASCII at the start and at the end)', () => {
  const store = new MemoryEventStore();
  const long = 'y'.repeat(600);
  // (JSON texts of every length around 512 characters, ASCII and not, where the copy changes method)
  const around = Array.from({ length: 40 }, (_, k) => 'x'.repeat(440 + k));
  const texts = [
    'plain',
    'é at the start',
    'at the end: 😀',
    long,
    `${long}é`,
    `é${long}`,
    '',
    ...around,
    ...around.map((t) => `${t}é`),
  ];
  const messages = texts.map((text, n) => ({ jsonrpc: '2.0' as const, method: 'n', params: { n, text } }));
  const priming = store.storeEvent('t', 'S', null);
  for (const message of messages) store.storeEvent('t', 'S', message);
  store.streamFinished('t', 'S');
  const replayed: string[] = [];
  assert.is(
    store.replayTextsAfter('t', priming, (_e, t) => void replayed.push(t)),
    'S',
  );
  assert.equal(
    replayed,
    messages.map((message) => JSON.stringify(message)),
  );
});

test('MemoryEventStore: a finished stream stored to again and again, behind an older one still kept, holds its one copy (no dead copies, the order ring bounded)', () => {
  const store = new MemoryEventStore({ maxEventsPerStream: 1 });
  store.storeEvent('s', 'A', m(0));
  store.streamFinished('s', 'A');
  const text = 'x'.repeat(10_000);
  for (let n = 0; n < 2000; n++) {
    store.storeEvent('s', 'B', { jsonrpc: '2.0', method: 'n', params: { n, text } });
    store.streamFinished('s', 'B');
  }
  const internals = store as unknown as {
    sessions: Map<string, { finished: { count: number; bytes: Uint8Array } }>;
    order: { sessions: unknown[] };
  };
  const finished = internals.sessions.get('s')!.finished;
  assert.is(finished.count, 2);
  assert.ok(finished.bytes.length <= 64 * 1024, `buffer of ${finished.bytes.length} bytes for two streams of ~10 KB`);
  assert.ok(internals.order.sessions.length <= 64, `ring of ${internals.order.sessions.length}`);
  assert.is(
    store.size,
    2 * 64 +
      JSON.stringify(m(0)).length +
      JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n: 1999, text } }).length,
  );
});

test('MemoryEventStore: the order of finished streams is compacted in place when it fills (its head moved on, so around its end), and the TTL still releases oldest first', async () => {
  let clock = 0;
  const store = new MemoryEventStore({ maxStreams: 2, ttlMs: 1000, now: () => clock });
  const internals = (store as unknown as { order: { sessions: unknown[]; head: number; count: number } }).order;
  const ring = internals.sessions;
  const streams: Array<[string, string, string]> = [];
  const finish = (n: number): void => {
    const session = `s${n % 4}`;
    streams.push([session, `t${n}`, store.storeEvent(session, `t${n}`, m(n))]);
    store.streamFinished(session, `t${n}`);
  };
  const names = (from: number): string[] => streams.slice(from).map(([session, stream]) => `${session}/${stream}`);
  for (let n = 0; n < 30; n++) {
    clock = n;
    finish(n);
  }
  // the entries of times 0 to 9 are past the TTL: the ring's head moves on by 10
  clock = 1009.5;
  store.storeEvent('z', 'live', m(0));
  assert.is(internals.head, 10);
  // the ring (64 entries) is full at 30 + 64 - 1 = 93, and finishing 94 compacts it with its
  // head at 30: the entries of the 8 kept streams (86 to 93: 4 sessions keep 2 each) move
  // from around the end of the ring to behind the head
  for (let n = 30; n < 95; n++) {
    clock = 1010 + n;
    finish(n);
  }
  assert.is(internals.sessions, ring, 'compacted in place, not made again');
  assert.is(internals.count, 9, '86 to 93, and 94 behind them');
  assert.equal(await kept(store, streams), names(87), '86 released by maxStreams');
  // 87 to 90 finished 1,000 ms ago or more: released, oldest first, the rest kept
  clock = 1010 + 90 + 1000;
  store.storeEvent('z', 'live', m(1));
  assert.equal(await kept(store, streams), names(91));
  // and so on: the ring fills and is compacted every 64 - 8 = 56 streams, the last time when
  // 374 finishes
  for (let n = 95; n < 375; n++) {
    clock = 2100 + n;
    finish(n);
  }
  assert.is(internals.sessions, ring, 'still the same ring');
  assert.is(ring.length, 64);
  assert.equal(await kept(store, streams), names(367));
  clock = 2100 + 373 + 1000;
  store.storeEvent('z', 'live', m(2));
  assert.equal(await kept(store, streams), names(374));
});

test.run();
