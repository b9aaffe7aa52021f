import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { OutboundRequests, PendingRequest } from '../../../runtime/engine/outbound.js';
import { Peer } from '../../../runtime/engine/peer.js';
import { RequestTimeoutError } from '../../../runtime/jsonrpc/errors.js';
import { settle, sleep, table, wire } from '../support.js';

/** Timers of this process that keep it alive. */
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

function harness() {
  const fired: Array<{ id: number | string | bigint; ms: number; at: number }> = [];
  const started = new Map<number | string | bigint, number>();
  const out: OutboundRequests = new OutboundRequests((p, ms) => {
    fired.push({ id: p.id, ms, at: Date.now() - started.get(p.id)! });
    out.settle(p.id, () => undefined);
  });
  const add = (id: number | string, timeout: number) => {
    const p = new PendingRequest(id, 'ping', undefined, false);
    p.take().catch(() => undefined);
    started.set(id, Date.now());
    out.add(p, timeout);
    return p;
  };
  return { out, fired, add };
}

test('outbound: requests sharing a timeout expire in send order, each once and not before its time; answered ones never', async () => {
  const { out, fired, add } = harness();
  add(0, 30);
  add(1, 30);
  add('1', 30);
  await sleep(10);
  add(2, 30);
  add(3, 60);
  assert.ok(
    out.settle(1, () => undefined),
    'pending 1 settles',
  );
  assert.is(
    out.settle(1, () => undefined),
    undefined,
    'a second settle finds nothing',
  );
  await sleep(90);
  assert.equal(
    fired.map((f) => f.id),
    [0, '1', 2, 3],
  );
  assert.equal(
    fired.map((f) => f.ms),
    [30, 30, 30, 60],
  );
  for (const f of fired) assert.ok(f.at >= f.ms - 1, `${f.id} fired after ${f.at} ms`);
  assert.is(out.size, 0);
});

test('outbound: an idle lane keeps its timer but no longer holds the process; Infinity needs no timer at all', async () => {
  const before = refTimers();
  const { out, add } = harness();
  add(0, 60_000);
  add(1, 60_000);
  assert.is(refTimers(), before + 1, 'one timer for the lane');
  add(2, Infinity);
  add(3, 2 ** 31);
  assert.is(refTimers(), before + 1, 'no timer for "no timeout"');
  for (const id of [0, 1, 2, 3]) out.settle(id, () => undefined);
  assert.is(refTimers(), before, 'idle: unref');
  add(4, 60_000);
  assert.is(refTimers(), before + 1, 'busy again: ref');
  out.settle(4, () => undefined);
  out.stopClocks();
  assert.is(refTimers(), before);
});

test('outbound: random sends, answers and timeouts: every unanswered request times out exactly once, answered ones never', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          timeout: fc.constantFrom(5, 12, 20),
          answerAfter: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
        }),
        { maxLength: 12 },
      ),
      async (plan) => {
        const { out, fired, add } = harness();
        const answered = new Set<number>();
        plan.forEach((r, id) => {
          add(id, r.timeout);
          if (r.answerAfter !== undefined) {
            setTimeout(() => {
              if (out.settle(id, () => undefined)) answered.add(id);
            }, r.answerAfter);
          }
        });
        await sleep(45);
        const ids = fired.map((f) => f.id as number);
        assert.is(new Set(ids).size, ids.length, 'at most once');
        for (const id of ids) assert.not.ok(answered.has(id), `${id} answered and timed out`);
        assert.is(ids.length + answered.size, plan.length, 'every request ends one way');
        assert.is(out.size, 0);
      },
    ),
    { numRuns: 15 },
  );
});

/** Keeps this thread busy for `ms` (a long run of code between two sends of one turn). */
const busy = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

test('outbound: a request sent late in a long run of code (the lane reads the clock once for it all) never times out early', async () => {
  const { fired, add } = harness();
  add(0, 30);
  busy(45); // past request 0's timeout, in the same run of code
  add(1, 30);
  await sleep(5);
  add(2, 30);
  await sleep(100);
  assert.equal(
    fired.map((f) => f.id),
    [0, 1, 2],
  );
  for (const f of fired) assert.ok(f.at >= f.ms, `${f.id} timed out ${f.at} ms after it was sent`);
});

test('outbound: a request sent while its lane expires others (in the expiry itself) gets its full time', async () => {
  const started = new Map<number, number>();
  const fired: Array<{ id: number; at: number }> = [];
  const add = (id: number) => {
    const p = new PendingRequest(id, 'ping', undefined, false);
    p.take().catch(() => undefined);
    started.set(id, Date.now());
    out.add(p, 20);
  };
  const out: OutboundRequests = new OutboundRequests((p) => {
    const id = p.id as number;
    fired.push({ id, at: Date.now() - started.get(id)! });
    out.settle(id);
    if (id < 2) add(id + 10); // as a request's own failure step (a resend) does, synchronously
  });
  add(0);
  add(1);
  await sleep(120);
  assert.equal(
    fired.map((f) => f.id),
    [0, 1, 10, 11],
  );
  for (const f of fired) assert.ok(f.at >= 20, `${f.id} timed out ${f.at} ms after it was sent`);
});

