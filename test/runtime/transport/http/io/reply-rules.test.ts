/**
 * One rule per kind of reply to a POST that carried one request, in both eras (session and
 * stateless transports) and both forms (node:http, fetch), against the real dual-era endpoint
 * on 127.0.0.1 behind a front that answers `tools/call` so:
 * - 202 Accepted with no body (a protocol fault: 202 is for notifications and responses) fails
 *   the call at once with ConnectionClosedError naming the status (the 2025 client waited out
 *   its timeout);
 * - an error whose id is null or absent (JSON-RPC 2.0 §5: the server could not read the id), in
 *   a 2xx JSON reply or an SSE reply, is that request's error: RpcError with the server's code
 *   and message; in a non-2xx reply the status decides: HttpStatusError naming the server's
 *   message in the 2025 era (whose servers refuse at the HTTP level with such bodies: 400 for a
 *   missing session id, 405), the server's error in the stateless one (as before);
 * - a JSON array (a batch: 2025-11-25 has none) is refused, HttpStatusError "not JSON-RPC".
 */
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError, RpcError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpStatusError } from '../../../../../runtime/transport/http/io/request.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

const BAD_ID = { code: -32600, message: 'Invalid Request: id unreadable' };
const json = (status: number, body: unknown) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** The server's error, as the caller must see it. */
const serverError = (e: Error | undefined) => {
  assert.ok(e?.constructor === RpcError, `RpcError, not ${e?.constructor?.name}: ${String(e)}`);
  assert.is((e as RpcError).code, BAD_ID.code);
  assert.is((e as RpcError).message, BAD_ID.message);
};

/** A non-2xx error reply with no id: HttpStatusError naming the server's message (session era), the server's error (stateless). */
const byStatus = (e: Error | undefined, era: 'session' | 'stateless') => {
  if (era === 'stateless') return serverError(e);
  assert.instance(e, HttpStatusError, String(e));
  assert.is((e as Error).message, `POST tools/call: HTTP 400 (${BAD_ID.message})`);
};

const cases: [
  string,
  (res: ServerResponse, id: unknown) => void,
  (e: Error | undefined, era: 'session' | 'stateless') => void,
][] = [
  [
    '202 with no body → ConnectionClosedError naming HTTP 202, at once',
    (res) => {
      res.writeHead(202);
      res.end();
    },
    (e) => {
      assert.instance(e, ConnectionClosedError, String(e));
      assert.is(
        e!.message,
        'Connection closed before the response (POST tools/call: HTTP 202, empty body; the request may have run)',
      );
    },
  ],
  [
    '200 JSON error, id null → the server error',
    (res) => json(200, { jsonrpc: '2.0', id: null, error: BAD_ID })(res),
    serverError,
  ],
  ['400 JSON error, id null → by era', (res) => json(400, { jsonrpc: '2.0', id: null, error: BAD_ID })(res), byStatus],
  ['400 JSON error, no id → by era', (res) => json(400, { jsonrpc: '2.0', error: BAD_ID })(res), byStatus],
  [
    'SSE error, id null → the server error',
    (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: BAD_ID })}\n\n`);
    },
    serverError,
  ],
  [
    'a JSON array (batch) → HttpStatusError "not JSON-RPC"',
    (res, id) => json(200, [{ jsonrpc: '2.0', id, result: { content: [] } }])(res),
    (e) => {
      assert.instance(e, HttpStatusError, String(e));
      assert.is(e!.message, 'POST tools/call: the application/json body is not JSON-RPC: HTTP 200');
    },
  ],
];

for (const [name, answer, check] of cases)
  for (const era of ['session', 'stateless'] as const)
    for (const form of ['node:http', 'fetch'] as const)
      test(`${era}, ${form}: ${name}`, async () => {
        const s = await startDualEraBehind((method, _req, res, message) => {
          if (method !== 'tools/call') return false;
          answer(res, message.id);
          return true;
        });
        const { c, transport } = eraClient(era, form, s.url);
        try {
          await c.connect(transport);
          // (a long timeout: a call left waiting fails with RequestTimeoutError, which no check accepts)
          const e = await failure(
            c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false, timeout: 20_000 }),
          );
          check(e, era);
        } finally {
          await c.close().catch(() => {});
          await s.close();
        }
      });

test.run();
