/**
 * Issue 11, finding 4 (continued): a body that never ends is refused in bounded time (408), and
 * the WHATWG `fetch` form of every endpoint refuses on the head without pulling a body byte.
 *
 * The four endpoints as a user builds them (sessions, stateless, the dual-era front over both,
 * HTTP+SSE), with `bodyTimeoutMs: 400`, on a real node:http server; raw sockets send the head
 * and a few body bytes, then nothing.
 */
import { SESSION_TABLES, STATELESS_TABLES } from '../runtime/transport/http/tables.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDualEraHttpHandler } from '../../runtime/stateless/dual-era.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import {
  createLegacySseHandler,
  LegacySseClientTransport,
} from '../../runtime/transport/http/legacy-sse/legacy-sse.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { rawRequest, refusalError } from './raw-http.js';

const ACCEPT = 'application/json, text/event-stream';
const TIMEOUT = 400;
const opts = { bodyTimeoutMs: TIMEOUT };

const sessions = createStreamableHttpHandler({
  ...opts,
  tables: SESSION_TABLES,
  onSession: (t) => void t.start({ onMessage() {}, onClose() {} }),
});
const modern = createStatelessHttpHandler({ ...opts, tables: STATELESS_TABLES });
const dual = createDualEraHttpHandler({
  modern: createStatelessHttpHandler({ ...opts, tables: STATELESS_TABLES }),
  legacy: createStreamableHttpHandler({
    ...opts,
    tables: SESSION_TABLES,
    onSession: (t) => void t.start({ onMessage() {}, onClose() {} }),
  }),
});
const legacy = createLegacySseHandler({ ...opts, onSession: (t) => void t.start({ onMessage() {}, onClose() {} }) });

let http: Server;
let port = 0;
let legacyClient: LegacySseClientTransport;

test.before(async () => {
  http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (legacy.handles(req)) return void legacy(req, res);
    const h = path === '/sessions' ? sessions : path === '/modern' ? modern : dual;
    void h(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
  legacyClient = new LegacySseClientTransport({ url: `http://127.0.0.1:${port}/sse` });
  await legacyClient.start({ onMessage() {}, onClose() {} });
});

test.after(async () => {
  await legacyClient.close();
  await Promise.all([sessions.close(), modern.close(), dual.close(), legacy.close()]);
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});

const targets = (): Array<{ name: string; path: string; headers: Record<string, string> }> => {
  const base = { Host: `127.0.0.1:${port}`, Accept: ACCEPT, 'Content-Type': 'application/json' };
  return [
    { name: 'sessions', path: '/sessions', headers: base },
    {
      name: 'stateless',
      path: '/modern',
      headers: { ...base, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' },
    },
    { name: 'dual-era', path: '/mcp', headers: base },
    {
      name: 'HTTP+SSE',
      path: `/messages?sessionId=${legacyClient.sessionId}`,
      headers: { Host: base.Host, 'Content-Type': 'application/json' },
    },
  ];
};

test('a body that stops arriving gets 408 -32000 with Connection: close, by Content-Length or chunked', async () => {
  for (const t of targets()) {
    for (const [how, headers, trickle] of [
      ['Content-Length', { 'Content-Length': '1000' }, '{"jsonrpc":"2.0",'],
      ['chunked', { 'Transfer-Encoding': 'chunked' }, '5\r\n{"jso\r\n'],
    ] as const) {
      const started = Date.now();
      const res = await rawRequest(port, {
        path: t.path,
        headers: { ...t.headers, ...headers },
        body: { trickle },
        timeoutMs: 15_000,
      }).catch((e: Error) => {
        throw new Error(`${t.name} (${how}): ${e.message}`);
      });
      assert.is(res.status, 408, `${t.name} (${how}): ${res.body}`);
      assert.is(refusalError(res).code, -32000);
      assert.is(res.headers.connection, 'close', `${t.name} (${how})`);
      assert.ok(Date.now() - started >= TIMEOUT - 50, `${t.name} (${how}): not before the timeout`);
    }
  }
});

/** A request body that records whether it was pulled and never ends. */
function endless(): { body: ReadableStream<Uint8Array>; pulled: () => boolean } {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull() {
        pulled = true;
        return new Promise(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => pulled };
}

const within = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no response within 10 s`)), 10_000)),
  ]);

test('fetch form: a head refusal (Host, Origin, Content-Type, Content-Length) never pulls the body', async () => {
  const forms = [
    ['sessions', sessions.fetch],
    ['stateless', modern.fetch],
    ['dual-era', dual.fetch],
  ] as const;
  for (const [name, fetchForm] of forms) {
    for (const [why, url, headers, status] of [
      ['foreign Host', 'http://evil.example/mcp', {}, 403],
      ['foreign Origin', 'http://127.0.0.1/mcp', { Origin: 'http://evil.example' }, 403],
      ['Content-Type', 'http://127.0.0.1/mcp', { 'Content-Type': 'text/plain' }, 415],
      ['Content-Length', 'http://127.0.0.1/mcp', { 'Content-Length': '100000000' }, 413],
    ] as const) {
      const { body, pulled } = endless();
      const request = new Request(url, {
        method: 'POST',
        headers: { Accept: ACCEPT, 'Content-Type': 'application/json', ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
      const res = await within(fetchForm(request), `${name} ${why}`);
      assert.is(res.status, status, `${name} ${why}`);
      const json = (await res.json()) as { id: unknown; error: { code: number } };
      assert.equal(['id' in json, json.error.code], [false, -32000], `${name} ${why}: no id member`);
      assert.not.ok(pulled(), `${name} ${why}: the body was not read`);
    }
  }
});

test('fetch form: a body that stops arriving gets 408; one over the limit mid-stream 413', async () => {
  const forms = [
    ['sessions', sessions.fetch],
    ['stateless', modern.fetch],
    ['dual-era', dual.fetch],
  ] as const;
  for (const [name, fetchForm] of forms) {
    const headers: Record<string, string> = { Accept: ACCEPT, 'Content-Type': 'application/json' };
    if (name === 'stateless')
      Object.assign(headers, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' });
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"jsonrpc":'));
      },
    });
    const slow = await within(
      fetchForm(
        new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: stalled, duplex: 'half' } as RequestInit),
      ),
      `${name} stalled`,
    );
    assert.is(slow.status, 408, name);
    assert.is(((await slow.json()) as { error: { code: number } }).error.code, -32000);
    let sent = 0;
    const big = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const large = await within(
      fetchForm(
        new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: big, duplex: 'half' } as RequestInit),
      ),
      `${name} large`,
    );
    assert.is(large.status, 413, name);
    assert.ok(
      sent > 4 * 1024 * 1024 && sent < 16 * 1024 * 1024,
      `${name}: refused once over the limit (${sent} bytes pulled)`,
    );
  }
});

test.run();