test('outbound: a peer answering 0 keeps the id exact and times out the others on its default clock', async () => {
  const w = await wire();
  const peer = new Peer({ side: 'client', table, transport: w.transport, timeout: 25 });
  await peer.start();
  const a = peer.request('ping');
  const b = peer.request('ping');
  const first = await w.next();
  assert.is(first.id, 0);
  await w.send({ jsonrpc: '2.0', id: '0', result: {} });
  await w.send({ jsonrpc: '2.0', id: 0, result: {} });
  assert.equal(await a, {});
  const e = await b.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RequestTimeoutError);
  assert.is((e as RequestTimeoutError).timeoutMs, 25);
  await settle();
  await peer.close();
});
test('outbound: `after` takes the result before the promise settles: its value, a promise it returns, its throw; never an error, and once', async () => {
  const make = (after: (r: unknown) => unknown) => {
    const p = new PendingRequest(1, 'tools/call', undefined, false);
    p.after = after;
    return { p, promise: p.take() };
  };
  const seen: unknown[] = [];
  const a = make((r) => (seen.push(r), { wrapped: r }));
  a.p.resolve('x');
  a.p.resolve('again');
  assert.equal(await a.promise, { wrapped: 'x' });
  assert.equal(seen, ['x'], 'run once, on the first settle only');
  const b = make(async (r) => `later ${r}`);
  b.p.resolve('y');
  assert.is(await b.promise, 'later y');
  const c = make(() => {
    throw new Error('breaks the schema');
  });
  c.p.resolve('z');
  assert.is(
    await c.promise.then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
    'breaks the schema',
  );
  const d = make(() => {
    throw new Error('not run on an error');
  });
  d.p.reject(new Error('the error response'));
  assert.is(
    await d.promise.then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
    'the error response',
  );
});

test('outbound: `recover` takes the failure before the promise settles: an answer, a promise it returns, its throw; never a result, and once', async () => {
  const make = (recover: (e: unknown) => unknown) => {
    const p = new PendingRequest(1, 'tools/call', undefined, false);
    p.recover = recover;
    return { p, promise: p.take() };
  };
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      (v) => ['resolved', v],
      (e: Error) => ['rejected', e.message],
    );
  const seen: string[] = [];
  const a = make((e) => (seen.push((e as Error).message), 'resent'));
  a.p.reject(new Error('-32022'));
  a.p.reject(new Error('again'));
  assert.equal(await outcome(a.promise), ['resolved', 'resent']);
  assert.equal(seen, ['-32022'], 'run once, on the first settle only');
  const b = make(async () => 'resent later');
  b.p.reject(new Error('x'));
  assert.equal(await outcome(b.promise), ['resolved', 'resent later']);
  const c = make((e) => {
    throw e;
  });
  c.p.reject(new Error('not resendable'));
  assert.equal(await outcome(c.promise), ['rejected', 'not resendable']);
  const d = make(() => 'not run on a result');
  d.p.resolve({ ok: 1 });
  assert.equal(await outcome(d.promise), ['resolved', { ok: 1 }]);
  // `after` and `recover` together: a throw of `after` is the caller's, not `recover`'s
  const e = make(() => 'recovered');
  e.p.after = () => {
    throw new Error('after broke');
  };
  e.p.resolve('r');
  assert.equal(await outcome(e.promise), ['rejected', 'after broke']);
});

test('outbound: pending requests are found by id exactly as a Map finds its keys, whatever the ids and their order (ring slots, collisions, growth, strings)', () => {
  const id = fc.oneof(
    fc.integer({ min: 0, max: 700 }),
    fc.constantFrom(-0, 1.5, -1, 2 ** 32, 2 ** 32 + 1, Number.NaN, 1e300),
    fc.constantFrom('0', '1', 'a-1', '__proto__'),
  );
  fc.assert(
    fc.property(
      fc.array(fc.record({ op: fc.constantFrom('add', 'add', 'settle', 'settle', 'get'), id }), { maxLength: 400 }),
      (ops) => {
        const out = new OutboundRequests(() => undefined);
        const model = new Map<number | string, PendingRequest>();
        for (const { op, id } of ops) {
          if (op === 'add') {
            const p = new PendingRequest(id, 'ping', undefined, false);
            p.take().catch(() => undefined);
            out.add(p, Infinity);
            model.set(id, p);
          } else if (op === 'settle') {
            assert.is(out.settle(id), model.get(id), `settle ${String(id)}`);
            model.delete(id);
          }
          assert.is(out.size, model.size, 'size');
        }
        assert.equal(
          out.ids(),
          [...model.values()].sort((a, b) => a.order - b.order).map((p) => p.id),
        );
        for (const key of [...model.keys(), 0, 1, 16, 256, -0, Number.NaN]) {
          assert.is(out.settle(key), model.get(key), `settle ${String(key)} at the end`);
          model.delete(key);
        }
        assert.is(out.size, 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('outbound: 64 requests in flight over thousands of ids, with one left pending from the start, each found once', () => {
  const out = new OutboundRequests(() => undefined);
  const make = (id: number) => {
    const p = new PendingRequest(id, 'ping', undefined, false);
    p.take().catch(() => undefined);
    out.add(p, Infinity);
    return p;
  };
  const old = make(0);
  const live: PendingRequest[] = [];
  for (let id = 1; id < 5000; id++) {
    live.push(make(id));
    if (live.length === 64) {
      const p = live.shift()!;
      assert.is(out.settle(p.id), p);
      assert.is(out.settle(p.id), undefined, 'once');
    }
  }
  assert.is(out.size, 64);
  assert.is(out.settle(0), old);
  // an id kept beside the ring (its slot was taken) and added again once its slot is free: still one request
  for (const id of [0, 16, 32, 64, 128, 256]) make(id);
  assert.ok(out.settle(0));
  const again = make(256);
  assert.is(out.size, live.length + 5);
  assert.is(out.settle(256), again);
  assert.is(out.settle(256), undefined);
  for (const id of [16, 32, 64, 128]) assert.ok(out.settle(id));
  assert.equal(
    out.ids(),
    live.map((p) => p.id),
  );
});

test.run();
