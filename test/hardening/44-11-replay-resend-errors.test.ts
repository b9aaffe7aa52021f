/**
 * Issue 44, the client side of request replay's edges: once a request may have run — it was
 * re-sent after its first POST was cut, or its reply stream gave an event ID before it was lost —
 * every later failure of it is a ConnectionClosedError ("may have run"), never an error that
 * reads as "not run" or as a header error: a re-send answered 400 ("Unknown or expired
 * Last-Event-ID", the answer of a server whose claim outlived the request's stream), 409/410
 * ("ran; its answer is no longer kept", with or without the request's id), or 404 (the session
 * ended meanwhile: the session is still dropped); a resumption GET of a reply stream answered
 * 400 (a resumption answered 404 is one too: expiry-inflight.test.ts). Both client forms (node:http, fetch), against a plain node:http server that cuts
 * and answers as told, over real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError, HttpStatusError, SessionExpiredError } from '../../runtime/index.js';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import { answerInitialize, initialized } from './replay-kit.js';

/** How the server answers the n-th POST (from 0) of a `stream` request, or a GET; `undefined`: 405. */
type Answer = (q: IncomingMessage, r: ServerResponse, m: JSONRPCMessage | undefined, n: number) => void;

const json = (r: ServerResponse, status: number, body: unknown): void => {
  r.writeHead(status, { 'content-type': 'application/json' });
  r.end(JSON.stringify(body));
};
const error = (message: string, id?: unknown) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  error: { code: -32000, message },
});
/** Cuts the connection of a POST after it arrived whole: nothing came back. */
const cut: Answer = (q) => void q.socket.resetAndDestroy();
/** An SSE reply that gives its priming event (an event ID) and then breaks. */
const primedThenLost: Answer = (q, r) => {
  r.writeHead(200, { 'content-type': 'text/event-stream' });
  r.write('id: e1\ndata:\n\n', () => setTimeout(() => q.socket.resetAndDestroy(), 20));
};
/** An SSE reply that breaks before any event ID. */
const lostBeforeEventId: Answer = (q, r) => {
  r.writeHead(200, { 'content-type': 'text/event-stream' });
  r.write(': hello\n\n', () => setTimeout(() => q.socket.resetAndDestroy(), 20));
};

/** A server advertising request replay whose `stream` POSTs and GETs are answered by `post` and `get`. */
async function replayServer(post: Answer[], get?: Answer) {
  let posts = 0;
  let gets = 0;
  const server = createServer((q, r) => {
    let body = '';
    q.on('data', (d: Buffer) => (body += d.toString()));
    q.on('end', () => {
      if (q.method === 'DELETE') return void r.writeHead(204).end();
      if (q.method === 'GET') {
        gets++;
        return get ? get(q, r, undefined, gets - 1) : void r.writeHead(405).end();
      }
      const m = JSON.parse(body) as JSONRPCMessage;
      if (m.method === 'initialize') return answerInitialize(r, m);
      if (m.id === undefined) return void r.writeHead(202).end();
      const n = posts++;
      (post[n] ?? post[post.length - 1]!)(q, r, m, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    get posts() {
      return posts;
    },
    get gets() {
      return gets;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Initializes a client of `form` at `url` and makes one `stream` request; what it failed with. */
async function failure(form: 'node:http' | 'fetch', url: string) {
  const { transport, client } = await initialized(form, url, {
    retry: { maxRetries: 2, initialDelayMs: 10 },
    reconnect: { initialDelayMs: 10, maxRetries: 2 },
  });
  const e = await client.request('stream', {}).then(
    () => undefined,
    (x: unknown) => x,
  );
  const session = transport.sessionId;
  await transport.close();
  return { error: e as Error | undefined, session };
}

/** `error` says "may have run", never "not run" or a header error, and carries the server's words. */
function mayHaveRun(error: Error | undefined, words: string): void {
  assert.instance(error, ConnectionClosedError, String(error));
  assert.not.instance(error, HttpStatusError);
  assert.not.instance(error, SessionExpiredError);
  assert.ok(error!.message.includes(words), error!.message);
}

const lostLastEventId = error('Bad Request: Unknown or expired Last-Event-ID');

for (const form of ['node:http', 'fetch'] as const) {
  test(`client (${form}): a re-send answered 400 "Unknown or expired Last-Event-ID": ConnectionClosedError`, async () => {
    const server = await replayServer([cut, (_q, r) => json(r, 400, lostLastEventId)]);
    try {
      const { error: e } = await failure(form, server.url);
      mayHaveRun(e, 'Unknown or expired Last-Event-ID');
      assert.is(server.posts, 2);
    } finally {
      await server.close();
    }
  });

  test(`client (${form}): a re-send answered 409 "ran; its answer is no longer kept" with the request's id: ConnectionClosedError`, async () => {
    const server = await replayServer([
      cut,
      (_q, r, m) => json(r, 409, error(`Request ${String(m!.id)} ran; its answer is no longer kept`, m!.id)),
    ]);
    try {
      const { error: e } = await failure(form, server.url);
      mayHaveRun(e, 'its answer is no longer kept');
    } finally {
      await server.close();
    }
  });

  test(`client (${form}): a re-send answered 404 (the session ended): ConnectionClosedError, the session dropped`, async () => {
    const server = await replayServer([cut, (_q, r) => json(r, 404, error('Session not found'))]);
    try {
      const { error: e, session } = await failure(form, server.url);
      mayHaveRun(e, 'expired (HTTP 404)');
      assert.is(session, undefined);
    } finally {
      await server.close();
    }
  });

  test(`client (${form}): a reply stream lost before an event ID, its re-send answered 400: ConnectionClosedError`, async () => {
    const server = await replayServer([lostBeforeEventId, (_q, r) => json(r, 400, lostLastEventId)]);
    try {
      const { error: e } = await failure(form, server.url);
      mayHaveRun(e, 'Unknown or expired Last-Event-ID');
      assert.is(server.posts, 2);
    } finally {
      await server.close();
    }
  });

  test(`client (${form}): a reply stream lost after its event ID, the resuming GET answered 400: ConnectionClosedError`, async () => {
    const server = await replayServer([primedThenLost], (_q, r) => json(r, 400, lostLastEventId));
    try {
      const { error: e } = await failure(form, server.url);
      mayHaveRun(e, 'Unknown or expired Last-Event-ID');
      assert.is(server.posts, 1);
      assert.is(server.gets, 1);
    } finally {
      await server.close();
    }
  });
}

test.run();
