/**
 * Issue 11, finding 4: a refusal comes before any work, and it arrives.
 *
 * Against real `mcpgen serve --http 0` processes (2025-11-25 sessions with the HTTP+SSE endpoints
 * /sse and /messages; draft dual-era; draft `--modern-only`), over raw sockets:
 * - every header refusal (Host, Origin, Accept, Content-Type, Content-Length over the limit,
 *   MCP-Protocol-Version, session) is answered while the client has sent the head only: the
 *   server did not wait for a body byte; a foreign Host with an 8 MiB Content-Length is 403;
 * - with `Expect: 100-continue` the refusal comes instead of `100 Continue`; a request that
 *   passes the checks gets the 100, then its answer;
 * - 6 concurrent clients announcing 100 MB all read their 413 (with `Connection: close`), and so
 *   do 6 chunked clients that go over the limit mid-stream.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LegacySseClientTransport } from '../../runtime/transport/http/legacy-sse/legacy-sse.js';
import { startServe, type Served } from '../runtime/tasks/serve-process.js';
import { rawExchange as pipelined, rawRequest, refusalError, type RawResponse } from './raw-http.js';

const MiB = 1024 * 1024;
const ACCEPT = 'application/json, text/event-stream';

interface Endpoint {
  name: string;
  port: number;
  path: string;
  /** Headers of a POST the endpoint would take. */
  good: Record<string, string>;
  /** Header changes each refused with a status, all before the body. */
  refusals: Array<{ why: string; set: Record<string, string>; status: number }>;
}

const served: Served[] = [];
const endpoints: Endpoint[] = [];
let legacyClient: LegacySseClientTransport | undefined;

const portOf = (s: Served): number => Number(new URL(s.url).port);
const common = (port: number): Endpoint['refusals'] => [
  { why: 'foreign Host', set: { Host: `evil.example:${port}` }, status: 403 },
  {
    why: 'foreign Host, 8 MiB body',
    set: { Host: `evil.example:${port}`, 'Content-Length': String(8 * MiB) },
    status: 403,
  },
  { why: 'foreign Origin', set: { Origin: 'http://evil.example' }, status: 403 },
  { why: 'Content-Type text/plain', set: { 'Content-Type': 'text/plain' }, status: 415 },
  { why: 'Content-Length 100 MB', set: { 'Content-Length': String(100_000_000) }, status: 413 },
];

test.before(async () => {
  const [sessions, dual, modern] = await Promise.all([
    startServe('--rev', '2025-11-25'),
    startServe('--rev', 'draft'),
    startServe('--rev', 'draft', '--modern-only'),
  ]);
  served.push(sessions, dual, modern);
  const sp = portOf(sessions);
  endpoints.push({
    name: '2025-11-25 sessions /mcp',
    port: sp,
    path: '/mcp',
    good: { Host: `127.0.0.1:${sp}`, Accept: ACCEPT, 'Content-Type': 'application/json' },
    refusals: [
      ...common(sp),
      { why: 'Accept application/json only', set: { Accept: 'application/json' }, status: 406 },
      { why: 'unsupported MCP-Protocol-Version', set: { 'MCP-Protocol-Version': '1900-01-01' }, status: 400 },
      { why: 'unknown Mcp-Session-Id', set: { 'Mcp-Session-Id': 'never-issued' }, status: 404 },
      { why: 'method PUT', set: {}, status: 405 },
    ],
  });
  legacyClient = new LegacySseClientTransport({ url: sessions.url.replace(/\/mcp$/, '/sse') });
  await legacyClient.start({ onMessage() {}, onClose() {} });
  endpoints.push({
    name: 'HTTP+SSE /messages',
    port: sp,
    path: `/messages?sessionId=${legacyClient.sessionId}`,
    good: { Host: `127.0.0.1:${sp}`, 'Content-Type': 'application/json' },
    refusals: [
      ...common(sp),
      { why: 'unknown sessionId', set: { 'X-Path': '/messages?sessionId=never-issued' }, status: 404 },
      { why: 'no sessionId', set: { 'X-Path': '/messages' }, status: 400 },
    ],
  });
  for (const [name, s] of [
    ['draft dual-era /mcp', dual],
    ['draft --modern-only /mcp', modern],
  ] as const) {
    const p = portOf(s);
    endpoints.push({
      name,
      port: p,
      path: '/mcp',
      good: {
        Host: `127.0.0.1:${p}`,
        Accept: ACCEPT,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'echo',
      },
      refusals: [
        ...common(p),
        { why: 'Accept application/json only', set: { Accept: 'application/json' }, status: 406 },
      ],
    });
  }
});

