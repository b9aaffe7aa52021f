/**
 * Re-sends of a request whose every POST is cut before its response (request replay:
 * ../../../../../runtime/transport/http/io/delivery.ts `resendDelay`, `resendsSpent`): a real
 * node:http server that resets every attempt. The re-sends back off (each wait at least the
 * one before it, doubling with `random` fixed), go past `maxRetries` while `resendForMs` lasts,
 * stop at `maxRetries` once it has passed, and the error says how many times the request was
 * sent, each cut. Through the transport (node:http and fetch forms), a cut before the response
 * head and a reply stream cut before an event ID count together.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import {
  type Cuts,
  deliver,
  type RetryOptions,
  resendDelay,
  retryDelay,
} from '../../../../../runtime/transport/http/io/delivery.js';
import type { HttpRequestInit } from '../../../../../runtime/transport/http/io/request.js';
import { nodeRequester } from '../../../../../runtime/transport/http/io/node-request.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { answerInitialize, handshake, MiniClient } from '../session/helpers.js';

/**
 * A server that advertises request replay, and cuts every POST of `tools/call`: `cut(n)` for the
 * n-th (from 1) says how: 'reset' before the response head, 'stream' after an SSE head (no event ID).
 */
async function cuttingServer(cut: (n: number) => 'reset' | 'stream' = () => 'reset') {
  const arrivals: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const head = { 'mcp-session-id': 's-1' };
      if (req.method === 'GET') return void res.writeHead(405, head).end();
      if (req.method === 'DELETE') return void res.writeHead(200, head).end();
      const m = JSON.parse(body) as { id?: number; method: string };
      if (m.method === 'initialize') {
        return answerInitialize(res, m.id, head, { experimental: { 'mcpgen/requestReplay': {} } }, 's');
      }
      if (m.id === undefined) return void res.writeHead(202, head).end();
      arrivals.push(performance.now());
      if (cut(arrivals.length) === 'reset') return void req.socket.resetAndDestroy();
      res.writeHead(200, { ...head, 'content-type': 'text/event-stream' });
      res.write(': open\n\n', () => setTimeout(() => req.socket.resetAndDestroy(), 5));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const callInit = (): HttpRequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } }),
});

/**
 * What `deliver` of {@link callInit} to `url` (`what` 'POST tools/call', `random` fixed at 0) settles
 * with: undefined for a reply, else its error. Each re-send's wait (ms) is pushed to `waits`;
 * `resend` is asked at each cut.
 */
