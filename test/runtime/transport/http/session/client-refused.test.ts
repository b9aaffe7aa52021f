/**
 * A 2025-11-25 client whose SSE reply stream is lost when the server process goes away (its port
 * closed: every reconnection GET refused at connect, ECONNREFUSED): the request fails once the
 * refusals have lasted `reconnect.refusedForMs`, not after every `maxRetries` retry, with the
 * last refusal as `cause` and the attempts and time in the message; with `refusedForMs: Infinity`
 * only `maxRetries` bounds it, same error shape; and a server back on the same port within
 * `refusedForMs` (a restart keeping its sessions, as behind a load balancer with a shared store)
 * resumes the stream: the call completes. Both forms of the transport: node:http and fetch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { handshake, MiniClient, startServer, type TestServer, waitFor } from './helpers.js';

/** The `code` of the first error along `e`'s causes that has one. */
function codeOf(e: unknown): unknown {
  for (let at = e, depth = 0; at && typeof at === 'object' && depth < 6; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Starts a `stream` call on a fresh session and, once its first event arrived, closes the server's port ("the process died"). */
async function lostCall(srv: TestServer, form: 'node:http' | 'fetch', reconnect: Record<string, number>) {
  const transport = new HttpClientTransport({
    url: srv.url,
    standaloneStream: false,
    reconnect,
    ...(form === 'fetch' ? { fetch } : {}),
  });
  const client = new MiniClient(transport);
  await handshake(client, transport);
  const call = client.request('stream', { count: 40, gapMs: 25 });
  call.catch(() => undefined);
  await waitFor('the first event', () => client.notifications.length > 0);
  srv.server.closeAllConnections();
  await new Promise<void>((r) => srv.server.close(() => r()));
  return { transport, client, call, lostAt: Date.now() };
}

for (const form of ['node:http', 'fetch'] as const) {
  test(`${form}: every reconnection refused at connect: the call fails after refusedForMs, cause ECONNREFUSED, attempts and time said`, async () => {
    const srv = await startServer({ replyMode: 'sse', retryMs: 20 });
    const { transport, call, lostAt } = await lostCall(srv, form, {
      initialDelayMs: 20,
      refusedForMs: 300,
      maxRetries: 8,
    });
    try {
      await call;
      assert.unreachable('the call succeeded');
    } catch (e) {
      const failedAfter = Date.now() - lostAt;
      assert.instance(e, ConnectionClosedError);
      assert.is(codeOf((e as Error).cause), 'ECONNREFUSED', String((e as Error).cause));
      const m =
        /refused at connect \(nothing listens there\) for (\d+) ms, .*refusedForMs \(300 ms\); (\d+) attempts over (\d+) ms \(the request may have run\): /.exec(
          (e as Error).message,
        );
      assert.ok(m, (e as Error).message);
      const [refusedFor, attempts, over] = [Number(m[1]), Number(m[2]), Number(m[3])];
      // waits of 20, 30, 45, 67.5, 101, 152 ms: the 6th attempt would pass 300 ms after the first
      // refusal; maxRetries (8) is not reached. Timers only fire late, so only lower bounds of time.
      assert.ok(attempts >= 2 && attempts <= 6, `${attempts} attempts`);
      assert.ok(refusedFor <= over && over <= failedAfter, `${refusedFor} / ${over} / ${failedAfter} ms`);
    } finally {
      await transport.close();
      await srv.handler.close();
    }
  });

  test(`${form}: refusedForMs Infinity: only maxRetries bounds the refused reconnections, same error shape`, async () => {
    const srv = await startServer({ replyMode: 'sse', retryMs: 5 });
    const { transport, call } = await lostCall(srv, form, {
      initialDelayMs: 5,
      refusedForMs: Number.POSITIVE_INFINITY,
      maxRetries: 3,
    });
    try {
      await call;
      assert.unreachable('the call succeeded');
    } catch (e) {
      assert.instance(e, ConnectionClosedError);
      assert.is(codeOf((e as Error).cause), 'ECONNREFUSED');
      assert.match(
        (e as Error).message,
        /could not be re-established after 3 retries; 4 attempts over \d+ ms \(the request may have run\): /,
      );
    } finally {
      await transport.close();
      await srv.handler.close();
    }
  });

  test(`${form}: the server back on its port within refusedForMs (its sessions kept): the stream resumes, the call completes`, async () => {
    const srv = await startServer({ replyMode: 'sse', retryMs: 20 });
    const { transport, client, call } = await lostCall(srv, form, { initialDelayMs: 20, refusedForMs: 5000 });
    const again = createServer(srv.handler);
    try {
      await new Promise((r) => setTimeout(r, 150));
      await new Promise<void>((r) => again.listen(srv.port, '127.0.0.1', r));
      assert.equal(await call, { echo: { count: 40, gapMs: 25 } });
      const got = client.notifications.map((n) => (n.params as { data: { i: number } }).data.i);
      assert.equal(
        got,
        Array.from({ length: 40 }, (_, i) => i),
      );
    } finally {
      await transport.close();
      await srv.handler.close();
      again.closeAllConnections();
      await new Promise<void>((r) => again.close(() => r()));
    }
  });
}

test.run();
