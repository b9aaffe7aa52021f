/**
 * Issue 11, finding 2: sessions are bounded. An idle session expires (404 afterwards, 2025-11-25
 * basic/transports, Session Management 3), a busy one (open stream, request in flight) never
 * does, and the number of sessions is capped: the least recently used idle session is evicted,
 * and when none is idle a new `initialize` gets 503. Over real node:http, against the runtime's
 * handler and against `mcpgen serve --http 0`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { initialize, initReq, post, req, sleep, startServer, V } from '../runtime/transport/http/session/helpers.js';
import { startServe } from '../runtime/tasks/serve-process.js';

const S = (sid: string): Record<string, string> => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });

/** Status of a `ping` POSTed on session `sid` (body read). */
async function ping(url: string, sid: string, id: number | string = 'p'): Promise<number> {
  const res = await post(url, req(id, 'ping'), S(sid));
  await res.text();
  return res.status;
}

/** Polls `check` every 25 ms until it holds (fails after `ms`). */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.unreachable(`never happened: ${what}`);
    await sleep(25);
  }
}

/** Opens the standalone GET stream of `sid`; returns its response and an abort to close it. */
async function openGet(url: string, sid: string): Promise<{ res: Response; close(): void }> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...S(sid) }, signal: ac.signal });
  assert.is(res.status, 200);
  return { res, close: () => ac.abort() };
}

test('an idle session expires: 404 on POST, GET and DELETE, and the sweep drops it from the registry', async () => {
  const srv = await startServer({ sessionIdleMs: 300 });
  try {
    const a = await initialize(srv.url);
    const b = await initialize(srv.url);
    assert.is(await ping(srv.url, a), 200);
    await sleep(450);
    assert.is(await ping(srv.url, a), 404, 'POST on an expired session');
    const res = await post(srv.url, req(3, 'ping'), S(a));
    const body = (await res.json()) as { id: unknown; error: { code: number } };
    assert.is(res.status, 404);
    assert.not.ok('id' in body, 'no id member');
    assert.is(body.error.code, -32000);
    const get = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(b) } });
    await get.text();
    assert.is(get.status, 404, 'GET on an expired session');
    const del = await fetch(srv.url, { method: 'DELETE', headers: S(b) });
    assert.is(del.status, 404, 'DELETE on an expired session');
    // no request needed: the sweep ends idle sessions and releases them
    const c = await initialize(srv.url);
    assert.ok(srv.handler.sessions.has(c));
    await eventually('the sweep removed the idle session', () => srv.handler.sessions.size === 0);
    assert.is(
      srv.sessions.every((s) => !s.active),
      true,
      'every expired session was closed',
    );
    // a fresh initialize still works
    const d = await initialize(srv.url);
    assert.is(await ping(srv.url, d), 200);
  } finally {
    await srv.close();
  }
});

test('activity keeps a session alive; an open GET stream or a request in flight is not idle', async () => {
  const srv = await startServer({ sessionIdleMs: 800 });
  try {
    const a = await initialize(srv.url);
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      assert.is(await ping(srv.url, a), 200, 'requests keep the session alive');
      await sleep(100);
    }
    // a connected standalone stream keeps it alive with no requests at all
    const get = await openGet(srv.url, a);
    await sleep(1500);
    assert.ok(srv.handler.sessions.has(a), 'not swept while its GET is connected');
    assert.is(await ping(srv.url, a), 200);
    get.close();
    // (no requests meanwhile: each would count as activity)
    await eventually('swept once the GET closed', () => !srv.handler.sessions.has(a));
    assert.is(await ping(srv.url, a), 404);
    // a request in flight longer than the idle time: answered, and the session lives on
    const b = await initialize(srv.url);
    const slow = await post(srv.url, req(7, 'slow', { delayMs: 1600 }), S(b));
    assert.is(slow.status, 200);
    assert.equal(((await slow.json()) as { id: number }).id, 7);
    assert.is(await ping(srv.url, b), 200, 'the session outlived its request');
  } finally {
    await srv.close();
  }
});

test('a POST whose body is still arriving keeps its session from expiring', async () => {
  const srv = await startServer({ sessionIdleMs: 300 });
  try {
    const sid = await initialize(srv.url);
    const body = JSON.stringify(req(4, 'ping'));
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const r = httpRequest(
        {
          host: '127.0.0.1',
          port: srv.port,
          method: 'POST',
          path: '/mcp',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Content-Length': String(body.length),
            ...S(sid),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      r.on('error', reject);
      r.setTimeout(10_000, () => r.destroy(new Error('no answer within 10 s')));
      r.write(body.slice(0, 10));
      setTimeout(() => r.end(body.slice(10)), 1000);
    });
    const got = await answer;
    assert.is(got.status, 200, got.text);
    assert.is((JSON.parse(got.text) as { id: number }).id, 4);
    assert.is(await ping(srv.url, sid), 200, 'the session is still there');
  } finally {
    await srv.close();
  }
});

