/**
 * Issue 44 (trial): a 404 to one request of a session fails that request only (it was not
 * processed: SessionExpiredError, saying so) and drops the session for later requests
 * (2025-11-25 basic/transports, "Session Management"); a request whose POST was answered with an
 * SSE stream keeps reading that stream to its result, and one whose stream then ends without a
 * result fails with ConnectionClosedError ("may have run"), never SessionExpiredError. Both
 * client forms (node:http, fetch), against a hand-made node:http server over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../../../../runtime/jsonrpc/transport.js';
import { HttpClientTransport as FetchHttpClientTransport } from '../../../../../runtime/transport/http/session/fetch-client.js';
import { HttpClientTransport, SessionExpiredError } from '../../../../../runtime/transport/http/session/node-client.js';
import { answerInitialize, handshake, MiniClient, waitFor } from './helpers.js';

const SID = 'S1';

/**
 * A server whose session is `S1`: `long` is answered with an SSE stream that gives event `e1`
 * (a progress notification) and stays open (its response is `held`); `tools/list` gets 404; a
 * GET (resumption) gets 404.
 */
async function expiringServer() {
  const held: ServerResponse[] = [];
  const gets: string[] = [];
  const server = createServer((q, r) => {
    let body = '';
    q.on('data', (d: Buffer) => (body += d.toString()));
    q.on('end', () => {
      if (q.method === 'DELETE') return void r.writeHead(404).end();
      if (q.method === 'GET') {
        gets.push(String(q.headers['last-event-id']));
        r.writeHead(404, { 'content-type': 'application/json' });
        return void r.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}');
      }
      const m = JSON.parse(body) as JSONRPCMessage;
      if (m.method === 'initialize') return answerInitialize(r, m.id, { 'mcp-session-id': SID }, { tools: {} });
      if (m.id === undefined) return void r.writeHead(202).end();
      if (m.method === 'tools/list') {
        r.writeHead(404, { 'content-type': 'application/json' });
        return void r.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}');
      }
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
      r.write(`id: e1\ndata: ${JSON.stringify(progress)}\n\n`);
      (r as ServerResponse & { requestId?: unknown }).requestId = m.id;
      held.push(r);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    held,
    gets,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function clientOf(form: 'node:http' | 'fetch', url: string) {
  const options = { url, standaloneStream: false, reconnect: { initialDelayMs: 10, maxRetries: 2 } };
  const transport =
    form === 'fetch'
      ? new FetchHttpClientTransport({ ...options, fetch: globalThis.fetch })
      : new HttpClientTransport(options);
  return { transport, client: new MiniClient(transport) };
}

const settle = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e: e as Error }),
  );

/** The error of a call that failed "may have run": a ConnectionClosedError, not the session's expiry. */
function mayHaveRun(outcome: Awaited<ReturnType<typeof settle>>): Error | undefined {
  assert.not.ok(outcome.ok);
  const e = outcome.ok ? undefined : outcome.e;
  assert.instance(e, ConnectionClosedError, String(e));
  assert.not.instance(e, SessionExpiredError);
  assert.match(String(e?.message), 'may have run');
  return e;
}

for (const form of ['node:http', 'fetch'] as const) {
  test(`client (${form}): a 404 to one request fails it (not processed) while a call on its open SSE stream gets its result`, async () => {
    const srv = await expiringServer();
    const { transport, client } = clientOf(form, srv.url);
    let expired = 0;
    transport.onSessionExpired = () => void expired++;
    try {
      await handshake(client, transport);
      const long = settle(client.request('long', {}));
      await waitFor('the long call on its stream', () => srv.held.length === 1 && client.notifications.length === 1);
      const list = await settle(client.request('tools/list'));
      assert.not.ok(list.ok);
      assert.instance(list.ok ? undefined : list.e, SessionExpiredError);
      assert.match(String(list.ok ? '' : list.e.message), 'POST tools/list was not processed');
      assert.is(transport.sessionId, undefined, 'the session is dropped for later requests');
      const r = srv.held[0] as ServerResponse & { requestId?: unknown };
      r.end(`id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: r.requestId, result: { ran: true } })}\n\n`);
      const outcome = await long;
      assert.ok(outcome.ok, outcome.ok ? '' : String(outcome.e));
      assert.equal(outcome.ok && outcome.v, { ran: true });
      assert.is(expired, 1);
    } finally {
      await transport.close();
      await srv.close();
    }
  });

  test(`client (${form}): a call whose stream ends without its result after the session's 404 fails "may have run"`, async () => {
    const srv = await expiringServer();
    const { transport, client } = clientOf(form, srv.url);
    try {
      await handshake(client, transport);
      const long = settle(client.request('long', {}));
      await waitFor('the long call on its stream', () => srv.held.length === 1 && client.notifications.length === 1);
      await settle(client.request('tools/list'));
      srv.held[0]!.end();
      assert.instance(mayHaveRun(await long)?.cause, SessionExpiredError);
    } finally {
      await transport.close();
      await srv.close();
    }
  });

  test(`client (${form}): a call whose stream ended and whose resumption GET is answered 404 fails "may have run"`, async () => {
    const srv = await expiringServer();
    const { transport, client } = clientOf(form, srv.url);
    try {
      await handshake(client, transport);
      const long = settle(client.request('long', {}));
      await waitFor('the long call on its stream', () => srv.held.length === 1 && client.notifications.length === 1);
      srv.held[0]!.end();
      const outcome = await long;
      assert.equal(srv.gets, ['e1'], 'resumed once with its last event ID');
      mayHaveRun(outcome);
      assert.is(transport.sessionId, undefined, 'the 404 dropped the session');
    } finally {
      await transport.close();
      await srv.close();
    }
  });
}

test.run();
