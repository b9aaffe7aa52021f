/**
 * HttpClientTransport without a `fetch` option: its own node:http path (runtime/transport/
 * http/io/request.ts). SSE replies read from the socket, resumption with Last-Event-ID, close()
 * cutting a request in flight, status errors and unexpected replies, the standalone stream.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClientTransport, HttpStatusError } from '../../../../../runtime/transport/http/session/node-client.js';
import { RequestNotProcessedError } from '../../../../../runtime/jsonrpc/errors.js';
import { initReq, MiniClient, startServer, V, type TestServer, waitFor } from './helpers.js';

async function connect(
  srv: TestServer | string,
  options: Partial<ConstructorParameters<typeof HttpClientTransport>[0]> = {},
) {
  const transport = new HttpClientTransport({
    url: typeof srv === 'string' ? srv : srv.url,
    reconnect: { initialDelayMs: 5 },
    ...options,
  });
  const client = new MiniClient(transport);
  await client.start();
  const result = (await client.request('initialize', initReq().params as Record<string, unknown>)) as {
    protocolVersion: string;
  };
  transport.setProtocolVersion(result.protocolVersion);
  await client.notify('notifications/initialized');
  return { transport, client };
}

/** A raw node:http server answering every request with `answer`. */
async function rawServer(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('SSE replies and the standalone stream over node:http; server-side drops resumed with Last-Event-ID, each event once, in order', async () => {
  const srv = await startServer({ replyMode: 'sse', retryMs: 1 });
  try {
    const { client, transport } = await connect(srv, { reconnect: { initialDelayMs: 1, maxRetries: 50 } });
    let drops = 0;
    const chaos = setInterval(() => {
      drops++;
      void srv.sessions[0]?.closeSseConnection(2);
    }, 4);
    const count = 60;
    const result = await client.request('stream', { count, gapMs: 1 });
    clearInterval(chaos);
    assert.equal(result, { echo: { count, gapMs: 1 } });
    const got = client.notifications.map((n) => (n.params as { data: { i: number } }).data.i);
    assert.equal(
      got,
      Array.from({ length: count }, (_, i) => i),
    );
    assert.ok(drops > 5, `only ${drops} drops`);
    client.notifications.length = 0;
    await client.request('notify');
    await waitFor('the standalone notification', () => client.notifications.length > 0);
    assert.equal((client.notifications[0]!.params as { data: unknown }).data, 'standalone');
    await transport.close();
    assert.is(transport.sessionId, undefined);
  } finally {
    await srv.close();
  }
});

test('close() cuts a POST waiting for its reply: the request fails at once, nothing hangs', async () => {
  const srv = await startServer({ replyMode: 'json' });
  try {
    const { client, transport } = await connect(srv, { standaloneStream: false });
    const slow = client.request('slow', { delayMs: 10_000 }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    // the POST is at the server (its peer got the request): close() cuts a request in flight
    await waitFor('the slow request at the server', () => srv.log.some((r) => r.message.method === 'slow'));
    await transport.close();
    assert.instance(await slow, Error);
  } finally {
    await srv.close();
  }
  // a server that never answers: only the cancellation can end the request
  let received = 0;
  const silent = await rawServer(() => void received++);
  try {
    const transport = new HttpClientTransport({ url: silent.url });
    const client = new MiniClient(transport);
    await client.start();
    const hanging = client.request('tools/list').then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await waitFor('the tools/list POST at the silent server', () => received > 0);
    await transport.close();
    const e = await hanging;
    assert.instance(e, Error);
    assert.is((e as Error).name, 'AbortError');
    try {
      await transport.send({ jsonrpc: '2.0', method: 'notifications/x' });
      assert.unreachable();
    } catch (e) {
      assert.match(String(e), /closed/);
    }
  } finally {
    await silent.close();
  }
});

test('status errors, a JSON-RPC error body for the id, an unexpected Content-Type and a broken JSON body over node:http', async () => {
  let mode = 'text500';
  const raw = await rawServer((req, res, body) => {
    const id = body ? (JSON.parse(body) as { id?: unknown }).id : undefined;
    if (mode === 'text500') res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom');
    else if (mode === 'rpc400')
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32020, message: 'header mismatch' } }));
    else if (mode === 'html') res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>hi</p>');
    else if (mode === 'broken') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"jsonrpc":"2.0",');
      setTimeout(() => req.socket.destroy(), 10);
    } else res.writeHead(202).end();
  });
  const transport = new HttpClientTransport({ url: raw.url });
  const client = new MiniClient(transport);
  await client.start();
  try {
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.instance(e, HttpStatusError);
      assert.is((e as HttpStatusError).status, 500);
      assert.is((e as HttpStatusError).body, 'boom');
    }
    mode = 'rpc400';
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.is((e as { rpc?: { code: number } }).rpc?.code, -32020);
    }
    mode = 'html';
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.match(String(e), /unexpected Content-Type text\/html/);
    }
    mode = 'broken';
    try {
      await client.request('tools/list');
      assert.unreachable();
    } catch (e) {
      assert.match(String(e), /ended early|aborted|socket hang up|ECONNRESET/);
    }
    mode = '202';
    await client.notify('notifications/initialized');
    await transport.close();
  } finally {
    await raw.close();
  }
});

