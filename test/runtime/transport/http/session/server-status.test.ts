import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStreamableHttpHandler } from '../../../../../runtime/transport/http/session/server.js';
import {
  ACCEPT_BOTH,
  echoPeer,
  initialize,
  initReq,
  post,
  raw,
  req,
  startServer,
  V,
  type Received,
  waitFor,
} from './helpers.js';
import { SESSION_TABLES } from '../tables.js';

const S = (sid: string): Record<string, string> => ({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });

/** The error of a JSON-RPC error body: with the request's `id` when one could be read, else no `id` member (the error-id rule). */
async function errorOf(res: Response, id?: number): Promise<{ code: number; message: string }> {
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  assert.is(body.jsonrpc, '2.0');
  if (id === undefined) assert.not.ok('id' in body, 'no id member (the error-id rule)');
  else assert.is(body.id, id, 'the id of the request (JSON-RPC 2.0 §5)');
  return body.error;
}

test('403: Host not in the allowed list; default allows loopback names on the server port', async () => {
  const srv = await startServer();
  try {
    const body = JSON.stringify(initReq());
    const base = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
    assert.is((await raw(srv.port, { headers: { ...base, Host: `evil.example:${srv.port}` }, body })).status, 403);
    assert.is((await raw(srv.port, { headers: { ...base, Host: `localhost:${srv.port + 1}` }, body })).status, 403);
    for (const host of [`localhost:${srv.port}`, `127.0.0.1:${srv.port}`, `[::1]:${srv.port}`]) {
      assert.is((await raw(srv.port, { headers: { ...base, Host: host }, body })).status, 200, host);
    }
  } finally {
    await srv.close();
  }
  const custom = await startServer({ allowedHosts: ['mcp.example.com'] });
  try {
    const body = JSON.stringify(initReq());
    const base = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
    assert.is((await raw(custom.port, { headers: { ...base, Host: 'MCP.example.com:8443' }, body })).status, 200);
    assert.is((await raw(custom.port, { headers: { ...base, Host: `127.0.0.1:${custom.port}` }, body })).status, 403);
  } finally {
    await custom.close();
  }
});

test('403: Origin present and not allowed; absent or loopback is fine', async () => {
  const srv = await startServer();
  try {
    const bad = await post(srv.url, initReq(), { Origin: 'http://evil.example' });
    assert.is(bad.status, 403);
    assert.is((await errorOf(bad)).code, -32000);
    assert.is((await post(srv.url, initReq(), { Origin: 'null' })).status, 403);
    const ok = await post(srv.url, initReq(), { Origin: 'http://localhost:5173' });
    assert.is(ok.status, 200);
    await ok.text();
  } finally {
    await srv.close();
  }
});

test('405: other methods, GET without standalone stream, DELETE when disabled', async () => {
  const srv = await startServer({ standaloneStream: false, allowDelete: false });
  try {
    const put = await fetch(srv.url, { method: 'PUT' });
    assert.is(put.status, 405);
    assert.is(put.headers.get('allow'), 'GET, POST');
    await put.text();
    const sid = await initialize(srv.url);
    const get = await fetch(srv.url, { headers: { Accept: 'text/event-stream', ...S(sid) } });
    assert.is(get.status, 405);
    await get.text();
    const del = await fetch(srv.url, { method: 'DELETE', headers: S(sid) });
    assert.is(del.status, 405);
    await del.text();
  } finally {
    await srv.close();
  }
});

test('406: Accept must list both types on POST, text/event-stream on GET', async () => {
  const srv = await startServer();
  try {
    for (const accept of ['application/json', 'text/event-stream', '*/*', 'application/json, text/event-stream;q=0']) {
      const res = await post(srv.url, initReq(), { Accept: accept });
      assert.is(res.status, 406, accept);
      await res.text();
    }
    const noAccept = await post(srv.url, initReq(), { Accept: undefined });
    assert.is(noAccept.status, 406);
    await noAccept.text();
    const sid = await initialize(srv.url);
    const get = await fetch(srv.url, { headers: { Accept: 'application/json', ...S(sid) } });
    assert.is(get.status, 406);
    await get.text();
  } finally {
    await srv.close();
  }
});

