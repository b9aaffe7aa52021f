/**
 * One deployment for the whole file (issue 16): a real `redis-server`, three `mcpgen serve
 * --rev 2025-11-25 --http 0 --redis <url>` processes and a round-robin HTTP proxy in front of
 * them, so every request of a client session goes to the next process.
 * - Tasks created through one process are got, awaited, listed and cancelled through others.
 * - A server → client request (sampling) answered through another process reaches the process
 *   awaiting it; a stream whose connection the server closes (polling) is followed on another
 *   process until its result.
 * - 200 tools/call with progress, six at a time, and mid-run one long call (slow_compute, 60 s);
 *   once the long call's stream has delivered its first progress, the process holding it gets
 *   SIGKILL (that process is then surely mid-call, whatever the load: the short calls' 10-ms
 *   steps may all be over by the time the client reads an event). Every broken stream resumes
 *   with `Last-Event-ID` through the proxy, on another process, which replays from Redis; a POST
 *   the dead process claimed but whose response headers the proxy had not read yet is sent by
 *   the proxy to another process, which answers it from the claimed stream (request replay). No
 *   event delivered twice, none stored missing, only the stream's own events, the dead process's
 *   calls end with error -32000 (no hang), every other call completes with progress 0, 50, 100.
 * - Redis stopped mid-run: requests that need it get 503 / JSON-RPC -32000, the processes keep
 *   running; restarted: they recover by themselves (its data is gone: no persistence here).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Served } from '../runtime/tasks/serve-process.js';
import {
  startProxy,
  startRedis,
  startRedisServe,
  TestSession,
  type Exchange,
  type Proxy as TcpProxy,
  type RedisServer,
} from './support.js';

type Obj = Record<string, unknown>;
/** Calls of the kill run: 200 in `npm test`; `npm run bench:scale-kill` makes a longer run (MCPGEN_SCALE_CALLS). */
const CALLS = Number(process.env.MCPGEN_SCALE_CALLS ?? 200);
const PARALLEL = 6;

let deployment: { redis: RedisServer; serves: Served[]; proxy: TcpProxy; inspect: Redis } | undefined;
const d = () => deployment!;

test.before(async () => {
  const redis = await startRedis();
  const serves = await Promise.all([0, 1, 2].map(() => startRedisServe(redis.url)));
  const proxy = await startProxy(serves.map((s) => s.url));
  deployment = { redis, serves, proxy, inspect: new Redis(redis.url) };
});

test.after(async () => {
  if (!deployment) return;
  deployment.inspect.disconnect();
  await deployment.proxy.close();
  await Promise.all(deployment.serves.map((s) => s.stop()));
  await deployment.redis.stop();
});

const SAMPLED = {
  role: 'assistant',
  content: { type: 'text', text: 'hi from the client' },
  model: 'test-model',
  stopReason: 'endTurn',
};

test('sampling answered through another process; a polled stream followed on another process', async () => {
  const { proxy } = d();
  const session = new TestSession(proxy.url, (m) => (m.method === 'sampling/createMessage' ? SAMPLED : undefined));
  await session.initialize({ sampling: {} });
  for (let i = 0; i < 4; i++) {
    const ex = await session.request('tools/call', { name: 'test_sampling', arguments: { prompt: `q${i}` } });
    assert.equal(
      (ex.response as Obj).result,
      { content: [{ type: 'text', text: 'LLM response: hi from the client' }] },
      JSON.stringify(ex.response),
    );
  }
  assert.is(session.answers.length, 4);
  assert.ok(
    session.answers.every((a) => a.status === 202),
    JSON.stringify(session.answers),
  );
  const ex = await session.request('tools/call', { name: 'test_reconnection', arguments: {} });
  assert.equal((ex.response as Obj).result, {
    content: [{ type: 'text', text: 'Reconnection test completed successfully' }],
  });
  assert.is(ex.resumed, 1);
  assert.is.not(ex.backends[1], ex.backends[0], 'resumed on another process');
  await session.close();
});

