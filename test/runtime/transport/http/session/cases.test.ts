import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import {
  HttpClientTransport,
  HttpStatusError,
  SessionExpiredError,
} from '../../../../../runtime/transport/http/session/node-client.js';
import { clientSocketsClosed, initReq, MiniClient, post, req, startServer, V, waitFor } from './helpers.js';

const H = (sid?: string): Record<string, string> =>
  sid ? { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V } : { 'MCP-Protocol-Version': V };

interface Seen {
  method: string;
  headers: Headers;
  body?: { method?: string; id?: unknown };
}

function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    seen.push({
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return fetch(input, init);
  };
}

test('006 server: ended, never-issued and lost sessions are 404; a missing session is 400; ids are visible ASCII', async () => {
  let srv = await startServer();
  const port = srv.port;
  try {
    const init = await post(srv.url, initReq(1));
    assert.is(init.status, 200);
    const s1 = init.headers.get('mcp-session-id') as string;
    assert.match(s1, /^[\x21-\x7e]+$/);
    await init.text();
    const ack = await post(srv.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, H(s1));
    assert.is(ack.status, 202);
    const del = await fetch(srv.url, { method: 'DELETE', headers: H(s1) });
    assert.ok(del.status >= 200 && del.status < 300, `DELETE ${del.status}`);
    const step4 = await post(srv.url, req(2, 'tools/list'), H(s1));
    assert.is(step4.status, 404);
    assert.match(step4.headers.get('content-type') ?? '', /application\/json/, 'no SSE stream for a dead session');
    await step4.text();
    const step5 = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...H(s1) } });
    assert.is(step5.status, 404);
    await step5.text();
    const step6 = await post(srv.url, req(3, 'tools/list'), H('00000000-never-issued'));
    assert.is(step6.status, 404);
    await step6.text();
    const step7 = await post(srv.url, req(4, 'tools/list'), H());
    assert.is(step7.status, 400);
    await step7.text();
    const again = await post(srv.url, initReq(5));
    const s2 = again.headers.get('mcp-session-id') as string;
    await again.text();
    assert.is.not(s2, s1);
    await srv.close();
    await clientSocketsClosed(port); // fetch's pooled connections to the old process are gone
    srv = await startServer({}, port);
    const step8 = await post(srv.url, req(6, 'tools/list'), H(s2));
    assert.is(step8.status, 404);
    await step8.text();
  } finally {
    await srv.close();
  }
});

test('006 client: 404 fails the in-flight request with SessionExpiredError, re-initializes without the old id, never sends it again; 400 does not', async () => {
  let srv = await startServer();
  const port = srv.port;
  const seen: Seen[] = [];
  let reinit: Promise<void> | undefined;
  // No standalone stream here: its reconnection would race the request to discover the restart.
  const transport = new HttpClientTransport({ url: srv.url, fetch: recordingFetch(seen), standaloneStream: false });
  const client = new MiniClient(transport);
  const handshake = async (): Promise<void> => {
    const r = (await client.request('initialize', initReq().params as Record<string, unknown>)) as {
      protocolVersion: string;
    };
    transport.setProtocolVersion(r.protocolVersion);
    await client.notify('notifications/initialized');
  };
  let expired = 0;
  transport.onSessionExpired = () => {
    expired++;
    reinit = handshake();
  };
  try {
    await client.start();
    await handshake();
    const s1 = transport.sessionId as string;
    assert.ok(s1);
    // The server process restarts: its in-memory sessions are gone.
    await srv.close();
    await clientSocketsClosed(port); // no pooled connection to the old process is left to reuse
    srv = await startServer({}, port);
    const mark = seen.length;
    try {
      await client.request('tools/list');
      assert.unreachable('the in-flight request must fail');
    } catch (e) {
      assert.instance(e, SessionExpiredError);
      assert.is((e as SessionExpiredError).sessionId, s1);
    }
    assert.is(expired, 1);
    await reinit;
    const s2 = transport.sessionId as string;
    assert.ok(s2);
    assert.is.not(s2, s1);
    assert.equal(await client.request('tools/list'), { echo: null });
    const after = seen.slice(mark + 1);
    const posts = after.filter((s) => s.method === 'POST');
    assert.is(posts[0].body?.method, 'initialize');
    assert.is(posts[0].headers.get('mcp-session-id'), null, 'initialize goes without a session id');
    assert.is(posts[1].body?.method, 'notifications/initialized');
    assert.is(posts[1].headers.get('mcp-session-id'), s2);
    assert.ok(
      after.every((s) => s.headers.get('mcp-session-id') !== s1),
      'S1 never sent again',
    );
    assert.is(posts.filter((p) => p.body?.method === 'tools/list').length, 1, 'the failed call was not resent');
    // A 400 is not a session expiry.
    transport.setProtocolVersion('1999-01-01');
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.instance(e, HttpStatusError);
      assert.is((e as HttpStatusError).status, 400);
    }
    assert.is(expired, 1);
    assert.is(transport.sessionId, s2);
    transport.setProtocolVersion(V);
  } finally {
    await transport.close();
    await srv.close();
  }
});

