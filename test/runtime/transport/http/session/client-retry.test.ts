/**
 * The client waits the server's SSE `retry` before it resumes a stream (2025-11-25
 * basic/transports, "Resumability and Redelivery"; the conformance scenario sse-retry): a
 * tools/call reply stream that sends an event ID and `retry: 400`, then ends without the
 * response, is resumed by a GET carrying Last-Event-ID no sooner than 400 ms after the end,
 * though the client's own first delay is 5 ms; the response then arrives on that GET. Both
 * forms of the transport: node:http and fetch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { answerInitialize, handshake, MiniClient } from './helpers.js';

const RETRY_MS = 400;

/** A server like the scenario's: the tools/call stream primes (id, retry) and ends; a GET with Last-Event-ID gets the response. */
async function retryServer() {
  const seen = { endedAt: 0, resumedAt: 0, lastEventId: undefined as string | undefined };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const head = { 'mcp-session-id': 's-1' };
      if (req.method === 'GET') {
        const last = req.headers['last-event-id'];
        if (typeof last !== 'string') return void res.writeHead(405, head).end(); // no standalone stream
        seen.resumedAt = performance.now();
        seen.lastEventId = last;
        res.writeHead(200, { ...head, 'content-type': 'text/event-stream' });
        res.end(`event: message\nid: e-2\ndata: {"jsonrpc":"2.0","id":${pendingId},"result":{"ok":true}}\n\n`);
        return;
      }
      if (req.method === 'DELETE') return void res.writeHead(200, head).end(); // the session's end, at close
      const m = JSON.parse(body) as { id?: number; method: string };
      if (m.method === 'initialize') {
        answerInitialize(res, m.id, head, {}, 's');
      } else if (m.id === undefined) {
        res.writeHead(202, head).end();
      } else {
        pendingId = m.id;
        res.writeHead(200, { ...head, 'content-type': 'text/event-stream' });
        res.write(`id: e-1\nretry: ${RETRY_MS}\ndata: \n\n`);
        setTimeout(() => res.end(() => (seen.endedAt = performance.now())), 20);
      }
    });
  });
  let pendingId = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

for (const form of ['node:http', 'fetch'] as const) {
  test(`${form}: a reply stream that ends before its response is resumed no sooner than its retry (${RETRY_MS} ms), with Last-Event-ID`, async () => {
    const srv = await retryServer();
    const transport = new HttpClientTransport({
      url: srv.url,
      reconnect: { initialDelayMs: 5 },
      ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}),
    });
    const client = new MiniClient(transport);
    try {
      await handshake(client, transport);
      assert.equal(await client.request('tools/call', { name: 'slow' }), { ok: true });
      assert.is(srv.seen.lastEventId, 'e-1');
      const waited = srv.seen.resumedAt - srv.seen.endedAt;
      // a timer fires no sooner than asked (to the millisecond): the stream ended before the client saw it end
      assert.ok(
        waited >= RETRY_MS - 1,
        `resumed ${waited.toFixed(0)} ms after the stream ended, before its retry of ${RETRY_MS} ms`,
      );
    } finally {
      await transport.close();
      await srv.close();
    }
  });
}

test.run();
