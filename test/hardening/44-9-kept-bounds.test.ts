/**
 * Issue 44, operations (bounded state): while Redis stalls, a session keeps the events of its
 * calls that the event store did not take, to store them once it answers (so a client resuming
 * the stream gets them). What it keeps is bounded per session, in events (KEPT_MAX_EVENTS) and
 * characters of JSON text (KEPT_MAX_CHARS): past either the oldest notifications are dropped,
 * the response is kept, and the drop is reported. A call whose connection is cut sends its
 * progress into the stall; the stream resumed after it gives the newest progress and the result.
 * Real node:http (`serveHttp`, the endpoint of `mcpgen serve --http --redis`), real redis-server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp, type HttpServe } from '../../cli/serve/http.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { KEPT_MAX_CHARS, KEPT_MAX_EVENTS } from '../../runtime/transport/http/session/session-streams.js';
import { startRedis, TestSession, V, type RedisServer } from '../scale/support.js';
import { CutCall } from './cut-call.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `burst` tool's gate (opened by the test once Redis stalls and the connection is cut) and its end. */
let gate: { open: () => void; opened: Promise<void>; done: () => void; finished: Promise<void> };
const newGate = () => {
  let open!: () => void;
  let done!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const finished = new Promise<void>((r) => (done = r));
  gate = { open, opened, done, finished };
};

let redis: RedisServer;
let stores: RedisStores;
let served: HttpServe;
const warnings: string[] = [];
test.before(async () => {
  redis = await startRedis();
  stores = await connectRedisStores(redis.url, { prefix: `kept${Date.now()}:`, commandTimeoutMs: 1000 });
  served = await serveHttp(await loadRevision(V), {
    port: 0,
    shared: { sessions: stores.sessions, bus: stores.bus, events: stores.events },
    logger: { warn: (m: string) => void warnings.push(m) },
    extend: (f) =>
      f.tool<{ n: number; size: number }>({
        name: 'burst',
        description: 'progress 1, then (once the gate opens) progress 2..n, each with a message of size characters',
        inputSchema: {
          type: 'object',
          properties: { n: { type: 'integer' }, size: { type: 'integer' } },
          required: ['n', 'size'],
        },
        handler: async (a, ctx) => {
          const text = 'x'.repeat(a.size);
          await ctx.sendProgress(1, a.n, text);
          await gate.opened;
          for (let i = 2; i <= a.n; i++) await ctx.sendProgress(i, a.n, text);
          gate.done();
          return { content: [{ type: 'text', text: `burst ${a.n}` }] };
        },
      }),
  });
});
test.after(async () => {
  redis?.pause(false);
  await served?.close();
  await stores?.close();
  await redis?.stop();
});

/**
 * Calls `burst`, cuts its connection after progress 1 with Redis stalled, lets the tool finish,
 * then resumes the stream: the progress after 2 and the response it gives, and their characters.
 */
async function burstThroughStall(
  n: number,
  size: number,
): Promise<{ progress: number[]; chars: number; response?: Obj }> {
  newGate();
  const s = new TestSession(served.url);
  await s.initialize();
  const call = await CutCall.post(served.url, s.sessionId!, 5, {
    name: 'burst',
    arguments: { n, size },
    _meta: { progressToken: 'b' },
  });
  await call.readUntil((m) => m.method === 'notifications/progress');
  assert.ok(call.lastEventId, 'progress 1 was stored: an event ID to resume from');
  redis.pause(true);
  call.cut();
  await sleep(200);
  gate.open();
  await gate.finished;
  await sleep(300);
  redis.pause(false);
  const progress: number[] = [];
  let chars = 0;
  let response: Obj | undefined;
  await call.resume((m, data) => {
    const p = m.method === 'notifications/progress' ? ((m.params as Obj).progress as number) : undefined;
    // progress 2's store command went out as the stall began: Redis runs it once it continues,
    // whatever the session kept (it was not among the events kept)
    if (p === 2) return false;
    chars += data.length;
    if (p !== undefined) progress.push(p);
    else if (m.id === 5) response = m;
    return response !== undefined;
  });
  await s.close();
  return { progress, chars, response };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test(`events kept through a stall: at most ${KEPT_MAX_EVENTS} per session, the newest, the response among them`, async () => {
  const n = KEPT_MAX_EVENTS + 500;
  warnings.length = 0;
  const { progress, response } = await burstThroughStall(n, 0);
  assert.equal(response?.result, { content: [{ type: 'text', text: `burst ${n}` }] }, JSON.stringify(response));
  // the response counts among the kept: the newest KEPT_MAX_EVENTS - 1 notifications remain
  assert.equal(progress, range(n - KEPT_MAX_EVENTS + 2, n));
  const dropped = warnings.map((w) => /(\d+) event\(s\) the store did not take were dropped/.exec(w)).find(Boolean);
  assert.ok(dropped, warnings.join('\n'));
  assert.ok(Number(dropped![1]) >= 499 && Number(dropped![1]) <= 500, dropped![0]);
});

test(`events kept through a stall: at most ${KEPT_MAX_CHARS} characters per session`, async () => {
  const size = 256 * 1024;
  const n = Math.ceil((KEPT_MAX_CHARS * 1.5) / size);
  const { progress, chars, response } = await burstThroughStall(n, size);
  assert.equal(response?.result, { content: [{ type: 'text', text: `burst ${n}` }] });
  assert.ok(chars <= KEPT_MAX_CHARS, `${chars} characters replayed`);
  assert.ok(progress.length >= Math.floor(KEPT_MAX_CHARS / (size + 200)) - 1, `${progress.length} kept`);
  assert.ok(progress.length < n - 1, `${progress.length} of ${n - 1} kept: none dropped`);
  assert.equal(progress, range(n - progress.length + 1, n), 'the newest, in order');
});

test.run();