test.after(async () => {
  await legacyClient?.close();
  await Promise.all(served.map((s) => s.stop()));
});

function assertRefusal(r: RawResponse, status: number, what: string): void {
  assert.is(r.status, status, `${what}: status (body ${r.body})`);
  assert.is(r.headers['content-type'], 'application/json', `${what}: JSON body`);
  const error = refusalError(r);
  assert.is(error.code, -32000, `${what}: JSON-RPC error code`);
  assert.ok(error.message.length > 0, `${what}: message`);
}

test('every header refusal of every entry point is answered before a body byte is sent', async () => {
  for (const e of endpoints) {
    for (const r of e.refusals) {
      const headers: Record<string, string> = { ...e.good, 'Content-Length': String(MiB), ...r.set };
      const path = headers['X-Path'] ?? e.path;
      delete headers['X-Path'];
      const what = `${e.name}: ${r.why}`;
      const res = await rawRequest(e.port, {
        method: r.why === 'method PUT' ? 'PUT' : 'POST',
        path,
        headers,
        body: 'none',
        timeoutMs: 15_000,
      }).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
      assertRefusal(res, r.status, what);
      assert.is(res.sentBytes, 0, `${what}: answered without the body`);
      assert.is(res.headers.connection, 'close', `${what}: the unread body ends the connection`);
      // with `Expect: 100-continue` the refusal comes instead of the 100: the client never sends the body
      const expecting = await rawRequest(e.port, {
        method: r.why === 'method PUT' ? 'PUT' : 'POST',
        path,
        headers: { ...headers, Expect: '100-continue' },
        body: 'none',
        timeoutMs: 15_000,
      });
      assertRefusal(expecting, r.status, `${what} (Expect: 100-continue)`);
      assert.is(expecting.continued, false, `${what}: no 100 Continue before the refusal`);
    }
  }
  // a path that is no endpoint: 404, also before the body
  for (const s of served) {
    const p = portOf(s);
    const res = await rawRequest(p, {
      path: '/nope',
      headers: { Host: `127.0.0.1:${p}`, 'Content-Type': 'application/json', 'Content-Length': String(MiB) },
      body: 'none',
    });
    assert.is(res.status, 404);
    assert.is(res.sentBytes, 0);
    assert.is(res.headers.connection, 'close', '/nope: the unread body ends the connection');
  }
  // the GET stream of HTTP+SSE (no body): Host and Origin
  const sp = endpoints[0].port;
  const cases: Array<Record<string, string>> = [
    { Host: `evil.example:${sp}` },
    { Host: `127.0.0.1:${sp}`, Origin: 'http://evil.example' },
  ];
  for (const set of cases) {
    const res = await rawRequest(sp, {
      method: 'GET',
      path: '/sse',
      headers: { Accept: 'text/event-stream', ...set },
      body: 'none',
    });
    assertRefusal(res, 403, `/sse ${JSON.stringify(set)}`);
  }
});

test('Expect: 100-continue on a request that passes the head checks: 100, then the body, then the answer', async () => {
  const sessions = endpoints[0];
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  const res = await rawRequest(sessions.port, {
    path: '/mcp',
    headers: { ...sessions.good, 'Content-Length': String(Buffer.byteLength(body)), Expect: '100-continue' },
    body: { onContinue: body },
  });
  assert.is(res.continued, true);
  assert.is(res.status, 200);
  assert.is(JSON.parse(res.body).result.protocolVersion, '2025-11-25');
});