const deliverCall = (url: string, retry: RetryOptions, waits: number[], resend: (c: Cuts) => boolean = () => true) =>
  deliver(nodeRequester(new URL(url)), callInit(), {
    what: 'POST tools/call',
    retry,
    resend,
    onRetry: (ms) => waits.push(ms),
    random: () => 0,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );

test('deliver: every attempt reset; re-sends back off (doubling, each spaced at least its wait) and stop at maxRetries once resendForMs passed; the error counts them', async () => {
  const srv = await cuttingServer();
  const waits: number[] = [];
  let told: Cuts | undefined;
  try {
    const error = await deliverCall(srv.url, { maxRetries: 3, initialDelayMs: 40, resendForMs: 0 }, waits, (c) => {
      told = c;
      return true;
    });
    assert.instance(error, ConnectionClosedError);
    const message = (error as Error).message;
    assert.ok(
      message.startsWith(
        'Connection lost before the response (POST tools/call; the request may have run): sent 4 times, each cut before the response, re-sends spent after',
      ),
      message,
    );
    assert.is(srv.arrivals.length, 4, 'the first POST and maxRetries (3) re-sends');
    assert.equal(told && { sends: told.sends, cuts: told.cuts }, { sends: 4, cuts: 4 });
    // equal jitter with random 0: half of 40 · 2^n
    assert.equal(waits, [20, 40, 80]);
    for (let i = 0; i < waits.length; i++) {
      const spacing = srv.arrivals[i + 1] - srv.arrivals[i];
      // a timer fires no sooner than asked (to the millisecond)
      assert.ok(
        spacing >= waits[i] - 1,
        `re-send ${i + 1} came ${spacing.toFixed(1)} ms after the cut one, before its wait of ${waits[i]} ms`,
      );
    }
  } finally {
    await srv.close();
  }
});

test('deliver: re-sends go past maxRetries while resendForMs lasts; the error counts every POST', async () => {
  const srv = await cuttingServer();
  const waits: number[] = [];
  try {
    const error = await deliverCall(srv.url, { maxRetries: 1, initialDelayMs: 10, resendForMs: 1500 }, waits);
    assert.instance(error, ConnectionClosedError);
    const sent = srv.arrivals.length;
    assert.ok(sent > 2, `sent ${sent} times: no re-send past maxRetries (1) within resendForMs`);
    assert.ok(
      (error as Error).message.includes(`sent ${sent} times, each cut before the response`),
      (error as Error).message,
    );
    assert.is(waits.length, sent - 1);
    // doubling, the last one cut short by what was left of resendForMs
    for (let i = 0; i < waits.length - 1; i++) assert.is(waits[i], 5 * 2 ** i);
    assert.ok(waits[waits.length - 1] <= 5 * 2 ** (waits.length - 1));
  } finally {
    await srv.close();
  }
});

test('resendDelay: at least maxRetries re-sends, then only within resendForMs of the first cut, no wait past it; none with retry false or maxRetries 0', () => {
  const r = { maxRetries: 2, initialDelayMs: 100, resendForMs: 1000 };
  const at = (cuts: number, now: number) => resendDelay({ sends: cuts, cuts, since: 0 }, r, () => 0, now);
  assert.is(
    at(1, 5000),
    retryDelay(0, undefined, r, () => 0),
  );
  assert.is(at(2, 5000), 100);
  assert.is(at(3, 0), 200, 'past maxRetries, within resendForMs');
  assert.is(at(5, 900), 100, 'the wait cut to what is left of resendForMs');
  assert.is(at(3, 1000), undefined, 'past maxRetries and resendForMs');
  assert.is(
    resendDelay({ sends: 1, cuts: 1, since: 0 }, false, () => 0, 0),
    undefined,
  );
  assert.is(
    resendDelay({ sends: 1, cuts: 1, since: 0 }, { maxRetries: 0 }, () => 0, 0),
    undefined,
  );
  // defaults: 5 re-sends, then until 30 s after the first cut
  assert.ok(resendDelay({ sends: 6, cuts: 6, since: 0 }, undefined, () => 0, 29_000) !== undefined);
  assert.is(
    resendDelay({ sends: 6, cuts: 6, since: 0 }, undefined, () => 0, 30_000),
    undefined,
  );
});

for (const form of ['node:http', 'fetch'] as const) {
  test(`${form} transport: cuts before the response head and reply streams cut before an event ID count together; the error says how many times it was sent`, async () => {
    const srv = await cuttingServer((n) => (n % 2 === 1 ? 'reset' : 'stream'));
    const transport = new HttpClientTransport({
      url: srv.url,
      retry: { maxRetries: 3, initialDelayMs: 40, resendForMs: 0 },
      ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}),
    });
    const client = new MiniClient(transport);
    try {
      await handshake(client, transport);
      const error = await client.request('tools/call', { name: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(error, ConnectionClosedError);
      assert.is(srv.arrivals.length, 4, 'the first POST and maxRetries (3) re-sends');
      const message = (error as Error).message;
      assert.ok(
        message.includes(
          '(POST tools/call; the request may have run): sent 4 times, each cut before the response, re-sends spent',
        ),
        message,
      );
      // equal jitter: at least half of 40 · 2^n between a cut POST and its re-send
      for (let i = 0; i < 3; i++) {
        const spacing = srv.arrivals[i + 1] - srv.arrivals[i];
        assert.ok(spacing >= 20 * 2 ** i - 1, `re-send ${i + 1} came ${spacing.toFixed(1)} ms after the cut one`);
      }
    } finally {
      await transport.close();
      await srv.close();
    }
  });
}

test.run();