test('tasks created through one process: got, awaited, listed and cancelled through the others', async () => {
  const { proxy } = d();
  const session = new TestSession(proxy.url);
  await session.initialize();
  const created = await session.request('tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 0.6 },
    task: { ttl: 60_000 },
  });
  const task = ((created.response as Obj).result as Obj).task as Obj;
  assert.is(task.status, 'working', JSON.stringify(created.response));
  const taskId = task.taskId as string;
  const got = await session.request('tasks/get', { taskId });
  assert.is.not(got.backends[0], created.backends[0], 'asked on another process');
  assert.is(((got.response as Obj).result as Obj).taskId, taskId, JSON.stringify(got.response));
  const result = await session.request('tasks/result', { taskId });
  assert.is.not(result.backends[0], created.backends[0]);
  const content = (((result.response as Obj).result as Obj).content as Obj[])[0];
  assert.match(String(content.text), /^Computed sum 1\.\.\d+ = \d+/, JSON.stringify(result.response));
  const listed = await session.request('tasks/list', {});
  const tasks = ((listed.response as Obj).result as Obj).tasks as Obj[];
  assert.equal(
    tasks.map((t) => [t.taskId, t.status]),
    [[taskId, 'completed']],
  );

  // cancelled through another process: the process running it stops it, everyone sees `cancelled`
  const slow = await session.request('tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 30 },
    task: { ttl: 60_000 },
  });
  const slowId = (((slow.response as Obj).result as Obj).task as Obj).taskId as string;
  const cancelled = await session.request('tasks/cancel', { taskId: slowId });
  assert.is.not(cancelled.backends[0], slow.backends[0]);
  assert.is(((cancelled.response as Obj).result as Obj).status, 'cancelled', JSON.stringify(cancelled.response));
  const after = await session.request('tasks/result', { taskId: slowId });
  assert.equal((after.response as Obj).error, {
    code: -32602,
    message: 'Task was cancelled',
    data: { taskId: slowId },
  });
  await new Promise((r) => setTimeout(r, 300));
  const still = await session.request('tasks/get', { taskId: slowId });
  assert.is(
    ((still.response as Obj).result as Obj).status,
    'cancelled',
    'the running process did not overwrite the cancellation',
  );
  // another session sees none of them
  const other = new TestSession(proxy.url);
  await other.initialize();
  const foreign = await other.request('tasks/get', { taskId });
  assert.is(((foreign.response as Obj).error as Obj).code, -32602);
  await other.close();
  await session.close();
});