test('6 concurrent clients announcing 100 MB each read their 413 (Connection: close), on every entry point', async () => {
  for (const e of endpoints) {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        rawRequest(e.port, {
          path: e.path,
          headers: { ...e.good, 'Content-Length': '100000000' },
          body: { push: 16 * MiB },
        }),
      ),
    );
    const failed = results
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => String(r.reason?.message ?? r.reason));
    assert.equal(failed, [], `${e.name}: every client reads the refusal`);
    for (const r of results) {
      const res = (r as PromiseFulfilledResult<RawResponse>).value;
      assertRefusal(res, 413, e.name);
      assert.is(res.headers.connection, 'close', `${e.name}: Connection: close`);
    }
  }
});

test('6 concurrent chunked clients going over the limit mid-stream read their 413', async () => {
  for (const e of endpoints) {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        rawRequest(e.port, {
          path: e.path,
          headers: { ...e.good, 'Transfer-Encoding': 'chunked' },
          body: { push: 16 * MiB, chunked: true },
        }),
      ),
    );
    const failed = results
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => String(r.reason?.message ?? r.reason));
    assert.equal(failed, [], `${e.name}: every client reads the refusal`);
    for (const r of results) {
      const res = (r as PromiseFulfilledResult<RawResponse>).value;
      assertRefusal(res, 413, `${e.name} (chunked)`);
      assert.ok(res.sentBytes > 4 * MiB, `${e.name}: refused once over the 4 MiB limit, not before (${res.sentBytes})`);
      assert.is(res.headers.connection, 'close', `${e.name}: Connection: close`);
    }
  }
});

test('a request pipelined behind an answer that closes the connection is not processed (RFC 9112 §9.6), and none held up shutdown', async () => {
  const own = await startServe('--rev', '2025-11-25');
  let stderr = '';
  own.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const port = portOf(own);
    const host = `127.0.0.1:${port}`;
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    const opened = await pipelined(
      port,
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: ${init.length}\r\n\r\n${init}`,
      300,
    );
    const sid = /\r\nMcp-Session-Id: (\S+)\r\n/i.exec(opened)?.[1];
    assert.ok(sid, `a session: ${opened}`);
    const session = `Host: ${host}\r\nAccept: ${ACCEPT}\r\nMcp-Session-Id: ${sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n`;
    const call = (id: number, args: Record<string, unknown>, name = 'echo'): string => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
      return `POST /mcp HTTP/1.1\r\n${session}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    // one write: a POST refused before its body (415: the connection closes), then a DELETE of
    // the session and a call, pipelined behind it: neither may run
    const refused = `POST /mcp HTTP/1.1\r\n${session}Content-Type: text/plain\r\nContent-Length: 7\r\n\r\n{"a":1}`;
    const got = await pipelined(
      port,
      `${refused}DELETE /mcp HTTP/1.1\r\n${session}\r\n${call(2, { text: 'pipelined' })}`,
    );
    assert.match(got, /^HTTP\/1\.1 415 /, 'the refusal');
    assert.match(got, /\r\nConnection: close\r\n/i);
    assert.is(got.split('HTTP/1.1 ').length - 1, 1, `one response only: ${got}`);
    const after = await pipelined(port, call(3, { text: 'after' }), 300);
    assert.match(after, /^HTTP\/1\.1 200 /, `the pipelined DELETE did not end the session (${after})`);
    assert.match(after, /"text":"after"/);
    // a call queued behind a slow one on a connection the client then drops counts as ended
    const dropped = pipelined(port, call(4, { seconds: 30 }, 'slow_compute') + call(5, { text: 'queued' }), 300);
    await dropped;
    await new Promise((r) => setTimeout(r, 200));
    const start = Date.now();
    own.proc.kill('SIGTERM');
    assert.is(await own.exited, 0, `exit code (stderr: ${stderr})`);
    assert.not.match(stderr, /in flight/, 'no request left counted as in flight');
    assert.ok(Date.now() - start < 1500, `shut down at once, not after the grace period (${Date.now() - start} ms)`);
  } finally {
    await own.stop();
  }
});

test.run();