test('415: Content-Type must be application/json (parameters allowed)', async () => {
  const srv = await startServer();
  try {
    const res = await post(srv.url, initReq(), { 'Content-Type': 'text/plain' });
    assert.is(res.status, 415);
    await res.text();
    const ok = await post(srv.url, initReq(), { 'Content-Type': 'application/json; charset=utf-8' });
    assert.is(ok.status, 200);
    await ok.text();
  } finally {
    await srv.close();
  }
});

test('415: a charset other than utf-8, or a Content-Encoding other than identity (the body would be misread)', async () => {
  const srv = await startServer();
  try {
    for (const type of ['application/json; charset=utf-16', 'application/json;charset="ISO-8859-1"']) {
      const res = await post(srv.url, initReq(), { 'Content-Type': type });
      assert.is(res.status, 415, type);
      assert.match((await res.json()).error.message, /charset utf-8/);
    }
    const gzip = await post(srv.url, initReq(), { 'Content-Encoding': 'gzip' });
    assert.is(gzip.status, 415);
    assert.is(gzip.headers.get('accept-encoding'), 'identity');
    assert.match((await gzip.json()).error.message, /Content-Encoding "gzip" is not read/);
    for (const headers of [
      { 'Content-Type': 'application/json; charset="UTF-8"' },
      { 'Content-Encoding': 'identity' },
    ]) {
      const ok = await post(srv.url, initReq(), headers);
      assert.is(ok.status, 200, JSON.stringify(headers));
      await ok.text();
    }
  } finally {
    await srv.close();
  }
});