// The server took both requests (their streams were open): they may have run, so they fail with
// ConnectionClosedError caused by the SessionExpiredError, never SessionExpiredError itself ("not processed").
test('006 client: requests waiting on SSE streams of an ended session fail "may have run" (ConnectionClosedError, cause SessionExpiredError)', async () => {
  const srv = await startServer({ replyMode: 'sse', retryMs: 5 });
  const transport = new HttpClientTransport({ url: srv.url, reconnect: { initialDelayMs: 5 } });
  const client = new MiniClient(transport);
  let expired = 0;
  transport.onSessionExpired = () => void expired++;
  try {
    await client.start();
    const r = (await client.request('initialize', initReq().params as Record<string, unknown>)) as {
      protocolVersion: string;
    };
    transport.setProtocolVersion(r.protocolVersion);
    await client.notify('notifications/initialized');
    const calls = [client.request('stream', { count: 5, gapMs: 100 }), client.request('slow', { delayMs: 500 })].map(
      (p) =>
        p.then(
          () => 'answered',
          (e: unknown) => e,
        ),
    );
    // Both requests are on their SSE streams: the stream's first notification arrived, and the
    // server holds the slow one (its answer is 500 ms away).
    await waitFor(
      'both requests on their streams',
      () => client.notifications.length > 0 && srv.log.some((x) => x.message.method === 'slow'),
    );
    await srv.sessions[0].close();
    const outcomes = await Promise.all(calls);
    for (const o of outcomes) {
      assert.instance(o, ConnectionClosedError);
      assert.match((o as Error).message, 'may have run');
      assert.instance((o as Error).cause, SessionExpiredError);
    }
    assert.is(expired, 1);
    assert.is(transport.sessionId, undefined);
  } finally {
    await transport.close();
    await srv.close();
  }
});

test("011 server: MCP-Protocol-Version validated (400), absent → the session's negotiated version, initialize without it served", async () => {
  const srv = await startServer();
  try {
    // e: initialize with no session and no header.
    const init = await post(srv.url, initReq(1, { protocolVersion: '2025-06-18' }));
    assert.is(init.status, 200);
    const s = init.headers.get('mcp-session-id') as string;
    await init.text();
    const sh = { 'Mcp-Session-Id': s };
    // a
    const a = await post(srv.url, req(2, 'tools/list'), { ...sh, 'MCP-Protocol-Version': '2025-06-18' });
    assert.is(a.status, 200);
    await a.text();
    // b: served with the negotiated version (here 2025-06-18, not the 2025-03-26 fallback).
    const b = await post(srv.url, req(3, 'tools/list'), sh);
    assert.is(b.status, 200);
    await b.text();
    assert.is(srv.log.find((x) => x.message.id === 3)?.info?.protocolVersion, '2025-06-18');
    assert.is(srv.log.find((x) => x.message.id === 2)?.info?.protocolVersion, '2025-06-18');
    // c, d
    for (const v of ['1999-01-01', 'banana']) {
      const res = await post(srv.url, req(4, 'tools/list'), { ...sh, 'MCP-Protocol-Version': v });
      assert.is(res.status, 400, v);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /MCP-Protocol-Version/);
    }
    assert.not.ok(
      srv.log.some((x) => x.message.id === 4),
      'a rejected request is not dispatched',
    );
    // f
    const f = await fetch(srv.url, {
      headers: { Accept: 'text/event-stream', ...sh, 'MCP-Protocol-Version': 'banana' },
    });
    assert.is(f.status, 400);
    await f.text();
    // DELETE validates it as well.
    const del = await fetch(srv.url, { method: 'DELETE', headers: { ...sh, 'MCP-Protocol-Version': 'banana' } });
    assert.is(del.status, 400);
    assert.is(srv.handler.sessions.size, 1);
  } finally {
    await srv.close();
  }
});

test('011 client: every request after initialize carries MCP-Protocol-Version (POST, notification, GET, DELETE)', async () => {
  const srv = await startServer();
  const seen: Seen[] = [];
  const transport = new HttpClientTransport({ url: srv.url, fetch: recordingFetch(seen) });
  const client = new MiniClient(transport);
  try {
    await client.start();
    const r = (await client.request('initialize', initReq().params as Record<string, unknown>)) as {
      protocolVersion: string;
    };
    assert.is(seen[0].headers.get('mcp-protocol-version'), null, 'initialize is sent before negotiation');
    transport.setProtocolVersion(r.protocolVersion);
    await client.notify('notifications/initialized');
    await client.request('tools/list');
    await client.notify('notifications/progress', { progressToken: 1, progress: 1 });
    await waitFor('the standalone GET', () => seen.some((s) => s.method === 'GET')).catch(() => undefined);
    await transport.close();
    const after = seen.slice(1);
    assert.equal([...new Set(after.map((s) => s.method))].sort(), ['DELETE', 'GET', 'POST']);
    for (const s of after) assert.is(s.headers.get('mcp-protocol-version'), V, `${s.method} ${s.body?.method ?? ''}`);
  } finally {
    await transport.close();
    await srv.close();
  }
});

test.run();
