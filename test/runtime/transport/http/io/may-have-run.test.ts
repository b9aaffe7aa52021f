/**
 * A request whose connection was lost after it was written (here: the server resets the
 * connection as the `tools/call` POST arrives) fails with a ConnectionClosedError that says "the
 * request may have run", in both eras (session and stateless transports) and both forms
 * (node:http, fetch), against the real dual-era endpoint on 127.0.0.1. The call is sent with
 * `retry: false`, so that no re-send (request replay) comes between.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

/** The dual-era endpoint, behind a front that resets the connection of every `tools/call` POST (the others pass). */
const resetting = () =>
  startDualEraBehind((method, req) => {
    if (method !== 'tools/call') return false;
    req.socket.destroy();
    return true;
  });

for (const era of ['session', 'stateless'] as const)
  for (const form of ['node:http', 'fetch'] as const)
    test(`${era}, ${form}: a reset after the POST → ConnectionClosedError "(POST tools/call; the request may have run)"`, async () => {
      const s = await resetting();
      const { c, transport } = eraClient(era, form, s.url);
      try {
        await c.connect(transport);
        const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
        assert.instance(e, ConnectionClosedError, String(e));
        assert.match(
          e!.message,
          /^Connection lost before the response \(POST tools\/call; the request may have run\): /,
        );
      } finally {
        await c.close().catch(() => {});
        await s.close();
      }
    });

test.run();
