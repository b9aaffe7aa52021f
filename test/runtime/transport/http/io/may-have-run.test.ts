/**
 * A request whose connection was lost after it was written (here: the server resets the
 * connection as the `tools/call` POST arrives) fails with a ConnectionClosedError that says "the
 * request may have run", in both eras (session and stateless transports) and both forms
 * (node:http, fetch), against the real dual-era endpoint on 127.0.0.1. The call is sent with
 * `retry: false`, so that no re-send (request replay) comes between.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { startDualEraBehind } from '../stateless/helpers.js';

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
      const options = { url: s.url, ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}) };
      const info = { clientInfo: { name: 'c', version: '1' } };
      const c = era === 'session' ? new v2025.Client(info) : new draft.Client(info);
      try {
        await c.connect(
          era === 'session' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options),
        );
        const e = await c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }).then(
          () => undefined,
          (x: unknown) => x as Error,
        );
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