test('a reply that is not JSON-RPC rejects with HttpStatusError: status, Content-Type and the start of the body; an endless one is cut at 1024 characters', async () => {
  let mode = 'endless';
  const raw = await rawServer((_req, res) => {
    if (mode === 'endless') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      // é is two bytes: chunks split inside it still decode
      const chunk = Buffer.from('é'.repeat(700));
      const write = (): void => {
        if (res.destroyed) return;
        res.write(chunk.subarray(0, 501));
        res.write(chunk.subarray(501), () => setTimeout(write, 1));
      };
      write();
    } else if (mode === 'json') res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":');
  });
  const transport = new HttpClientTransport({ url: raw.url });
  const client = new MiniClient(transport);
  await client.start();
  const failure = async (): Promise<HttpStatusError> => {
    try {
      await client.request('tools/list');
    } catch (e) {
      assert.instance(e, HttpStatusError);
      return e as HttpStatusError;
    }
    return assert.unreachable('the request succeeded') as never;
  };
  try {
    const endless = await failure();
    assert.is(endless.status, 200);
    assert.is(endless.contentType, 'text/plain; charset=utf-8');
    assert.is(endless.body, 'é'.repeat(1024));
    assert.match(endless.message, /unexpected Content-Type text\/plain: HTTP 200/);
    mode = 'json';
    const json = await failure();
    assert.is(json.body, '{"status":"ok"}');
    assert.is(json.contentType, 'application/json');
    assert.match(json.message, /the application\/json body is not JSON-RPC: HTTP 200/);
    mode = 'broken';
    const broken = await failure();
    assert.is(broken.body, '{"status":');
    assert.match(broken.message, /the application\/json body is not JSON \(.+\): HTTP 200/);
    await transport.close();
  } finally {
    await raw.close();
  }
});

test('connection refused rejects send (not processed, after the retries); a URL that is not http(s) is refused at construction', async () => {
  const raw = await rawServer((_req, res) => res.end());
  const url = raw.url;
  await raw.close();
  const transport = new HttpClientTransport({ url, retry: { maxRetries: 1, initialDelayMs: 5 } });
  const client = new MiniClient(transport);
  await client.start();
  try {
    await client.request('tools/list');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, RequestNotProcessedError);
    assert.is((e as RequestNotProcessedError).reason, 'not-sent');
    assert.match(String(((e as Error).cause as { code?: string }).code), /ECONNREFUSED/);
  }
  await transport.close();
  assert.throws(() => new HttpClientTransport({ url: 'ftp://127.0.0.1/mcp' }), /unsupported URL scheme ftp:/);
});

test('MCP-Protocol-Version and Mcp-Session-Id go on every request made over node:http', async () => {
  const seen: Array<{ method: string; version?: string; session?: string }> = [];
  const srv = await startServer();
  const spy = createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      version: req.headers['mcp-protocol-version'] as string | undefined,
      session: req.headers['mcp-session-id'] as string | undefined,
    });
    void srv.handler(req, res);
  });
  await new Promise<void>((r) => spy.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(spy.address() as AddressInfo).port}/mcp`;
    const { client, transport } = await connect(url, { standaloneStream: false });
    await client.request('tools/list');
    await transport.close();
    assert.equal(
      seen.map((s) => s.method),
      ['POST', 'POST', 'POST', 'DELETE'],
    );
    assert.is(seen[0].session, undefined);
    for (const s of seen.slice(1)) assert.ok(s.session, `${s.method} without Mcp-Session-Id`);
    for (const s of seen.slice(2)) assert.is(s.version, V);
  } finally {
    spy.closeAllConnections();
    await new Promise<void>((r) => spy.close(() => r()));
    await srv.close();
  }
});

test.run();