test('413: body over maxBodyBytes (by Content-Length and by streaming)', async () => {
  const srv = await startServer({ maxBodyBytes: 1024 });
  try {
    const big = JSON.stringify(initReq(1, { pad: 'x'.repeat(2000) }));
    const res = await post(srv.url, big);
    assert.is(res.status, 413);
    await res.text();
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res2 = await fetch(srv.url, {
      method: 'POST',
      headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    assert.is(res2.status, 413);
    await res2.text();
  } finally {
    await srv.close();
  }
});

test('400: invalid JSON is -32700; batches and non-messages are -32600', async () => {
  const srv = await startServer();
  try {
    const parse = await post(srv.url, '{"jsonrpc":"2.0",');
    assert.is(parse.status, 400);
    assert.is((await errorOf(parse)).code, -32700);
    const notUtf8 = await fetch(srv.url, {
      method: 'POST',
      headers: { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    assert.is((await errorOf(notUtf8)).code, -32700);
    for (const [body, id] of [
      [[initReq()]],
      [{ jsonrpc: '1.0', id: 1, method: 'x' }, 1],
      [{ jsonrpc: '2.0', id: {}, method: 'x' }],
      [42],
      [{ jsonrpc: '2.0' }],
    ] as [unknown, number?][]) {
      const res = await post(srv.url, body);
      assert.is(res.status, 400, JSON.stringify(body));
      assert.is((await errorOf(res, id)).code, -32600);
    }
  } finally {
    await srv.close();
  }
});

test('202: notifications and responses are accepted with no body, and delivered', async () => {
  const srv = await startServer();
  try {
    const sid = await initialize(srv.url);
    const n = await post(
      srv.url,
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      S(sid),
    );
    assert.is(n.status, 202);
    assert.is(await n.text(), '');
    const r = await post(srv.url, { jsonrpc: '2.0', id: 'srv-1', result: {} }, S(sid));
    assert.is(r.status, 202);
    assert.is(await r.text(), '');
    const methods = srv.log.map((x) => x.message.method ?? 'response');
    assert.equal(methods, ['initialize', 'notifications/initialized', 'notifications/progress', 'response']);
  } finally {
    await srv.close();
  }
});

test('202: the empty body is said by Content-Length: 0, not sent as an empty chunked body', async () => {
  const srv = await startServer();
  try {
    const sid = await initialize(srv.url);
    const n = await post(
      srv.url,
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      S(sid),
    );
    assert.is(n.status, 202);
    assert.is(n.headers.get('content-length'), '0');
    assert.is(n.headers.get('transfer-encoding'), null);
    assert.is(await n.text(), '');
  } finally {
    await srv.close();
  }
});

test('sessions: id on the initialize response (visible ASCII); missing → 400; unknown → 404; DELETE ends it', async () => {
  const srv = await startServer();
  try {
    const init = await post(srv.url, initReq());
    const sid = init.headers.get('mcp-session-id') as string;
    assert.match(sid, /^[\x21-\x7e]+$/);
    assert.match(init.headers.get('content-type') ?? '', /application\/json/);
    assert.is(((await init.json()) as { id: number }).id, 1);
    const missing = await post(srv.url, req(2, 'tools/list'), { 'MCP-Protocol-Version': V });
    assert.is(missing.status, 400);
    await missing.text();
    const unknown = await post(srv.url, req(3, 'tools/list'), S('nope'));
    assert.is(unknown.status, 404);
    await unknown.text();
    const again = await post(srv.url, initReq(4), { 'Mcp-Session-Id': sid });
    assert.is(again.status, 400);
    await again.text();
    const ok = await post(srv.url, req(5, 'tools/list'), S(sid));
    assert.is(ok.status, 200);
    assert.equal(await ok.json(), { jsonrpc: '2.0', id: 5, result: { echo: null } });
    assert.is(srv.handler.sessions.size, 1);
    const del = await fetch(srv.url, { method: 'DELETE', headers: S(sid) });
    assert.is(del.status, 204);
    assert.is(srv.handler.sessions.size, 0);
    assert.is(srv.sessions[0].active, false);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res =
        method === 'POST'
          ? await post(srv.url, req(6, 'tools/list'), S(sid))
          : await fetch(srv.url, { method, headers: { Accept: 'text/event-stream', ...S(sid) } });
      assert.is(res.status, 404, method);
      await res.text();
    }
    const two = await Promise.all([initialize(srv.url), initialize(srv.url)]);
    assert.is.not(two[0], two[1]);
  } finally {
    await srv.close();
  }
});

test('a failed initialize ends its session; a reused request id in flight is refused', async () => {
  const srv = await startServer();
  try {
    const bad = await post(srv.url, initReq(1, { fail: true }));
    const sid = bad.headers.get('mcp-session-id') as string;
    assert.is(((await bad.json()) as { error: { code: number } }).error.code, -32602);
    assert.is((await post(srv.url, req(2, 'x'), S(sid))).status, 404);
    const good = await initialize(srv.url);
    const slow = post(srv.url, req(7, 'slow', { delayMs: 100 }), S(good));
    await waitFor('the server to hold request 7', () => srv.log.some((x) => x.message.id === 7));
    const dup = await post(srv.url, req(7, 'x'), S(good));
    assert.is(dup.status, 400);
    await dup.text();
    assert.is((await slow).status, 200);
    // A string id and a number id with the same digits are different requests.
    const [a, b] = await Promise.all([
      post(srv.url, req('8', 'slow', { delayMs: 30 }), S(good)),
      post(srv.url, req(8, 'slow', { delayMs: 10 }), S(good)),
    ]);
    assert.is(((await a.json()) as { id: unknown }).id, '8');
    assert.is(((await b.json()) as { id: unknown }).id, 8);
  } finally {
    await srv.close();
  }
});

test('behind a body-parsing middleware: an already parsed req.body is used', async () => {
  const log: Received[] = [];
  const handler = createStreamableHttpHandler({ tables: SESSION_TABLES, onSession: (t) => echoPeer(t, log) });
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    (req as IncomingMessage & { body?: unknown }).body = JSON.parse(text);
    await handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  try {
    const res = await post(url, initReq(5));
    assert.is(res.status, 200);
    assert.is(((await res.json()) as { id: number }).id, 5);
    assert.is(log[0].message.method, 'initialize');
  } finally {
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