test('kill -9 of the process holding a stream mid-call: resumed elsewhere, 0 events lost, 0 duplicated', async () => {
  const { serves, inspect, proxy } = d();
  {
    const session = new TestSession(proxy.url);
    await session.initialize();
    const results: Array<{ token: string; ex: Exchange }> = [];
    let killed: number | undefined;
    let issued = 0;
    const worker = async (): Promise<void> => {
      while (issued < CALLS) {
        const token = `p${issued++}`;
        const ex = await session.request('tools/call', {
          name: 'test_tool_with_progress',
          arguments: {},
          _meta: { progressToken: token },
        });
        results.push({ token, ex });
      }
    };
    // mid-run, a call that stays mid-call for 60 s on its process: killed once its stream has
    // delivered progress, with the short calls still running beside it
    let long: Exchange | undefined;
    const killer = (async () => {
      while (results.length < Math.min(CALLS / 2, 40 + CALLS / 5)) await new Promise((r) => setTimeout(r, 2));
      const call = session.request('tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 60 },
        _meta: { progressToken: 'long' },
      });
      for (;;) {
        await new Promise((r) => setTimeout(r, 2));
        const ex = [...session.inflight].find((e) =>
          e.events.some((x) => ((x.message as Obj).params as Obj | undefined)?.progressToken === 'long'),
        );
        if (!ex) continue;
        assert.is(ex.resumed, 0, 'the long call was not resumed before the kill');
        killed = ex.backends[0];
        serves[killed].proc.kill('SIGKILL');
        break;
      }
      long = await call;
    })();
    await Promise.all([...Array.from({ length: PARALLEL }, worker), killer]);
    assert.ok(killed !== undefined && long !== undefined, 'a process was killed mid-call');
    await serves[killed].exited;
    assert.is(results.length, CALLS);

    const seenIds = new Set<string>();
    const failed: Array<{ token: string; ex: Exchange }> = [];
    let resumedElsewhere = 0;
    for (const { token, ex } of results) {
      const progress: number[] = [];
      for (const e of ex.events) {
        const m = e.message as Obj;
        // (an event without an ID field, as the follower's final error, carries the last ID on: keyed by both)
        const key = `${e.id}\n${JSON.stringify(m)}`;
        assert.ok(
          !seenIds.has(key),
          `event ${e.id} delivered twice: ${token} ${JSON.stringify(ex.backends)} resumed ${ex.resumed}`,
        );
        seenIds.add(key);
        if (m.method === 'notifications/progress') {
          const p = m.params as Obj;
          assert.is(p.progressToken, token, "a stream carries only its own call's progress");
          progress.push(p.progress as number);
        }
      }
      assert.equal(
        progress,
        [...new Set(progress)].sort((a, b) => a - b),
        `${token}: progress in order, each once: ${progress}`,
      );
      const response = ex.response as Obj;
      if ('result' in response) assert.equal(progress, [0, 50, 100], `${token} completed with every progress`);
      else {
        assert.is((response.error as Obj).code, -32000, JSON.stringify(response));
        assert.match(String((response.error as Obj).message), /ended before answering/);
        failed.push({ token, ex });
      }
      if (ex.resumed > 0) {
        assert.is.not(ex.backends[1], ex.backends[0], 'resumed on another process');
        resumedElsewhere++;
      }
    }
    assert.ok(failed.length <= PARALLEL, `short calls cut by the kill: ${failed.length}`);
    // a short call cut by the kill took one of two paths:
    // - its POST answered by the killed process, its stream broken mid-way and resumed on another;
    // - its POST read and claimed by the killed process, cut before the proxy read the response's
    //   headers: the proxy sent it to another process, which found the claim and answered from the
    //   claimed stream (request replay): its stored events, then -32000 once the owner was gone
    let replayed = 0;
    for (const { token, ex } of failed) {
      const path = `${token}: tried ${ex.tried}, backends ${ex.backends}, resumed ${ex.resumed}`;
      if (ex.resumed > 0) assert.equal(ex.tried, [killed], path);
      else {
        assert.equal(ex.tried, [killed, ex.backends[0]], path);
        assert.is.not(ex.backends[0], killed, path);
        assert.is(ex.backends.length, 1, path);
        replayed++;
      }
    }
    assert.ok(
      failed.length - replayed <= resumedElsewhere,
      `streams resumed elsewhere: ${resumedElsewhere}, cut calls: ${failed.length}, answered by replay: ${replayed}`,
    );
    // the long call: cut by the kill, its stream resumed on another process, answered -32000
    const longResponse = long!.response as Obj;
    assert.is((longResponse.error as Obj | undefined)?.code, -32000, JSON.stringify(longResponse));
    assert.match(String((longResponse.error as Obj).message), /ended before answering/);
    assert.ok(long!.resumed > 0, 'the long call was resumed');
    assert.is.not(long!.backends[1], long!.backends[0], 'resumed on another process');
    for (const e of long!.events) {
      const m = e.message as Obj;
      const key = `${e.id}\n${JSON.stringify(m)}`;
      assert.ok(!seenIds.has(key), `event ${e.id} delivered twice: long ${JSON.stringify(long!.backends)}`);
      seenIds.add(key);
      if (m.method === 'notifications/progress') assert.is((m.params as Obj).progressToken, 'long');
    }
    // a request's claim in Redis (request replay): `<digest> <priming event ID>\n<owner process>`
    const claimOf = async (ex: Exchange) => {
      const requestKey = createHash('sha256').update(`number:${ex.id}`).digest('base64url');
      const value = await inspect.get(`mcp:rq:${session.sessionId}:${requestKey}`);
      assert.ok(value, `request ${ex.id} was claimed`);
      const cut = value.lastIndexOf('\n');
      return { primingId: value.slice(value.indexOf(' ') + 1, cut), owner: value.slice(cut + 1) };
    };
    // the killed process, as Redis knows it: the one that claimed the long call, POSTed to it
    assert.equal(long!.tried, [killed], 'the long call was POSTed to the killed process');
    const killedOwner = (await claimOf(long!)).owner;
    // a POST the proxy re-sent after the killed process failed, and that completed, was not claimed
    // by the killed process (it ran once, on the process that answered it)
    for (const { token, ex } of results)
      if (ex.tried.length > 1 && 'result' in (ex.response as Obj))
        assert.is.not((await claimOf(ex)).owner, killedOwner, `${token}: re-sent, and run by the killed process`);
    // 0 lost: every message the dead process stored on a cut stream reached the client
    for (const { token, ex } of [...failed, { token: 'long', ex: long! }]) {
      assert.is(ex.tried[0], killed, `${token} was POSTed to the killed process`);
      const claim = await claimOf(ex);
      assert.is(claim.owner, killedOwner, `${token} ran on the killed process`);
      // what the stream carried, without the follower's own final error
      const withId = ex.events.filter((e) => e.id !== undefined && e.message !== ex.response);
      // the claimed stream is the one the client read: a resumed call resumed it from an event ID
      // it gave (a call cut right after its stream opened has read only the priming event, which
      // carries no message); a replayed one was answered from it after its priming event
      const streamId = claim.primingId.slice(0, claim.primingId.lastIndexOf('_'));
      if (ex.resumed > 0)
        assert.ok(ex.firstEventId?.startsWith(`${streamId}_`), `${token}: resumed its claimed stream ${streamId}`);
      const stored = await inspect.xrange(`mcp:e:${session.sessionId}:${streamId}`, '-', '+');
      const storedIds = stored.filter(([, f]) => f[0] === 'm' && f[1] !== '').map(([xid]) => `${streamId}_${xid}`);
      // the long call's first progress was read before the kill, so it was stored (a short call
      // cut right after its stream opened may have stored none yet)
      if (token === 'long') assert.ok(storedIds.length >= 1, 'long: progress was stored before the kill');
      assert.equal(
        withId.map((e) => e.id),
        storedIds,
        `${token}: every stored event delivered once, in order`,
      );
    }
    console.log(
      `kill: ${CALLS} calls and a long one, ${failed.length + 1} cut by the SIGKILL (answered -32000 after every event they stored), ${resumedElsewhere + 1} streams resumed on another process, ${replayed} re-sent by the proxy and answered from their claim, ${seenIds.size} events delivered once each`,
    );
    // the session goes on over the two processes left
    const after = await session.request('tools/call', { name: 'test_simple_text', arguments: {} });
    assert.ok('result' in (after.response as Obj), JSON.stringify(after.response));
    await session.close();
  }
});

