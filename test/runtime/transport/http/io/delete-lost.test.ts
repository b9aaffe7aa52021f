/**
 * The 2025-11-25 client's own requests never hand a raw network error to a caller:
 * `terminateSession()` whose DELETE is reset before the reply rejects with a
 * ConnectionClosedError (-32000) saying the DELETE may have run, the network error its `cause`
 * (it used to reject with that error itself: "socket hang up", or fetch's TypeError). Both forms
 * (node:http, fetch), against the real dual-era endpoint behind a front that resets the DELETE.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import type { HttpClientTransport } from '../../../../../runtime/transport/http/session/fetch-client.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

for (const form of ['node:http', 'fetch'] as const)
  test(`${form}: a DELETE reset before its reply → ConnectionClosedError, may have run, raw error as cause`, async () => {
    const s = await startDualEraBehind((_method, req) => {
      if (req.method !== 'DELETE') return false;
      req.socket.destroy();
      return true;
    });
    const { c, transport } = eraClient('session', form, s.url);
    try {
      await c.connect(transport);
      const e = await failure((transport as HttpClientTransport).terminateSession());
      assert.instance(e, ConnectionClosedError, String(e));
      assert.is((e as ConnectionClosedError).code, -32000);
      assert.match(e!.message, /^Connection lost before the response \(DELETE; the request may have run\): /);
      assert.instance(e!.cause, Error, 'the raw error is the cause');
    } finally {
      await c.close().catch(() => {});
      await s.close();
    }
  });

test.run();