test('at the cap an initialize evicts the least recently used idle session; with none idle it gets 503', async () => {
  const srv = await startServer({ maxSessions: 3 });
  try {
    const [s1, s2, s3] = [await initialize(srv.url), await initialize(srv.url), await initialize(srv.url)];
    assert.is(await ping(srv.url, s1), 200); // s2 is now the least recently used
    const s4 = await initialize(srv.url);
    assert.is(srv.handler.sessions.size, 3);
    assert.is(await ping(srv.url, s2), 404, 'the least recently used session was evicted');
    for (const sid of [s1, s3, s4]) assert.is(await ping(srv.url, sid), 200, `session ${sid} kept`);
    // make every session busy: a connected GET each
    const gets = await Promise.all([s1, s3, s4].map((sid) => openGet(srv.url, sid)));
    const refused = await post(srv.url, initReq(9));
    const body = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
    assert.is(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After given');
    assert.is(refused.headers.get('mcp-session-id'), null, 'no session made');
    assert.not.ok('id' in body, 'no id member');
    assert.is(body.error.code, -32000);
    assert.match(body.error.message, /session limit/);
    assert.is(srv.handler.sessions.size, 3);
    for (const sid of [s1, s3, s4]) assert.is(await ping(srv.url, sid), 200, 'busy sessions are never evicted');
    // one stream closes: its session is idle again, and the next initialize takes its place
    gets[0].close();
    await eventually('s1 idle', () => srv.sessions.find((s) => s.sessionId === s1)?.idle === true);
    const s5 = await initialize(srv.url);
    assert.is(await ping(srv.url, s5), 200);
    assert.is(await ping(srv.url, s1), 404);
    for (const g of gets) g.close();
  } finally {
    await srv.close();
  }
});

test('mcpgen serve --http: --max-sessions caps a flood of initialize, --session-idle-ms expires', async () => {
  // 5 s of idleness: a loaded runner takes seconds for the 40 initializes and the pings before
  // the last five are checked, and none of them may expire before that
  const served = await startServe('--rev', '2025-11-25', '--max-sessions', '5', '--session-idle-ms', '5000');
  try {
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await initialize(served.url));
    assert.is(new Set(ids).size, 40);
    const live: string[] = [];
    for (const sid of ids) if ((await ping(served.url, sid)) === 200) live.push(sid);
    assert.equal(live, ids.slice(-5), 'only the 5 most recent sessions remain');
    const list = await post(served.url, req(2, 'tools/list'), S(ids[39]));
    assert.is(list.status, 200);
    assert.ok(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);
    await sleep(5600);
    assert.is(await ping(served.url, ids[39]), 404, 'expired after --session-idle-ms');
  } finally {
    await served.stop();
  }
});

test('mcpgen serve --http: --max-sessions caps the 2024-11-05 HTTP+SSE sessions too (503 past it)', async () => {
  const served = await startServe('--rev', '2025-11-25', '--max-sessions', '2');
  const sse = served.url.replace(/\/mcp$/, '/sse');
  const open = async (): Promise<{ res: Response; close(): void }> => {
    const ac = new AbortController();
    const res = await fetch(sse, { headers: { Accept: 'text/event-stream' }, signal: ac.signal });
    return { res, close: () => ac.abort() };
  };
  try {
    const first = await open();
    const second = await open();
    assert.equal([first.res.status, second.res.status], [200, 200]);
    const third = await open();
    assert.is(third.res.status, 503);
    assert.is(((await third.res.json()) as { error: { code: number } }).error.code, -32000);
    first.close();
    await eventually('a stream closed frees its place', async () => {
      const next = await open();
      next.close();
      return next.res.status === 200;
    });
    second.close();
  } finally {
    await served.stop();
  }
});

test('mcpgen serve --http: a bad --max-sessions or --session-idle-ms is a usage error', async () => {
  for (const args of [
    ['--max-sessions', '0'],
    ['--max-sessions', 'many'],
    ['--session-idle-ms', '-5'],
  ]) {
    const { spawn } = await import('node:child_process');
    const { bin, root } = await import('../runtime/tasks/serve-process.js');
    const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', ...args], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => proc.once('exit', r));
    assert.is(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, new RegExp(args[0]));
  }
});

test.run();