const ping = (url: string, sessionId: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      'Mcp-Session-Id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

test('Redis stopped: 503 and JSON-RPC errors, no crash; restarted: the processes recover by themselves', async () => {
  const { redis, serves, proxy } = d();
  const live = serves.filter((s) => s.proc.exitCode === null && s.proc.signalCode === null);
  assert.is(live.length, 2);
  const before = new TestSession(proxy.url);
  await before.initialize();
  await redis.stop();
  for (let i = 0; i < 2; i++) {
    // both processes, in turn: a request of a session, and a new session
    const r = await ping(proxy.url, before.sessionId!);
    assert.is(r.status, 503);
    assert.ok(r.headers.get('retry-after'));
    assert.equal(await r.json(), {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Service Unavailable: the session store cannot be reached' },
    });
    const fresh = new TestSession(proxy.url);
    // the deployment's session cap cannot be checked: refused before the session starts
    const init = await fresh.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    assert.is(init.status, 503);
    assert.equal(init.response, {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Service Unavailable: the session store cannot be reached' },
    });
  }
  assert.ok(
    live.every((s) => s.proc.exitCode === null),
    'the processes keep running',
  );
  await redis.start();
  let after: TestSession | undefined;
  for (const deadline = Date.now() + 15_000; !after && Date.now() < deadline; ) {
    const s = new TestSession(proxy.url);
    try {
      await s.initialize();
      after = s;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.ok(after, 'a session starts again once Redis is back');
  const backends = new Set<number>();
  for (let i = 0; i < 4; i++) {
    // each process reconnects to Redis on its own schedule: until then it answers 503 with
    // Retry-After, which a client honours by retrying
    let ex = await after.request('tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: `r${i}` },
    });
    for (const deadline = Date.now() + 15_000; ex.status === 503 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 200));
      ex = await after.request('tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: `r${i}` },
      });
    }
    assert.equal(
      (ex.response as Obj).result,
      { content: [{ type: 'text', text: 'Progress completed' }] },
      JSON.stringify(ex.response),
    );
    assert.is(ex.events.filter((e) => (e.message as Obj).method === 'notifications/progress').length, 3);
    backends.add(ex.backends[0]);
  }
  assert.is(backends.size, 2, 'both processes serve the session');
  // the restarted Redis kept nothing (no persistence): the old session is gone everywhere
  const old = await ping(proxy.url, before.sessionId!);
  assert.is(old.status, 404);
  await old.arrayBuffer();
  await after.close();
});

test.run();
